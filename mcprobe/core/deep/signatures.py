"""The words the deep oracles look for in a server's answer (issue 25 item 3). Pure.

Every function here reads text the server wrote *after* mcprobe's own argument strings were
removed from it (``calls.classify.without_echoes``), so an argument that says ``TypeError`` is
never the server's exception. The signatures are those of an exception nobody caught: the
message a runtime gives, not a sentence an author wrote. A bare class name with an author's
reason (``ValueError: name must not be empty``) is how many servers phrase a refusal, so
``ValueError`` counts only with a message the runtime itself writes.
"""

from __future__ import annotations

import re

from mcprobe.core.model import JSON
from mcprobe.core.quoting import quoted

__all__ = [
    "count_like",
    "duration_like",
    "errno_failure",
    "errno_on_sent_path",
    "exception_class",
    "framed_by_field",
    "named_types",
    "received_types",
    "runtime_class",
    "runtime_message",
]

_RUNTIME = re.compile(
    r"""
    (?P<python>
        Traceback\ \(most\ recent\ call\ last\)
      | object\ has\ no\ attribute
      | object\ is\ not\ (?:subscriptable|iterable|callable)
      | codec\ can't\ (?:en|de)code
      | \bValueError:\s*(?:invalid\ literal|could\ not\ convert|not\ enough\ values
            |too\ many\ values|math\ domain|embedded\ null|substring\ not\ found
            |(?:min|max)\(\)\ arg)
      | invalid\ literal\ for\ int\(\)
      | could\ not\ convert\ string\ to\ float
      | (?:not\ enough|too\ many)\ values\ to\ unpack
      | (?:list|string|tuple)\ index\ out\ of\ range
      | embedded\ null\ (?:byte|character)
      | (?:float\ )?division\ by\ zero
      | maximum\ recursion\ depth\ exceeded
      | (?:min|max)\(\)\ (?:arg\ is\ an\ empty\ sequence|iterable\ argument\ is\ empty)
    )
  | (?P<javascript>
        is\ not\ a\ function
      | Cannot\ read\ propert(?:y|ies)\ (?:of|'[^'\n]{0,80}'\ of)
      | Cannot\ set\ propert(?:y|ies)\ of
      | undefined\ is\ not\ (?:an\ object|a\ function|iterable)
      | Cannot\ convert\ undefined\ or\ null\ to\ object
      | is\ not\ iterable
      | Maximum\ call\ stack\ size\ exceeded
      | Invalid\ (?:array|string)\ length
      | Converting\ circular\ structure\ to\ JSON
    )
  | (?P<reasonless>
        \A\W{0,3}Error\ executing\ tool\ [\w.-]{1,128}:?\s*(?:'[^'\n]{0,80}'|-?\d{1,20})?\s*\Z
      | unexpected\ (?:internal\ )?error\b[\s\S]{0,160}?\b(?:server\ )?logs?\b
    )
    """,
    re.VERBOSE | re.IGNORECASE,
)

# The class names of an uncaught exception, tried when no message above matched (the message
# is the better evidence: ``TypeError: Cannot read properties of undefined`` names the second).
_RUNTIME_CLASS = re.compile(
    r"\b(?:Type|Key|Index|Attribute|ZeroDivision|Recursion|Overflow|UnboundLocal|Name|Assertion"
    r"|Unicode(?:En|De)code|NotImplemented|Range|Reference)Error\b"
)

_KIND_WORDS = {
    "python": "a Python runtime error",
    "javascript": "a JavaScript runtime error",
    "reasonless": "an error without a reason",
}

# errno and the path it failed on: ENOENT on the path the user gave is a refusal they can act on
_ERRNO = re.compile(
    r"\b(?:ENOENT|EACCES|EPERM|ENOTDIR|EISDIR|EEXIST|ENOTEMPTY|ENAMETOOLONG|ELOOP)\b"
    r"|\[Errno \d{1,4}\]|No such file or directory|Permission denied|Not a directory"
    r"|Is a directory|File exists|File name too long"
)

_TYPE_WORD = (
    r"(?P<type>array|list|tuple|object|dict(?:ionary)?|mapping|number|float|integer|int"
    r"|boolean|bool|null|string|str)\b"
)
_NAMED_TYPE = re.compile(
    r"(?:expected|should\s+be|must\s+be|is\s+not\s+of\s+type|not\s+a\s+valid)"
    r"\s+(?:an?\s+|a\s+valid\s+|valid\s+|of\s+type\s+)?['\"`]?" + _TYPE_WORD,
    re.IGNORECASE,
)
# what the validator says it was given: zod's "received array", pydantic's "input_type=list"
_RECEIVED_TYPE = re.compile(
    r"(?:received|but\s+got|input_type=)\s*(?:an?\s+)?['\"`]?"
    r"(?P<type>array|list|tuple|object|dict|number|float|integer|int|boolean|bool|null"
    r"|NoneType|string|str)\b",
    re.IGNORECASE,
)
_JSON_TYPE = {
    "array": "array",
    "list": "array",
    "tuple": "array",
    "object": "object",
    "dict": "object",
    "dictionary": "object",
    "mapping": "object",
    "number": "number",
    "float": "number",
    "integer": "integer",
    "int": "integer",
    "boolean": "boolean",
    "bool": "boolean",
    "null": "null",
    "nonetype": "null",
    "string": "string",
    "str": "string",
}

_CLASS = re.compile(
    r"\b[A-Z][A-Za-z0-9_]{0,80}(?:Error|Exception)\b"
    r"|\bE(?:NOENT|ACCES|PERM|NOTDIR|ISDIR|EXIST|NOTEMPTY|NAMETOOLONG|LOOP|INVAL|IO|NOSPC|MFILE)\b"
)

_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_DURATION_NAME = frozenset(
    {
        "timeout",
        "timeouts",
        "delay",
        "sleep",
        "wait",
        "duration",
        "ms",
        "millis",
        "milliseconds",
        "seconds",
        "secs",
        "sec",
        "minutes",
        "interval",
        "retries",
        "retry",
        "attempts",
        "backoff",
        "poll",
        "ttl",
        "period",
    }
)
_DURATION_TEXT = re.compile(
    r"\b(?:time-?outs?|delays?|sleep\w*|wait\w*|durations?|ms|milliseconds?|seconds?|secs?"
    r"|minutes?|intervals?|retr(?:y|ies)|backoff|poll\w*|ttl)\b",
    re.IGNORECASE,
)
_COUNT_NAME = frozenset(
    {
        "count",
        "limit",
        "size",
        "depth",
        "n",
        "num",
        "number",
        "max",
        "length",
        "len",
        "pages",
        "items",
        "rows",
        "lines",
        "total",
        "top",
        "k",
        "iterations",
        "times",
        "repeat",
        "batch",
        "amount",
        "quantity",
        "width",
        "height",
    }
)


def runtime_message(text: str) -> str | None:
    """What runtime exception ``text`` shows in the runtime's own message, with the words that
    show it (``a JavaScript runtime error (`is not a function`)``), or None."""
    match = _RUNTIME.search(text)
    if match is None:
        return None
    kind = _KIND_WORDS[match.lastgroup or "reasonless"]
    return f"{kind} ({quoted(' '.join(match.group(0).split())[:80])})"


# The SDK's own frame around a tool's exception (``Error executing tool X: …``): not the author's
_SDK_FRAME = re.compile(r"\A\W{0,3}Error executing tool [\w.-]{1,128}\Z", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[:\n.;]")


def framed_by_field(text: str, field: str) -> bool:
    """Whether the runtime message in ``text`` is framed by an author's reason naming
    ``field``: the clause just before it, up to a colon, names one of the field's words
    (``Invalid timezone: embedded null byte`` for ``timezone`` or ``source_timezone``). The
    author caught the exception and said which value was wrong: a refusal, not an uncaught
    error. The SDK's ``Error executing tool X:`` frame never counts (a tool's name may contain
    the field's), nor does code before the message (``this.branches[input.branchId].push is
    not a function`` has no colon before it). Read on the words as sent: the field's name is a
    key of the arguments, which ``without_echoes`` removes."""
    match = _RUNTIME.search(text)
    if match is None or match.lastgroup == "reasonless":
        return False
    before = text[: match.start()].rstrip()
    if not before.endswith(":"):
        return False
    clause = _CLAUSE_END.split(before[:-1])[-1].strip()
    if not clause or _SDK_FRAME.match(clause):
        return False
    words = {w for part in field.split("+") for w in _name_words(part.rsplit(".", 1)[-1])}
    said = _name_words(clause)
    return any(len(w) >= 3 and w in said for w in words)


def errno_failure(text: str) -> bool:
    """Whether ``text`` is an errno failure on a path (``ENOENT``, ``EISDIR``, ``[Errno 2]``,
    ``No such file or directory``…): the operating system's answer about that path."""
    return _ERRNO.search(text) is not None


def runtime_class(text: str) -> str | None:
    """The exception class ``text`` names when it is one a runtime raises by itself
    (``an uncaught `KeyError` ``), or None: weaker evidence than the message, since an author
    may raise a ``TypeError`` with a reason of their own."""
    named = _RUNTIME_CLASS.search(text)
    return f"an uncaught {quoted(named.group(0))}" if named else None


def errno_on_sent_path(text: str, own: str, value: JSON) -> bool:
    """Whether ``text`` is an errno failure (``ENOENT``, ``[Errno 2]``…) on a path that was
    sent: the server names the user's own path, a refusal the user can act on. ``own`` is the
    text without mcprobe's argument strings (it differs where one was named); the changed
    ``value``, however short (``""``, ``"   "``), counts where it ends a quoted or resolved path
    (``open ''``, ``'/root/   '``)."""
    if _ERRNO.search(text) is None:
        return False
    if own != text:
        return True
    if not isinstance(value, str):
        return False
    return any(f"{start}{value}{end}" in text for start in "/'\"" for end in "'\"")


def named_types(text: str) -> frozenset[str]:
    """The JSON types a type error in ``text`` says it expected (``Input should be a valid
    list`` → ``array``)."""
    return frozenset(_JSON_TYPE[m.group("type").lower()] for m in _NAMED_TYPE.finditer(text))


def received_types(text: str) -> frozenset[str]:
    """The JSON types a type error in ``text`` says it was given (``received array``,
    ``input_type=NoneType`` → ``null``)."""
    return frozenset(_JSON_TYPE[m.group("type").lower()] for m in _RECEIVED_TYPE.finditer(text))


def exception_class(text: str) -> str:
    """The first exception class (``UnicodeEncodeError``) or errno code (``ENOENT``) ``text``
    names, or ``""``: the kind of a refusal, for comparing a field's refusals."""
    match = _CLASS.search(text)
    return match.group(0) if match else ""


def _name_words(name: str) -> set[str]:
    return {w.lower() for w in _WORDS.findall(name)}


def duration_like(name: str, description: str) -> bool:
    """A field whose value may rightly make a call slow: a timeout, a delay, a retry count…
    (in its name, split at camelCase and separators, or its description)."""
    return bool(_name_words(name) & _DURATION_NAME) or bool(_DURATION_TEXT.search(description))


def count_like(name: str) -> bool:
    """A field that sizes the work (``count``, ``limit``, ``maxDepth``, ``n``…)."""
    return bool(_name_words(name) & _COUNT_NAME)
