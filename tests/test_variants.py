"""A sample of the true-variant corpus (benchmarks/variants.py): true rewrites never `fails`."""
from __future__ import annotations

import pytest

from benchmarks import variants as V

pytestmark = pytest.mark.slow

ALL = V.generate()


def test_the_corpus_is_large_and_covers_every_kind():
    assert len(ALL) >= 500
    assert {m.kind for m in ALL} == set(V.KINDS)


@pytest.fixture(scope="module")
def outcomes():
    return V.run(V.sample(ALL, 24, seed=1), timeout=2.0).outcomes


def test_no_true_variant_fails(outcomes):
    summary = V.summarise(outcomes)
    assert summary["total"]["false-fails"] == 0, summary["problems"]
    assert summary["total"]["invalid"] == 0, summary["problems"]


def test_the_variants_are_true(outcomes):
    """The generator's rewrites keep the claim true (the independent oracle agrees)."""
    summary = V.summarise(outcomes)
    assert summary["total"]["not-true"] == 0, summary["problems"]
    # a floor, so that an oracle deciding nothing cannot pass: it models polynomial claims under finite laws
    # only, so a sampled step about tanh or a long sum is undecided (5 of the 24 at stop 42)
    assert summary["total"]["ok"] >= 0.75 * summary["total"]["generated"]


def test_a_false_fails_would_be_counted():
    """The classification must not be able to hide a false refutation."""
    from benchmarks.mutate import Mutant, Outcome

    m = Mutant("swap", "x.step", "step s, link 1", "line 1: swap", "", [("s", 1)])
    assert V.classify(Outcome(m, "equivalent", {"s#1": "fails"}, {"s#1": True})) == "false-fails"
    assert V.classify(Outcome(m, "equivalent", {"s#1": "unknown"}, {"s#1": True})) == "ok"
    assert V.classify(Outcome(m, "rejected", {"s#1": "fails"}, {"s#1": False})) == "not-true"
