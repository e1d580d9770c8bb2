"""Which tool names a sentence mentions, in time linear in the sentence, whatever the listing.

A name is mentioned where it stands as a whole word: the characters on either side are not word
characters or ``-`` (what ``(?<![\\w-])name(?![\\w-])`` matches). Asking that with one regex per
name makes a listing of n tools cost n searches per sentence, n² in all (a 1,000-tool server
needed ~3 million pattern compilations). Here a listing's names are indexed once, by their runs
of word characters: a sentence is cut into its runs, and each run costs one dictionary look-up
per distinct name length (in runs), a constant of the listing's naming style, not of its size.

A name cuts into three parts: a *lead* and a *trail* of non-word characters (usually empty) and
the *core* between them, a tuple alternating word runs and the exact separators between them
(``github.create_issue`` → ``("github", ".", "create_issue")``). A mention is the same core in
the sentence's runs, with the lead ending the gap before it and the trail starting the gap after
it, and a non-word character (or the sentence's edge) beyond both. Names with no word character
at all lie inside one gap of the sentence; those are looked up by their length within each gap.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

__all__ = ["NameIndex", "index_names"]

_RUN = re.compile(r"[\w-]+")


@dataclass(frozen=True)
class _Entry:
    order: int
    name: str
    lead: str
    trail: str


@dataclass(frozen=True)
class NameIndex:
    """The names of one listing, ready to be found in any number of sentences."""

    by_core: dict[tuple[str, ...], tuple[_Entry, ...]]
    runs_per_name: tuple[int, ...]  # the distinct core lengths, in word runs
    bare: dict[str, tuple[_Entry, ...]]  # names without a word character
    bare_lengths: tuple[int, ...]

    def first_mentioned(
        self,
        sentence: str,
        excluded: str | None = None,
        accept: Callable[[str], bool] | None = None,
    ) -> str | None:
        """The earliest-listed name (other than ``excluded``, and one ``accept`` takes when
        given) the sentence mentions, if any."""
        best: _Entry | None = None
        for entry in self._mentioned(sentence):
            if entry.name == excluded or (accept is not None and not accept(entry.name)):
                continue
            if best is None or entry.order < best.order:
                best = entry
        return None if best is None else best.name

    def _mentioned(self, sentence: str) -> Iterable[_Entry]:
        runs = [(m.start(), m.end()) for m in _RUN.finditer(sentence)]
        if self.by_core:
            yield from self._cored(sentence, runs)
        if self.bare:
            yield from self._bare(sentence, runs)

    def _cored(self, sentence: str, runs: list[tuple[int, int]]) -> Iterable[_Entry]:
        last = len(runs) - 1
        for i, (start, _) in enumerate(runs):
            for k in self.runs_per_name:
                j = i + k - 1
                if j > last:
                    continue
                key = _key(sentence, runs[i : j + 1])
                for entry in self.by_core.get(key, ()):
                    before = sentence[runs[i - 1][1] if i else 0 : start]
                    end = runs[j][1]
                    after = sentence[end : runs[j + 1][0] if j < last else len(sentence)]
                    if _edge_fits(before, entry.lead, i == 0, leading=True) and _edge_fits(
                        after, entry.trail, j == last, leading=False
                    ):
                        yield entry

    def _bare(self, sentence: str, runs: list[tuple[int, int]]) -> Iterable[_Entry]:
        edges = [0, *(p for run in runs for p in run), len(sentence)]
        for g in range(0, len(edges), 2):
            lo, hi = edges[g], edges[g + 1]  # one gap between word runs
            for length in self.bare_lengths:
                for p in range(lo, hi - length + 1):
                    entries = self.bare.get(sentence[p : p + length])
                    if entries and (p > lo or p == 0) and (p + length < hi or hi == len(sentence)):
                        yield from entries


def _key(sentence: str, runs: Sequence[tuple[int, int]]) -> tuple[str, ...]:
    """The core of the text spanning ``runs``: its word runs and the separators between them."""
    parts = [sentence[runs[0][0] : runs[0][1]]]
    for (_, prev_end), (start, end) in pairwise(runs):
        parts.append(sentence[prev_end:start])
        parts.append(sentence[start:end])
    return tuple(parts)


def _edge_fits(gap: str, edge: str, at_sentence_edge: bool, *, leading: bool) -> bool:
    """Whether a name's lead (trail) ends (starts) ``gap`` with a non-word character beyond it."""
    if not edge:
        return True
    if not (gap.endswith(edge) if leading else gap.startswith(edge)):
        return False
    return len(gap) > len(edge) or at_sentence_edge


def index_names(names: Iterable[str]) -> NameIndex:
    """Index ``names`` (their order is the priority of :meth:`NameIndex.first_mentioned`)."""
    by_core: dict[tuple[str, ...], list[_Entry]] = {}
    bare: dict[str, list[_Entry]] = {}
    for order, name in enumerate(names):
        runs = [(m.start(), m.end()) for m in _RUN.finditer(name)]
        if not runs:
            if name:
                bare.setdefault(name, []).append(_Entry(order, name, "", ""))
            continue
        lead, trail = name[: runs[0][0]], name[runs[-1][1] :]
        by_core.setdefault(_key(name, runs), []).append(_Entry(order, name, lead, trail))
    return NameIndex(
        by_core={k: tuple(v) for k, v in by_core.items()},
        runs_per_name=tuple(sorted({(len(k) + 1) // 2 for k in by_core})),
        bare={k: tuple(v) for k, v in bare.items()},
        bare_lengths=tuple(sorted({len(k) for k in bare})),
    )
