"""The fast paths of the security text scans give exactly what the character-by-character loops
they shortcut give.

``visible``, ``_folded`` and ``_hidden_spans`` skip stretches of printable ASCII with a regex
instead of classifying each character, and ``check_homoglyphs`` skips ASCII texts; the loops
below are the definitions (the code as it was before the fast paths), run over hypothesis-made
texts, texts built from the characters each scan treats specially, and every string literal of
the test suite (the attack corpora included). So are the prefilters of ``check_model_instructions``
(one alternation of all its patterns, a fenceless text's blank JSON-fence variant) and the
escaping shortcut of ``pointer``.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from mcprobe.core.lint import security_text
from mcprobe.core.lint.rules import pointer
from mcprobe.core.lint.security_text import (
    _ANY_INSTRUCTION,
    _INSTRUCTION_PATTERNS,
    _PADDING_BLANKS,
    _PADDING_NEWLINES,
    ModelText,
    _benign_joiner,
    _benign_run,
    _blank_words,
    _describe_hidden,
    _folded,
    _hidden_spans,
    _invisible_runs,
    _is_blank,
    _is_invisible,
    _is_tag,
    _json_fences,
    _unquoted,
    check_homoglyphs,
    visible,
)
from mcprobe.core.model import Location
from tests.support.suite_literals import suite_strings


def visible_by_loop(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        j = i + 1
        if _is_tag(ord(ch)):
            while j < len(text) and _is_tag(ord(text[j])):
                j += 1
            decoded = "".join(
                chr(ord(c) - 0xE0000) if 0x20 <= ord(c) - 0xE0000 < 0x7F else "?" for c in text[i:j]
            )
            out.append(f'⟨tags ×{j - i}: "{decoded}"⟩')
        elif _is_invisible(ch):
            while j < len(text) and text[j] == ch:
                j += 1
            out.append(f"⟨U+{ord(ch):04X}{f' ×{j - i}' if j - i > 1 else ''}⟩")
        elif _is_blank(ch):
            while j < len(text) and _is_blank(text[j]):
                j += 1
            run = text[i:j]
            if j - i >= 8:
                out.append(f"⟨{_blank_words(run)}⟩")
            else:
                out.append(" " if "\n" not in run else " ⏎ ")
        else:
            out.append(ch)
        i = j
    return "".join(out)


def folded_by_loop(text: str) -> str:
    return "".join(" " if _is_invisible(c) else c for c in text)


def hidden_spans_by_loop(text: str) -> Iterator[tuple[int, int, str]]:
    i = 0
    while i < len(text):
        ch = text[i]
        if _is_invisible(ch) and not _benign_joiner(text, i):
            j = i + 1
            while j < len(text) and _is_invisible(text[j]) and not _benign_joiner(text, j):
                j += 1
            if not _benign_run(text, i, j):
                yield i, j, _describe_hidden(text[i:j])
            i = j
            continue
        if _is_blank(ch):
            j = i + 1
            while j < len(text) and (_is_blank(text[j]) or _is_invisible(text[j])):
                j += 1
            rest = text[j:].strip()
            run = text[i:j]
            long_run = run.count("\n") >= _PADDING_NEWLINES or len(run) >= _PADDING_BLANKS
            if long_run and rest:
                yield i, j, f"a run of {j - i} blank characters that pushes the text after it "
                "out of sight"
                i = j
                continue
            yield from _invisible_runs(text, i, j)
            i = j
            continue
        i += 1


def _homoglyph_messages(text: str) -> list[str]:
    t = ModelText(Location("t"), "the description of tool `t`", text, "description", "t")
    return [f.message for f in check_homoglyphs([t])]


def _agree(text: str) -> None:
    assert visible(text) == visible_by_loop(text), repr(text)
    assert _folded(text) == folded_by_loop(text), repr(text)
    assert list(_hidden_spans(text)) == list(hidden_spans_by_loop(text)), repr(text)


# Every kind of character the scans tell apart, and the ASCII around them.
_SPECIAL = [
    " ",
    "  ",
    "\t",
    "\n",
    "\r",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1f",
    "\x00",
    "\x7f",
    "\x85",
    "\xa0",
    "\xad",
    "\u115f",
    "\u180e",
    "\u2000",
    "\u200b",
    "\u200c",
    "\u200d",
    "\u200e",
    "\u2028",
    "\u202e",
    "\u2060",
    "\u2066",
    "\u3000",
    "\ufe0f",
    "\ufeff",
    "\U000e0001",
    "\U000e0041",
    "\U000e007f",
    "\U000e0100",
    "\U0001f3f4",
    "\x1b[31m",
    "😀",
    "é",
    "а",
    "a",
    "Z",
    "~",
    "`",
    ".",
    "x y",
]


def test_the_fast_paths_agree_with_the_loops_on_mixed_special_characters() -> None:
    rng = random.Random(21)
    for _ in range(20_000):
        text = "".join(rng.choice(_SPECIAL) for _ in range(rng.randint(0, 24)))
        _agree(text)


def test_the_fast_paths_agree_with_the_loops_on_long_blank_runs() -> None:
    rng = random.Random(5)
    for _ in range(2_000):
        pad = "".join(rng.choice(" \t\n\u200b") for _ in range(rng.randint(0, 60)))
        text = rng.choice(["", "a", "Adds. "]) + pad + rng.choice(["", "b", " ", "\u200b x"])
        _agree(text)


def test_the_fast_paths_agree_with_the_loops_on_every_string_of_the_test_suite() -> None:
    for text in suite_strings():
        _agree(text)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80) | st.lists(st.sampled_from(_SPECIAL), max_size=30).map("".join))
def test_the_fast_paths_agree_with_the_loops_on_any_text(text: str) -> None:
    _agree(text)


def test_an_ascii_text_has_no_homoglyph_and_a_mixed_word_still_has() -> None:
    # The ASCII shortcut is exact: every ASCII letter is LATIN, so no word mixes two scripts.
    for cp in range(0x80):
        ch = chr(cp)
        if ch.isalpha():
            assert unicodedata.name(ch).split(" ", 1)[0] == "LATIN"
    assert _homoglyph_messages("plain ascii words only") == []
    assert _homoglyph_messages("pаypal login") != []  # Cyrillic а


def test_the_plain_pattern_only_copies_characters_that_show_as_themselves() -> None:
    for cp in range(0x80):
        ch = chr(cp)
        if security_text._PLAIN.fullmatch(ch + "a"):
            assert not _is_invisible(ch) and not _is_tag(cp)
            assert visible_by_loop(ch + "a") == ch + "a"


def _pointer_by_loop(*tokens: str | int) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(alphabet="a~/0 é", max_size=4) | st.integers(-2, 12), max_size=5))
def test_a_pointer_is_the_escaped_tokens_joined(tokens: list[str | int]) -> None:
    assert pointer(*tokens) == _pointer_by_loop(*tokens)


def test_a_pointer_escapes_tilde_and_slash_and_the_empty_pointer_is_empty() -> None:
    assert pointer() == ""
    assert pointer("") == "/"
    assert pointer("", "") == "//"
    assert pointer("a/b", "~", 0) == "/a~1b/~0/0"
    assert pointer("inputSchema", "properties", "q") == "/inputSchema/properties/q"


def test_the_instruction_prefilter_matches_exactly_when_one_pattern_does() -> None:
    rng = random.Random(3)
    texts = list(suite_strings())
    words = [w for t in texts for w in t.split()][:20_000]
    for _ in range(3_000):
        texts.append(" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))))
    for text in texts:
        for variant in (_unquoted(_folded(text)), _json_fences(_folded(text))):
            expected = any(p.search(variant) for p, _ in _INSTRUCTION_PATTERNS)
            assert (_ANY_INSTRUCTION.search(variant) is not None) is expected, variant


def test_a_text_without_a_fence_has_only_blanks_for_its_json_fences() -> None:
    for text in suite_strings():
        if "```" not in text and "~~~" not in text:
            assert _json_fences(text) == " " * len(text)
    assert _json_fences('see ```json\n{"a": "b"}\n```').strip() == "{ a :  b }"


def test_no_instruction_pattern_matches_blank_text() -> None:
    """So ``check_model_instructions`` skips a fenceless text's JSON-fence variant (all blanks)."""
    for length in range(600):
        blank = " " * length
        assert _ANY_INSTRUCTION.search(blank) is None
        assert all(pattern.search(blank) is None for pattern, _ in _INSTRUCTION_PATTERNS)


def _repeated_texts() -> list[ModelText]:
    """Every string of the suite twice, under other tools and kinds: what the scans remember."""
    kinds = ("description", "name", "content", "title")
    return [
        ModelText(Location(f"tool_{i}", pointer="/description"), f"the text {i}", text, kind, "t")
        for i, text in enumerate([*suite_strings(), *suite_strings()])
        for kind in (kinds[i % len(kinds)],)
    ]


def test_the_text_scans_find_in_a_repeated_text_what_they_find_in_it_alone() -> None:
    """``check_model_instructions`` and ``check_hidden_characters`` remember the texts they found
    clean within one run; a text with a finding is judged again wherever it comes back."""
    texts = _repeated_texts()
    for check in (security_text.check_model_instructions, security_text.check_hidden_characters):
        alone = [finding for text in texts for finding in check([text])]
        assert alone, check  # the corpus has texts each scan reports
        assert list(check(texts)) == alone, check
