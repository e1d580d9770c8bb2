"""Which read-only tools re-read after a writing tool's ok edge (``core/deep/readers.py``)."""

from __future__ import annotations

from mcprobe.core.deep.readers import related_readers


def test_a_reader_sharing_the_writers_noun_comes_first_whatever_its_place_in_the_listing() -> None:
    readers = ["greet", "read_file", "tag", "repeat", "query_table", "search", "read_notes"]
    assert related_readers("save_note", readers, 5)[0] == "read_notes"


def test_plural_and_camel_case_nouns_match_their_singular() -> None:
    assert related_readers("addRow", ["get_time", "queryRows"], 1) == ["queryRows"]


def test_without_a_shared_noun_the_readers_keep_their_listing_order_up_to_the_limit() -> None:
    assert related_readers("save_note", ["a_tool", "b_tool", "c_tool"], 2) == ["a_tool", "b_tool"]


def test_verbs_alone_relate_nothing() -> None:
    # "read" and "save" are verbs: "read_file" is not save_state's reader because of them.
    assert related_readers("save_state", ["read_file", "get_state"], 2) == [
        "get_state",
        "read_file",
    ]
