"""A counterexample is a proof: the judge re-evaluates every witness exactly before `fails`.

The re-check (stepcheck.judge.recheck) shares no code with the model finder
(stepcheck.models) or with the kernel's normal forms.  These tests lie to it
-- a model finder that returns models on which the two sides are equal, or
that violate the facts -- and check that no `fails` comes out; and they check
the true claims of issue 13 that used to be refuted by witnesses that refuted
nothing.
"""
from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp

from stepcheck.checker import check_text
from stepcheck.judge.recheck import Point, Recheck, Unconfirmed, confirms
from stepcheck.terms.facts import Decls, EqFact, IndepFact
from stepcheck.terms.objects import Cov, E, FamilyExtremum, Var
from sympy.core.symbol import Str


def statuses(text):
    rep = check_text(text)
    return [s.status for s in rep.steps]


# ------------------------------------------------------------------ a lying model finder


def _lying_finder(make_model):
    """A stand-in for models.find_counterexample that always claims a counterexample."""
    from stepcheck.models import search

    def liar(lhs, rhs, decls, keep, drop=None, **kw):
        model = make_model(decls)
        return search.Witness("a made-up model", model, [], [], 0, 1, {})

    return liar


def _pm(*names):
    """X, Y, ...: independent fair ±1 variables, as a models.Model."""
    from stepcheck.models import Group, Model

    rows = [((Fraction(-1),), Fraction(1, 2)), ((Fraction(1),), Fraction(1, 2))]
    return Model(groups=[Group((sp.Symbol(n, real=True),), rows) for n in names])


@pytest.mark.parametrize("names", [("X",), ("X", "Y")])
def test_a_lying_model_finder_cannot_make_a_true_link_fail(monkeypatch, names):
    """True, and not proved by the kernel: only the model finder could say fails, and it lies."""
    text = "random X, Y\nstep s: E[max(X, Y, 1) - max(X, Y)] = E[max(1 - max(X, Y), 0)]\n"
    assert statuses(text) == ["unknown"]  # the premise: the kernel leaves it to the refuter
    monkeypatch.setattr("stepcheck.models.find_counterexample", _lying_finder(lambda decls: _pm(*names)))
    rep = check_text(text)
    assert rep.steps[0].status == "unknown"
    assert any("dropped" in d.title for lk in rep.steps[0].links for d in lk.diagnostics)


def test_a_lying_model_finder_cannot_make_a_refutation_hold(monkeypatch):
    monkeypatch.setattr("stepcheck.models.find_counterexample", _lying_finder(lambda decls: _pm("X", "Y")))
    rep = check_text("random X, Y\nrefute r: E[max(X, Y, 1) - max(X, Y)] = E[max(1 - max(X, Y), 0)]\n")
    assert rep.steps[0].status == "unknown"
    assert "dropped" in rep.steps[0].links[0].message


def test_a_lying_model_finder_cannot_show_an_assumption_needed(monkeypatch):
    from stepcheck.options import Options

    text = "random X, Y\nassume m: E[X] = 0\nstep s: E[X + Y] = E[Y]   by m\n"
    monkeypatch.setattr("stepcheck.models.find_counterexample", _lying_finder(lambda decls: _pm("X", "Y")))
    rep = check_text(text, options=Options(why=True))
    assert rep.steps[0].status == "holds"
    assert rep.steps[0].why["m"].startswith("not shown to be needed (a witness was dropped")  # X = ±1 has E[X] = 0


def test_a_lying_model_finder_on_a_link_the_kernel_cannot_prove(monkeypatch):
    """Unknown to the kernel, true, and the liar's model makes both sides equal: unknown, never fails."""
    from stepcheck.models import Group, Model

    def model(decls):
        x = sp.Symbol("X", real=True)
        return Model(groups=[Group((x,), [((Fraction(0),), Fraction(1))])])

    monkeypatch.setattr("stepcheck.models.find_counterexample", _lying_finder(model))
    rep = check_text("random X\nstep s: E[exp(X)] = E[exp(X)] + 0 * E[X^3]\n")
    assert rep.steps[0].status in ("holds", "unknown")
    rep = check_text("random X\nstep s: E[|X|] = E[|X|^2]\n")  # false in general, but not on the liar's model
    assert rep.steps[0].status == "unknown"
    assert any("dropped" in (d.title or "") for lk in rep.steps[0].links for d in lk.diagnostics)


def test_a_lying_model_that_violates_the_facts_is_dropped(monkeypatch):
    from stepcheck.models import Group, Model

    def model(decls):  # X = 1 always: violates E[X] = 0
        x = sp.Symbol("X", real=True)
        return Model(groups=[Group((x,), [((Fraction(1),), Fraction(1))])])

    monkeypatch.setattr("stepcheck.models.find_counterexample", _lying_finder(model))
    rep = check_text("random X\nassume m: E[X] = 0\nstep s: E[|X|] = 0   by m\n")
    assert rep.steps[0].status == "unknown"
    notes = [d.title for lk in rep.steps[0].links for d in lk.diagnostics]
    assert any("does not satisfy `m`" in t for t in notes), notes


def test_a_true_model_still_refutes():
    rep = check_text("random X, Y\nstep s: Var(X + Y) = Var(X) + Var(Y)\n")
    lk = rep.steps[0].links[0]
    assert lk.status == "fails" and lk.decided_by == "re-checked witness" and lk.counterexample


# ------------------------------------------------------------------ the re-checker itself

X, Y = sp.Symbol("X", real=True), sp.Symbol("Y", real=True)
q = sp.IndexedBase("q", real=True)
n = sp.Symbol("n", integer=True, positive=True)
i = sp.Symbol("i", integer=True)


def _coin(*syms):
    """Independent fair ±1 variables."""
    return tuple(((s,), ((Fraction(-1),), Fraction(1, 2)), ) for s in syms)


def point_pm(*keys, values=None):
    groups = tuple(((k,), ((sp.Integer(-1), sp.Rational(1, 2)), (sp.Integer(1), sp.Rational(1, 2)))) for k in keys)
    groups = tuple((keys_, tuple(((v,), p) for v, p in rows)) for keys_, rows in groups)
    return Point(values or {}, {}, groups)


def test_expectations_are_enumerated_exactly():
    rc = Recheck(point_pm(X, Y), {X, Y}, set())
    assert rc.value(E(X)) == 0 and rc.value(E(X ** 2)) == 1
    assert rc.value(Var(X + Y)) == 2 and rc.value(Cov(X, Y)) == 0
    assert rc.value(E(X * E(X + 1))) == 0  # a nested moment is a constant


def test_sums_follow_the_language_not_karr():
    rc = Recheck(Point({n: sp.Integer(3)}, {}), set(), set())
    m = sp.Dummy("m", integer=True)
    assert rc.value(sp.Sum(m, (m, 1, n))) == 6
    assert rc.value(sp.Sum(1, (m, 1, -2))) == 0  # empty: 0 (sympy's Karr convention would say -2)
    assert rc.value(sp.Product(2, (m, 3, 1))) == 1  # empty: 1 (Karr: 1/2)


def test_a_member_the_point_leaves_out_gets_a_default_only_when_complete():
    s = sp.IndexedBase("s", real=True)
    w = sp.IndexedBase("w", positive=True)
    with pytest.raises(Unconfirmed):
        Recheck(Point({}, {}), set(), set()).value(s[1] + 1)
    rc = Recheck(Point({}, {}), set(), set(), complete=True)
    assert rc.value(s[1] + w[2] + 1) == 2  # s_1 = 0, w_2 = 1 (positive)
    assert rc.defaulted == {s[1]: 0, w[2]: 1}


def test_a_zero_in_disguise_is_zero():
    rc = Recheck(Point({}, {}), set(), set())
    d = rc.value(sp.log(4)) - rc.value(2 * sp.log(2))
    ok, why, _ = confirms(Point({}, {}), Decls(), sp.log(4), 2 * sp.log(2), "=", {})
    assert not ok and "do not differ" in why and sp.simplify(d) == 0


def test_facts_are_checked_for_every_index():
    decls = Decls(random_families=frozenset({"q"}), index_ranges={i: (1, n)})
    pt = point_pm(("q", 1), ("q", 2), values={n: sp.Integer(2)})
    good = {"m": [EqFact("m", E(q[i]), sp.Integer(0), free=(i,))], "ind": [IndepFact("ind", families=("q",))]}
    bad = {"m": [EqFact("m", E(q[i]), sp.Integer(1), free=(i,))]}
    assert confirms(pt, decls, E(q[1] * q[2]), sp.Integer(1), "=", good)[0]
    assert not confirms(pt, decls, E(q[1] * q[2]), sp.Integer(1), "=", bad)[0]


def test_dependence_inside_a_group_breaks_an_independence_fact():
    decls = Decls(random_symbols=frozenset({X, Y}))
    same = Point({}, {}, (((X, Y), (((sp.Integer(-1), sp.Integer(-1)), sp.Rational(1, 2)),
                                   ((sp.Integer(1), sp.Integer(1)), sp.Rational(1, 2)))),))
    ok, why, _ = confirms(same, decls, E(X * Y), sp.Integer(0), "=", {"ind": [IndepFact("ind", members=(X, Y))]})
    assert not ok and "ind" in why
    assert confirms(same, decls, E(X * Y), sp.Integer(0), "=", {})[0]


def test_what_it_cannot_evaluate_confirms_nothing():
    opaque = sp.Symbol("c", real=True)
    ok, why, _ = confirms(Point({}, {}), Decls(), opaque, sp.Integer(1), "=", {})
    assert not ok and "could not be re-evaluated" in why


# ------------------------------------------------------------------ the true claims of issue 13


@pytest.mark.parametrize("claim", [
    "sum(j=1..n, |diff(p_i, s_j)|) = 2 p_i (1 - p_i)",
    "sum(j=1..n, |diff(p_i, s_j)|^2) = sum(j=1..n, diff(p_i, s_j)^2)",
    "sum(j=1..n, diff(p_i, s_j)) = 0",
    "sum(k=1..n, |diff(p_k, s_k)|) = sum(k=1..n, p_k (1 - p_k))",
])
def test_softmax_jacobian_identities_are_never_refuted(claim):
    text = ("let n: positive integer\nlet i, j, k: index 1..n\nreal s_i for i in 1..n\n"
            "define p_i = exp(s_i) / sum(j=1..n, exp(s_j))\n" f"step t: {claim}\n")
    assert statuses(text) != ["fails"]


@pytest.mark.parametrize("claim", [
    "log(a b) = log(a) + log(b)",
    "log(a / b) = log(a) - log(b)",
    "log(a^2) = 2 log(a)",
    "log(exp(x) / a) = x - log(a)",
    "exp(log(a)) = a",
    "log(4) = 2 log(2)",
    "log(8) - 3 log(2) = 0",
    "sqrt(a^2) = a",
])
def test_log_rules_under_declared_positivity_are_never_refuted(claim):
    assert statuses(f"let a, b: positive real\nlet x: real\nstep t: {claim}\n") != ["fails"]


@pytest.mark.parametrize("claim", [
    "log(sum(m=1..n, exp(s_m))) >= max(s)",
    "log(sum(m=1..n, exp(s_m))) <= max(s) + log(n)",
    "min(s) <= max(s)",
    "softmax(s - max(s))_1 = softmax(s)_1",
])
def test_max_of_a_family_is_never_a_free_number(claim):
    text = f"let n: positive integer\nreal s_m for m in 1..n\nstep t: {claim}\n"
    rep = check_text(text)
    assert rep.steps[0].status != "fails", rep.steps[0].links[0].counterexample


def test_max_of_a_family_refutes_when_false():
    rep = check_text("let n: positive integer\nreal s_m for m in 1..n\nstep t: max(s) <= min(s) - 1\n")
    assert rep.steps[0].status in ("fails", "unknown")  # false; a model may or may not be found
    if rep.steps[0].status == "fails":
        cx = rep.steps[0].links[0].counterexample or ""
        assert "max = " not in cx and "; max(s) = " not in cx  # never drawn as a free value


def test_family_extremum_is_random_for_a_random_family():
    x = sp.IndexedBase("x", real=True)
    d = Decls(random_families=frozenset({"x"}))
    assert d.is_rv(FamilyExtremum(x, 1, n, Str("max")))
    assert not Decls().is_rv(FamilyExtremum(x, 1, n, Str("max")))


@pytest.mark.parametrize("claim", [
    "Var(max(x)) = 0",
    "E[max(x)]^2 = E[max(x)^2]",
    "E[x_1 max(x)] = E[x_1] E[max(x)]",
    "diff(max(s), s_1) = 0",
    "E[max(x)] = max(x)",
])
def test_functions_of_random_families_are_not_constants(claim):
    text = ("let n: positive integer\nreal s_i for i in 1..n\nrandom x_i for i in 1..n\n"
            f"assume ind: independent(x)\nstep t: {claim}\n")
    assert statuses(text) != ["holds"]


# ------------------------------------------------------------------ normal forms agree with the original


@pytest.mark.parametrize("claim", [
    "sum(j=1..n, |diff(p_i, s_j)|)",
    "sum(j=1..n, |diff(p_i, s_j)|^2)",
    "sum(j=1..n, |p_j - p_i|)",
    "sum(j=1..n, exp(p_j))",
    "sum(j=1..n, |1 - p_j|) * p_i",
])
def test_the_kernels_normal_form_has_the_value_of_the_expression(claim):
    """Nested sums (a softmax denominator inside |.| inside a sum) must keep their own bound index:
    a canonical name that shadows the enclosing sum's let substitution capture it (the normal form
    then had another value than the expression)."""
    from stepcheck.checker import Checker
    from stepcheck.judge.witness import _unroll
    from stepcheck.kernel.normal import Normalizer
    from stepcheck.parser import parse
    from stepcheck.results import FileReport
    from stepcheck.terms.facts import Deadline

    text = ("let n: positive integer\nlet i, j: index 1..n\nreal s_i for i in 1..n\n"
            "define p_i = exp(s_i) / sum(j=1..n, exp(s_j))\n" f"step t: {claim} = 0\n")
    rep = FileReport(path="t", text=text)
    ch = Checker(rep)
    ch.run(parse(text, "t"))
    lhs = rep.steps[0].links[0].lhs_expr
    i_, n_ = (next((s for s in lhs.free_symbols if s.name == nm), sp.Symbol(nm, integer=True)) for nm in ("i", "n"))
    nz = Normalizer(ch.prover.decls, [], (i_,), frozenset([i_]), ch.prover.limits, Deadline(10))
    normal = nz.expr(lhs)
    for nv, iv in ((3, 1), (3, 2), (4, 3)):
        at = {n_: sp.Integer(nv), i_: sp.Integer(iv)}
        got = _unroll(normal.xreplace(at), 0)
        want = Recheck(Point(at, {}, pattern=0), set(), set()).value(lhs)
        assert sp.N(got - want, 30) == 0 or abs(sp.N(got - want, 30)) < 1e-25, (nv, iv, got, want)


# ------------------------------------------------------------------ the cross-check never silently skips


def test_equations_between_reals_get_a_cross_check():
    """`assume unit: c^2 + s^2 = 1` used to end the model generator (StopIteration) and skip the check."""
    rep = check_text("let c, s: real\nassume unit: c^2 + s^2 = 1\nstep a: (c^2 + s^2)^2 = 1   by unit\n")
    assert not [d for d in rep.diagnostics if d.code == "W-cross-check"]
    assert rep.steps[0].links[0].cross_checked is True and rep.cross_checks() == (1, 1)


def test_links_without_a_cross_check_are_counted():
    from stepcheck.report import summary_line, to_json

    text = ("let n: positive integer\nlet i, j: index 1..n\nreal s_i for i in 1..n\n"
            "define p_i = exp(s_i) / sum(j=1..n, exp(s_j))\n"
            "step d: diff(p_i, s_j) = p_i (delta(i, j) - p_j)\nstep e: p_i + 0 = p_i\n")
    rep = check_text(text)
    checked, eligible = rep.cross_checks()
    assert eligible == 2 and all(lk.cross_checked is not None for s in rep.steps for lk in s.links)
    assert f"({checked} of 2 proofs cross-checked on finite models)" in summary_line(rep)
    counts = to_json([rep])["files"][0]["counts"]
    assert counts["cross_checked"] == checked and counts["not_cross_checked"] == 2 - checked


def test_no_cross_check_count_when_switched_off():
    from stepcheck.report import summary_line

    rep = check_text("random X\nstep a: E[2 X] = 2 E[X]\n", cross_check=False)
    assert rep.cross_checks() == (0, 0) and "cross-checked" not in summary_line(rep)


# ---------------------------------------------------------------- pointwise cross-check (limits, diff, extrema)
def test_pointwise_cross_check_catches_a_wrong_derivative_and_passes_a_right_one():
    import sympy as sp

    from stepcheck.judge.pointwise import pointwise_check
    from stepcheck.terms.facts import Decls

    x = sp.Symbol("x", real=True)
    t = sp.Symbol("T", positive=True)
    decls = Decls(set(), set(), {})
    done, bad = pointwise_check(decls, sp.Derivative(x**3, x), 3 * x**2 + 1, "=", {}, seed=1)
    assert bad is not None and bad[1] - bad[2] == -1
    done, bad = pointwise_check(decls, sp.Derivative(x**3, x), 3 * x**2, "=", {}, seed=1)
    assert bad is None and done > 0
    h = sp.Dummy("h", real=True)
    lim = sp.Limit((sp.exp(t * h) - 1) / h, h, 0, "+-")
    assert pointwise_check(decls, lim, t, "=", {}, seed=2)[1] is None
    assert pointwise_check(decls, lim, 2 * t, "=", {}, seed=2)[1] is not None


def test_pointwise_evaluates_fewer_points_where_each_is_a_limit():
    """A limit (or an extremum) costs a sympy ``limit`` per point: 4 points, not 8; a derivative keeps 8."""
    import sympy as sp

    from stepcheck.judge.pointwise import MAX_POINTS, MAX_POINTS_COSTLY, pointwise_check
    from stepcheck.terms.facts import Decls

    a, b = sp.symbols("a b", real=True)
    h = sp.Dummy("h", real=True)
    decls = Decls(set(), set(), {})
    lim = sp.Limit(a * sp.sin(h) / h + b, h, 0, "+-")
    assert pointwise_check(decls, lim, a + b, "=", {}, seed=3) == (MAX_POINTS_COSTLY, None)
    assert pointwise_check(decls, lim, a + 2 * b, "=", {}, seed=3)[1] is not None  # still caught
    assert pointwise_check(decls, sp.Derivative(a * b**2, b), 2 * a * b, "=", {}, seed=3) == (MAX_POINTS, None)


def test_pointwise_agreement_is_numeric_but_a_disagreement_is_proved():
    """A point counts as agreeing when the sides agree to AGREE digits (an exact zero is costly to
    prove); a difference far below float precision is still a disagreement, decided exactly."""
    import sympy as sp

    from stepcheck.judge import pointwise
    from stepcheck.judge.pointwise import _agree, pointwise_check
    from stepcheck.terms.facts import Decls

    x = sp.Symbol("x", positive=True)
    decls = Decls(set(), set(), {})
    # log(exp(x) sqrt(x)) = x + log(x)/2: no exact zero for sympy to see at a glance
    lhs, rhs = sp.log(sp.exp(x) * sp.sqrt(x), evaluate=False), x + sp.log(x) / 2
    assert _agree(lhs.subs(x, sp.Rational(5, 2)), rhs.subs(x, sp.Rational(5, 2)))
    done, bad = pointwise_check(decls, lhs, rhs, "=", {}, seed=4)
    assert bad is None and done > 0
    tiny = sp.Rational(1, 10 ** 30)  # far below float precision, far above AGREE digits
    assert not _agree(rhs.subs(x, 2) + tiny, rhs.subs(x, 2))
    done, bad = pointwise_check(decls, lhs + tiny, rhs, "=", {}, seed=4)
    assert bad is not None and sp.nsimplify(bad[1] - bad[2]) != 0
    assert not _agree(sp.I, sp.I) and not _agree(sp.zoo, sp.zoo) and not _agree(sp.nan, sp.nan)
    # a strict inequality between equal sides is decided exactly, never by agreement
    assert pointwise_check(decls, lhs, rhs, "<", {}, seed=4)[1] is not None
    assert pointwise.AGREE >= 30


def test_pointwise_memo_evaluates_a_shared_side_once_and_keeps_failures():
    """The links of a chain over the same symbols meet at the same points, and the side they share is
    evaluated once per point; a side with no value at a point stays without one (never a stale value),
    and a wrong link is still caught when its sides come from the memo."""
    import sympy as sp

    from stepcheck.judge import pointwise
    from stepcheck.judge.recheck import Recheck
    from stepcheck.terms.facts import Decls

    t = sp.Symbol("T", positive=True)
    h = sp.Dummy("h", real=True)
    decls = Decls(set(), set(), {})
    lim = sp.Limit((sp.exp(t * h) - 1) / h, h, 0, "+-")
    calls = []
    real_value = Recheck.value

    def counting(self, x):
        calls.append(x)
        return real_value(self, x)

    memo: dict = {}
    Recheck.value = counting
    try:
        done1, bad1 = pointwise.pointwise_check(decls, lim, t, "=", {}, memo=memo)
        done2, bad2 = pointwise.pointwise_check(decls, t, t + 0 * t, "=", {}, memo=memo)
        _, bad3 = pointwise.pointwise_check(decls, t, 2 * t, "=", {}, memo=memo)
        _, bad4 = pointwise.pointwise_check(decls, sp.log(t - 1), t, "=", {}, memo=memo)
        _, bad5 = pointwise.pointwise_check(decls, sp.log(t - 1), t, "=", {}, memo=memo)
    finally:
        Recheck.value = real_value
    assert bad1 is None and bad2 is None and done1 == done2 > 0
    assert sum(1 for x in calls if x == lim) == done1 and sum(1 for x in calls if x == t) == done1  # once each
    assert bad3 is not None  # the memo's value of T against 2 T: still a disagreement
    # log(T - 1) has no real value at T = 1/3 or 1 (remembered as such: skipped both times); the first
    # point where it has one disagrees, from the memo as first
    assert bad4 is not None and bad4 == bad5
    assert any(isinstance(v, Exception) for v in memo.values())


def test_pointwise_draws_past_points_where_a_fact_fails():
    """Points where an assumed inequality fails are skipped at the cost of the fact, and more are drawn:
    under x > y, x > z (y defaulted to 0 at a point that does not name it) most drawn points fail a fact,
    yet the link is still evaluated at the usual number of points; a wrong link is still caught."""
    import sympy as sp

    from stepcheck.judge import pointwise
    from stepcheck.terms.facts import Decls, IneqFact

    x, y, z = sp.symbols("x y z", real=True)
    decls = Decls(set(), set(), {})
    facts = {"top": [IneqFact("top", x, y, ">"), IneqFact("top", x, z, ">")]}
    done, bad = pointwise.pointwise_check(decls, sp.Max(x, z), x, "=", facts)
    # x, z each take 5 values; 7 of the 25 pairs have x > 0 (y = 0) and x > z: every one is evaluated
    assert bad is None and done == 7 <= pointwise.MAX_POINTS < pointwise.CANDIDATES
    done, bad = pointwise.pointwise_check(decls, sp.Max(x, z), z, "=", facts)
    assert bad is not None and bad[0].values[x] > bad[0].values[z]


def test_sample_product_lists_small_products_and_draws_from_large_ones():
    """Points for the pointwise check: a large product of choices is drawn from, never listed (listing
    4^12 took seconds and gigabytes); a small one is shuffled whole, as before."""
    import itertools
    import random

    from stepcheck.judge.pointwise import sample_product

    small = [(1, 2), ("a", "b", "c")]
    got = sample_product(small, 4, random.Random(3))
    want = list(itertools.product(*small))
    random.Random(3).shuffle(want)
    assert got == want[:4]
    assert sample_product(small, 100, random.Random(3)) == want  # fewer than asked: all of them
    big = [(0, 1, 2)] * 200  # 3^200 combinations: listing them could never finish
    drawn = sample_product(big, 8, random.Random(5))
    assert len(drawn) == len(set(drawn)) == 8
    assert all(len(c) == 200 and set(c) <= {0, 1, 2} for c in drawn)
    assert drawn == sample_product(big, 8, random.Random(5))  # deterministic for a seed
    assert sample_product([], 8, random.Random(1)) == [()]


def test_many_reals_in_a_deterministic_link_are_checked_quickly_and_still_refuted():
    """A deterministic link over twelve reals: points are drawn without listing 4^12 combinations; a
    false one still gets its counterexample."""
    import itertools

    names = [f"a{k}" for k in range(12)]
    decl = "let " + ", ".join(names) + ": real\n"
    lhs = " + ".join(f"({n})^2" for n in names)
    good = check_text(decl + f"step s: ({' + '.join(names)})^2 = {lhs} + "
                      + " + ".join(f"2 {a} {b}" for a, b in itertools.combinations(names, 2)) + "\n")
    assert good.steps[0].status == "holds" and good.steps[0].links[0].cross_checked
    bad = check_text(decl + f"step s: {lhs} = 0\n")
    assert bad.steps[0].status == "fails"


def test_moments_of_a_declared_law_at_a_point():
    """E of a polynomial in one variable with a declared (continuous) law comes from the law's exact moments,
    its parameters taken at the point (several such variables realised independently), and E[exp(a G + b)]
    from its moment generating function; another function that is not a polynomial, or a point where the law
    does not exist are not evaluated."""
    import pytest as _pytest
    import sympy as sp

    from stepcheck.distributions import Dist
    from stepcheck.judge.recheck import Point, Recheck, Unconfirmed
    from stepcheck.terms.objects import E

    G, W = sp.Symbol("G", real=True), sp.Symbol("W", real=True)
    mu, v = sp.Symbol("mu", real=True), sp.Symbol("v", real=True)
    laws = {"G": Dist("Normal", (mu, v), "Normal(mu, v)"), "W": Dist("Normal", (sp.Integer(0), sp.Integer(1)), "N")}
    rc = Recheck(Point({mu: sp.Integer(0), v: sp.Integer(1)}, {}, laws=laws), {G, W}, set())
    assert rc.value(E(G ** 4)) == 3 and rc.value(E((G - 1) ** 2)) == 2
    rc = Recheck(Point({mu: sp.Integer(2), v: sp.Integer(3)}, {}, laws=laws), {G, W}, set())
    assert rc.value(E(G ** 2)) == 7  # μ² + σ²
    assert rc.value(E(G ** 2 * W ** 2)) == 7   # two declared laws: realised independently (the witness's model)
    for bad in (E(sp.exp(G ** 2)), E(G * sp.exp(G)), E(sp.exp(G + W))):
        with _pytest.raises(Unconfirmed):
            rc.value(bad)
    assert rc.value(E(sp.exp(G))) == sp.exp(2 + sp.Rational(3, 2))   # the moment generating function at 1
    rc = Recheck(Point({mu: sp.Integer(0), v: sp.Integer(-1)}, {}, laws=laws), {G, W}, set())
    with _pytest.raises(Unconfirmed):
        rc.value(E(G ** 2))  # Normal(0, -1) does not exist


def test_a_witness_pattern_is_not_written_with_a_declared_name():
    """`z_m = m - 1` beside a declared dimension m read as z = m - 1 for the user's m: another letter."""
    from stepcheck.checker import check_text
    text = ("let m: positive integer\nreal z_i for i in 1..m\ndefine y = softmax(z)\n"
            "step wrong: diff(y, z) = diag(y) + y y^T\n")
    (lk,) = check_text(text, "t.step").steps[0].links
    assert lk.status == "fails" and "z_m" not in lk.counterexample and "z_k = k - 1" in lk.counterexample


@pytest.mark.parametrize("step, status", [
    ("diff(abs(x), x)^2 = 1", "not fails"),                           # true wherever the derivative exists
    ("diff(max(x, 0), x)^2 = diff(max(x, 0), x)", "not fails"),       # relu'^2 = relu' (x != 0)
    ("diff(max(x, 0), x) = 1", "fails"),                              # x = -1, not the kink x = 0
    ("diff(abs(x), x) = 1", "fails"),
])
def test_no_witness_at_a_kink_where_the_derivative_does_not_exist(step, status):
    from stepcheck.checker import check_text
    (lk,) = check_text(f"let x: real\nstep s: {step}\n", "t.step").steps[0].links
    assert (lk.status != "fails") if status == "not fails" else lk.status == "fails", (step, lk.counterexample)
    if lk.status == "fails":
        assert "x = 0" not in (lk.counterexample or "") + " ".join(n for d in lk.diagnostics for n in d.notes)


@pytest.mark.parametrize("step, status", [
    # false where the logits are all equal (n = 2: p = 1/2): the witness pattern "every member 0" finds it
    ("p_i (1 - p_i) < 1/4", "fails"),
    ("diff(p_i, s_j) < 1/4", "fails"),
    ("p_i (1 - p_i) <= 1/4", "not fails"),   # true: the pattern refutes nothing here
])
def test_a_witness_with_every_member_equal(step, status):
    text = ("let n: positive integer\nlet i, j: index 1..n\nreal s_i for i in 1..n\n"
            "define p_i = exp(s_i) / sum(m=1..n, exp(s_m))\n" f"step t: {step}\n")
    (lk,) = check_text(text, "t.step").steps[0].links
    if status == "not fails":
        assert lk.status != "fails", (step, lk.counterexample)
    else:
        assert lk.status == "fails", (step, lk.status)
        assert Recheck(Point({}, {}, pattern=3), set(), set()).value(sp.IndexedBase("s")[2]) == 0


@pytest.mark.parametrize("kind, value", [
    ({"integer": True}, sp.Rational(1, 2)),    # `let m: integer` at m = 1/2 (m^2 >= m "failed" there)
    ({"positive": True}, sp.Integer(0)),
    ({"nonnegative": True}, sp.Integer(-1)),
    ({"integer": True, "positive": True}, sp.Integer(0)),
])
def test_a_value_off_its_symbol_s_declared_kind_refutes_nothing(kind, value):
    """The re-check is the gate of every witness: a point giving a symbol a value its declaration excludes is
    no point of the link, whatever the search that found it."""
    m = sp.Symbol("m", real=True, **kind)
    ok, why, _ = confirms(Point({m: value}, {}), Decls(), m**2, m + 1, ">=", {})
    assert not ok and "as m is declared" in why, why


def test_a_value_of_its_symbol_s_declared_kind_refutes():
    m = sp.Symbol("m", integer=True)
    assert confirms(Point({m: sp.Integer(0)}, {}), Decls(), m**2, m + 1, ">=", {})[0]  # 0 >= 1 is false
