"""A deterministic link the kernel could not take, refuted at a concrete point (judge/refuters.search_point).

Where neither the residual's witness nor the finite models reach (a limit or an extremum the kernel
could not take, so there is no residual), the judge evaluates the original link at the cross-check's
concrete points with its own evaluator (:mod:`stepcheck.judge.recheck`: sympy's ``limit`` of the grounded
body).  A point counts only where every candidate fact holds exactly and both sides have a value: a
limit that does not exist there refutes nothing.
"""
from __future__ import annotations

import pytest
import sympy

from stepcheck.checker import check_text
from stepcheck.judge.recheck import Point, Recheck, Unconfirmed

HEAD = "let a, b, c: real\nlet T: positive real\nlet x: real\nlet n: positive integer\nreal z_i for i in 1..n\n"


def link(claim, pre=""):
    rep = check_text(HEAD + pre + "step s: " + claim + "\n", "t.step")
    assert not rep.errors, [d.title for d in rep.errors]
    return rep.steps[0].links[0]


def _values(text):
    """{name: value} of a witness's plain values (``a = 1/2, b = 2``)."""
    out = {}
    for part in text.split(", "):
        name, _, v = part.partition(" = ")
        if name.isidentifier() and "m" not in v:
            out[name] = sympy.Rational(v)
    return out


a_, b_, c_, T_ = sympy.symbols("a b c T")
E_ = sympy.exp
COLD = [  # (claim, its left side's body and its right side, built here with sympy alone)
    # the order of the logits is not given: at a < b the cold limit is b
    ("limit(T log(exp(a/T) + exp(b/T)), T -> 0+) = a", T_ * sympy.log(E_(a_ / T_) + E_(b_ / T_)), a_),
    ("limit(exp(a/T) / (exp(a/T) + exp(b/T) + exp(c/T)), T -> 0+) = 1",
     E_(a_ / T_) / (E_(a_ / T_) + E_(b_ / T_) + E_(c_ / T_)), sympy.Integer(1)),
    ("limit(softmax([a/T, b/T])_1, T -> 0+) = 1", E_(a_ / T_) / (E_(a_ / T_) + E_(b_ / T_)), sympy.Integer(1)),
]


@pytest.mark.parametrize("claim, body, rhs", COLD)
def test_a_false_cold_limit_fails_at_a_point(claim, body, rhs):
    lk = link(claim)
    assert lk.status == "fails" and lk.decided_by == "exact numeric", (lk.status, lk.message)
    # the witness's values, checked here with sympy alone: the limit at them is not the right side
    vals = _values(lk.counterexample)
    at = {a_: vals.get("a", 0), b_: vals.get("b", 0), c_: vals.get("c", 0)}
    assert sympy.limit(body.subs(at), T_, 0, "+") != rhs.subs(at)


def test_a_family_witness_shows_its_pattern():
    lk = link("limit(T log(sum(i=1..n, exp(z_i/T))), T -> 0+) = z_1")
    assert lk.status == "fails"
    assert "z_m = " in lk.counterexample and "z = " not in lk.counterexample  # the label has no value of its own


@pytest.mark.parametrize("claim, pre", [
    ("limit((exp(a x) - 1) / x, x -> 0) = a", ""),
    ("limit(exp(a/T) / (exp(a/T) + exp(b/T)), T -> 0+) = 1/2", "assume same: a = b\n"),
    ("limit(T log(exp(a/T) + exp(b/T)), T -> 0+) = max(a, b)", ""),
    # true under the facts: a point must satisfy them
    ("limit(exp(a/T) / (exp(a/T) + exp(b/T) + exp(c/T)), T -> 0+) = 1", "assume ab: a > b\nassume ac: a > c\n"),
    # the two-sided limit exists only at a = 0, where it is 0: the points where it does not exist refute nothing
    ("limit(a / x, x -> 0) = 0", ""),
    ("limit(a abs(x) / x, x -> 0) = 0", ""),
])
def test_a_true_limit_never_fails(claim, pre):
    assert link(claim, pre).status in ("holds", "unknown")


def test_a_cited_fact_holds_at_the_witness():
    lk = link("limit(T log(exp(a/T) + exp(b/T)), T -> 0+) = b by ab", "assume ab: a > b\n")
    assert lk.status == "fails"
    vals = _values(lk.counterexample)
    assert vals["a"] > vals["b"]


def test_a_limit_that_does_not_exist_at_the_point_has_no_value():
    # the re-check's own reading, on which the refuter rests
    x = sympy.Symbol("x")
    rc = Recheck(Point({sympy.Symbol("a"): sympy.Integer(1)}, {}, ()), (), ())
    with pytest.raises(Unconfirmed, match="cannot take this limit|does not evaluate to a number|no finite value"):
        rc.value(sympy.Limit(sympy.Symbol("a") / x, x, 0, "+-"))


WEAK = "let k: index 2..n\nassume weak: z_k <= z_1\n"


def test_a_tie_that_a_weak_order_allows_refutes_the_one_hot_limit():
    # z_k <= z_1 allows z_1 = z_2: there the cold softmax is 1/2, not 1 (the pattern "all 0", a tie)
    lk = link("limit(softmax(z / T)_1, T -> 0+) = 1", WEAK)
    assert lk.status == "fails" and "z_m = 0" in lk.counterexample, (lk.status, lk.counterexample)


def test_a_bound_true_at_every_tie_never_fails():
    assert link("limit(softmax(z / T)_1, T -> 0+) >= 1/n", WEAK).status in ("holds", "unknown")
    assert link("limit(softmax(z / T)_1, T -> 0+) <= 1", WEAK).status in ("holds", "unknown")


def test_a_witness_also_values_the_names_only_an_earlier_step_mentions():
    """Without `by`, an earlier step resting on `u > v` is a candidate fact: a witness for a link about z
    must satisfy it too, so u and v are given values where it holds (they used to default to 0 and the
    witness was dropped: red-team finding); where a fact about z itself rules the witness out, nothing fails."""
    from stepcheck.checker import check_text

    head = ("let N: positive integer\nlet a: index 1..N\nreal z_a for a in 1..N\nlet τ: positive real\n"
            "let u, v: real\nassume gap: u > v\n"
            "step temp: softmax(z / τ)_a = exp(z_a / τ) / sum(b=1..N, exp(z_b / τ))\n"
            "step two: softmax([u, v] / τ)_1 = 1 / (1 + exp((v - u) / τ))\n"
            "step cold: limit(1 / (1 + exp((v - u) / T)), T -> 0+) = 1\n")
    rep = check_text(head + "step scale: softmax(2 z)_a = softmax(z)_a\n", "t.step")
    assert [s.status for s in rep.steps] == ["holds"] * 3 + ["fails"]
    msg = rep.steps[-1].links[0].message
    assert "u = " in msg and "v = " in msg, msg
    flat = check_text(head + "assume zero: z_a = 0\nstep scale: softmax(2 z)_a = softmax(z)_a\n", "t.step")
    assert flat.steps[-1].status != "fails"


@pytest.mark.parametrize("claim, status, witness", [
    # a bound on every member (|g_t| <= 1 for t in 1..h) is read member by member at the witness: all 1
    ("|sum(t=1..h, g_t f_t)| <= sqrt(h)", "fails", "f_m = 1, g_m = 1"),
    ("sum(t=1..h, g_t) < h", "fails", "g_m = 1"),
    ("|sum(t=1..h, g_t f_t)| <= h", "not fails", None),        # true: |g_t f_t| <= 1
    ("sum(t=1..h, g_t) <= h", "not fails", None),
    ("sum(t=1..h, g_t^2) <= h", "not fails", None),           # all 1 is the equality case, no witness
    ("sum(t=1..h, g_t^2) < h", "fails", "g_m = 1"),
])
def test_a_bound_over_a_family_is_read_at_each_member_of_a_witness(claim, status, witness):
    from conftest import claim_link

    decls = ("let h: positive integer\nlet t: index 1..h\nreal g_t, f_t, w_t for t in 1..h\n"
             "assume box: |g_t| <= 1, |f_t| <= 1\n")
    link = claim_link(decls, claim)
    if status == "fails":
        assert link.status == "fails", (claim, link.status, link.message)
        assert witness in link.message, link.message
    else:
        assert link.status != "fails", (claim, link.message)


CONTEXT = ("let n: positive integer\nrandom q_i for i in 1..n\nassume iq: independent(q)\nassume mq: E[q_i] = 0\n"
           "assume vq: Var(q_i) = 1\nstep first: sum(i=1..n, E[q_i^2]) = n\nlet t: index 1..n\nreal z_i for i in 1..n\n"
           "define w_i = exp(z_i) / sum(l=1..n, exp(z_l))\n")


def test_facts_about_random_variables_get_a_model_beside_the_point():
    """A false deterministic link after unrelated facts about random variables (red team, stop 51): without them it
    failed at a point, with them it was unknown (the point cannot evaluate a mean).  The point is now sought
    without them, a finite model of them is found at the point's dimensions, and every fact is re-checked at the
    whole point."""
    rep = check_text(CONTEXT + "step s6: diff(w_i, z_t) = w_i (1 - w_t)\n", "t.step")
    lk = rep.steps[-1].links[0]
    assert lk.status == "fails", lk.message
    assert "q_1 =" in lk.message and "independent" in lk.message, lk.message  # the model's law, in words


def test_a_true_link_beside_facts_about_random_variables_never_fails():
    rep = check_text(CONTEXT + "step s6: diff(w_i, z_t) = w_i (delta(i, t) - w_t)\n", "t.step")
    assert rep.steps[-1].links[0].status == "holds"


def test_facts_about_random_variables_with_no_model_at_the_point_refute_nothing(monkeypatch):
    """With no finite model of the random facts (the search finds none), the point alone refutes nothing: the
    point is never taken without a model of every fact."""
    from stepcheck.models import search

    monkeypatch.setattr(search, "random_models", lambda *a, **k: [])
    rep = check_text(CONTEXT + "step s6: diff(w_i, z_t) = w_i (1 - w_t)\n", "t.step")
    assert rep.steps[-1].links[0].status == "unknown"
