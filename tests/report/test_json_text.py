"""``json_text.dumps_indented`` writes exactly what ``json.dumps(indent=2, ensure_ascii=True)``
writes, for plain JSON data: floats of every magnitude, awkward text, any nesting."""

from __future__ import annotations

import json
import random
import struct
from typing import Any

import pytest

from mcprobe.report.render.json_report import render_json
from mcprobe.report.render.json_text import dumps_indented, plain_json
from mcprobe.report.render.sarif import render_sarif
from tests.support.report_samples import fuzz, sample_report


def python(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=True)


def random_floats(count: int) -> list[float]:
    rng = random.Random(21)
    bits = [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(count)]
    scaled = [rng.uniform(1, 10) * 10.0**exponent for exponent in range(-12, 20) for _ in range(50)]
    return [x for x in bits + scaled if x == x] + [0.0, -0.0, 1e-4, 1e-5, 1e-9, 1e16, 5e-324]


def test_floats_of_every_magnitude_are_spelled_as_python_spells_them() -> None:
    floats = random_floats(20_000)
    assert dumps_indented(floats) == python(floats)
    assert dumps_indented({"a": floats[:500], "b": [{"x": f} for f in floats[:500]]}) == python(
        {"a": floats[:500], "b": [{"x": f} for f in floats[:500]]}
    )


@pytest.mark.parametrize(
    "value",
    [
        {"del\x7f": "\x7f", "ctl": "\x00\x01\x1f\b\f\n\r\t", "quote": '"\\/'},
        {"astral": "😀", "latin": "é", "lines": "\u2028\u2029", "half": "\ud83d"},
        {"looks like a float": "1e-7, 0.00001", "0.0000": "e-5", "e-9": 1e-9},
        {'"x": 1e-07': 1e-7, "k\\": [1e-6, "1e-6"], "\\": {"\\\\": 2.5e-8}},
        [float("nan"), float("inf"), -float("inf"), 10**30, -(10**30), True, False, None],
        [[], {}, [[]], [{}], {"a": []}, {"a": {}}],
        "plain",
        1e-7,
        3,
        None,
    ],
)
def test_awkward_values_match(value: Any) -> None:
    assert dumps_indented(value) == python(value)


def test_deep_nesting_matches() -> None:
    value: Any = [1e-7]
    for level in range(90):
        value = {f"k{level}": value} if level % 2 else [value, 0.5]
    assert dumps_indented(value) == python(value)


def test_plain_json_refuses_what_the_serialisers_write_differently() -> None:
    assert plain_json({"a": [1, 2.5, "x", None, True, (1, 2)]})
    assert not plain_json({None: 1})
    assert not plain_json({1: 1})
    assert not plain_json({"a": b"bytes"})
    assert not plain_json([{(1, 2): 3}])


@pytest.mark.parametrize("arguments", [{"ratio": 1e-7, "small": [2.5e-5]}, {None: 1e-7}])
def test_the_json_report_and_sarif_read_back_to_the_same_bytes(arguments: Any) -> None:
    """What ``json.dumps`` wrote is a fixed point of parse-and-dump: a float or key spelled any
    other way would show here (a key of None: SARIF's fallback to ``json.dumps``)."""
    report = sample_report()
    accepted = fuzz("t", "wrong_type:a", "ok", silently_accepted=True, arguments=arguments)
    report = report.model_copy(update={"fuzz": [*report.fuzz, accepted]})
    for text in (render_json(report), render_sarif(report)):
        assert python(json.loads(text)) + "\n" == text
    assert "1e-07" in render_sarif(report)
