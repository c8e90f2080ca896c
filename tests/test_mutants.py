"""Mutation testing (issue 8, part 1): a fixed sample of mutants of the shipped derivations.

Each mutant is a whole .step text with one small edit (see benchmarks/mutate.py);
an independent oracle (exact evaluation on random finite instances, never the
kernel) decides whether it is still true.  No false mutant may come out
`holds`.  The full corpus runs in benchmarks/mutants.py.
"""
from __future__ import annotations

import collections
import os

import pytest

from benchmarks import mutate

pytestmark = pytest.mark.slow

SAMPLE = 40


@pytest.fixture(scope="module")
def mutants():
    return mutate.generate()


def test_every_kind_produces_mutants(mutants):
    kinds = collections.Counter(m.kind for m in mutants)
    assert set(kinds) == set(mutate.KINDS), kinds
    assert len(mutants) >= 500


def test_mutants_are_whole_files_with_one_edit(mutants):
    for m in mutants[:50]:
        assert m.text.endswith("\n") and m.targets
        assert "->" in m.description


def test_sample_accepts_no_false_mutant_covers_every_kind_and_kills(mutants):
    """One test for the sample's three properties: its run (50 s) is shared, never repeated by a second worker."""
    # numbers.step re-runs its numeric checks for every mutant: the full corpus covers it
    fast = [m for m in mutants if "numbers" not in os.path.basename(m.file)]
    summary = mutate.run(mutate.sample(fast, SAMPLE, seed=8), timeout=2.0, seed=8)
    bad = [f"{o.mutant.file} {o.mutant.where}: {o.mutant.description} {o.statuses} {o.truth} {o.note}"
           for o in summary.outcomes if o.verdict in ("accepted", "crash")]
    assert not bad, "\n".join(bad)
    kinds = {o.mutant.kind for o in summary.outcomes}
    assert kinds == set(mutate.KINDS)
    tot = summary.totals()
    # an equivalent mutant (the same claim, `+` for `-` under a symmetric law) cannot be rejected: at least
    # half of the others are
    assert tot["rejected"] >= (SAMPLE - tot["equivalent"]) // 2, summary.table()


def test_oracle_is_independent_and_decides_simple_links():
    """The oracle refutes a false variance law and confirms a true one without the kernel."""
    import random

    text = ("random X, Y\nassume u: Cov(X, Y) = 0\n"
            "step good: Var(X + Y) = Var(X) + Var(Y)\nstep bad: Var(X + Y) = Var(X) + 2 Var(Y)\n")
    scope, infos, dists = mutate._elaborate(text)
    o = mutate.Oracle(scope, dists, random.Random(1))
    assert o.link_truth(infos["good"], 1)[0] is True
    assert o.link_truth(infos["bad"], 1)[0] is False
    # without the assumption, dependent instances refute Var(X + Y) = Var(X) + Var(Y)
    scope, infos, dists = mutate._elaborate("random X, Y\nstep g: Var(X + Y) = Var(X) + Var(Y)\n")
    o = mutate.Oracle(scope, dists, random.Random(2))
    assert o.link_truth(infos["g"], 1, tries=10)[0] is False


def test_accepted_mutant_is_reported(monkeypatch):
    """If the checker said `holds` for a false link, the run says so (the harness itself is tested)."""
    from stepcheck import checker

    real = checker.check_text

    def lying(text, *a, **k):
        rep = real(text, *a, **k)
        for s in rep.steps:
            for lk in s.links:
                lk.status = "holds"
        return rep

    monkeypatch.setattr(checker, "check_text", lying)
    path = [p for p in mutate.derivation_paths() if p.endswith("var_dot.step")]
    some = mutate.run([m for m in mutate.generate(path) if m.kind == "constant"][:3])
    assert any(o.verdict == "accepted" for o in some.outcomes), [o.verdict for o in some.outcomes]
