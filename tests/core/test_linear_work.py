"""The pure core does the same work per tool on a small and on a four times bigger listing.

Counted, never timed: every stage of the pipeline (lint, cases, classification, score, report
build, every renderer) runs under ``cProfile`` on 50 and on 200 synthetic rich tools
(``tests/support/synthetic_listing.py``, the listing ``scripts/bench_core.py`` times), and each
function's calls per tool are compared. A rule that does something per *pair* of tools (one
regex per other tool's name, as ``check_shadowing`` did) is called four times as often per tool
on the bigger listing and fails here on any machine, however fast.
"""

from __future__ import annotations

import cProfile
import gc
import pstats
import random
import re
from functools import cache

import pytest

from mcprobe.core.lint.mentions import index_names
from tests.support.synthetic_listing import STAGES, run_stages

SMALL, LARGE = 40, 160
GROWTH = 1.3  # per-tool calls may grow this much (and by a few calls per listing), not 4x

Counts = dict[str, dict[tuple[str, int, str], int]]


@cache
def _calls(n: int) -> Counts:
    """For each stage, how often each function was called on an ``n``-tool listing."""
    counts: Counts = {}
    for name, run, _ in run_stages(n):
        profile = cProfile.Profile()
        gc.collect()
        gc.disable()  # a collection would run whatever gc callbacks other tests registered
        try:
            profile.enable()
            run()
            profile.disable()
        finally:
            gc.enable()
        counts[name] = {key: row[1] for key, row in pstats.Stats(profile).stats.items()}  # type: ignore[attr-defined]
    return counts


def _grown(stage: str) -> list[str]:
    small, large = _calls(SMALL)[stage], _calls(LARGE)[stage]
    grown = []
    for key, calls in large.items():
        per_tool_small = small.get(key, 0) / SMALL
        if calls / LARGE > GROWTH * per_tool_small + 4 / SMALL:
            grown.append(
                f"{key[2]} ({key[0]}:{key[1]}): {per_tool_small:.1f} -> {calls / LARGE:.1f}"
            )
    return grown


@pytest.mark.parametrize("stage", [name for name, _ in STAGES])
def test_no_function_of_a_core_stage_is_called_more_per_tool_on_a_bigger_listing(
    stage: str,
) -> None:
    assert _grown(stage) == [], f"{stage} does more work per tool on {LARGE} tools than on {SMALL}"


def _pattern_work(stage: str, n: int) -> int:
    return sum(
        calls
        for (_, _, func), calls in _calls(n)[stage].items()
        if func == "_compile" or "re.Pattern" in func
    )


def test_lint_compiles_and_searches_as_many_patterns_per_tool_on_any_listing_size() -> None:
    small, large = _pattern_work("lint", SMALL) / SMALL, _pattern_work("lint", LARGE) / LARGE
    assert small > 0  # the count sees the rules' searches at all
    assert large <= 1.05 * small, (small, large)


def test_the_work_count_sees_a_rule_that_searches_once_per_pair_of_tools() -> None:
    names = [f"tool_{i}" for i in range(LARGE)]

    def per_pair(count: int) -> None:
        for name in names[:count]:
            for other in names[:count]:
                re.search(rf"(?<![\w-]){re.escape(other)}(?![\w-])", f"call {name}")

    def searches(count: int) -> int:
        profile = cProfile.Profile()
        profile.enable()
        per_pair(count)
        profile.disable()
        stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
        return sum(row[1] for (_, _, func), row in stats.items() if "re.Pattern" in func)

    assert searches(LARGE) / LARGE > 3 * searches(SMALL) / SMALL


# --------------------------------------------------------------------------- the name index


def _by_regex(sentence: str, names: list[str], excluded: str | None = None) -> str | None:
    """The definition: the first listed name that stands in the sentence as a whole word."""
    for name in names:
        if name != excluded and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", sentence):
            return name
    return None


def test_the_name_index_finds_exactly_the_names_the_whole_word_regex_finds() -> None:
    rng = random.Random(21)
    alphabet = "ab-_.:/ xé1!"
    for _ in range(20_000):
        names = list(
            dict.fromkeys(
                "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4)))
                for _ in range(rng.randint(1, 6))
            )
        )
        sentence = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        if rng.random() < 0.6:
            at = rng.randint(0, len(sentence))
            sentence = sentence[:at] + rng.choice(names) + sentence[at:]
        excluded = rng.choice([None, names[0]])
        expected = _by_regex(sentence, names, excluded)
        assert index_names(names).first_mentioned(sentence, excluded) == expected, (
            names,
            sentence,
        )


def test_the_name_index_prefers_the_earliest_listed_name_and_skips_the_excluded_one() -> None:
    index = index_names(["github.create_issue", "send_email", "search"])
    sentence = "Then search, and send_email or github.create_issue it."
    assert index.first_mentioned(sentence) == "github.create_issue"
    assert index.first_mentioned(sentence, excluded="github.create_issue") == "send_email"
    assert index.first_mentioned("a github.create_issues b") is None
    assert index.first_mentioned("researching send_email-like tools") is None
