"""The deep-fuzzing targets really misbehave as documented (issue 25), so the feature's tests can
rely on them: each defect of tests/targets/deep_defects.py occurs on its schema-valid edge and
never on the base, and the honest look-alike tests/targets/deep_clean.py answers the same edge
cleanly. Raw newline-delimited JSON-RPC over the real stdio of a real process, no SDK and no
mcprobe client in between, so what these tests see is what any client sees."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest

from mcprobe.core.schema.dialect import instance_errors
from tests.targets import DEEP_CLEAN, DEEP_DEFECTS
from tests.targets.deep_defects import DEFECTS, TOOLS_BY_NAME

DEFECTIVE = DEEP_DEFECTS
CLEAN = DEEP_CLEAN
ANSWER = 20.0  # generous wait for an answer that must come (never asserted on)
SHORT = 1.0  # how long the hang test waits for the answer that must not come
SIGNATURES = ("Error:", "Error executing", "codec can't", "object has no attribute", "Traceback")


class Stdio:
    """One target process and a raw JSON-RPC conversation with it. Its stdout and stderr are
    read by threads, so a target that writes a lot never blocks and a missing answer is a
    ``None`` after a wait rather than a stuck test."""

    def __init__(self, script: Path, data_dir: Path, **env: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=data_dir,
            env={**os.environ, "DEEP_TARGET_DIR": str(data_dir), **env},
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.stderr: list[bytes] = []
        self.next_id = 0
        threading.Thread(target=self._pump, daemon=True).start()
        self.stderr_reader = threading.Thread(target=self._drain, daemon=True)
        self.stderr_reader.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in iter(self.proc.stdout.readline, b""):
            self.lines.put(line)
        self.lines.put(b"")  # end of file

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        self.stderr.extend(iter(self.proc.stderr.readline, b""))

    def stderr_text(self) -> str:
        """Everything the target wrote on stderr (call after it exited)."""
        self.stderr_reader.join(ANSWER)
        return b"".join(self.stderr).decode("utf-8", "replace")

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any], wait: float = ANSWER) -> Any:
        """The message answering this request, or None when none came within ``wait`` seconds
        or the target closed its stdout first."""
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            try:
                line = self.lines.get(timeout=wait)
            except queue.Empty:
                return None
            if not line:
                self.lines.put(b"")  # keep the end of file for the next reader
                return None
            message = json.loads(line)
            if message.get("id") == rid:
                return message

    def call(self, name: str, arguments: dict[str, Any], wait: float = ANSWER) -> Any:
        return self.request("tools/call", {"name": name, "arguments": arguments}, wait)

    def close(self) -> int:
        """Close stdin (the end of the session) and return the exit code; a target still
        running after the wait is killed, and the test fails."""
        assert self.proc.stdin is not None
        with suppress(BrokenPipeError):
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=ANSWER)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            pytest.fail("the target did not exit on stdin EOF")


def _open(script: Path, data_dir: Path, **env: str) -> Stdio:
    target = Stdio(script, data_dir, **env)
    init = target.request(
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    )
    assert init is not None and "result" in init, init
    target.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return target


@pytest.fixture
def defective(tmp_path: Path) -> Iterator[Stdio]:
    target = _open(DEFECTIVE, tmp_path)
    try:
        yield target
    finally:
        if target.proc.poll() is None:
            assert target.close() == 0


@pytest.fixture
def clean(tmp_path: Path) -> Iterator[Stdio]:
    target = _open(CLEAN, tmp_path)
    try:
        yield target
    finally:
        assert target.close() == 0


@pytest.fixture(scope="module")
def shared_defective(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stdio]:
    """One defective target for the tables of stateless edges (one process, not one each)."""
    target = _open(DEFECTIVE, tmp_path_factory.mktemp("shared-defective"))
    yield target
    assert target.close() == 0


@pytest.fixture(scope="module")
def shared_clean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stdio]:
    target = _open(CLEAN, tmp_path_factory.mktemp("shared-clean"))
    yield target
    assert target.close() == 0


def text(message: Any) -> str:
    assert message is not None, "no answer"
    assert "result" in message, message
    return "".join(part.get("text", "") for part in message["result"]["content"])


def ok(message: Any) -> str:
    assert message is not None and "result" in message, message
    assert message["result"].get("isError") is not True, message
    return text(message)


def refused(message: Any) -> str:
    """The text of a clean refusal: an isError result with no exception signature in it."""
    assert message is not None and "result" in message, message
    assert message["result"].get("isError") is True, message
    words = text(message)
    assert not any(sign in words for sign in SIGNATURES), words
    return words


def rpc_error(message: Any) -> dict[str, Any]:
    assert message is not None and "error" in message, message
    error: dict[str, Any] = message["error"]
    return error


def valid(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments``, asserted valid against the tool's listed inputSchema: every edge here is
    one the schema allows."""
    assert instance_errors(TOOLS_BY_NAME[tool]["inputSchema"], arguments) == ()
    return arguments


def base(tool: str, *, optional: bool = True) -> dict[str, Any]:
    """The base call as mcprobe builds it: each property's ``default``, else its first
    ``examples`` entry (only the required ones when ``optional`` is False)."""
    schema = TOOLS_BY_NAME[tool]["inputSchema"]
    required = set(schema.get("required", ()))
    arguments = {
        name: prop["default"] if "default" in prop else prop["examples"][0]
        for name, prop in schema["properties"].items()
        if optional or name in required
    }
    return valid(tool, arguments)


def listing(target: Stdio) -> list[dict[str, Any]]:
    message = target.request("tools/list", {})
    assert message is not None
    tools: list[dict[str, Any]] = message["result"]["tools"]
    return tools


# ---------------------------------------------------------------------- both targets


def test_both_targets_list_the_same_tools_schemas_and_annotations(
    defective: Stdio, clean: Stdio
) -> None:
    tools = listing(defective)
    assert tools == listing(clean)
    names = [t["name"] for t in tools]
    assert set(DEFECTS) <= set(names) and {"echo", "status", "wait"} <= set(names)
    hints = {t["name"]: t["annotations"]["readOnlyHint"] for t in tools}
    assert [name for name, read_only in hints.items() if not read_only] == ["save_note"]
    assert {oracle for oracle, _ in DEFECTS.values()} == {
        "crash",
        "hang",
        "runtimeError",
        "errorAsSuccess",
        "schemaContradiction",
        "differential",
        "outputSchema",
        "corruption",
    }


@pytest.mark.parametrize("optional", [True, False], ids=["all-properties", "required-only"])
@pytest.mark.parametrize("script", [DEFECTIVE, CLEAN], ids=["defective", "clean"])
def test_every_base_call_succeeds_and_keeps_its_output_schema(
    script: Path, optional: bool, tmp_path: Path
) -> None:
    target = _open(script, tmp_path)
    try:
        for tool in listing(target):
            answer = target.call(tool["name"], base(tool["name"], optional=optional))
            assert ok(answer), tool["name"]
            if "outputSchema" in tool:
                structured = answer["result"]["structuredContent"]
                assert instance_errors(tool["outputSchema"], structured) == ()
    finally:
        assert target.close() == 0


@pytest.mark.parametrize("script", [DEFECTIVE, CLEAN], ids=["defective", "clean"])
@pytest.mark.parametrize(
    ("tool", "arguments", "words"),
    [
        ("greet", {"name": 7}, "'name' must be of type string"),
        ("greet", {}, "'name' is required"),
        ("repeat", {"count": "2"}, "'count' must be of type number"),
        ("get_page", {"page": 0}, "'page' must be at least 1"),
        ("get_page", {"page": 1.5}, "'page' must be of type integer"),
        ("list_items", {"tags": [1]}, "every item of 'tags' must be a string"),
        ("echo", {"text": "a", "extra": 1}, "unknown property 'extra'"),
    ],
)
def test_a_schema_invalid_call_is_refused_cleanly_by_both_targets(
    script: Path, tool: str, arguments: dict[str, Any], words: str, tmp_path: Path
) -> None:
    assert instance_errors(TOOLS_BY_NAME[tool]["inputSchema"], arguments) != ()
    target = _open(script, tmp_path)
    try:
        assert words in refused(target.call(tool, arguments))
    finally:
        assert target.close() == 0


@pytest.mark.parametrize("script", [DEFECTIVE, CLEAN], ids=["defective", "clean"])
def test_a_lone_surrogate_is_refused_cleanly_by_both_targets(script: Path, tmp_path: Path) -> None:
    """Valid JSON text (``"\\ud800"``) but no valid Unicode: refused before any tool sees it,
    so no tool's defect depends on how a server copes with one."""
    target = _open(script, tmp_path)
    try:
        for tool, field in (("save_note", "text"), ("read_file", "path"), ("greet", "name")):
            answer = target.call(tool, {field: "a\ud800"})
            assert refused(answer) == (
                f"invalid arguments: '{field}' is not valid Unicode (a lone surrogate)"
            )
    finally:
        assert target.close() == 0


def test_echo_repeats_an_argument_naming_an_exception_verbatim(defective: Stdio) -> None:
    said = "TypeError: 'float' object cannot be interpreted as an integer"
    assert ok(defective.call("echo", valid("echo", {"text": said}))) == said


def test_status_always_answers_success_true(defective: Stdio, clean: Stdio) -> None:
    for target in (defective, clean):
        assert json.loads(ok(target.call("status", {})))["success"] is True


def test_wait_is_capped_at_three_seconds_on_a_huge_delay(clean: Stdio) -> None:
    """A duration field: slow by request, and answered (shared by both targets)."""
    assert ok(clean.call("wait", valid("wait", {"delay_ms": 2**31}))) == "waited 3000 ms"
    assert ok(clean.call("wait", valid("wait", {"delay_ms": 0}))) == "waited 0 ms"


def test_without_a_data_dir_a_target_writes_only_a_private_temp_dir_removed_on_exit(
    tmp_path: Path,
) -> None:
    temp, cwd = tmp_path / "tmp", tmp_path / "cwd"
    temp.mkdir()
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "DEEP_TARGET_DIR"}
    proc = subprocess.Popen(
        [sys.executable, str(DEFECTIVE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
        env={**env, "TMPDIR": str(temp)},
    )
    call = {"name": "save_note", "arguments": {"text": "kept in the temp dir"}}
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
    ]
    out, _ = proc.communicate(b"".join(json.dumps(m).encode() + b"\n" for m in lines), ANSWER)
    assert proc.returncode == 0
    assert b"note saved" in out
    assert list(temp.iterdir()) == [] and list(cwd.iterdir()) == []


# ---------------------------------------------------------------------- the defects


def test_an_empty_name_makes_greet_raise_an_index_error_in_a_tool_error(
    defective: Stdio,
) -> None:
    assert ok(defective.call("greet", base("greet"))) == "Hello, Ada!"
    answer = defective.call("greet", valid("greet", {"name": ""}))
    assert answer["result"]["isError"] is True
    assert text(answer) == "Error executing tool greet: IndexError: string index out of range"
    assert defective.close() == 0
    assert "Traceback" in defective.stderr_text()  # the server's own log: corroboration
    assert "IndexError: string index out of range" in defective.stderr_text()


@pytest.mark.parametrize("name", [" ", "\x00", "[]", "__proto__", "é", "a" * 500])
def test_greet_s_other_edges_are_no_defect(shared_defective: Stdio, name: str) -> None:
    assert ok(shared_defective.call("greet", valid("greet", {"name": name}))).startswith("Hello, ")


def test_a_nul_byte_in_a_path_is_a_value_error_in_an_internal_error(defective: Stdio) -> None:
    assert ok(defective.call("read_file", base("read_file"))) == "hello from the deep target\n"
    for path in ("\x00", "notes.txt\x00.png"):
        error = rpc_error(defective.call("read_file", valid("read_file", {"path": path})))
        assert error == {"code": -32603, "message": "ValueError: embedded null byte"}


def test_a_missing_file_is_an_errno_naming_its_path_not_the_nul_defect(
    defective: Stdio, tmp_path: Path
) -> None:
    error = rpc_error(defective.call("read_file", valid("read_file", {"path": "nope.txt"})))
    assert error["code"] == -32603
    assert error["message"] == (
        f"FileNotFoundError: [Errno 2] No such file or directory: '{tmp_path / 'nope.txt'}'"
    )


@pytest.mark.parametrize(
    ("label", "kind"), [("[]", "list"), ("{}", "dict"), ("null", "NoneType"), ("[1]", "list")]
)
def test_a_json_looking_label_is_refused_with_a_string_type_error(
    shared_defective: Stdio, label: str, kind: str
) -> None:
    assert ok(shared_defective.call("tag", base("tag"))) == "urgent"
    answer = shared_defective.call("tag", valid("tag", {"label": label}))
    assert answer["result"]["isError"] is True
    assert "Input should be a valid string [type=string_type" in text(answer)
    assert f"input_type={kind}]" in text(answer)


@pytest.mark.parametrize("label", ["123", "true", '"x"', "", "[", "__proto__"])
def test_a_label_that_parses_to_a_plain_value_or_not_at_all_is_tagged(
    shared_defective: Stdio, label: str
) -> None:
    assert ok(shared_defective.call("tag", valid("tag", {"label": label}))) == label.strip().lower()


@pytest.mark.parametrize("count", [0.5, 0.25, 2.5, -0.0])
def test_a_non_whole_count_makes_repeat_raise_a_type_error(
    shared_defective: Stdio, count: float
) -> None:
    assert ok(shared_defective.call("repeat", base("repeat"))) == "abab"
    answer = shared_defective.call("repeat", valid("repeat", {"count": count}))
    assert answer["result"]["isError"] is True
    assert text(answer) == (
        "Error executing tool repeat: TypeError: 'float' object cannot be interpreted as an integer"
    )


@pytest.mark.parametrize(("count", "answer"), [(0, ""), (-1, ""), (3, "ababab")])
def test_a_whole_count_is_no_defect(shared_defective: Stdio, count: int, answer: str) -> None:
    assert ok(shared_defective.call("repeat", valid("repeat", {"count": count}))) == answer


def test_a_huge_count_is_refused_cleanly(defective: Stdio) -> None:
    answer = defective.call("repeat", valid("repeat", {"count": 2**31}))
    assert refused(answer) == "count must be at most 1000"


def test_an_empty_table_name_is_a_database_error_dressed_as_success(defective: Stdio) -> None:
    assert json.loads(ok(defective.call("query_table", base("query_table"))))["success"] is True
    answer = defective.call("query_table", valid("query_table", {"table": ""}))
    assert "isError" not in answer["result"]
    assert json.loads(text(answer)) == {
        "success": False,
        "error": "Database error: incomplete input",
    }


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ("nope", "unknown table: nope"),
        (" ", "invalid table name:  "),
        ("[]", "invalid table name: []"),
        ("users; DROP TABLE users", "invalid table name: users; DROP TABLE users"),
        ("__proto__", "unknown table: __proto__"),
    ],
)
def test_query_table_s_other_edges_are_clean_refusals(
    shared_defective: Stdio, table: str, words: str
) -> None:
    assert (
        refused(shared_defective.call("query_table", valid("query_table", {"table": table})))
        == words
    )


def test_a_whitespace_query_hangs_while_the_server_keeps_answering_and_exits_on_eof(
    defective: Stdio,
) -> None:
    assert json.loads(ok(defective.call("search", base("search")))) == {"results": ["Ada Lovelace"]}
    assert defective.call("search", valid("search", {"query": " \t\n"}), wait=SHORT) is None
    hung = defective.next_id
    assert defective.request("ping", {}) == {"jsonrpc": "2.0", "id": hung + 1, "result": {}}
    assert refused(defective.call("search", valid("search", {"query": ""}))) == (
        "query must not be empty"
    )
    defective.send(
        {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": hung, "reason": "timed out"},
        }
    )
    assert defective.close() == 0  # the sleeping call keeps nothing alive


def test_a_page_of_two_to_the_31_or_more_kills_the_process(tmp_path: Path) -> None:
    for page in (2**31, 2**53 + 1):
        target = _open(DEFECTIVE, tmp_path)
        assert ok(target.call("get_page", base("get_page"))).startswith("audit log page 1")
        edge = valid("get_page", {"page": 2**31 - 1})
        assert refused(target.call("get_page", edge)) == "page out of range: 2147483647 (pages 1-3)"
        assert target.call("get_page", valid("get_page", {"page": page})) is None
        assert target.proc.wait(timeout=ANSWER) == 70
        assert target.close() == 70
        assert f"fatal: page index {page} overflows the native index" in target.stderr_text()


def test_an_empty_tag_list_breaks_the_output_schema_of_an_ok_result(defective: Stdio) -> None:
    schema = TOOLS_BY_NAME["list_items"]["outputSchema"]
    good = defective.call("list_items", base("list_items"))
    assert instance_errors(schema, good["result"]["structuredContent"]) == ()
    bad = defective.call("list_items", valid("list_items", {"tags": []}))
    assert ok(bad)
    assert bad["result"]["structuredContent"] == {"first": None, "last": None, "count": 0}
    assert instance_errors(schema, bad["result"]["structuredContent"]) != ()


@pytest.mark.parametrize("key", ["__proto__", "constructor", "toString"])
def test_a_prototype_key_makes_get_setting_raise_an_attribute_error(
    shared_defective: Stdio, key: str
) -> None:
    assert ok(shared_defective.call("get_setting", base("get_setting"))) == "theme = dark"
    error = rpc_error(shared_defective.call("get_setting", valid("get_setting", {"key": key})))
    assert error == {
        "code": -32603,
        "message": "AttributeError: 'NoneType' object has no attribute 'get'",
    }
    unknown = valid("get_setting", {"key": "colour"})
    assert refused(shared_defective.call("get_setting", unknown)) == "unknown setting: colour"


def test_a_non_ascii_user_id_is_a_reasonless_internal_error_unlike_the_other_refusals(
    defective: Stdio,
) -> None:
    assert ok(defective.call("lookup_user", base("lookup_user"))) == "Ada Lovelace"
    others = [
        refused(defective.call("lookup_user", valid("lookup_user", {"user_id": v})))
        for v in ("", " ", "u-9999", "\x00", "[]", "__proto__")
    ]
    assert others == [
        "user_id must not be empty",
        "user not found:  ",
        "user not found: u-9999",
        "user not found: \x00",
        "user not found: []",
        "user not found: __proto__",
    ]
    for user_id in ("é", "u-1001é", "ü", "用户"):
        error = rpc_error(defective.call("lookup_user", valid("lookup_user", {"user_id": user_id})))
        assert error == {"code": -32603, "message": "Internal error"}


def test_a_non_ascii_note_saved_ok_corrupts_the_notebook_for_read_notes_for_good(
    defective: Stdio,
) -> None:
    assert ok(defective.call("read_notes", {})) == "(no notes)"
    assert ok(defective.call("save_note", base("save_note"))) == "note saved"
    assert ok(defective.call("read_notes", {})) == "buy milk\n"  # an ASCII note is fine
    assert ok(defective.call("save_note", valid("save_note", {"text": "café"}))) == "note saved"
    for _ in range(2):  # persistent: every later read fails the same way
        answer = defective.call("read_notes", {})
        assert answer["result"]["isError"] is True
        assert text(answer) == (
            "Error executing tool read_notes: 'ascii' codec can't decode byte 0xc3 in "
            "position 12: ordinal not in range(128)"
        )


# ---------------------------------------------------------------------- the honest look-alike

CLEAN_ANSWERS = [
    ("greet", {"name": ""}, "refused", "name must not be empty"),
    ("greet", {"name": " "}, "refused", "name must not be empty"),
    ("read_file", {"path": "\x00"}, "refused", "path must not contain a NUL byte"),
    ("read_file", {"path": "notes.txt\x00.png"}, "refused", "path must not contain a NUL byte"),
    ("read_file", {"path": "nope.txt"}, "refused", "file not found: nope.txt"),
    ("read_file", {"path": "é.txt"}, "refused", "file not found: é.txt"),
    ("read_file", {"path": ""}, "refused", "not a file: "),
    ("read_file", {"path": "a" * 300}, "refused", f"cannot read {'a' * 300}: File name too long"),
    ("tag", {"label": "[]"}, "ok", "[]"),
    ("tag", {"label": "{}"}, "ok", "{}"),
    ("tag", {"label": "null"}, "ok", "null"),
    ("repeat", {"count": 0.5}, "refused", "count must be a whole number, got 0.5"),
    ("repeat", {"count": -1}, "refused", "count must not be negative, got -1"),
    ("repeat", {"count": -0.0}, "ok", ""),
    ("repeat", {"count": 2**31}, "refused", "count must be at most 1000"),
    ("query_table", {"table": ""}, "refused", "table must not be empty"),
    ("query_table", {"table": "nope"}, "refused", "unknown table: nope (tables: users, orders)"),
    ("search", {"query": " \t\n"}, "ok", '{"results": []}'),
    ("search", {"query": ""}, "refused", "query must not be empty"),
    ("get_page", {"page": 2**31}, "refused", "page out of range: 2147483648 (pages 1-3)"),
    ("get_page", {"page": 2**53 + 1}, "refused", f"page out of range: {2**53 + 1} (pages 1-3)"),
    ("list_items", {"tags": []}, "ok", '{"first": "", "last": "", "count": 0}'),
    ("get_setting", {"key": "__proto__"}, "refused", "unknown setting: __proto__"),
    ("get_setting", {"key": "constructor"}, "refused", "unknown setting: constructor"),
    ("lookup_user", {"user_id": "é"}, "refused", "user not found: é"),
    ("lookup_user", {"user_id": "用户"}, "refused", "user not found: 用户"),
    ("save_note", {"text": "café"}, "ok", "note saved"),
]


@pytest.mark.parametrize(
    ("tool", "arguments", "how", "words"),
    CLEAN_ANSWERS,
    ids=[f"{tool}-{i}" for i, (tool, *_) in enumerate(CLEAN_ANSWERS)],
)
def test_the_look_alike_answers_each_defect_edge_cleanly(
    shared_clean: Stdio, tool: str, arguments: dict[str, Any], how: str, words: str
) -> None:
    answer = shared_clean.call(tool, valid(tool, arguments))
    assert (ok(answer) if how == "ok" else refused(answer)) == words
    if tool == "list_items":
        schema = TOOLS_BY_NAME[tool]["outputSchema"]
        assert instance_errors(schema, answer["result"]["structuredContent"]) == ()
    assert shared_clean.proc.poll() is None


def test_the_look_alike_reads_a_non_ascii_note_back_as_written(clean: Stdio) -> None:
    assert ok(clean.call("read_notes", {})) == "(no notes)"
    for note in ("buy milk", "café", "用户 \x00 end"):
        assert ok(clean.call("save_note", valid("save_note", {"text": note}))) == "note saved"
    assert ok(clean.call("read_notes", {})) == "buy milk\ncafé\n用户 \x00 end\n"
    assert clean.stderr == []


def test_every_defect_edge_of_the_list_is_covered_by_a_look_alike_answer() -> None:
    """Each defective tool's edge has its clean answer above (the two lists move together)."""
    assert set(DEFECTS) - {"save_note"} <= {tool for tool, *_ in CLEAN_ANSWERS}
