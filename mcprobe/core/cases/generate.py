"""Fuzz cases for one tool (SPEC §5 "Cases per tool"): one ``valid`` argument object and many
labelled malformed ones, each proven against the tool's input schema before it is emitted.

Entry point: ``generate_cases(tool_json) -> ToolCases``. Pure and deterministic: the same tool
definition gives the same cases, byte for byte (no randomness, no set iteration, no hashing).
It never raises: a hostile or broken definition gives fewer cases and a ``note`` saying why.

**Labels.** ``kind`` or ``kind:field``; nested fields are dotted (``address.zip``). What the
kinds are, what each means and in which order they come is ``kinds.CASE_KINDS``, one record per
kind (docs/checks.md "Case kinds" is the same table): a per-field kind is proposed by its
record's builder for each field it applies to; the two per-tool kinds are built here, an
undeclared key (``EXTRA_GARBAGE_KEY``, only when the root forbids extra keys via
``additionalProperties: false`` or ``unevaluatedProperties: false``) and an array as the whole
``arguments`` (only when the root's ``type`` is exactly ``object``).

**Proof.** Every case is validated with the real validator in the schema's own dialect
(``schema_dialect``; formats asserted; local ``$ref`` only). ``valid`` must validate. A
malformed case must be rejected *for a reason the base arguments did not already have*: with a
valid base any rejection counts; without one (see below) the case needs a validation error that
the best-effort base does not have. Anything else is not emitted but listed in ``dropped`` with
the reason (e.g. ``wrong_type`` for an untyped field, ``pattern_mismatch`` for ``.*``).

**A cheaper proof for most malformed cases.** Validating a whole argument object costs about
0.1 ms, and a tool has ~35 cases. When the base is *valid* (fully validated) and a case changes
it only under one top-level key ``k``, rejection is first sought from a single conjunct of the
root schema, evaluated by the same validator at the literal place the root applies it:

- ``k`` is still present and ``root["properties"][k]`` exists: the root's ``properties`` keyword
  applies that subschema to ``arguments[k]``. We evaluate exactly that, with
  ``validator.evolve(schema=root["properties"][k])``, which keeps the root's ``$ref`` resolver
  (so ``#/$defs/...`` resolves as it does from the root; the subschema must not carry its own
  ``$id``/``id``, which would move the base URI). A nested change (``owner.login``) is judged
  the same way, on the whole ``arguments["owner"]`` — after first trying the same argument one
  level down (2019-09 and 2020-12 only) inside ``owner``'s own subschema. A ``$ref`` in that
  subschema is not followed by hand (that needs the validator's private resolver); the
  validator follows it when it judges the whole ``arguments["owner"]``.
- ``k`` was removed: the root's ``required`` keyword, evaluated alone on the arguments.
- ``k`` is new and not among the root's ``properties`` (``extra_garbage``): the root's
  ``additionalProperties`` keyword, run by the validator's own keyword function at the root
  (which reads the sibling ``properties``/``patternProperties`` that decide what is extra).

In every dialect from draft-04 on, an object schema is the conjunction of its keywords (draft-04
to -07 ignore the siblings of a root ``$ref``, so the shortcut is off there when the root has
one; draft-03 never takes it), so a conjunct that rejects proves the whole object invalid. When
the conjunct accepts, nothing is proven and the whole object is validated as before.

Each of these checks (a conjunct, a whole-object validation, the synthesizer's ``accepts``) is
first put to ``quick_check.QuickCheck``, a restatement of the validator's keywords for this
tool's schema, compiled once per tool, that answers exactly as the validator would or not at
all (then the validator decides, as before). The ``valid`` case is always fully validated
(once: the synthesizer's last check of the whole object against the root counts), and so are
``non_object_arguments`` and every case built on a best-effort (invalid) base. The corpus and
property tests re-check every emitted case with a full validation.

**No valid case.** When no valid object can be built, ``valid_constructible`` is False, the note
says why, and malformed cases are still built on a best-effort base (the required properties
that could be synthesized) and emitted when provably malformed as above.

**Unusable schemas.** A tool that is not an object, an ``inputSchema`` that is not an object, or
one that fails its dialect's meta-schema gets no cases and a note. A *missing* ``inputSchema``
is treated as ``{"type": "object"}`` (the MCP default shape): the valid case is ``{}``, noted.

**Order and caps.** ``valid`` first; then fields in schema property order (declared ``properties``
first, then required names without a declaration; a nested object's fields right after the object),
kinds in ``CASE_KINDS`` order within a field; then the two per-tool kinds. At most one case per kind
per field; fields are walked to ``MAX_FIELD_DEPTH`` levels and at most ``MAX_FIELDS`` fields. At
most ``MAX_CASES`` cases per tool: the SPEC's core kinds (``CaseKindSpec.core``) are kept first in
order, then the others in order; the rest are dropped with a reason. Generator caps for hostile
schemas (huge lengths, cycles) live in ``values``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jsonschema
from referencing import Registry

from mcprobe.core.cases.discovery import for_tool
from mcprobe.core.cases.kinds import CORE_KINDS, FIELD_KINDS, REMOVE, CaseKind, FieldSite, Proposals
from mcprobe.core.cases.quick_check import QuickCheck
from mcprobe.core.cases.values import (
    SCALAR_TYPES,
    Unsatisfiable,
    ValueSynthesizer,
    copy_json,
    property_schema,
)
from mcprobe.core.model import JSON, Case, CaseSource, DroppedCase, ToolCases
from mcprobe.core.schema.dialect import schema_problems, validator_class_for
from mcprobe.core.schema.view import SchemaTooDeep, allowed_types, allowed_types_of_view

__all__ = [
    "EXTRA_GARBAGE_KEY",
    "MAX_CASES",
    "MAX_FIELDS",
    "MAX_FIELD_DEPTH",
    "example_errors",
    "generate_cases",
]

EXTRA_GARBAGE_KEY = "__mcprobe_unexpected_key__"
MAX_CASES = 40
MAX_FIELDS = 64
MAX_FIELD_DEPTH = 3

NO_SCHEMA_NOTE = 'no inputSchema: treated as {"type": "object"}, so the valid case is {}'

_VALIDATES = "the arguments validate against the input schema, so they are not malformed"

# Configured like ``schema_dialect.instance_errors``: formats asserted, no remote ``$ref``.
_FORMAT_CHECKER = jsonschema.FormatChecker()
_OFFLINE_REGISTRY: Registry[Any] = Registry()

_REMOVE: Any = REMOVE  # marker: delete the key instead of setting it
_NOTHING: Any = object()  # marker: no value yet

ErrorKey = tuple[str, str, str]  # (instance path, schema path, message)


def generate_cases(
    tool: JSON,
    examples: Sequence[JSON] = (),
    discovered: Mapping[str, tuple[JSON, ...]] | None = None,
) -> ToolCases:
    """One valid and many labelled malformed argument objects for ``tool`` (a raw tool
    definition as the target sent it). See the module docstring for the rules.

    ``examples``: argument objects the user gave for this tool (``--examples``). Each one that
    validates becomes a ``valid`` case (``valid``, ``valid:example-2``, ...) with source
    ``user``, and the first is the base of the malformed variants; one that does not validate
    is dropped with the reason (callers check examples up front with ``example_errors``).
    ``discovered``: values the server named itself (``discovery.discover_values``), tried
    first for the parameters they fit."""
    name = tool.get("name") if isinstance(tool, dict) else None
    name = name if isinstance(name, str) else ""
    try:
        return _generate(name, tool, tuple(examples), discovered)
    except _Unbuildable as exc:  # the validator, built where first needed, could not be
        return _no_cases(name, f"case generation failed ({type(exc.cause).__name__}); no cases")
    except Exception as exc:  # last line of defence: hostile input must never crash an audit
        return _no_cases(name, f"case generation failed ({type(exc).__name__}); no cases")


def example_errors(tool: JSON, examples: Sequence[JSON]) -> list[str]:
    """Why each of ``examples`` is not a valid argument object for ``tool`` (empty: all valid).
    Each line names the example's position and the first schema error."""
    schema = tool.get("inputSchema", {"type": "object"}) if isinstance(tool, dict) else None
    if not isinstance(schema, dict):
        return ["the tool has no usable inputSchema to check examples against"]
    cls = validator_class_for(schema)
    if cls is None or schema_problems(schema):
        return ["the tool's inputSchema is not a valid JSON Schema, so no example can be checked"]
    checker = _Checker(cls(schema, registry=_OFFLINE_REGISTRY, format_checker=_FORMAT_CHECKER))
    problems: list[str] = []
    for index, example in enumerate(examples, start=1):
        if not isinstance(example, dict):
            problems.append(f"example {index} is not a JSON object")
            continue
        errors = checker.errors(example)
        if errors:
            problems.append(f"example {index} does not match the schema: {_first_message(errors)}")
        elif errors is None:
            problems.append(f"example {index}: the validator could not apply the schema")
    return problems


def _no_cases(name: str, note: str) -> ToolCases:
    return ToolCases(tool=name, cases=(), valid_constructible=False, note=note)


def _generate(
    name: str,
    tool: JSON,
    examples: tuple[JSON, ...],
    discovered: Mapping[str, tuple[JSON, ...]] | None = None,
) -> ToolCases:
    if not isinstance(tool, dict):
        return _no_cases(name, "the tool definition is not a JSON object; no cases")
    notes: list[str] = []
    if "inputSchema" not in tool:
        schema: JSON = {"type": "object"}
        notes.append(NO_SCHEMA_NOTE)
    else:
        schema = tool["inputSchema"]
    if not isinstance(schema, dict):
        return _no_cases(name, "inputSchema is not a JSON object; no cases")
    cls = validator_class_for(schema)
    problems = schema_problems(schema)  # remembered: lint has usually just checked this schema
    if problems or cls is None:
        where = problems[0].pointer if problems else "/$schema"
        what = problems[0].message[:120] if problems else "unknown dialect"
        return _no_cases(
            name,
            f"inputSchema is not a valid JSON Schema in its dialect ({what} at {where or '/'})"
            "; no cases",
        )
    checker = _Checker(cls=cls, schema=schema)
    try:
        found = for_tool(discovered, name) if discovered else discovered
        return _Builder(name, schema, checker, notes, examples, found).build()
    finally:
        checker.quick.forget()  # frees the compiled checks now, not at the next collection


_KIND_NAMES: dict[CaseKind, str] = {kind: kind.value for kind in CaseKind}

_FIELD_BUILDERS: tuple[Callable[[FieldSite], Proposals], ...] = tuple(
    spec.field for spec in FIELD_KINDS if spec.field
)

_CONJUNCTIVE_DIALECTS = (
    jsonschema.validators.Draft202012Validator,
    jsonschema.validators.Draft201909Validator,
)
_REF_OVERRIDES_DIALECTS = (
    jsonschema.validators.Draft7Validator,
    jsonschema.validators.Draft6Validator,
    jsonschema.validators.Draft4Validator,
)


class _Unbuildable(BaseException):
    """The tool's validator could not be built (raised where it is first needed). A
    ``BaseException``, so the checks' own ``except Exception`` cannot turn it into an answer:
    ``generate_cases`` reports it as it did when the validator was built up front."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(cause)
        self.cause = cause


class _Checker:
    """The tool's compiled validator: whole-argument errors and subschema checks.

    ``_Checker(validator)`` or ``_Checker(cls=..., schema=...)``: then the validator (formats
    asserted, no remote ``$ref``) is built only if something needs it; ``QuickCheck`` answers
    most tools' every check without it. Building it cannot fail for a schema that passed its
    meta-schema (``jsonschema`` only reads the string ``$id``/``id`` and the keywords), so when
    it is never built, nothing changes; were it to fail where it is needed, ``_Unbuildable``
    gives the tool the note an up-front failure gave."""

    def __init__(self, validator: Any = None, *, cls: Any = None, schema: Any = None) -> None:
        if validator is not None:
            cls, schema = type(validator), validator.schema
            format_checker = getattr(validator, "format_checker", None)
        else:
            format_checker = _FORMAT_CHECKER
        self._validator = validator
        self._cls = cls
        self._schema = schema
        self._subs: dict[int, tuple[JSON, Any]] = {}
        root = schema
        self._root: dict[str, Any] = root if isinstance(root, dict) else {}
        self._conjuncts = isinstance(root, dict) and (
            cls in _CONJUNCTIVE_DIALECTS or (cls in _REF_OVERRIDES_DIALECTS and "$ref" not in root)
        )
        # Below the root, only where a ``$ref`` is always a conjunct beside its siblings.
        self._nested = self._conjuncts and cls in _CONJUNCTIVE_DIALECTS
        self._accepted_root: JSON = _NOTHING  # the last object ``accepts(root, ...)`` approved
        self._nested_validators: dict[tuple[int, int], tuple[Any, JSON, Any]] = {}
        self.quick = QuickCheck(root, cls, format_checker)

    @property
    def validator(self) -> Any:
        if self._validator is None:
            try:
                self._validator = self._cls(
                    self._schema, registry=_OFFLINE_REGISTRY, format_checker=_FORMAT_CHECKER
                )
            except Exception as exc:
                raise _Unbuildable(exc) from exc
        return self._validator

    def conjunct_rejects(self, arguments: JSON, path: tuple[str, ...]) -> bool:
        """Whether one conjunct of the root schema provably rejects ``arguments``, which differ
        from a fully validated base only under the top-level key ``path[0]`` (see "A cheaper
        proof" in the module docstring). False means "not proven", never "valid"."""
        if not self._conjuncts or not path or not isinstance(arguments, dict):
            return False
        return self._rejected_at(lambda: self.validator, self._root, arguments, path, True)

    def top_check(self, head: str) -> Any:
        """The quick check ``conjunct_rejects`` puts first to the value of a change under the
        top-level key ``head`` that leaves ``head`` present (``root["properties"][head]``,
        compiled): when it answers False, ``conjunct_rejects`` answers True. None when that
        conjunct is not taken or not quick."""
        if not self._conjuncts or not self.quick.dialect:
            return None
        props = self._root.get("properties")
        if not isinstance(props, dict) or head not in props:
            return None
        sub = props[head]
        if isinstance(sub, dict) and ("$id" in sub or "id" in sub):
            return None
        try:
            return self.quick.compiled(sub)
        except Exception:  # as ``QuickCheck.decide``: no answer
            return None

    def _rejected_at(
        self,
        validator: Callable[[], Any],
        schema: dict[str, Any],
        instance: dict[str, JSON],
        path: tuple[str, ...],
        quick: bool,
    ) -> bool:
        """``validator()`` applies ``schema`` to ``instance`` here; does one of its conjuncts
        reject ``instance``, which was changed at ``path`` below this object? ``quick``: the
        validator is the root's class, so ``QuickCheck`` may answer first (built on demand
        only when it cannot)."""
        head = path[0]
        if head not in instance:
            return self._keyword_rejects(quick, validator, "required", schema, instance)
        props = schema.get("properties")
        if not isinstance(props, dict) or head not in props:
            return self._keyword_rejects(quick, validator, "additionalProperties", schema, instance)
        sub = props[head]
        if isinstance(sub, dict) and ("$id" in sub or "id" in sub):
            return False  # the subschema moves the base URI: not this resolver any more
        value = instance[head]

        def sub_validator() -> Any:
            return self._evolved_from(validator(), sub)

        # Deeper first (``sub``'s own ``properties``), then ``sub`` on the whole value.
        if (
            len(path) > 1
            and self._nested
            and isinstance(value, dict)
            and isinstance(sub, dict)
            and self._rejected_at(
                sub_validator, sub, value, path[1:], quick and "$schema" not in sub
            )
        ):
            return True
        if quick:
            verdict = self.quick.decide(sub, value)
            if verdict is not None:
                return not verdict
        return _rejects(sub_validator(), value)

    def _keyword_rejects(
        self,
        quick: bool,
        validator: Callable[[], Any],
        keyword: str,
        schema: dict[str, Any],
        instance: JSON,
    ) -> bool:
        if keyword not in schema:
            return False  # as ``_keyword_rejects`` answers, without building a validator
        if quick:
            verdict = self.quick.decide_keyword(keyword, schema, instance)
            if verdict is not None:
                return not verdict
        return _keyword_rejects(validator(), keyword, schema, instance)

    def _evolved_from(self, parent: Any, schema: JSON) -> Any:
        """``parent`` applied to ``schema``, as its ``properties`` keyword does."""
        if parent is self.validator:
            return self._evolved(schema)
        key = (id(parent), id(schema))
        cached = self._nested_validators.get(key)
        if cached is None or cached[0] is not parent or cached[1] is not schema:
            cached = (parent, schema, parent.evolve(schema=schema))
            self._nested_validators[key] = cached
        return cached[2]

    def validated(self, value: JSON) -> bool:
        """Whether this very object was just accepted by a full validation against the root."""
        return value is self._accepted_root

    def _evolved(self, schema: JSON) -> Any:
        """The root's validator applied to ``schema`` (same class, resolver, format checker)."""
        cached = self._subs.get(id(schema))
        if cached is None or cached[0] is not schema:
            cached = (schema, self.validator.evolve(schema=schema))
            self._subs[id(schema)] = cached  # keeps ``schema`` alive, so its id stays unique
        return cached[1]

    def errors(self, instance: JSON) -> frozenset[ErrorKey] | None:
        """Every validation error of ``instance`` (empty when valid); None when the validator
        itself fails (an uncompilable regex, an unresolvable ``$ref``, runaway recursion)."""
        try:
            return frozenset(
                (
                    "/".join(map(str, err.absolute_path)),
                    "/".join(map(str, err.absolute_schema_path)),
                    err.message,
                )
                for err in self.validator.iter_errors(instance)
            )
        except Exception:  # the validator choked on the (hostile) schema
            return None

    def is_valid(self, instance: JSON) -> bool | None:
        """Whether ``instance`` validates (stops at the first error); None as in ``errors``."""
        quick = self.quick.decide(self._schema, instance)
        if quick is not None:
            return quick
        try:
            return bool(self.validator.is_valid(instance))
        except Exception:
            return None

    def accepts(self, schema: JSON, value: JSON) -> bool:
        quick = self.quick.decide(schema, value)
        if quick is not None:
            accepted = quick
        else:
            try:
                accepted = bool(self._evolved(schema).is_valid(value))
            except Exception:
                return False
        if accepted and schema is self._root:
            self._accepted_root = value
        return accepted


def _rejects(validator: Any, value: JSON) -> bool:
    try:
        return not validator.is_valid(value)
    except Exception:  # not proven: the caller validates the whole object
        return False


def _keyword_rejects(validator: Any, keyword: str, schema: dict[str, Any], instance: JSON) -> bool:
    """Whether ``schema``'s ``keyword``, run by the validator's own keyword function where
    ``validator`` applies ``schema``, rejects ``instance`` (False when it cannot tell)."""
    check = validator.VALIDATORS.get(keyword)
    if check is None or keyword not in schema:
        return False
    try:
        return (
            next(iter(check(validator, schema[keyword], instance, schema) or ()), None) is not None
        )
    except Exception:  # not proven: the caller validates the whole object
        return False


def _first_message(errors: frozenset[ErrorKey] | None) -> str:
    if not errors:
        return "the validator could not apply the schema"
    path, _, message = sorted(errors)[0]
    return f"{message[:120]} (at /{path})"


class _Builder:
    def __init__(
        self,
        name: str,
        schema: dict[str, Any],
        checker: _Checker,
        notes: list[str],
        examples: tuple[JSON, ...] = (),
        discovered: Mapping[str, tuple[JSON, ...]] | None = None,
    ):
        self.name = name
        self.examples = examples
        self.source = CaseSource.SYNTHESIZED
        self.root = schema
        self.checker = checker
        self.notes = notes
        self.synth = ValueSynthesizer(schema, checker.accepts, discovered)
        self.cases: list[Case] = []
        self.dropped: list[DroppedCase] = []
        self.labels: set[str] = set()
        self.fields_seen = 0
        self._templates: dict[
            int, tuple[dict[str, JSON], list[tuple[str, Callable[[Any], Any]]]]
        ] = {}

    # ----------------------------------------------------------------------- top level

    def build(self) -> ToolCases:
        try:
            root_view = self.synth.view_of(self.root)
        except SchemaTooDeep:
            root_view = {}
        users = self._user_examples()
        valid = users[0] if users else self._valid_arguments()
        if valid is not None:
            base, base_errors = valid, frozenset[ErrorKey]()
            self._emit(CaseKind.VALID, "valid", copy_json(valid), base_errors)
            for index, example in enumerate(users[1:], start=2):
                label = f"valid:example-{index}"
                self._emit(CaseKind.VALID, label, copy_json(example), base_errors)
        else:
            base = self._best_effort_base(root_view)
            maybe = self.checker.errors(base)
            if maybe is None:
                return self._finish(False)
            base_errors = maybe
        self._walk(root_view, (), base, base_errors, 1)
        if root_view.get("additionalProperties") is False or (
            root_view.get("unevaluatedProperties") is False
        ):
            if EXTRA_GARBAGE_KEY in base:
                self._drop("extra_garbage", "the schema itself declares the garbage key")
            else:
                garbage = copy_json({**base, EXTRA_GARBAGE_KEY: "mcprobe"})
                self._emit(
                    CaseKind.EXTRA_GARBAGE,
                    "extra_garbage",
                    garbage,
                    base_errors,
                    (EXTRA_GARBAGE_KEY,),
                )
        if self._root_types() == frozenset({"object"}):
            self._emit(CaseKind.NON_OBJECT_ARGUMENTS, "non_object_arguments", [], base_errors)
        return self._finish(valid is not None)

    def _root_types(self) -> frozenset[str] | None:
        try:
            return allowed_types(self.root, self.root)
        except SchemaTooDeep:
            return None

    def _user_examples(self) -> list[dict[str, JSON]]:
        """The user's examples that validate (checked in full), in order; the source becomes
        ``user`` when there is one."""
        kept: list[dict[str, JSON]] = []
        for index, example in enumerate(self.examples, start=1):
            errors = self.checker.errors(example) if isinstance(example, dict) else None
            if errors is None or errors or not isinstance(example, dict):
                self._drop(f"example {index}", "the user's example does not match the schema")
                continue
            kept.append(copy_json(example))
        if kept:
            self.source = CaseSource.USER
        return kept

    def _valid_arguments(self) -> dict[str, JSON] | None:
        guesses, declared = self.synth.guesses, self.synth.declared
        try:
            value = self.synth.value_for(self.root, only="object")
        except Unsatisfiable as exc:
            self.notes.append(f"no valid arguments could be built: {exc}")
            return None
        # The synthesizer returns only values the root schema accepted (``accepts`` is a full
        # validation with the same validator); anything else is validated here.
        errors = frozenset() if self.checker.validated(value) else self.checker.errors(value)
        if errors or not isinstance(value, dict):
            self.notes.append(
                f"no valid arguments could be built: the candidate fails validation "
                f"({_first_message(errors)})"
            )
            self.dropped.append(DroppedCase(self.name, "valid", "does not validate"))
            return None
        if self.synth.guesses == guesses and self.synth.declared > declared:
            self.source = CaseSource.SCHEMA  # every value is the schema's own word (one at least)
        return value

    def _best_effort_base(self, root_view: dict[str, Any]) -> dict[str, JSON]:
        base: dict[str, JSON] = {}
        required = root_view.get("required")
        for key in required if isinstance(required, list) else []:
            if isinstance(key, str) and key not in base:
                try:
                    base[key] = self.synth.value_for(property_schema(root_view, key), 1)
                except Unsatisfiable:
                    continue
        return base

    def _finish(self, valid_constructible: bool) -> ToolCases:
        kept = self._apply_cap()
        note = "; ".join(self.notes) if self.notes else None
        return ToolCases(
            tool=self.name,
            cases=tuple(kept),
            dropped=tuple(self.dropped),
            valid_constructible=valid_constructible,
            note=note,
        )

    def _apply_cap(self) -> list[Case]:
        if len(self.cases) <= MAX_CASES:
            return self.cases
        core = [i for i, c in enumerate(self.cases) if c.kind in CORE_KINDS]
        rest = [i for i, c in enumerate(self.cases) if c.kind not in CORE_KINDS]
        keep = set((core + rest)[:MAX_CASES])
        for i, case in enumerate(self.cases):
            if i not in keep:
                self._drop(case.label, f"over the cap of {MAX_CASES} cases per tool")
        return [c for i, c in enumerate(self.cases) if i in keep]

    # ----------------------------------------------------------------------- emission

    def _drop(self, label: str, reason: str) -> None:
        self.dropped.append(DroppedCase(tool=self.name, label=label, reason=reason))

    def _emit(
        self,
        kind: CaseKind,
        label: str,
        arguments: JSON,
        base_errors: frozenset[ErrorKey],
        path: tuple[str, ...] = (),
        rejected: bool = False,
    ) -> None:
        """Emit a case once its label is proven (``path``: where it differs from the base).
        ``arguments`` become the case's own (callers pass a fresh copy). ``rejected``: the
        caller already found the conjunct ``conjunct_rejects`` would find rejecting (a valid
        base, a malformed kind), so the case is proven malformed."""
        if label in self.labels:
            self._drop(label, "another case already has this label")
            return
        verdict: bool | None
        if rejected:
            verdict, new_reason = False, True
        elif base_errors:
            errors = self.checker.errors(arguments)
            verdict = None if errors is None else not errors
            new_reason = errors is not None and bool(errors - base_errors)
        elif kind is CaseKind.VALID:  # validated in full by ``_valid_arguments``/``_user_examples``
            verdict, new_reason = True, True
        elif self.checker.conjunct_rejects(arguments, path):  # see "A cheaper proof"
            verdict, new_reason = False, True
        else:  # a valid base: any rejection is the mutation's, the first error decides
            verdict = self.checker.is_valid(arguments)
            new_reason = True
        if verdict is None:
            self._drop(label, "the validator could not apply the schema to these arguments")
            return
        malformed = kind is not CaseKind.VALID
        if verdict == malformed:
            self._drop(label, _VALIDATES if malformed else "the arguments do not validate")
            return
        if malformed and not new_reason:
            self._drop(label, "rejected only for reasons the base arguments already had")
            return
        self.labels.add(label)
        self.cases.append(Case(self.name, kind, label, arguments, malformed, self.source))

    # ----------------------------------------------------------------------- fields

    def _arguments_with(self, base: dict[str, JSON], path: tuple[str, ...], value: JSON) -> JSON:
        """``_copy_with(base, path, value)``; for a top-level ``path``, from a template of
        ``base`` made once (which of its values need a deep copy, and how: a flat list or dict
        is copied whole)."""
        if len(path) != 1:
            return _copy_with(base, path, value)
        return _top_level_with(base, self._copies(base, path[0]), path[0], value)

    def _copies(self, base: dict[str, JSON], head: str) -> list[tuple[str, Callable[[Any], Any]]]:
        """The keys of ``base`` other than ``head`` whose values need a copy, each with its
        copier (worked out once per base)."""
        found = self._templates.get(id(base))
        if found is None or found[0] is not base:
            found = (
                base,
                [(k, _copier(v)) for k, v in base.items() if type(v) not in SCALAR_TYPES],
            )
            self._templates[id(base)] = found  # keeps ``base`` alive: its id stays unique
        return [pair for pair in found[1] if pair[0] != head]

    def _walk(
        self,
        view: dict[str, Any],
        path: tuple[str, ...],
        base: dict[str, JSON],
        base_errors: frozenset[ErrorKey],
        level: int,
    ) -> None:
        props = view.get("properties")
        names = [n for n in props if isinstance(n, str)] if isinstance(props, dict) else []
        required_raw = view.get("required")
        required = (
            [r for r in required_raw if isinstance(r, str)]
            if isinstance(required_raw, list)
            else []
        )
        names += [r for r in dict.fromkeys(required) if r not in names]
        for name in names:
            if self.fields_seen >= MAX_FIELDS:
                return
            self.fields_seen += 1
            fpath = (*path, name)
            sub = property_schema(view, name)
            try:
                sub_view: dict[str, Any] | None = self.synth.view_of(sub)
            except SchemaTooDeep:
                sub_view = None
            if sub_view is None:
                continue  # neither the field's cases nor its nested fields can be read
            self._field_cases(fpath, sub, sub_view, name in required, base, base_errors)
            if level < MAX_FIELD_DEPTH:
                self._walk_nested(fpath, sub, sub_view, base, base_errors, level)

    def _walk_nested(
        self,
        fpath: tuple[str, ...],
        sub: JSON,
        sub_view: dict[str, Any],
        base: dict[str, JSON],
        base_errors: frozenset[ErrorKey],
        level: int,
    ) -> None:
        if not isinstance(sub_view.get("properties"), dict) or not sub_view["properties"]:
            return
        current = _get(base, fpath)
        if isinstance(current, dict):
            nested_base, nested_errors = base, base_errors
        else:
            try:
                parent = self.synth.value_for(sub, level, only="object")
            except Unsatisfiable:
                return
            nested_base = _with(base, fpath, parent)
            maybe = self.checker.errors(nested_base)
            if maybe is None:
                return
            nested_errors = maybe
        self._walk(sub_view, fpath, nested_base, nested_errors, level + 1)

    def _field_cases(
        self,
        path: tuple[str, ...],
        sub: JSON,
        view: dict[str, Any],
        required: bool,
        base: dict[str, JSON],
        base_errors: frozenset[ErrorKey],
    ) -> None:
        dotted = ".".join(path)
        try:
            allowed = None if sub is True or sub == {} else allowed_types_of_view(self.root, view)
        except SchemaTooDeep:
            return
        site = FieldSite(
            dotted=dotted,
            view=view,
            allowed=allowed,
            current=_get(base, path),
            sub=sub,
            required=required,
            synth=self.synth,
            drop=self._drop,
        )
        # Every field-level kind of the registry, in its order (``kinds.CASE_KINDS``).
        planned = [pair for build in _FIELD_BUILDERS for pair in build(site)]
        if not planned:
            return
        # A top-level field of a valid base: the conjunct that ``conjunct_rejects`` would put
        # to the new value first is the same compiled quick check for every kind, so it is
        # looked up once here; a case it does not reject takes the ordinary path.
        top = len(path) == 1
        check = self.checker.top_check(path[0]) if top and not base_errors else None
        copies = self._copies(base, path[0]) if top else []
        for kind, value in planned:
            label = f"{_KIND_NAMES[kind]}:{dotted}"
            if top:
                arguments = _top_level_with(base, copies, path[0], value)
            else:
                arguments = _copy_with(base, path, value)
            if check is not None and value is not _REMOVE and label not in self.labels:
                try:
                    rejected = not check(value)
                except Exception:  # as ``QuickCheck.decide``: no answer, the ordinary path
                    rejected = False
                if rejected:  # what ``_emit(..., rejected=True)`` does for a new label
                    self.labels.add(label)
                    self.cases.append(Case(self.name, kind, label, arguments, True, self.source))
                    continue
            self._emit(kind, label, arguments, base_errors, path)


# --------------------------------------------------------------------------- value helpers


def _get(args: JSON, path: tuple[str, ...]) -> JSON:
    node = args
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return _REMOVE
        node = node[key]
    return node


def _copier(value: JSON) -> Callable[[Any], Any]:
    """How ``copy_json`` copies ``value``, picked once: a list or dict of scalars only is
    copied whole (the same new container ``copy_json`` builds), anything else by ``copy_json``."""
    kind = type(value)
    if kind is list and all(type(v) in SCALAR_TYPES for v in value):
        return list.copy
    if kind is dict and all(type(v) in SCALAR_TYPES for v in value.values()):
        return dict.copy
    return copy_json


def _top_level_with(
    base: dict[str, JSON],
    copies: list[tuple[str, Callable[[Any], Any]]],
    head: str,
    value: JSON,
) -> dict[str, JSON]:
    """``_copy_with(base, (head,), value)``, with ``copies`` from ``_Builder._copies``."""
    out = dict(base)
    for key, copy in copies:
        out[key] = copy(base[key])
    if value is _REMOVE:
        out.pop(head, None)
    else:
        out[head] = value if type(value) in SCALAR_TYPES else copy_json(value)
    return out


def _copy_with(args: JSON, path: tuple[str, ...], value: JSON) -> JSON:
    """``copy_json(_with(args, path, value))`` in one pass: a deep copy of ``args`` with a copy
    of ``value`` at ``path`` (or the key removed for ``_REMOVE``)."""
    if not path:
        return copy_json(value)
    head, rest = path[0], path[1:]
    if isinstance(args, dict):
        out = {
            k: v if k == head or type(v) in SCALAR_TYPES else copy_json(v) for k, v in args.items()
        }
    else:
        out = {}
    if rest:
        out[head] = _copy_with(out.get(head), rest, value)
    elif value is _REMOVE:
        out.pop(head, None)
    else:
        out[head] = value if type(value) in SCALAR_TYPES else copy_json(value)
    return out


def _with(args: JSON, path: tuple[str, ...], value: JSON) -> JSON:
    """``args`` with ``value`` at ``path`` (or the key removed for ``_REMOVE``); copies only
    the dicts along the path."""
    if not path:
        return value
    out = dict(args) if isinstance(args, dict) else {}
    head, rest = path[0], path[1:]
    if rest:
        out[head] = _with(out.get(head), rest, value)
    elif value is _REMOVE:
        out.pop(head, None)
    else:
        out[head] = value
    return out
