"""Plan the deep calls of one tool: a base, then one field changed at a time to a schema-valid
edge value, then a few combinations (issue 25 item 2). Pure and deterministic for a given seed.

**Edge classes.** ``EDGE_CLASSES`` holds one frozen ``EdgeClass`` per class: its ``key``, the
JSON types of the fields it applies to, and ``build``, which proposes candidate values from the
field (its flattened schema, its value in the base, its name, the seed's ``SeededPicks``). The
first candidate the declared schema accepts becomes the class's edge on that field (so a class
gives at most one edge per field and the label ``deep:<field>:<edge>`` is unique); when the
schema refuses every candidate, the proposal counts in ``DeepPlan.dropped``.

**Yield order** (the tuple order of ``EDGE_CLASSES``, the order a field's edges are sent in):
the classes that found the most real defects first: ``emptyString``, ``jsonLooking``, ``nul``,
``c0Control``, ``fraction``, ``zero``, ``minusOne``, ``protoKey``, ``nonAscii``, ``int32``,
``int53``, ``emptyArray``, ``badHostname``, ``whitespace``, ``negativeZero``, ``oneElement``,
``maxItems``, ``emptyObject``, ``nested``, ``optionalPresent``.

**Fields.** The declared properties of the root (``$ref``/``allOf`` flattened as the case
generator does; a property whose ``$ref`` does not resolve is skipped with a note), and the
properties of a nested object present in the base, to ``MAX_EDGE_DEPTH`` levels (dotted:
``opts.limit``). An absent optional property gets ``optionalPresent`` (a valid value from the
case generator's ``ValueSynthesizer``) and, added the same way, the edges of its type. Its
**companions** come along on each of its edges: the other absent optional properties of the same
object whose name starts with the same word of at least ``COMPANION_WORD`` letters
(``branchId`` with ``branchFromThought``, ``pageToken`` with ``pageSize``), at a synthesized
valid value, since such fields are read together (``if (a.branchFromThought && a.branchId)``)
and an edge of one alone never reaches the code that uses it. A field
with ``enum``/``const`` only gets candidates that are members. A field with a ``format`` only
gets the classes that keep that format: URL and hostname formats get ``badHostname``, other
formats no string edges. Path-like fields (by name, as ``cases.discovery`` names directories,
files, databases and repositories; ``repo``, ``database``, ``db`` and ``root`` only when
their description speaks of a path) get edges only when ``path_edges`` is True.

**Proof.** Every edge is validated against the declared schema in its own dialect (formats
asserted, local ``$ref`` only). The base is validated once in full; a change under the top-level
key ``k`` is then judged by the root's ``properties[k]`` alone when the root is a plain object
schema (only ``type``, ``properties``, ``required``, ``additionalProperties`` and annotations),
which keeps the plan linear in the schema's size; otherwise the whole argument object is
validated. ``QuickCheck`` answers first where it can, as in ``cases.generate``.

**Order and caps.** At most ``per_field`` edges per field (in yield order), then fields are
interleaved round by round (every field's first edge, then every field's second…) and cut at
``per_tool``. If the cap leaves room, up to ``MAX_COMBINATIONS`` combinations follow: two
neighbouring fields each at their first edge (field ``a+b``, edge ``emptyString+zero``, value
the list of both values).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, TypeVar

import jsonschema
from referencing import Registry

from mcprobe.core.cases.discovery import (
    DATABASE_NAMES,
    DIRECTORY_NAMES,
    FILE_NAMES,
    REPOSITORY_NAMES,
    normalised,
)
from mcprobe.core.cases.quick_check import QuickCheck
from mcprobe.core.cases.values import (
    SCALAR_TYPES,
    Unsatisfiable,
    ValueSynthesizer,
    copy_json,
)
from mcprobe.core.deep.model import MAX_EDGES_PER_FIELD, MAX_EDGES_PER_TOOL, DeepPlan, Edge
from mcprobe.core.model import JSON, CaseSource
from mcprobe.core.schema.dialect import schema_problems, validator_class_for
from mcprobe.core.schema.view import SchemaTooDeep, allowed_types_of_view, json_type

__all__ = [
    "COMPANION_WORD",
    "EDGE_CLASSES",
    "MAX_COMBINATIONS",
    "MAX_EDGE_DEPTH",
    "EdgeClass",
    "EdgeSite",
    "SchemaJudge",
    "SeededPicks",
    "is_path_like",
    "plan_edges",
]

MAX_EDGE_DEPTH = 3  # nested object properties walked (``a.b.c``)
COMPANION_WORD = 4  # the shortest first name word that makes two optional fields companions
MAX_COMBINATIONS = 3
MAX_FIELDS = 64  # fields planned per tool (a hostile schema stays bounded)
MAX_ITEMS_EDGE = 100  # a ``maxItems`` above this gets no ``maxItems`` edge
NESTED_DEPTH = 16

_FORMAT_CHECKER = jsonschema.FormatChecker()
_OFFLINE_REGISTRY: Registry[Any] = Registry()

_URL_FORMATS = frozenset({"uri", "url", "iri", "uri-reference", "iri-reference"})
_HOST_FORMATS = frozenset({"hostname", "idn-hostname"})
_PLAIN_ROOT_KEYS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "$schema",
        "title",
        "description",
        "$comment",
        "$defs",
        "definitions",
        "examples",
        "default",
    }
)
_PATH_WORDS = frozenset({"path", "file", "filename", "filepath", "dir", "directory", "folder"})
_AMBIGUOUS_PATH_NAMES = frozenset({"repo", "repository", "database", "db", "root"})
_COUNT_WORDS = frozenset(
    {
        "count",
        "limit",
        "step",
        "steps",
        "size",
        "page",
        "pages",
        "max",
        "min",
        "num",
        "n",
        "k",
        "top",
        "offset",
        "depth",
        "interval",
        "retries",
        "length",
        "amount",
        "quantity",
        "total",
        "number",
        "results",
        "items",
        "lines",
        "rows",
    }
)
_T = TypeVar("_T")
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_C0 = tuple(chr(c) for c in range(1, 32) if chr(c) not in "\t\n\r")
_NON_ASCII = ("é", "日本語", "Ω", "ß", "😀", "ü")
_JSON_LOOKING = ("[]", "{}", "null")
_WHITESPACE = (" ", "   ", "\t", " \n ")
_FRACTIONS = (0.5, 0.25, 0.1)
_LONG_LABEL = "a" * 64


_MASK64 = (1 << 64) - 1


class SeededPicks:
    """The seed's choices among equivalent values: a SplitMix64 sequence started at ``seed``.

    Not ``random.Random``: the pure layers import no ``random`` (tests/test_architecture.py), and
    a fixed arithmetic sequence is as reproducible on every Python version. ``index(n)`` is the
    next choice in ``range(n)``; the same seed gives the same choices in the same order."""

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK64

    def index(self, n: int) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK64
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return (z ^ (z >> 31)) % n if n > 0 else 0


def _words(name: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(name)]


def is_path_like(name: str, description: object = None) -> bool:
    """Whether a parameter called ``name`` takes a file-system path: a name ``cases.discovery``
    gives a directory, file, database or repository, or one whose last word is path-like
    (``output_path``, ``targetDir``). The names that as often mean something else (``repo``
    on a code host, ``database`` of a query server, ``root``) count only when the field's
    ``description`` speaks of a path, file or directory."""
    key = normalised(name)
    if key in _AMBIGUOUS_PATH_NAMES:
        text = description.lower() if isinstance(description, str) else ""
        return any(word in text for word in ("path", "file", "director", "folder"))
    if key in DIRECTORY_NAMES | FILE_NAMES | DATABASE_NAMES | REPOSITORY_NAMES:
        return True
    words = _words(name)
    return bool(words) and words[-1] in _PATH_WORDS


def _count_like(name: str) -> bool:
    return any(w in _COUNT_WORDS for w in _words(name))


@dataclass
class EdgeSite:
    """One field as an edge class sees it: ``name`` (the property's own name), its flattened
    schema ``view``, the JSON types it allows (None: every type), the base's ``current`` value
    (``None`` with ``present`` False when absent), whether it is required, the tool's value
    synthesizer and the seed's picks. Read-only for builders."""

    name: str
    view: dict[str, Any]
    allowed: frozenset[str] | None
    current: JSON
    present: bool
    required: bool
    synth: ValueSynthesizer
    rng: SeededPicks

    def allows(self, *types: str) -> bool:
        if self.allowed is None:
            kind = json_type(self.current) if self.present else None
            return kind in types or (kind == "integer" and "number" in types)
        return any(t in self.allowed for t in types)

    @property
    def fmt(self) -> str | None:
        fmt = self.view.get("format")
        return fmt if isinstance(fmt, str) else None

    @property
    def text(self) -> str:
        """The base's string at this field ("" when it holds none)."""
        return self.current if self.present and isinstance(self.current, str) else ""


Build = Callable[[EdgeSite], tuple[JSON, ...]]


@dataclass(frozen=True, slots=True)
class EdgeClass:
    """One edge class: ``key`` (the ``Edge.edge``), the JSON types of the fields it applies to
    (``types``; documented as ``applies``), what its values are (``values``, for the docs) and
    ``build``, which proposes candidates for a field in preference order (fresh objects; empty
    when the class does not fit the field). ``plain_strings``: a string class that would break
    a ``format`` (not proposed on a field that declares one)."""

    key: str
    types: tuple[str, ...]
    applies: str
    values: str
    build: Build
    plain_strings: bool = False


def _picked(rng: SeededPicks, options: tuple[_T, ...]) -> list[_T]:
    """``options`` with one picked by ``rng`` first (the seed's choice among equivalents)."""
    first = rng.index(len(options))
    return [options[first], *options[:first], *options[first + 1 :]]


def _appended(site: EdgeSite, chars: list[str]) -> tuple[JSON, ...]:
    text = site.text
    out: list[JSON] = [text + c for c in chars[:2]] if text else []
    return (*out, *chars[:2])


def _empty_string(site: EdgeSite) -> tuple[JSON, ...]:
    return ("",)


def _whitespace(site: EdgeSite) -> tuple[JSON, ...]:
    return tuple(_picked(site.rng, _WHITESPACE)[:2])


def _nul(site: EdgeSite) -> tuple[JSON, ...]:
    return _appended(site, ["\x00"])


def _c0(site: EdgeSite) -> tuple[JSON, ...]:
    return _appended(site, _picked(site.rng, _C0))


def _non_ascii(site: EdgeSite) -> tuple[JSON, ...]:
    return _appended(site, _picked(site.rng, _NON_ASCII))


def _json_looking(site: EdgeSite) -> tuple[JSON, ...]:
    return tuple(_picked(site.rng, _JSON_LOOKING))


def _proto_key(site: EdgeSite) -> tuple[JSON, ...]:
    return ("__proto__", "constructor")


def _url_like(site: EdgeSite) -> bool:
    if site.fmt in _URL_FORMATS:
        return True
    words = _words(site.name)
    named = bool(words) and words[-1] in ("url", "uri", "link", "href", "endpoint")
    return named or "://" in site.text


def _bad_hostname(site: EdgeSite) -> tuple[JSON, ...]:
    hosts = _picked(site.rng, ("a..b", f"{_LONG_LABEL}.example.com", "xn--80ak6aa92e.com"))
    if site.fmt in _HOST_FORMATS or (site.fmt is None and _words(site.name)[-1:] == ["host"]):
        return tuple(hosts)
    if not _url_like(site):
        return ()
    scheme, rest = "https", "/"
    match = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://[^/?#]*(.*)$", site.text)
    if match:
        scheme, rest = match.group(1), match.group(2) or "/"
    return tuple(f"{scheme}://{host}{rest}" for host in hosts)


def _fraction(site: EdgeSite) -> tuple[JSON, ...]:
    if not _count_like(site.name):
        return ()
    if site.allowed is not None and "number" not in site.allowed:
        return ()  # an integer-only field allows no fraction
    return (_picked(site.rng, _FRACTIONS)[0],)


def _constant(value: JSON) -> Build:
    return lambda site: (value,)


def _one_element(site: EdgeSite) -> tuple[JSON, ...]:
    item = _item(site)
    return () if item is _NONE else ([item],)


def _max_items(site: EdgeSite) -> tuple[JSON, ...]:
    limit = site.view.get("maxItems")
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 < limit <= MAX_ITEMS_EDGE:
        return ()
    items = list(site.current) if site.present and isinstance(site.current, list) else []
    if not items:
        item = _item(site)
        if item is _NONE:
            return ()
        items = [item]
    if site.view.get("uniqueItems") is True:
        return ()  # distinct items at the maximum: not synthesized here
    return ([copy_json(items[i % len(items)]) for i in range(limit)],)


def _nested(site: EdgeSite) -> tuple[JSON, ...]:
    out: list[JSON] = []
    if site.allows("array"):
        value: JSON = []
        for _ in range(NESTED_DEPTH):
            value = [value]
        out.append(value)
    if site.allows("object"):
        obj: JSON = {}
        for _ in range(NESTED_DEPTH):
            obj = {"nested": obj}
        out.append(obj)
    return tuple(out)


def _optional_present(site: EdgeSite) -> tuple[JSON, ...]:
    if site.present or site.required:
        return ()
    try:
        return (site.synth.value_for(site.view, name=site.name),)
    except (Unsatisfiable, SchemaTooDeep, RecursionError):
        return ()


_NONE: Any = object()


def _item(site: EdgeSite) -> JSON:
    """One element for an array field: the base's first, else a synthesized one."""
    if site.present and isinstance(site.current, list) and site.current:
        return copy_json(site.current[0])
    items = site.view.get("prefixItems")
    schema = items[0] if isinstance(items, list) and items else site.view.get("items", True)
    if isinstance(schema, list):
        schema = schema[0] if schema else True
    try:
        return site.synth.value_for(schema)
    except (Unsatisfiable, SchemaTooDeep, RecursionError):
        return _NONE


_S, _N, _A, _O = ("string",), ("integer", "number"), ("array",), ("object",)

EDGE_CLASSES: tuple[EdgeClass, ...] = (
    EdgeClass("emptyString", _S, "string", '`""`', _empty_string, True),
    EdgeClass(
        "jsonLooking",
        _S,
        "string",
        '`"[]"`, `"{}"`, `"null"` (the seed picks one)',
        _json_looking,
        True,
    ),
    EdgeClass("nul", _S, "string", 'the base\'s string + NUL, else `"\\u0000"`', _nul, True),
    EdgeClass(
        "c0Control",
        _S,
        "string",
        "the base's string + a C0 control (the seed picks which)",
        _c0,
        True,
    ),
    EdgeClass(
        "fraction",
        _N,
        "count/step-like number (a `number` type, not `integer` only)",
        "0.5, 0.25 or 0.1 (the seed picks)",
        _fraction,
    ),
    EdgeClass("zero", _N, "integer, number", "`0`", _constant(0)),
    EdgeClass("minusOne", _N, "integer, number", "`-1`", _constant(-1)),
    EdgeClass("protoKey", _S, "string", '`"__proto__"`, else `"constructor"`', _proto_key, True),
    EdgeClass(
        "nonAscii",
        _S,
        "string",
        "the base's string + non-ASCII text (the seed picks)",
        _non_ascii,
        True,
    ),
    EdgeClass("int32", _N, "integer, number", "`2147483648` (2^31)", _constant(2**31)),
    EdgeClass("int53", _N, "integer, number", "`9007199254740993` (2^53+1)", _constant(2**53 + 1)),
    EdgeClass("emptyArray", _A, "array", "`[]`", lambda site: ([],)),
    EdgeClass(
        "badHostname",
        _S,
        "URL-like string (`format` uri/url/iri, a URL in the base, a url-named field), "
        "hostname (`format` hostname, a host-named field)",
        "the base URL with host `a..b`, a 64-character label, or punycode",
        _bad_hostname,
    ),
    EdgeClass("whitespace", _S, "string", 'whitespace only (`" "`, `"\\t"`…)', _whitespace, True),
    EdgeClass("negativeZero", _N, "integer, number", "`-0.0`", _constant(-0.0)),
    EdgeClass(
        "oneElement", _A, "array", "one element (the base's first, else synthesized)", _one_element
    ),
    EdgeClass(
        "maxItems", _A, "array with `maxItems` ≤ 100", "exactly `maxItems` elements", _max_items
    ),
    EdgeClass("emptyObject", _O, "object", "`{}`", lambda site: ({},)),
    EdgeClass(
        "nested",
        ("array", "object"),
        "array, object",
        '16 levels of `[[…]]` or `{"nested": …}`',
        _nested,
    ),
    EdgeClass(
        "optionalPresent",
        (),
        "an optional property absent from the base (any type)",
        "a valid value synthesized from its schema",
        _optional_present,
    ),
)

_CONJUNCTIVE_ROOTS = (
    jsonschema.validators.Draft202012Validator,
    jsonschema.validators.Draft201909Validator,
    jsonschema.validators.Draft7Validator,
    jsonschema.validators.Draft6Validator,
    jsonschema.validators.Draft4Validator,
)


class SchemaJudge:
    """The tool's declared schema as the planner asks it: ``accepts(subschema, value)`` (the
    ``ValueSynthesizer`` callback, refs resolved against the root), ``whole(arguments)`` and
    ``edge_ok(arguments, head)`` (see "Proof" in the module docstring). ``checks`` counts the
    questions put to the validator (the plan's work, measured by the tests)."""

    def __init__(self, schema: dict[str, Any], cls: Any) -> None:
        self.schema = schema
        self.quick = QuickCheck(schema, cls, _FORMAT_CHECKER)
        self._cls = cls
        self._validator: Any = None
        self._evolved: dict[int, tuple[JSON, Any]] = {}
        props = schema.get("properties")
        self._props: dict[str, Any] = props if isinstance(props, dict) else {}
        self.plain = (
            cls in _CONJUNCTIVE_ROOTS and set(schema) <= _PLAIN_ROOT_KEYS and bool(self._props)
        )
        self.checks = 0

    def _for(self, schema: JSON) -> Any:
        if self._validator is None:
            self._validator = self._cls(
                self.schema, registry=_OFFLINE_REGISTRY, format_checker=_FORMAT_CHECKER
            )
        if schema is self.schema:
            return self._validator
        found = self._evolved.get(id(schema))
        if found is None or found[0] is not schema:
            found = (schema, self._validator.evolve(schema=schema))
            self._evolved[id(schema)] = found
        return found[1]

    def accepts(self, schema: JSON, value: JSON) -> bool:
        self.checks += 1
        quick = self.quick.decide(schema, value)
        if quick is not None:
            return quick
        try:
            return bool(self._for(schema).is_valid(value))
        except Exception:  # an unusable schema part: not proven valid
            return False

    def whole(self, arguments: JSON) -> bool:
        return self.accepts(self.schema, arguments)

    def edge_ok(self, arguments: dict[str, JSON], head: str) -> bool:
        """Whether ``arguments``, the validated base changed only under the top-level key
        ``head``, validate against the root."""
        if self.plain and head in self._props and head in arguments:
            sub = self._props[head]
            if not (isinstance(sub, dict) and ("$id" in sub or "id" in sub)):
                return self.accepts(sub, arguments[head])
        return self.whole(arguments)

    def forget(self) -> None:
        self.quick.forget()
        self._evolved.clear()


_Change = tuple[tuple[str, ...], JSON]


@dataclass(frozen=True, slots=True)
class _Proposal:
    path: tuple[str, ...]
    edge: str
    value: JSON
    companions: tuple[_Change, ...] = ()  # absent optional fields sent along (see the docstring)


def _changes(proposals: tuple[_Proposal, ...]) -> tuple[_Change, ...]:
    """What the proposals set: their companions first, then their own values (a field that is
    one proposal's companion and another's change keeps the change)."""
    own = {p.path for p in proposals}
    along = tuple(c for p in proposals for c in p.companions if c[0] not in own)
    return (*along, *((p.path, p.value) for p in proposals))


def _with(base: dict[str, JSON], changes: tuple[tuple[tuple[str, ...], JSON], ...]) -> JSON:
    """A fresh copy of ``base`` with each ``(path, value)`` set (parents exist in the base)."""
    out = copy_json(base)
    for path, value in changes:
        node: Any = out
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value if type(value) in SCALAR_TYPES else copy_json(value)
    return out


def _spelled(value: JSON) -> str:
    """How ``value`` goes on the wire (two edges of a field never send the same text)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _member(value: JSON, options: list[Any]) -> bool:
    return any(json_type(value) == json_type(o) and value == o for o in options)


def _declared(view: dict[str, Any]) -> list[Any] | None:
    """The values an ``enum``/``const`` field may take (None: not restricted so)."""
    if "const" in view:
        return [view["const"]]
    enum = view.get("enum")
    return enum if isinstance(enum, list) else None


class _Planner:
    def __init__(
        self,
        name: str,
        schema: dict[str, Any],
        base: dict[str, JSON],
        judge: SchemaJudge,
        seed: int,
        per_field: int,
        path_edges: bool,
    ) -> None:
        self.name = name
        self.schema = schema
        self.base = base
        self.judge = judge
        self.rng = SeededPicks(seed)
        self.per_field = per_field
        self.path_edges = path_edges
        self.synth = ValueSynthesizer(schema, judge.accepts)
        self.notes: list[str] = []
        self.dropped = 0
        self.fields = 0
        self.skipped_paths: list[str] = []
        self.companions: dict[tuple[str, ...], tuple[_Change, ...]] = {}

    def _note_companions(
        self, props: dict[str, Any], obj: dict[str, JSON], needed: set[str], path: tuple[str, ...]
    ) -> None:
        """Fill ``self.companions`` for the absent optional properties of one object."""
        groups: dict[str, list[str]] = {}
        for prop in props:
            words = _words(str(prop))
            if prop in obj or prop in needed or not words or len(words[0]) < COMPANION_WORD:
                continue
            groups.setdefault(words[0], []).append(str(prop))
        for names in groups.values():
            if len(names) < 2:
                continue
            values: dict[str, JSON] = {}
            for name in names:
                sub = props[name]
                try:
                    view = self.synth.view_of(sub if isinstance(sub, dict) else {})
                    values[name] = self.synth.value_for(view, name=name)
                except (Unsatisfiable, SchemaTooDeep, RecursionError):
                    continue
            for name in names:
                self.companions[(*path, name)] = tuple(
                    ((*path, other), copy_json(value))
                    for other, value in values.items()
                    if other != name
                )

    def sites(
        self, view: dict[str, Any], obj: dict[str, JSON], path: tuple[str, ...]
    ) -> Iterator[tuple[tuple[str, ...], EdgeSite]]:
        props = view.get("properties")
        if not isinstance(props, dict):
            return
        required = view.get("required")
        needed = (
            set(r for r in required if isinstance(r, str)) if isinstance(required, list) else set()
        )
        self._note_companions(props, obj, needed, path)
        for prop, sub in props.items():
            here = (*path, str(prop))
            dotted = ".".join(here)
            if self.fields >= MAX_FIELDS:
                self.notes.append(f"more than {MAX_FIELDS} fields: the rest get no edges")
                return
            described = sub.get("description") if isinstance(sub, dict) else None
            if not self.path_edges and is_path_like(str(prop), described):
                self.skipped_paths.append(dotted)
                continue
            try:
                fview = self.synth.view_of(sub if isinstance(sub, dict) else {})
            except SchemaTooDeep:
                self.notes.append(f"{dotted}: its $ref chain is too deep; skipped")
                continue
            if "x-unresolved-ref" in fview:
                ref = str(fview["x-unresolved-ref"])[:80]
                self.notes.append(f"{dotted}: $ref {ref!r} does not resolve; skipped")
                continue
            self.fields += 1
            present = prop in obj
            current = obj.get(prop)
            yield (
                here,
                EdgeSite(
                    name=str(prop),
                    view=fview,
                    allowed=allowed_types_of_view(self.schema, fview),
                    current=current,
                    present=present,
                    required=prop in needed,
                    synth=self.synth,
                    rng=self.rng,
                ),
            )
            if present and isinstance(current, dict) and len(here) < MAX_EDGE_DEPTH:
                yield from self.sites(fview, current, here)

    def edges_of(self, path: tuple[str, ...], site: EdgeSite) -> list[_Proposal]:
        found: list[_Proposal] = []
        members = _declared(site.view)
        companions = self.companions.get(path, ())
        for spec in EDGE_CLASSES:
            if len(found) >= self.per_field:
                break
            if spec.types and not site.allows(*spec.types):
                continue
            if spec.plain_strings and site.fmt is not None:
                continue
            candidates = spec.build(site)
            if members is not None:
                candidates = tuple(c for c in candidates if _member(c, members))
            taken = {_spelled(p.value) for p in found}  # -0.0 is not 0 here: sent apart
            candidates = tuple(c for c in candidates if _spelled(c) not in taken)
            for value in candidates:
                if self._valid(path, value, companions):
                    found.append(_Proposal(path, spec.key, value, companions))
                    break
            else:
                if candidates:
                    self.dropped += 1
        return found

    def _valid(self, path: tuple[str, ...], value: JSON, companions: tuple[_Change, ...]) -> bool:
        arguments = _with(self.base, ((path, value), *companions))
        if companions:
            return self.judge.whole(arguments)
        return self.judge.edge_ok(arguments, path[0])

    def edge(self, changes: tuple[_Proposal, ...]) -> Edge:
        field = "+".join(".".join(p.path) for p in changes)
        kind = "+".join(p.edge for p in changes)
        value: JSON = (
            copy_json(changes[0].value)
            if len(changes) == 1
            else [copy_json(p.value) for p in changes]
        )
        arguments = _with(self.base, _changes(changes))
        return Edge(self.name, field, kind, value, arguments, f"deep:{field}:{kind}")


def plan_edges(
    tool: JSON,
    base: JSON,
    base_source: CaseSource,
    *,
    seed: int,
    per_field: int = MAX_EDGES_PER_FIELD,
    per_tool: int = MAX_EDGES_PER_TOOL,
    path_edges: bool = True,
) -> DeepPlan:
    """The deep plan of ``tool`` (a raw definition as listed) around ``base`` (an argument
    object the tool answered with success). ``path_edges``: path-like fields get edges too
    (only under isolation or consent to writes, for a tool that writes). Never raises: a
    definition it cannot plan for gives no edges and a note."""
    name = tool.get("name") if isinstance(tool, dict) else None

    def empty(note: str, dropped: int = 0) -> DeepPlan:
        return DeepPlan(str(name), base, base_source, (), dropped=dropped, note=note)

    if not isinstance(base, dict):
        return empty("no working base (an argument object): no edges")
    schema = tool.get("inputSchema", {"type": "object"}) if isinstance(tool, dict) else None
    if not isinstance(schema, dict):
        return empty("inputSchema is not a JSON object: no edges")
    cls = validator_class_for(schema)
    if cls is None or schema_problems(schema):
        return empty("inputSchema is not a valid JSON Schema in its dialect: no edges")
    judge = SchemaJudge(schema, cls)
    try:
        return _plan(
            str(name), schema, base, base_source, judge, seed, per_field, per_tool, path_edges
        )
    except Exception as exc:  # a hostile schema must never crash an audit
        return empty(f"edge planning failed ({type(exc).__name__}): no edges")
    finally:
        judge.forget()


def _plan(
    name: str,
    schema: dict[str, Any],
    base: dict[str, JSON],
    base_source: CaseSource,
    judge: SchemaJudge,
    seed: int,
    per_field: int,
    per_tool: int,
    path_edges: bool,
) -> DeepPlan:
    if not judge.whole(base):
        note = "the base does not validate against the input schema: no schema-valid edges"
        return DeepPlan(name, base, base_source, (), note=note)
    planner = _Planner(name, schema, base, judge, seed, max(0, per_field), path_edges)
    try:
        root = planner.synth.view_of(schema)
    except SchemaTooDeep:
        return DeepPlan(name, base, base_source, (), note="the schema's $ref chain is too deep")
    per: list[list[_Proposal]] = []
    for path, site in planner.sites(root, base, ()):
        per.append(planner.edges_of(path, site))
    if planner.skipped_paths:
        planner.notes.append(
            "path-like fields get no edges without isolation or --fuzz-writes: "
            + ", ".join(planner.skipped_paths)
        )
    if not planner.fields and not planner.skipped_paths:
        planner.notes.append("the input schema declares no properties: no edges")
    cap = max(0, per_tool)
    order: list[tuple[_Proposal, ...]] = []
    for round_ in range(max((len(f) for f in per), default=0)):
        order += [(f[round_],) for f in per if round_ < len(f)]
    order = order[:cap]
    firsts = [f[0] for f in per if f]
    for a, b in pairwise(firsts):
        if len(order) >= cap or sum(len(o) > 1 for o in order) >= MAX_COMBINATIONS:
            break
        if a.path[: len(b.path)] == b.path or b.path[: len(a.path)] == a.path:
            continue  # a field and a field inside it: not two changes
        if judge.whole(_with(base, _changes((a, b)))):
            order.append((a, b))
        else:
            planner.dropped += 1
    edges: list[Edge] = []
    labels: set[str] = set()
    for changes in order:
        edge = planner.edge(changes)
        if edge.label not in labels:  # ``a.b`` declared at the top and nested: one of them
            labels.add(edge.label)
            edges.append(edge)
    note = "; ".join(dict.fromkeys(planner.notes))
    return DeepPlan(
        name, base, base_source, tuple(edges), dropped=planner.dropped, note=note or None
    )
