"""A stdio MCP server with one defect per deep-fuzzing oracle (issue 25), each on a schema-valid
edge while its base call (the schema's ``default`` / ``examples``) succeeds. Written for mcprobe's
tests, not copied from any published server; ``deep_clean.py`` is its honest look-alike (the same
tools and schemas, every edge accepted or refused cleanly).

    python deep_defects.py

The defects, one tool each (``DEFECTS`` maps each to its oracle, in ``core/deep/model.Oracle``
words, and the edge that triggers it):

  greet(name)           ``""``: ``name[0]`` raises; a tool error "Error executing tool greet:
                        IndexError: string index out of range"                    (runtimeError)
  read_file(path)       a NUL byte: ``os.path.realpath`` raises; a -32603 error "ValueError:
                        embedded null byte" (a missing file is the OS error with its path)
                                                                                   (runtimeError)
  tag(label)            ``"[]"``, ``"{}"``, ``"null"``: pre-parsed as JSON (as some SDK versions
                        did) and refused with "Input should be a valid string", a type error
                        although the schema says string                     (schemaContradiction)
  repeat(text, count)   ``count`` (type number) ``0.5``: ``range(count)`` raises "TypeError:
                        'float' object cannot be interpreted as an integer"        (runtimeError)
  query_table(table)    ``""``: the name check lets it through, SQLite fails, and the answer is
                        an ok result ``{"success": false, "error": "Database error: …"}``
                                                                                (errorAsSuccess)
  search(query)         whitespace only: the call sleeps ``DEEP_HANG_SECONDS`` (default 60, more
                        than mcprobe's default 30 s call limit) before answering; the base
                        answers in milliseconds; the server keeps serving other requests and
                        drops the late answer of a cancelled call                          (hang)
  get_page(page)        an integer >= 2**31: the "native" page index overflows int32 and the
                        whole process exits (code 70), after a fatal line on stderr       (crash)
  list_items(tags)      ``[]``: an ok result whose structuredContent has ``first: null``, which
                        its outputSchema (a string) forbids                       (outputSchema)
  get_setting(key)      ``__proto__``, ``constructor`` (keys every JavaScript object has): the
                        lookup finds "nothing" and a -32603 "AttributeError: 'NoneType' object
                        has no attribute 'get'" follows; an unknown key is refused cleanly
                                                                                   (runtimeError)
  lookup_user(user_id)  non-ASCII: encoding the id for the store fails and the generic handler
                        hides the reason: a -32603 "Internal error", unlike the field's other
                        refusals (isError "user not found: …")                    (differential)
  save_note(text)       non-ASCII: saved fine (UTF-8), but from then on ``read_notes`` (the
    + read_notes()      read-only tool) fails for good: it decodes the notebook as ASCII
                        ("'ascii' codec can't decode byte …")                       (corruption)

And three honest tools, the same in both servers: ``echo`` (the text back, verbatim), ``status``
(always ``{"success": true, ...}``) and ``wait`` (sleeps ``delay_ms``, at most 3 s: a duration).

Every schema-invalid call (a wrong type, a missing required or an unknown property) is refused
cleanly with isError; only schema-valid edges reach the defects. Runtime errors also write their
traceback to stderr (corroboration for the deep runner's per-call stderr capture).

Files: only under ``$DEEP_TARGET_DIR`` (created if missing, kept) or, without it, a private
temporary directory removed on exit. No network. Exits 0 on stdin EOF. Raw newline-delimited
JSON-RPC on stdio, standard library only, so it starts in milliseconds.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import struct
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Json = Any

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
RO = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}
WRITES = {
    "readOnlyHint": False,
    "destructiveHint": False,
    "idempotentHint": False,
    "openWorldHint": False,
}
MAX_WAIT_MS = 3000
MAX_REPEAT = 1000
PAGES = 3
HANG_SECONDS = float(os.environ.get("DEEP_HANG_SECONDS", "60"))
CRASH_EXIT = 70
STOPPING = threading.Event()
"""Set on stdin EOF: a sleeping call wakes up, so the server exits at once."""


def _string(description: str, **extra: Json) -> dict[str, Json]:
    return {"type": "string", "description": description, **extra}


def _tool(
    name: str,
    description: str,
    properties: dict[str, Json],
    required: tuple[str, ...] = (),
    *,
    annotations: Mapping[str, bool] = RO,
    output: dict[str, Json] | None = None,
) -> dict[str, Json]:
    schema: dict[str, Json] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    tool: dict[str, Json] = {
        "name": name,
        "description": description,
        "inputSchema": schema,
        "annotations": dict(annotations),
    }
    if output is not None:
        tool["outputSchema"] = output
    return tool


TOOLS: tuple[dict[str, Json], ...] = (
    _tool(
        "greet",
        "Greets a person by name, with the first letter capitalised.",
        {"name": _string("The person's name.", examples=["ada"])},
        ("name",),
    ),
    _tool(
        "read_file",
        "Reads a text file of the server's data directory.",
        {"path": _string("File name, relative to the data directory.", default="notes.txt")},
    ),
    _tool(
        "tag",
        "Normalises a tag label: trimmed and in lower case.",
        {"label": _string("The tag label.", examples=["Urgent"])},
        ("label",),
    ),
    _tool(
        "repeat",
        "Repeats a text a number of times.",
        {
            "text": _string("The text to repeat.", default="ab"),
            "count": {"type": "number", "description": "How many times.", "default": 2},
        },
    ),
    _tool(
        "query_table",
        "Returns the rows of one table of the shop database (tables: users, orders).",
        {"table": _string("Table name.", default="users")},
    ),
    _tool(
        "search",
        "Searches user names for the words of a query.",
        {"query": _string("Words to look for.", examples=["ada"])},
        ("query",),
    ),
    _tool(
        "get_page",
        "Returns one page of the audit log (pages 1-3).",
        {"page": {"type": "integer", "minimum": 1, "description": "Page number.", "default": 1}},
    ),
    _tool(
        "list_items",
        "Summarises a list of tags: the first, the last, and how many.",
        {
            "tags": {
                "type": "array",
                "items": {"type": "string"},
                "maxItems": 5,
                "description": "The tags.",
                "examples": [["red", "green"]],
            }
        },
        ("tags",),
        output={
            "type": "object",
            "properties": {
                "first": {"type": "string"},
                "last": {"type": "string"},
                "count": {"type": "integer"},
            },
            "required": ["first", "last", "count"],
        },
    ),
    _tool(
        "get_setting",
        "Returns the value of one setting (theme, language).",
        {"key": _string("Setting name.", default="theme")},
    ),
    _tool(
        "lookup_user",
        "Returns the display name of a user, by id (such as u-1001).",
        {"user_id": _string("User id.", examples=["u-1001"])},
        ("user_id",),
    ),
    _tool(
        "save_note",
        "Appends a note to the notebook.",
        {"text": _string("The note.", examples=["buy milk"])},
        ("text",),
        annotations=WRITES,
    ),
    _tool("read_notes", "Returns every note of the notebook, one a line.", {}),
    _tool(
        "echo",
        "Returns the text it is given, unchanged.",
        {"text": _string("Any text.", examples=["hello"])},
        ("text",),
    ),
    _tool("status", "Reports whether the shop database is reachable.", {}),
    _tool(
        "wait",
        f"Waits delay_ms milliseconds (at most {MAX_WAIT_MS}), then answers.",
        {
            "delay_ms": {
                "type": "integer",
                "minimum": 0,
                "description": "How long to wait, in milliseconds.",
                "default": 10,
            }
        },
    ),
)
TOOLS_BY_NAME = {tool["name"]: tool for tool in TOOLS}

DEFECTS: dict[str, tuple[str, str]] = {
    "greet": ("runtimeError", 'name ""'),
    "read_file": ("runtimeError", "a NUL byte in path"),
    "tag": ("schemaContradiction", 'label "[]", "{}" or "null"'),
    "repeat": ("runtimeError", "count 0.5 (any non-whole number)"),
    "query_table": ("errorAsSuccess", 'table ""'),
    "search": ("hang", "a whitespace-only query"),
    "get_page": ("crash", "page >= 2**31"),
    "list_items": ("outputSchema", "tags []"),
    "get_setting": ("runtimeError", 'key "__proto__" or "constructor"'),
    "lookup_user": ("differential", "a non-ASCII user_id"),
    "save_note": ("corruption", "non-ASCII text, then read_notes"),
}
"""Tool -> (the oracle that should report it, the schema-valid edge that triggers it)."""


# ---------------------------------------------------------------------- results and errors


def text_result(text: str, *, error: bool = False) -> dict[str, Json]:
    result: dict[str, Json] = {"content": [{"type": "text", "text": text}]}
    if error:
        result["isError"] = True
    return result


class Refused(Exception):
    """A clean refusal: answered as an isError result with this message."""


def _json_type(value: Json) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _type_ok(value: Json, wanted: str) -> bool:
    got = _json_type(value)
    return got == wanted or (wanted == "number" and got == "integer")


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def checked_arguments(tool: dict[str, Json], arguments: Json) -> dict[str, Json]:
    """The arguments, validated against the subset of JSON Schema the tools use (types,
    ``required``, ``additionalProperties: false``, ``minimum``, ``maxItems``, string items);
    an integral float for an ``integer`` becomes an int (as a lax validator does), and a string
    with a lone surrogate (valid JSON, not valid Unicode) is refused, so no tool meets one.
    Anything else is a clean refusal naming the field."""
    schema = tool["inputSchema"]
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise Refused("invalid arguments: expected an object")
    properties: dict[str, Json] = schema["properties"]
    out: dict[str, Json] = {}
    for name, value in arguments.items():
        prop = properties.get(name)
        if prop is None:
            raise Refused(f"invalid arguments: unknown property '{name}'")
        wanted = prop["type"]
        if not _type_ok(value, wanted):
            raise Refused(f"invalid arguments: '{name}' must be of type {wanted}")
        if wanted == "integer":
            value = int(value)
        if wanted == "string" and not _encodable(value):
            raise Refused(f"invalid arguments: '{name}' is not valid Unicode (a lone surrogate)")
        if "minimum" in prop and value < prop["minimum"]:
            raise Refused(f"invalid arguments: '{name}' must be at least {prop['minimum']}")
        if wanted == "array":
            if len(value) > prop.get("maxItems", len(value)):
                raise Refused(f"invalid arguments: '{name}' has more than {prop['maxItems']} items")
            if not all(isinstance(item, str) for item in value):
                raise Refused(f"invalid arguments: every item of '{name}' must be a string")
        out[name] = value
    for name in schema.get("required", ()):
        if name not in out:
            raise Refused(f"invalid arguments: '{name}' is required")
    for name, prop in properties.items():
        if name not in out and "default" in prop:
            out[name] = prop["default"]
    return out


# ---------------------------------------------------------------------- state


class Store:
    """The server's data: a directory (notes, the notebook), a small SQLite database and two
    lookup tables. One lock serialises the calls that touch it."""

    def __init__(self) -> None:
        given = os.environ.get("DEEP_TARGET_DIR")
        self.owned = not given
        self.root = Path(given or tempfile.mkdtemp(prefix="mcprobe-deep-target-")).resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        seed = self.root / "notes.txt"
        if not seed.exists():
            seed.write_text("hello from the deep target\n", encoding="utf-8")
        self.notebook = self.root / "notebook.txt"
        self.lock = threading.Lock()
        self.db = sqlite3.connect(":memory:", check_same_thread=False)
        self.db.executescript(
            "CREATE TABLE users (id TEXT, name TEXT);"
            "INSERT INTO users VALUES ('u-1001', 'Ada Lovelace'), ('u-1002', 'Alan Turing');"
            "CREATE TABLE orders (id INTEGER, total REAL);"
            "INSERT INTO orders VALUES (7, 12.5), (8, 3.0);"
        )
        self.users = {"u-1001": "Ada Lovelace", "u-1002": "Alan Turing"}
        self.settings: dict[str, dict[str, str]] = {
            "theme": {"value": "dark"},
            "language": {"value": "en"},
        }

    def tables(self) -> list[str]:
        rows = self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        return [row[0] for row in rows]

    def rows(self, table: str) -> list[list[Json]]:
        sql = f"SELECT * FROM {table}"  # the callers check the name first
        return [list(row) for row in self.db.execute(sql).fetchall()]

    def inside(self, path: str) -> Path:
        """``path`` resolved inside the data directory (a clean refusal otherwise)."""
        full = Path(os.path.realpath(self.root / path))
        if full != self.root and self.root not in full.parents:
            raise Refused(f"path outside the data directory: {path}")
        return full

    def close(self) -> None:
        self.db.close()
        if self.owned:
            shutil.rmtree(self.root, ignore_errors=True)


Handler = Callable[[Store, dict[str, Json]], dict[str, Json]]


@dataclass(frozen=True)
class ToolImpl:
    """How one tool answers, and how an exception it raises is reported: ``"tool"`` as an
    isError result "Error executing tool NAME: Type: message", ``"sdk"`` the same without the
    type name (as the Python SDK words it), ``"rpc"`` as a -32603 error "Type: message",
    ``"hidden"`` as a -32603 error "Internal error" (the reason only on stderr)."""

    handler: Handler
    report: str = "tool"


# ---------------------------------------------------------------------- the honest tools


def echo(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    return text_result(args["text"])


def status(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    with store.lock:
        store.db.execute("SELECT 1").fetchall()
        tables = len(store.tables())
    return text_result(json.dumps({"success": True, "database": "reachable", "tables": tables}))


def wait(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    delay = min(args["delay_ms"], MAX_WAIT_MS)
    STOPPING.wait(delay / 1000)
    return text_result(f"waited {delay} ms")


def summary(first: Json, last: Json, count: int) -> dict[str, Json]:
    data = {"first": first, "last": last, "count": count}
    return {**text_result(json.dumps(data)), "structuredContent": data}


# ---------------------------------------------------------------------- the defective tools


def greet(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    name: str = args["name"]
    return text_result(f"Hello, {name[0].upper() + name[1:]}!")


def read_file(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    full = store.inside(args["path"])  # realpath: ValueError on a NUL byte
    return text_result(full.read_text(encoding="utf-8", errors="replace"))


_PLAIN = (str, int, float)


def tag(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    label: Json = args["label"]
    try:  # "pre-parse JSON-looking strings": what some SDK versions did to every argument
        parsed = json.loads(label)
    except ValueError:
        parsed = label
    if not isinstance(parsed, _PLAIN):
        label = parsed
    if not isinstance(label, str):
        kind = "NoneType" if label is None else type(label).__name__
        raise Refused(
            "Error executing tool tag: 1 validation error for tagArguments\nlabel\n"
            f"  Input should be a valid string [type=string_type, input_value={label!r}, "
            f"input_type={kind}]"
        )
    return text_result(label.strip().lower())


def repeat(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    count = args["count"]
    if count > MAX_REPEAT:
        raise Refused(f"count must be at most {MAX_REPEAT}")
    return text_result("".join(args["text"] for _ in range(count)))


def query_table(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    table: str = args["table"]
    if not table.replace("_", "").isalnum() and table != "":  # the bug: "" passes
        raise Refused(f"invalid table name: {table}")
    with store.lock:
        if table and table not in store.tables():
            raise Refused(f"unknown table: {table}")
        try:
            rows = store.rows(table)
        except sqlite3.Error as exc:
            return text_result(json.dumps({"success": False, "error": f"Database error: {exc}"}))
    return text_result(json.dumps({"success": True, "rows": rows}))


def search_results(store: Store, words: list[str]) -> list[str]:
    lowered = [w.lower() for w in words]
    return [n for n in store.users.values() if any(w in n.lower() for w in lowered)]


def search(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    query: str = args["query"]
    if query == "":
        raise Refused("query must not be empty")
    words = query.split()
    if not words:  # the bug: waits for words that never come
        STOPPING.wait(HANG_SECONDS)
    return text_result(json.dumps({"results": search_results(store, words)}))


def get_page(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    page: int = args["page"]
    try:
        index = struct.pack("<i", page)  # the "native" page index is an int32
    except struct.error as exc:
        sys.stderr.write(f"fatal: page index {page} overflows the native index: {exc}\n")
        sys.stderr.flush()
        os._exit(CRASH_EXIT)
    if page > PAGES:
        raise Refused(f"page out of range: {page} (pages 1-{PAGES})")
    return text_result(f"audit log page {page} (index {index.hex()}): 10 entries")


def list_items(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    tags: list[str] = args["tags"]
    return summary(tags[0] if tags else None, tags[-1] if tags else None, len(tags))


_OBJECT_PROTOTYPE = frozenset(
    {
        "__proto__",
        "constructor",
        "toString",
        "valueOf",
        "hasOwnProperty",
        "isPrototypeOf",
        "propertyIsEnumerable",
        "toLocaleString",
        "__defineGetter__",
        "__defineSetter__",
        "__lookupGetter__",
        "__lookupSetter__",
    }
)
"""The keys ``key in obj`` finds on every plain JavaScript object: what this port keeps."""


def get_setting(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    key: str = args["key"]
    if key not in store.settings and key not in _OBJECT_PROTOTYPE:
        raise Refused(f"unknown setting: {key}")
    entry = store.settings.get(key)
    return text_result(f"{key} = {entry.get('value')}")  # type: ignore[union-attr]


_USER_KEYS = {"u-1001".encode("ascii"): "Ada Lovelace", "u-1002".encode("ascii"): "Alan Turing"}


def lookup_user(store: Store, args: dict[str, Json]) -> dict[str, Json]:
    user_id: str = args["user_id"]
    if not user_id:
        raise Refused("user_id must not be empty")
    name = _USER_KEYS.get(user_id.encode("ascii"))  # the bug: ids are not all ASCII
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
    notes = data.decode("ascii")  # the bug: written as UTF-8, read as ASCII
    return text_result(notes or "(no notes)")


HONEST: dict[str, ToolImpl] = {
    "echo": ToolImpl(echo),
    "status": ToolImpl(status),
    "wait": ToolImpl(wait),
}

IMPLEMENTATIONS: dict[str, ToolImpl] = {
    "greet": ToolImpl(greet, "tool"),
    "read_file": ToolImpl(read_file, "rpc"),
    "tag": ToolImpl(tag),
    "repeat": ToolImpl(repeat, "tool"),
    "query_table": ToolImpl(query_table),
    "search": ToolImpl(search),
    "get_page": ToolImpl(get_page),
    "list_items": ToolImpl(list_items),
    "get_setting": ToolImpl(get_setting, "rpc"),
    "lookup_user": ToolImpl(lookup_user, "hidden"),
    "save_note": ToolImpl(save_note),
    "read_notes": ToolImpl(read_notes, "sdk"),
    **HONEST,
}


# ---------------------------------------------------------------------- the wire


class Server:
    """Newline-delimited JSON-RPC on stdio. Every tools/call runs in its own thread, so a slow
    or hung call never blocks the others, nor ``ping``; a call cancelled by
    ``notifications/cancelled`` is never answered. On stdin EOF the calls in flight finish (a
    sleeping one is woken up), then the private files are removed and the server exits 0."""

    def __init__(self, name: str, implementations: Mapping[str, ToolImpl]) -> None:
        self.name = name
        self.implementations = implementations
        self.store = Store()
        self.write_lock = threading.Lock()
        self.cancelled: set[Json] = set()
        self.calls: list[threading.Thread] = []

    def send(self, message: dict[str, Json]) -> None:
        line = json.dumps(message) + "\n"
        with self.write_lock, suppress(BrokenPipeError):  # a client gone is no error of ours
            sys.stdout.write(line)
            sys.stdout.flush()

    def reply(self, rid: Json, result: dict[str, Json]) -> None:
        if rid in self.cancelled:
            return
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def error(self, rid: Json, code: int, message: str) -> None:
        if rid in self.cancelled:
            return
        self.send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    def run(self) -> None:
        try:
            for line in sys.stdin.buffer:
                if line.strip():
                    self.dispatch(line)
        finally:  # the calls in flight finish (a sleeping one wakes up) before the files go
            STOPPING.set()
            for call in self.calls:
                call.join(timeout=10)
            self.store.close()

    def dispatch(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:  # not JSON, or not UTF-8
            self.error(None, -32700, "Parse error")
            return
        if not isinstance(message, dict):
            self.error(None, -32600, "Invalid Request")
            return
        method, rid = message.get("method"), message.get("id")
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if "id" not in message:
            if method == "notifications/cancelled":
                self.cancelled.add(params.get("requestId"))
            return
        if method == "initialize":
            asked = params.get("protocolVersion")
            self.reply(
                rid,
                {
                    "protocolVersion": asked if asked in VERSIONS else "2025-06-18",
                    "capabilities": {"tools": {"listChanged": False}},
                    "serverInfo": {"name": self.name, "version": "1.0.0"},
                },
            )
        elif method == "ping":
            self.reply(rid, {})
        elif method == "tools/list":
            self.reply(rid, {"tools": list(TOOLS)})
        elif method == "tools/call":
            call = threading.Thread(target=self.call, args=(rid, params), daemon=True)
            self.calls = [*(c for c in self.calls if c.is_alive()), call]
            call.start()
        elif method is None:
            self.error(rid, -32600, "Invalid Request")
        else:
            self.error(rid, -32601, f"Method not found: {method}")

    def call(self, rid: Json, params: dict[str, Json]) -> None:
        name = params.get("name")
        tool = TOOLS_BY_NAME.get(name) if isinstance(name, str) else None
        impl = self.implementations.get(name) if isinstance(name, str) else None
        if tool is None or impl is None:
            self.error(rid, -32602, f"Unknown tool: {name}")
            return
        try:
            result = impl.handler(self.store, checked_arguments(tool, params.get("arguments")))
        except Refused as refusal:
            self.reply(rid, text_result(str(refusal), error=True))
        except Exception as exc:  # the generic handler every server has
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            self.report(rid, str(name), impl.report, exc)
        else:
            self.reply(rid, result)

    def report(self, rid: Json, name: str, how: str, exc: Exception) -> None:
        typed = f"{type(exc).__name__}: {exc}"
        if how == "rpc":
            self.error(rid, -32603, typed)
        elif how == "hidden":
            self.error(rid, -32603, "Internal error")
        elif how == "sdk":
            self.reply(rid, text_result(f"Error executing tool {name}: {exc}", error=True))
        else:
            self.reply(rid, text_result(f"Error executing tool {name}: {typed}", error=True))


if __name__ == "__main__":
    Server("deep-defects", IMPLEMENTATIONS).run()
