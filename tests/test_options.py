"""One set of options for the CLI, the API and the plugin, and one time budget per link."""
from __future__ import annotations

import pytest

from stepcheck.checker import check_text
from stepcheck.options import DEFAULT_TIMEOUT, Options


def test_defaults_and_overrides():
    o = Options()
    assert o.timeout == DEFAULT_TIMEOUT and not o.strict and not o.why and o.cross_check
    assert o.but(strict=True, timeout=None).strict and o.but(strict=True).timeout == DEFAULT_TIMEOUT
    assert o.but(timeout=2.5).timeout == 2.5


@pytest.mark.parametrize("bad", [0, -1, float("nan"), "5"])
def test_a_time_limit_is_a_positive_number(bad):
    with pytest.raises(ValueError):
        Options(timeout=bad)


def test_keyword_overrides_reach_the_checker():
    rep = check_text("let x: real\nstep s: x + 0 = x   by facts\n", strict=True)
    assert [d.code for lk in rep.steps[0].links for d in lk.diagnostics] == ["E-unneeded"]
    rep = check_text("let x: real\nstep s: x + 0 = x   by facts\n", options=Options(strict=True), strict=False)
    assert [d.code for lk in rep.steps[0].links for d in lk.diagnostics] == ["W-unneeded"]


def test_every_stage_of_a_link_spends_from_one_deadline(monkeypatch):
    """Both proofs of a `by` link, the model search and the cross-check share the link's Deadline."""
    from stepcheck.kernel import prove

    seen, searched = [], []
    orig = prove.LinkProver.prove_link

    def spy(self, lhs, rhs, cands, rel="=", deadline=None, ranges=None):
        seen.append(deadline)
        return orig(self, lhs, rhs, cands, rel, deadline, ranges)

    def finder(lhs, rhs, decls, keep, drop=None, *, seconds, **kw):
        from stepcheck.models.search import NotFound

        searched.append(seconds)
        return NotFound("spy", 0)

    monkeypatch.setattr(prove.LinkProver, "prove_link", spy)
    monkeypatch.setattr("stepcheck.models.find_counterexample", finder)
    rep = check_text("random X, Y\nassume m: E[X] = 0\nstep s: E[X Y] = 0   by m\n", timeout=0.75)
    assert rep.steps[0].status == "unknown"
    assert seen and all(d is seen[0] for d in seen)  # one Deadline object for every proof of the link
    assert seen[0].seconds == 0.75
    assert searched and all(0 < s <= 0.75 for s in searched)  # the model search gets at most what is left


def test_the_default_is_read_from_one_place():
    import inspect

    from stepcheck import api, pytest_plugin  # noqa: F401

    for fn in (api.check, api.verify_text, api.verify_file, api.assert_holds):
        assert inspect.signature(fn).parameters["timeout"].default == DEFAULT_TIMEOUT


def test_a_search_that_ran_out_of_time_says_how_to_raise_the_limit(monkeypatch):
    from stepcheck.models.search import NotFound

    monkeypatch.setattr("stepcheck.models.find_counterexample",
                        lambda *a, **kw: NotFound("time limit of 1 s reached after 3 candidate models", 3))
    rep = check_text("random X\nrefute r: E[exp(X)] = E[exp(X)] + 1/10\n", timeout=2)
    d = next(d for lk in rep.steps[0].links for d in lk.diagnostics if d.code == "E-refute-unknown")
    assert "--timeout" in d.help and "2 s" in d.help
    rep = check_text("random X\nstep s: E[exp(X)] = E[exp(X)^2]\n", timeout=2)
    notes = [d.title for lk in rep.steps[0].links for d in lk.diagnostics if d.code == "N-no-counterexample"]
    assert any("raise `--timeout`" in n for n in notes), notes


def test_a_search_that_exhausted_its_candidates_gives_no_such_advice(monkeypatch):
    from stepcheck.models.search import NotFound

    monkeypatch.setattr("stepcheck.models.find_counterexample",
                        lambda *a, **kw: NotFound("4000 candidate models tried (the size limit)", 4000))
    rep = check_text("random X\nrefute r: E[exp(X)] = E[exp(X)] + 1/10\n")
    d = next(d for lk in rep.steps[0].links for d in lk.diagnostics if d.code == "E-refute-unknown")
    assert d.help is None


def test_options_in_the_place_of_the_file_name_is_an_error():
    with pytest.raises(TypeError):
        check_text("random X\n", Options(why=True))
