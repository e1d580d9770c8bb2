"""Every registered extension point is documented and covered by a test.

The registries: lint rules (``core/lint/registry.py``), case kinds (``core/cases/kinds.py``),
the edge classes of deep fuzzing (``core/deep/edges.py``),
verdicts (``core/verdicts.py``), the resource, prompt, protocol and HTTP checks
(``core/checks/catalogue.py``), output formats (``report/formats.py``) and transports
(``core/target_spec.py`` with the wire protocols of ``client/connection.py``). A new record that
is not in docs/checks.md or docs/cli.md, or that no test names, fails here.
"""

from __future__ import annotations

import ast
import functools
import re
import typing
from pathlib import Path

import pytest

import mcprobe
from mcprobe.client.connection import WIRES
from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.cases.kinds import CASE_KINDS, FIELD_KINDS, CaseKind
from mcprobe.core.checks.catalogue import CHECKS as SURFACE
from mcprobe.core.deep.edges import EDGE_CLASSES
from mcprobe.core.errors import UsageError
from mcprobe.core.lint.registry import LINT_RULES, SERVER_RULES, TOOL_RULES
from mcprobe.core.target_spec import TRANSPORTS, Transport
from mcprobe.core.verdicts import VERDICTS
from mcprobe.report.formats import FORMAT_NAMES, FORMATS, output_format
from tests.support.schema_corpus import CORPUS

ROOT = Path(__file__).resolve().parent.parent
CHECKS = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")
CLI = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
# One "### `id`" section per check, each ending where the next heading starts.
CHECKS_DOC_SECTIONS = CHECKS.replace("\n### ", "\n## \n### ")
TESTS = "\n".join(
    p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("test_*.py") if p.name != __file__
)


def _section(text: str, heading: str) -> str:
    assert f"\n{heading}\n" in text, f"no {heading!r} heading in the docs"
    start = text.index(f"\n{heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _named_by_a_test(name: str) -> bool:
    """Whether a test spells ``name`` as a string, whole: ``"csv"``, ``"wrong_type:a"``; the
    start of a longer name (``"protocol.pin`` in ``"protocol.ping"``) is not it."""
    this = Path(__file__).read_text(encoding="utf-8")
    return re.search(rf'"{re.escape(name)}(?![\w.-])', TESTS.replace(this, "")) is not None


def test_a_name_counts_as_tested_only_when_a_test_spells_it_whole() -> None:
    assert _named_by_a_test("protocol.ping") and _named_by_a_test("wrong_type")
    assert not _named_by_a_test("protocol.pin")  # only the start of "protocol.ping"
    assert not _named_by_a_test("js")  # only the start of "json"


# --------------------------------------------------------------------------- lint rules


# Registered (and documented) by issue 13 ahead of the behavioural proofs that will emit them.
# The moment a module emits one, it must leave this set and be named by a test.
NOT_YET_EMITTED: frozenset[str] = frozenset()  # all emitted now (rug pull: core/security/)


def _emitted_outside_the_registry(code: str) -> bool:
    sources = (p for p in (ROOT / "mcprobe").rglob("*.py") if p.name != "security_rules.py")
    return any(f'"{code}"' in p.read_text(encoding="utf-8") for p in sources)


@pytest.mark.parametrize("code", sorted(LINT_RULES))
def test_every_lint_rule_has_a_docs_section_a_check_and_a_test(code: str) -> None:
    rule = LINT_RULES[code]
    assert f"### `{code}`" in CHECKS
    checks = (rule.tool_check, rule.server_check)
    assert any(checks) != (rule.emitted_by is not None), "a check here, or where it is emitted"
    if code in NOT_YET_EMITTED:
        assert not _emitted_outside_the_registry(code), f"{code} is emitted now: test it"
        return
    assert _named_by_a_test(code), f"no test names {code}"


def test_every_check_function_belongs_to_a_registered_code() -> None:
    checked = {code for code, _ in TOOL_RULES} | {code for code, _ in SERVER_RULES}
    emitted_elsewhere = {code for code, rule in LINT_RULES.items() if rule.emitted_by}
    assert checked | emitted_elsewhere == set(LINT_RULES)
    assert not checked & emitted_elsewhere


# --------------------------------------------------------------------------- case kinds


def test_every_case_kind_has_one_record_in_the_registry() -> None:
    kinds = [spec.kind for spec in CASE_KINDS]
    assert sorted(kinds) == sorted(CaseKind) and len(set(kinds)) == len(kinds)


@pytest.mark.parametrize("kind", [spec.kind.value for spec in CASE_KINDS])
def test_every_case_kind_is_documented_and_covered_by_a_test(kind: str) -> None:
    assert f"| `{kind}` |" in _section(CHECKS, "## Case kinds")
    # covered: a test names it, or a real-world schema of the corpus makes one (whose every case
    # tests/core/test_cases_corpus.py proves against the schema)
    assert _named_by_a_test(kind) or kind in _corpus_kinds(), f"no test names {kind}"


@functools.cache
def _corpus_kinds() -> frozenset[str]:
    return frozenset(case.kind for e in CORPUS for case in generate_cases(e.tool).cases)


def _case_kind_rows() -> list[tuple[str, str, str]]:
    """The ``| `kind` | built | meaning |`` rows of docs/checks.md "Case kinds", in order."""
    table = _section(CHECKS, "## Case kinds").split("\n### ", 1)[0]  # not the deep edge classes
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+?) \| ([^|]+?) \|$", table, re.M)
    return [(kind, built, meaning) for kind, built, meaning in rows]


def test_the_case_kinds_table_is_in_registry_order_which_orders_every_reports_cases() -> None:
    # The order is pinned on purpose (it orders every report's cases): the table in the docs is
    # the pin, so a new kind is a record here and a row there, in the same place.
    rows = _case_kind_rows()
    assert [kind for kind, _, _ in rows] == [spec.kind.value for spec in CASE_KINDS]
    for (kind, built, meaning), spec in zip(rows, CASE_KINDS, strict=True):
        assert (built == "per field") == (spec.field is not None), kind
        assert spec.meaning.endswith(meaning), f"{kind}: the table and the record disagree"


def test_the_readme_points_at_the_case_kinds_table_instead_of_listing_the_kinds() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    paragraph = readme[readme.index("Per tool mcprobe sends") :].split("\n\n", 1)[0]
    assert "(docs/checks.md#case-kinds)" in paragraph
    named = {spec.kind.value for spec in CASE_KINDS if f"`{spec.kind.value}" in paragraph}
    assert len(named) < 4, f"a hand-kept list of kinds goes stale: {sorted(named)}"


def test_the_case_generators_docstring_points_at_the_registry_instead_of_listing_the_kinds() -> (
    None
):
    from mcprobe.core.cases import generate

    doc = generate.__doc__ or ""
    assert "``kinds.CASE_KINDS``" in doc
    # the per-field kinds are the growing list (the per-tool ones are built in generate itself)
    named = {spec.kind.value for spec in FIELD_KINDS if f"``{spec.kind.value}``" in doc}
    assert len(named) < 4, f"a hand-kept list of kinds goes stale: {sorted(named)}"


# --------------------------------------------------------------------------- deep edge classes


def test_every_edge_class_has_one_record_in_the_registry() -> None:
    keys = [spec.key for spec in EDGE_CLASSES]
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize("key", [spec.key for spec in EDGE_CLASSES])
def test_every_edge_class_is_documented_in_send_order_and_covered_by_a_test(key: str) -> None:
    section = _section(CHECKS, "### Deep fuzzing: edge classes")
    spec = next(s for s in EDGE_CLASSES if s.key == key)
    assert f"| `{key}` | {spec.applies} | {spec.values} |" in section
    rows = re.findall(r"^\| `([A-Za-z0-9]+)` \|", section, re.M)
    assert rows == [s.key for s in EDGE_CLASSES]
    assert _named_by_a_test(key), f"no test names {key}"


# --------------------------------------------------------------------------- verdicts


@pytest.mark.parametrize("key", [kind.key for kind in VERDICTS])
def test_every_verdict_is_documented_and_covered_by_a_test(key: str) -> None:
    assert f"| `{key}` |" in _section(CHECKS, "## Verdicts")
    assert _named_by_a_test(key), f"no test names {key}"


@pytest.mark.parametrize("rule", [k.sarif_id for k in VERDICTS if k.sarif_id])
def test_every_behavioural_sarif_rule_is_listed_in_the_cli_docs(rule: str) -> None:
    assert f"`{rule}`" in CLI and f"`{rule}`" in CHECKS


# --------------------------------------------------------------------------- output formats


@pytest.mark.parametrize("name", FORMAT_NAMES)
def test_every_output_format_is_documented_with_its_mime_type_and_tested(name: str) -> None:
    found = output_format(name)
    section = _section(CLI, "### Output formats")
    assert f"- **{name}** —" in section
    assert f"`{name}` (`{found.mime}`, `{found.extension}`)" in section
    assert _named_by_a_test(name), f"no test names {name}"


def test_the_library_format_type_lists_exactly_the_registered_formats() -> None:
    assert typing.get_args(mcprobe.ReportFormat) == FORMAT_NAMES
    assert re.search(r"--format ([a-z|\\]+)", CLI) is not None


def test_an_unknown_format_is_one_usage_error_naming_the_known_ones() -> None:
    *first, last = FORMAT_NAMES  # the sentence follows the registry: a new format joins it
    sentence = f"expected {', '.join(first)} or {last}"
    assert last not in first and all(name in sentence for name in FORMAT_NAMES)
    with pytest.raises(UsageError, match=re.escape(sentence)):
        output_format("html5")
    assert len({f.extension for f in FORMATS}) == len(FORMATS)


_FORMAT_NAME = "(?:" + "|".join(map(re.escape, FORMAT_NAMES)) + ")"
_FORMAT_LIST = re.compile(rf"\b{_FORMAT_NAME}(?:(?:, or |, |,| or |\|){_FORMAT_NAME}\b){{3,}}")


def _hand_kept_format_lists(path: Path) -> list[int]:
    """Lines of ``path`` holding a string (not a docstring) that lists four or more format
    names: a help text or a table that a new format would not reach."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and _FORMAT_LIST.search(node.value)
    ]


def test_no_help_text_or_table_lists_the_formats_by_hand() -> None:
    package = ROOT / "mcprobe"
    found = {
        str(path.relative_to(package)): lines
        for path in sorted(package.rglob("*.py"))
        if path != package / "report" / "formats.py"
        if (lines := _hand_kept_format_lists(path))
    }
    assert found == {}, "read report.formats (FORMAT_NAMES, expected_names, output_format)"


_DOC_FORMAT_NAME = rf"[`'\"]?{_FORMAT_NAME}[`'\"]?"
_DOC_SEPARATOR = (
    r"(?:, or |, |,| or |\\?\|| \| )"  # prose, a comma list, `a\|b` in a table, `"a" | "b"`
)
_DOC_FORMAT_LIST = re.compile(
    rf"(?<![\w.]){_DOC_FORMAT_NAME}(?:{_DOC_SEPARATOR}{_DOC_FORMAT_NAME}(?![\w.])){{3,}}"
)


def _doc_paragraphs_listing_some_formats() -> list[str]:
    """Paragraphs of the user docs with a list of four or more format names that leave one
    out (the paragraph as a whole must name every format, so a new one cannot be forgotten)."""
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    docs += sorted((ROOT / "skills").rglob("*.md"))
    return [
        f"{path.relative_to(ROOT)}: {paragraph.strip()[:120]}"
        for path in docs
        for paragraph in path.read_text(encoding="utf-8").split("\n\n")
        if not paragraph.startswith("```sh")  # an example command may pick a few
        and _DOC_FORMAT_LIST.search(paragraph)
        and not all(re.search(rf"(?<![\w.]){name}(?![\w])", paragraph) for name in FORMAT_NAMES)
    ]


def test_every_list_of_formats_in_the_docs_names_them_all() -> None:
    assert _DOC_FORMAT_LIST.search("`--format md\\|json\\|sarif\\|junit`")  # it sees a list
    assert _doc_paragraphs_listing_some_formats() == []


def test_a_new_format_reaches_the_report_directory_file_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mcprobe.cli import outputs
    from mcprobe.report import formats

    extra = formats.OutputFormat(
        "tsv", "TSV", "text/tab-separated-values", ".tsv", FORMATS[0].render
    )
    monkeypatch.setattr(formats, "FORMATS", (*FORMATS, extra))
    assert outputs.file_name("tsv") == "mcprobe-report.tsv"
    assert [outputs.file_name(f.name) for f in FORMATS] == [
        "mcprobe-report" + f.suffix for f in FORMATS
    ]


# --------------------------------------------------------------------------- transports


def test_every_transport_has_a_record_and_every_wire_protocol_an_opener() -> None:
    assert [t.name for t in TRANSPORTS] == list(typing.get_args(Transport))
    wires = {wire for t in TRANSPORTS for wire in t.attempts}
    assert wires == {w.name for w in WIRES}
    assert len(WIRES) == len(wires)  # one record per wire protocol


@pytest.mark.parametrize("name", [t.name for t in TRANSPORTS])
def test_every_transport_is_documented_and_covered_by_a_test(name: str) -> None:
    assert f"- **{name}** —" in _section(CLI, "### Transports")
    assert _named_by_a_test(name), f"no test names {name}"


_WIRE_NAMES = frozenset({t.name for t in TRANSPORTS} | {w for t in TRANSPORTS for w in t.attempts})
# Where a transport is defined or opened (the records, the openers), and the host configs' own
# "type" field (a host's file format, not mcprobe's transport record).
_NAMES_TRANSPORTS = ("core/target_spec.py", "client/transports/", "cli/host_config.py")


def _transport_name_tests(path: Path) -> list[int]:
    """Lines of ``path`` comparing a ``kind``/``transport`` with a transport or wire name."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        named = any(
            (isinstance(s, ast.Attribute) and s.attr in ("kind", "transport", "wire"))
            or (isinstance(s, ast.Name) and s.id in ("kind", "transport", "wire"))
            for s in sides
        )
        literal = any(isinstance(s, ast.Constant) and s.value in _WIRE_NAMES for s in sides)
        if named and literal:
            found.append(node.lineno)
    return found


def _transport_name_lists(path: Path) -> list[int]:
    """Lines of ``path`` with a tuple, list or set of two or more transport or wire names (a
    hand-kept list, e.g. ``_REMOTE = ("http", "sse")`` for ``transport in _REMOTE``)."""
    import ast

    return [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.Tuple, ast.List, ast.Set))
        and len(node.elts) >= 2
        and all(isinstance(e, ast.Constant) and e.value in _WIRE_NAMES for e in node.elts)
    ]


def test_no_code_asks_for_a_transport_by_name_instead_of_its_traits() -> None:
    package = ROOT / "mcprobe"
    found = {
        str(path.relative_to(package)): lines
        for path in sorted(package.rglob("*.py"))
        if not str(path.relative_to(package)).startswith(_NAMES_TRANSPORTS)
        if (lines := _transport_name_tests(path) + _transport_name_lists(path))
    }
    assert found == {}, "use the TransportKind / WireProtocol traits (ordered, has_process, …)"


def test_every_wire_protocol_of_a_transport_is_one_record_with_its_traits() -> None:
    by_name = {w.name: w for w in WIRES}
    assert by_name["stdio"].ordered and by_name["stdio"].has_process
    assert all(by_name[w].http_log for w in ("http", "sse"))
    # Only a transport's first attempt may fall back, and only to a later one.
    for transport in TRANSPORTS:
        assert not by_name[transport.attempts[-1]].falls_back or len(transport.attempts) == 1


def test_the_finding_codes_a_config_may_name_are_exactly_the_documented_ones() -> None:
    from mcprobe.core.checks.catalogue import CHECKS as SURFACE_CHECKS
    from mcprobe.core.lint.registry import FINDING_CODES

    documented = set(re.findall(r"^### `([a-z_]+\.[a-z_.]+)`", CHECKS, re.MULTILINE))
    assert documented - set(SURFACE_CHECKS) == set(FINDING_CODES)
    for code in FINDING_CODES - set(LINT_RULES):  # emitted somewhere, not just listed
        assert _emitted_outside_the_registry_module(code), code


def _emitted_outside_the_registry_module(code: str) -> bool:
    sources = (p for p in (ROOT / "mcprobe").rglob("*.py") if p.name != "registry.py")
    return any(f'"{code}"' in p.read_text(encoding="utf-8") for p in sources)


# --------------------------------------------------------------------------- surface checks


@pytest.mark.parametrize("check", list(SURFACE))
def test_every_surface_check_has_a_docs_section_a_clause_and_a_test(check: str) -> None:
    spec = SURFACE[check]
    assert spec.check == check
    section = _section(CHECKS_DOC_SECTIONS, f"### `{check}`")
    assert spec.clause and spec.hint
    assert section.strip(), check
    assert _named_by_a_test(check), f"no test names {check}"


def test_every_check_record_of_a_judge_module_is_registered_once() -> None:
    """A ``CheckSpec`` left out of its module's ``SPECS`` would judge answers no report shows."""
    from mcprobe.core.checks.records import CheckSpec

    defined = {
        value.check
        for module in _judge_modules()
        for value in vars(module).values()
        if isinstance(value, CheckSpec)
    }
    in_specs = [spec.check for m in _judge_modules() for spec in getattr(m, "SPECS", ())]
    assert defined and defined == set(SURFACE) == set(in_specs)
    assert len(in_specs) == len(SURFACE), "a check is in two modules' SPECS"


def _judge_modules() -> list[object]:
    import importlib
    import pkgutil

    import mcprobe.core.checks as package

    names = (i.name for i in pkgutil.iter_modules(package.__path__))
    return [importlib.import_module(f"{package.__name__}.{n}") for n in names]


def test_every_exchange_is_sent_and_judged_and_every_judge_has_its_exchange() -> None:
    from mcprobe.core.checks.catalogue import EXCHANGES, JUDGES_OF
    from mcprobe.core.checks.records import Exchange

    defined = {
        id(value)
        for module in _judge_modules()
        for value in vars(module).values()
        if isinstance(value, Exchange)
    }
    assert EXCHANGES and defined == {id(e) for e in EXCHANGES}
    assert len(set(map(id, EXCHANGES))) == len(EXCHANGES)
    for exchange in EXCHANGES:
        assert JUDGES_OF[exchange], f"nothing judges the answer to {exchange.name}"
    registered = [j for m in _judge_modules() for _, j in getattr(m, "JUDGES", ())]
    assert len(registered) == sum(len(js) for js in JUDGES_OF.values())


def test_the_docs_sentence_listing_the_per_call_flags_names_the_flag_records_in_order() -> None:
    from mcprobe.core.verdicts import FLAG_KEYS

    sentence = CHECKS[CHECKS.index("The per-call *flags*") :].split(" in this order.", 1)[0]
    assert re.findall(r"`(\w+)`", sentence) == list(FLAG_KEYS)


# --------------------------------------------------------------------------- wire codes


def _jsonrpc_codes(source: str) -> tuple[list[tuple[str, int]], list[int]]:
    """The JSON-RPC error codes (-32768..-32000) written in ``source``: those bound to a
    module-level upper-case name (``(name, code)``), and the lines of every other one."""
    tree = ast.parse(source)
    named: list[tuple[str, int]] = []
    bound: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id.isupper():
                code = _code_of(node.value)
                if code is not None:
                    named.append((target.id, code))
                    bound.add(id(node.value))
    stray = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.UnaryOp) and _code_of(node) is not None and id(node) not in bound
    ]
    return named, stray


def _code_of(node: ast.AST) -> int | None:
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
        and 32000 <= node.operand.value <= 32768
    ):
        return -node.operand.value
    return None


def test_every_json_rpc_code_is_written_once_as_a_named_constant() -> None:
    """A code compared as a literal (``error_code == -32601``) is a second spelling of a wire
    code: the named constants in ``core/model.py`` (and an area's own codes in its check
    module) are the one place each is written."""
    names: dict[int, list[str]] = {}
    strays: list[str] = []
    for path in sorted((ROOT / "mcprobe").rglob("*.py")):
        named, stray = _jsonrpc_codes(path.read_text(encoding="utf-8"))
        for name, code in named:
            names.setdefault(code, []).append(f"{path.relative_to(ROOT)}:{name}")
        strays += [f"{path.relative_to(ROOT)}:{line}" for line in stray]
    assert not strays, f"JSON-RPC codes written as literals (name them): {strays}"
    twice = {code: where for code, where in names.items() if len(where) > 1}
    assert not twice, f"one code named in two places: {twice}"
    assert {-32601, -32602, -32603} <= set(names)


def test_a_json_rpc_code_written_as_a_literal_or_named_twice_is_caught() -> None:
    named, stray = _jsonrpc_codes(
        "CODE = -32601\nOTHER = (-32603, 'x')\ndef f(c):\n    return c == -32602\n"
    )
    assert named == [("CODE", -32601)]
    assert stray == [2, 4]  # inside a tuple is not the constant's value; a comparison
