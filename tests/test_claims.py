"""docs/claims.md and docs/errata.md: generated from the derivations' `# claim:` tags, never stale.

The pages are regenerated here from the shared reports of the shipped files
(the same verdicts ``verify`` gives); a change to a derivation that changes a
verdict, or a new tag, makes this test fail until ``python scripts/gen_claims.py``
is run.
"""
from __future__ import annotations

import importlib.util
import sys

import pytest

from conftest import REPO, shipped_report

SHARED = REPO.parent / "shared" / "claims" / "ARTICLE_CLAIMS.md"


def _gen():
    spec = importlib.util.spec_from_file_location("gen_claims", REPO / "scripts" / "gen_claims.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


GEN = _gen()


@pytest.fixture(scope="module")
def claims():
    return GEN.collect(shipped_report)


def test_every_claim_is_listed(claims):
    ids = [c.id for c in claims]
    assert len(ids) == 107 and len(set(ids)) == 107


@pytest.mark.skipif(not SHARED.exists(), reason="../shared is not next to this checkout")
def test_the_claims_list_is_the_clients():
    ours = (REPO / "docs" / "article_claims.md").read_text(encoding="utf-8").split("\n", 1)[1]
    assert ours == SHARED.read_text(encoding="utf-8")


def test_the_pages_are_up_to_date(claims):
    assert (REPO / "docs" / "claims.md").read_text(encoding="utf-8") == GEN.table(claims), \
        "docs/claims.md is stale: run python scripts/gen_claims.py"
    assert (REPO / "docs" / "errata.md").read_text(encoding="utf-8") == GEN.errata(claims), \
        "docs/errata.md is stale: run python scripts/gen_claims.py"


def test_at_least_100_claims_are_decided(claims):
    decided = [c for c in claims if c.verdict.split(" ")[0] in ("verified", "refuted")]
    assert len(decided) >= 100, [c.id for c in claims if c not in decided]


def test_a_refuted_claim_has_its_errata_and_witness(claims):
    for c in claims:
        if c.verdict.startswith("refuted"):
            shown = [d for d in c.decisions if GEN._outcome(d).startswith("refuted")]
            assert any(d.errata for d in shown), f"{c.id}: no `# errata:` line"


def test_outcomes_follow_the_statuses():
    D = GEN.Decision
    assert GEN._outcome(D("f", 1, ["a"], ["holds"], ["step"], False)) == "verified"
    assert GEN._outcome(D("f", 1, ["a"], ["unknown"], ["step"], False)) == "unknown"
    assert GEN._outcome(D("f", 1, ["a"], ["holds"], ["refute"], False, errata="wrong")) == "refuted"
    assert GEN._outcome(D("f", 1, ["a"], ["holds"], ["refute"], False)) == "verified"  # "X does not follow"
    assert GEN._outcome(D("f", 1, ["a"], ["fails"], ["refute"], False)) == "unknown"
    assert GEN._outcome(D("f", 1, ["a"], ["fails"], ["step"], True)) == "refuted"
    assert GEN._outcome(D("f", 1, ["a"], ["unknown"], ["step"], True)) == "unknown"
    assert GEN._outcome(D("f", 1, ["a"], ["simulated"], ["simulate"], False)) == "simulated"
    # a simulation of bad/ refutes only where its interval misses the claimed value, and says it is a simulation
    missed = frozenset({"E-simulation-inconsistent"})
    assert GEN._outcome(D("f", 1, ["a"], ["simulated"], ["simulate"], True, codes=missed)) == "refuted-simulation"
    assert GEN._outcome(D("f", 1, ["a"], ["simulated"], ["simulate"], True)) == "unknown"  # consistent: no refutation
    assert GEN._outcome(D("f", 1, ["a"], ["simulated"], ["simulate"], False, codes=missed)) == "unknown"
    assert GEN.Claim("x", "t", [D("f", 1, ["a"], ["simulated"], ["simulate"], True, errata="e", codes=missed)]
                     ).verdict == "refuted (simulation)"
    # a good file's failing statement never counts as a refutation
    assert GEN._outcome(D("f", 1, ["a"], ["fails"], ["step"], False)) == "unknown"
    # `# verifies:` in bad/: "this derivation fails" is verified by a failure or by a mean that does not exist,
    # never by another error (a typo) nor by a statement that holds
    why = "the variance does not exist"
    assert GEN._outcome(D("f", 1, ["a"], ["unknown"], ["step"], True, verifies=why,
                          codes=frozenset({"E-undefined"}))) == "verified"
    assert GEN._outcome(D("f", 1, ["a"], ["fails"], ["step"], True, verifies=why)) == "verified"
    assert GEN._outcome(D("f", 1, ["a"], ["unknown"], ["step"], True, verifies=why,
                          codes=frozenset({"E-unknown-name"}))) == "unknown"
    assert GEN._outcome(D("f", 1, ["a"], ["holds"], ["step"], True, verifies=why)) == "unknown"
    # without `# verifies:`, a mean that does not exist decides nothing
    assert GEN._outcome(D("f", 1, ["a"], ["unknown"], ["step"], True, codes=frozenset({"E-undefined"}))) == "unknown"


def test_unknown_claim_ids_are_refused(tmp_path, monkeypatch):
    (tmp_path / "bad").mkdir()
    (tmp_path / "x.step").write_text("# claim: 999 §nowhere\nlet x: real\nstep s: x = x\n", encoding="utf-8")
    monkeypatch.setattr(GEN, "DERIVATIONS", tmp_path)
    monkeypatch.setattr(GEN, "ROOT", tmp_path)
    with pytest.raises(SystemExit, match="unknown claim id"):
        GEN.collect(lambda p: None)
