"""The honest look-alike of ``deep_defects.py`` (issue 25): the same tools, schemas and
annotations, the same base answers, but every schema-valid edge is accepted or refused cleanly
(an isError result whose message names the field): never a runtime exception, never a hang,
never a crash. A deep run must stay silent on it. Written for mcprobe's tests.

    python deep_clean.py

Where the defective twin fails, this one answers:

  greet        ``""`` or blank: "name must not be empty"
  read_file    a NUL byte: "path must not contain a NUL byte"; a missing file: "file not found:
               <path>" (an ENOENT with its path, as a maintainer would word it)
  tag          ``"[]"``, ``"{}"``, ``"null"``: a string like any other
  repeat       a fraction: "count must be a whole number, got 0.5"; negative: refused
  query_table  ``""``: "table must not be empty"; an unknown table: refused, listing the tables
  search       whitespace only: ``{"results": []}`` at once
  get_page     any page past the last (2**31 included): "page out of range: …"
  list_items   ``[]``: ``{"first": "", "last": "", "count": 0}`` (its outputSchema holds)
  get_setting  ``__proto__``, ``constructor``: "unknown setting: <key>"
  lookup_user  non-ASCII: "user not found: <id>", like every other unknown id
  save_note    any text (non-ASCII included) is read back by ``read_notes`` as written

The three tools both servers share look like defects to a careless oracle and are not:
``echo`` repeats its text verbatim (so an argument containing "TypeError" comes back),
``status`` always answers ``{"success": true, ...}``, and ``wait`` sleeps up to 3 s on a large
``delay_ms`` (a duration field: slow by request, never a hang).

Same files, environment and wire as ``deep_defects.py`` (whose ``Server`` it runs).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # importing the twin must not write a .pyc beside it
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, run as a script
from tests.targets.deep_defects import (  # noqa: E402 (after the lines above)
    HONEST,
    MAX_REPEAT,
    PAGES,
    Json,
    Refused,
    Server,
    Store,
    ToolImpl,
    search_results,
    summary,
    text_result,
)


def greet(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    name: str = args["name"]
    if not name.strip():
        raise Refused("name must not be empty")
    return text_result(f"Hello, {name[0].upper() + name[1:]}!")


def read_file(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    path: str = args["path"]
    if "\x00" in path:
        raise Refused("path must not contain a NUL byte")
    try:
        full = store.inside(path)
        if not full.exists():
            raise Refused(f"file not found: {path}")
        if not full.is_file():
            raise Refused(f"not a file: {path}")
        return text_result(full.read_text(encoding="utf-8", errors="replace"))
    except OSError as exc:
        raise Refused(f"cannot read {path}: {exc.strerror}") from None


def tag(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    label: str = args["label"]
    return text_result(label.strip().lower())


def repeat(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    count = args["count"]
    if count != int(count):
        raise Refused(f"count must be a whole number, got {count}")
    if count < 0:
        raise Refused(f"count must not be negative, got {count}")
    if count > MAX_REPEAT:
        raise Refused(f"count must be at most {MAX_REPEAT}")
    return text_result(args["text"] * int(count))


def query_table(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    table: str = args["table"]
    if table == "":
        raise Refused("table must not be empty")
    with store.lock:
        tables = store.tables()
        if table not in tables:
            raise Refused(f"unknown table: {table} (tables: {', '.join(tables)})")
        rows = store.rows(table)
    return text_result(json.dumps({"success": True, "rows": rows}))


def search(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    query: str = args["query"]
    if query == "":
        raise Refused("query must not be empty")
    return text_result(json.dumps({"results": search_results(store, query.split())}))


def get_page(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    page: int = args["page"]
    if page > PAGES:
        raise Refused(f"page out of range: {page} (pages 1-{PAGES})")
    return text_result(f"audit log page {page}: 10 entries")


def list_items(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    tags: list[str] = args["tags"]
    return summary(tags[0] if tags else "", tags[-1] if tags else "", len(tags))


def get_setting(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    key: str = args["key"]
    entry = store.settings.get(key)
    if entry is None:
        raise Refused(f"unknown setting: {key}")
    return text_result(f"{key} = {entry['value']}")


def lookup_user(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    user_id: str = args["user_id"]
    if not user_id:
        raise Refused("user_id must not be empty")
    name = store.users.get(user_id)
    if name is None:
        raise Refused(f"user not found: {user_id}")
    return text_result(name)


def save_note(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    with store.lock, store.notebook.open("ab") as book:
        book.write(args["text"].encode("utf-8") + b"\n")
    return text_result("note saved")


def read_notes(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    with store.lock:
        data = store.notebook.read_bytes() if store.notebook.exists() else b""
    return text_result(data.decode("utf-8", errors="replace") or "(no notes)")


IMPLEMENTATIONS: dict[str, ToolImpl] = {
    "greet": ToolImpl(greet),
    "read_file": ToolImpl(read_file),
    "tag": ToolImpl(tag),
    "repeat": ToolImpl(repeat),
    "query_table": ToolImpl(query_table),
    "search": ToolImpl(search),
    "get_page": ToolImpl(get_page),
    "list_items": ToolImpl(list_items),
    "get_setting": ToolImpl(get_setting),
    "lookup_user": ToolImpl(lookup_user),
    "save_note": ToolImpl(save_note),
    "read_notes": ToolImpl(read_notes),
    **HONEST,
}


if __name__ == "__main__":
    Server("deep-clean", IMPLEMENTATIONS).run()
