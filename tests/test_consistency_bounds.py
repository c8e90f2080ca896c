"""Assumed bounds by numbers that leave a symbol no value are contradictory assumptions (kernel/consistency.py:
_bounds_contradicted): nothing is counted as verified from them."""
import pytest

from stepcheck.checker import check_text


def _inconsistent(text):
    rep = check_text(text, "t.step")
    hit = [d for d in rep.diagnostics if d.code == "E-inconsistent"]
    return hit[0] if hit else None, [lk.status for s in rep.steps for lk in s.links]


@pytest.mark.parametrize("text, labels, why", [
    ("let x: real\nassume a: x > 1\nassume b: x < 0\nstep up: x > 0\n", "`a`, `b`", "x > 1"),
    ("let x: real\nassume a: x >= 1\nassume b: x < 1\nstep up: x > 0\n", "`a`, `b`", "x < 1"),
    ("let x: real\nassume a: 2 < x\nassume b: 1 > x\nstep up: x > 0\n", "`a`, `b`", "x > 2"),
    ("let c: positive real\nassume neg: c < 0\nstep s: c < 0\n", "`neg`", "declared positive"),
    ("let c: nonnegative real\nassume neg: c < 0\nstep s: c < 0\n", "`neg`", "declared nonnegative"),
    ("random X\nassume pos: X > 0\nassume m: E[X] = -1\nstep s: E[X] > 0\n", "`pos`, `m`", "mean"),
    ("random X\nassume pos: X > 0\nassume m: E[X] = 0\nstep s: E[X] >= 0\n", "`pos`, `m`", "mean"),
    ("random X\nassume up: X <= 1\nassume m: E[X] = 2\nassume other: E[X^2] = 5\nstep s: E[X] = 2\n", "`up`, `m`",
     "mean"),
    # family members, equations fixing a value, whole numbers, a mean of a declared sign
    ("let n: positive integer\nreal s_i for i in 1..n\nassume a: s_1 > 1\nassume b: s_1 < 0\nstep s: s_1 > 0\n",
     "`a`, `b`", "s_1 > 1"),
    ("let x: real\nassume g: x > 3\nassume h: x = 2\nstep s: x < 3\n", "`g`, `h`", "x > 3"),
    ("let n: positive integer\nassume a: n < 1\nstep s: n < 1\n", "`a`", "whole number"),
    ("let m: integer\nassume a: m > 0\nassume b: m < 1\nstep s: m > 0\n", "`a`, `b`", "m ≥ 1"),
    ("random X\nlet c: positive real\nassume pos: X > 0\nassume m: E[X] = -c\nstep s: E[X] < 0\n", "`pos`, `m`",
     "mean"),
    # a bound on every member of a family whose range is not empty
    ("let n: positive integer\nlet i: index 1..n\nrandom q_i for i in 1..n\nassume pos: q_i > 0\nassume m: E[q_i] = -1\nstep t: E[q_1] < 0\n", "`pos`, `m`", "E[q_i]"),
    ("let n: positive integer\nlet i: index 1..n\nrandom q_i for i in 1..n\nassume a: q_i > 1\nassume b: 0 > q_i\nstep t: q_1 < 0\n", "`a`, `b`", "q_i > 1"),
    # ... and at the literal members the other facts use
    ("let n: positive integer\nlet i: index 1..n\nrandom q_i for i in 1..n\nassume pos: q_i > 0\nassume m: E[q_1] = -1\nstep t: E[q_1] < 0\n", "`pos`, `m`", "E[q_1]"),
    # bounds written in any linear form, and by names
    ("random X\nassume neg: -X > 0\nassume m: E[X] = 1\nstep s: E[X] > 0\n", "`neg`, `m`", "mean"),
    ("random X\nassume h: 2 X > 1\nassume m: E[X] = 0\nstep s: E[X] < 1\n", "`h`, `m`", "mean"),
    ("random X\nlet r: real\nassume pos: X > r\nassume m: E[X] = r - 1\nstep s: E[X] < r\n", "`pos`, `m`", "mean"),
    ("let a: positive real\nlet c: real\nassume b: c > a, c < 0\nstep s: c > 0\n", "`b`", "c > a"),
    # bounds on moments: against each other, against the law, against the sign every law gives them
    ("random X\nassume a: E[X] > 1\nassume b: E[X] < 0\nstep s: E[X] > 1\n", "`a`, `b`", "E[X] > 1"),
    ("random B ~ Bernoulli(1/2)\nassume a: E[B] > 1/2\nstep s: Var(B) < 1/4\n", "`a`", "E[B] > 1/2"),
    ("random Z ~ Normal(0, 1)\nassume a: E[Z] > 0\nstep s: E[Z] > 0\n", "`a`", "E[Z] > 0"),
    ("random X\nassume v: Var(X) < 0\nstep s: Var(X) < 0\n", "`v`", "never negative"),
    ("random X\nassume v: E[X^2] < 0\nstep s: E[X^2] < 0\n", "`v`", "never negative"),
    ("random X\nassume a: E[exp(X)] = -1\nstep s: E[exp(X)] < 0\n", "`a`", "always positive"),
    ("random R ~ Rademacher\nassume a: E[exp(R)] = 1\nstep s: E[exp(R)] = 1\n", "`a`", "cannot be both"),
    # bounds against what Cauchy-Schwarz and Var <= E[g^2] give once the equations fix the other side
    ("random X, Y\nassume v: Var(X) = 1, Var(Y) = 1\nassume c: Cov(X, Y) > 2\nstep s: Cov(X, Y) > 1\n",
     "`c`, `v`", "Cov(X, Y)^2 ≤ Var(X) Var(Y)"),
    ("random X, Y\nassume v: Var(X) = 1, Var(Y) = 1\nassume c: Cov(X, Y) <= -2\nstep s: Cov(X, Y) < 0\n",
     "`c`, `v`", "Cov(X, Y) ≥ -1"),
    ("random X, Y\nassume v: E[X^2] = 1, E[Y^2] = 4\nassume c: E[X Y] < -3\nstep s: E[X Y] < 0\n", "`c`, `v`",
     "E[X Y] ≥ -2"),
    ("random X\nassume v: E[X^2] = 1\nassume c: E[X] > 2\nstep s: E[X] > 1\n", "`c`, `v`", "E[X] ≤ 1"),
    ("random X\nassume v: E[X^2] = 1\nassume c: Var(X) > 2\nstep s: Var(X) > 1\n", "`c`, `v`", "Var(X) ≤ E[X^2]"),
    ("random X\nassume v: E[X^2] = 1\nassume c: SD(X) > 1\nstep s: SD(X) > 0\n", "`c`, `v`", "SD(X) ≤ 1"),
    ("random X\nassume v: Var(X) = 1\nassume c: E[X^2] < 1/2\nstep s: E[X^2] < 1\n", "`c`, `v`", "E[X^2] ≥ Var(X)"),
    ("random X\nassume v: E[X] = 1\nassume c: E[X^2] < 1/2\nstep s: E[X^2] < 1\n", "`c`, `v`", "E[X^2] ≥ E[X]^2"),
    ("random Z ~ Normal(0, 1)\nrandom Y ~ Normal(0, 1)\nassume c: E[Z Y] > 1\nstep s: E[Z Y] > 0\n", "`c`",
     "E[Y Z] ≤ 1"),
    # almost-sure bounds against second moments (_spread): (X - lo)(hi - X) >= 0, and a bound at the mean
    ("random X\nassume lo: X >= 0\nassume hi: X <= 1\nassume m: E[X^2] = 2\nstep s: E[X^2] = 2\n",
     "`lo`, `hi`, `m`", "E[X^2] ≤ E[X]"),
    ("random X\nassume lo: X >= -1\nassume hi: 2 >= X\nassume m: E[X] = 1/2\nassume v: Var(X) = 3\n"
     "step s: Var(X) = 3\n", "`lo`, `hi`, `v`", "E[X^2] ≤ 2 + E[X]"),
    ("random X\nassume lo: X >= 0\nassume m: E[X] = 0\nassume v: Var(X) = 1\nstep s: Var(X) = 1\n",
     "`lo`, `m`, `v`", "X = 0 on every outcome"),
    ("random Y\nassume a: Y >= 2\nassume b: Y <= 4\nassume c: Var(Y) = 2\nstep s: Var(Y) = 2 by c\n",
     "`a`, `b`, `c`", "E[Y^2] ≤ -8 + 6 E[Y]"),           # Var(Y) <= (4 - 2)^2/4 = 1 whatever E[Y] is
    ("random X\nassume hi: X <= 3\nassume m: E[X] = 3\nassume v: E[X^2] = 10\nstep s: E[X] = 3\n",
     "`hi`, `m`, `v`", "X = 3 on every outcome"),
    ("let n: positive integer\nlet i: index 1..n\nrandom q_i for i in 1..n\nassume lo: q_i >= 0\n"
     "assume m: E[q_i] = 0\nassume v: Var(q_i) = 1\nstep t: Var(q_1) = 1\n", "`lo`, `m`, `v`", "on every outcome"),
])
def test_bounds_that_leave_no_value_are_contradictory(text, labels, why):
    d, statuses = _inconsistent(text)
    assert d is not None and labels in d.title and any(why in n for n in d.notes), text
    assert "holds" not in statuses


@pytest.mark.parametrize("text", [
    "let x: real\nassume a: x > 1\nassume b: x < 2\nstep up: x > 0\n",
    "let x: real\nassume a: x >= 1\nassume b: x <= 1\nstep up: x > 0\n",           # x = 1
    "let c: positive real\nassume small: c < 1\nstep s: c < 1\n",
    "random X\nassume pos: X > 0\nassume m: E[X] = 1\nstep s: E[X] > 0\n",
    "random X\nassume nn: X >= 0\nassume m: E[X] = 0\nstep s: E[X] >= 0\n",         # X = 0 almost surely
    "random X\nlet x: real\nassume pos: x > 0\nassume m: E[X] = -1\nstep s: x > 0\n",   # another symbol
    "let n: positive integer\nreal s_i for i in 1..n\nassume a: s_1 > 1\nassume b: s_2 < 0\nstep s: s_1 > 0\n",
    "let x: real\nassume g: x > 1\nassume h: x = 2\nstep s: x > 1\n",
    "let m: integer\nassume a: m > 0\nassume b: m < 2\nstep s: m > 0\n",                   # m = 1
    "random X\nlet c: positive real\nassume pos: X > 0\nassume m: E[X] = c\nstep s: E[X] > 0\n",
    "let n: positive integer\nlet i: index 1..n\nrandom q_i for i in 1..n\nassume pos: q_i > 0\nassume m: E[q_i] = 1\nstep t: E[q_1] > 0\n",
    "let n: positive integer\nlet i: index 1..n\nrandom q_i for i in 1..n\nassume nn: q_i >= 0\nassume m: E[q_i] = 0\nstep t: E[q_1] >= 0\n",        # q_i = 0 almost surely
    # a range that may be empty (m = 1): the bounds say nothing there, and no contradiction follows
    ("let m: integer\nlet j: index 2..m\nrandom r_j for j in 2..m\nassume lo: r_j > 1\nassume hi: r_j < 0\n"
     "step t: 1 > 0\n"),
    "let n: positive integer\nlet i: index 1..n\nrandom q_i for i in 1..n\nlet j: index 1..n\nassume pos: q_i > 0\nassume m: E[q_j] = 1\nstep t: E[q_1] > 0\n",
    "let n: positive integer\nlet i: index 1..n\nrandom q_i for i in 1..n\nassume pos: q_i > 0\nassume m: E[q_1] = 2\nstep t: E[q_1] > 0\n",
    "random X\nassume neg: -X > 0\nassume m: E[X] = -1\nstep s: E[X] < 0\n",
    "random X\nlet r: real\nassume pos: X > r\nassume m: E[X] = r + 1\nstep s: E[X] > r\n",
    "let a: positive real\nlet c: real\nassume b: c > a, c < 2 a\nstep s: c > 0\n",
    "random X\nassume a: E[X] > 0\nassume b: E[X] < 1\nstep s: E[X] > 0\n",
    "random X\nassume v: Var(X) <= 0\nstep s: Var(X) <= 0\n",                       # X constant
    "random R ~ Rademacher\nassume a: E[exp(R)] = (exp(1) + exp(-1))/2\nstep s: E[exp(R)] > 1\n",
    # Cauchy-Schwarz and Var <= E[g^2] leave room, or the other side is not a number
    "random X, Y\nassume v: Var(X) = 1, Var(Y) = 1\nassume c: Cov(X, Y) > 1/2\nstep s: Cov(X, Y) > 0\n",
    "random X, Y\nassume v: Var(X) = 1, Var(Y) = 1\nassume c: Cov(X, Y) >= 1\nstep s: Cov(X, Y) > 0\n",  # X = Y
    "random X, Y\nassume v: Var(X) = 4, Var(Y) = 4\nassume c: Cov(X, Y) > 2\nstep s: Cov(X, Y) > 0\n",
    "let s: positive real\nrandom X, Y\nassume v: Var(X) = s, Var(Y) = 1\nassume c: Cov(X, Y) > 2\nstep t: Cov(X, Y) > 0\n",
    "random X\nassume v: E[X^2] = 5\nassume c: E[X] > 2\nstep s: E[X] > 0\n",
    "random X\nassume v: E[X^2] = 1\nassume c: SD(X) >= 1\nstep s: SD(X) > 0\n",                   # E[X] = 0
    "random X\nassume v: E[X] = 1\nassume c: E[X^2] < 2\nstep s: E[X^2] < 3\n",
    "random Z ~ Normal(0, 1)\nrandom Y ~ Normal(0, 1)\nassume c: E[Z Y] >= 1\nstep s: E[Z Y] > 0\n",  # Y = Z
    # almost-sure bounds that leave the second moments room: a two-point law at the ends, X = 0
    "random X\nassume lo: X >= 0\nassume hi: X <= 1\nassume m: E[X^2] = 1/2\nstep s: E[X^2] = 1/2\n",
    "random X\nassume lo: X >= 0\nassume hi: X <= 1\nassume m: E[X^2] = 1\nstep s: E[X^2] = 1\n",  # X = 1
    "random X\nassume lo: X >= -1\nassume hi: 2 >= X\nassume m: E[X] = 1/2\nassume v: Var(X) = 9/4\n"
    "step s: Var(X) = 9/4\n",                                                     # Bhatia-Davis, with equality
    "random X\nassume lo: X >= 0\nassume m: E[X] = 0\nassume v: E[X^2] = 0\nstep s: E[X^2] = 0\n",
    "random Y\nassume a: Y >= 2\nassume b: Y <= 4\nassume c: Var(Y) = 1\nstep s: Var(Y) = 1 by c\n",  # Y = 2 or 4
    "random X\nassume lo: X >= 0\nassume m: E[X] = 1\nassume v: Var(X) = 100\nstep s: Var(X) = 100\n",
    "random X\nlet c: real\nassume lo: X >= 0\nassume hi: X <= 1\nassume m: E[X^2] = c\nstep s: E[X^2] = c\n",
])
def test_bounds_that_leave_a_value_are_not(text):
    d, statuses = _inconsistent(text)
    assert d is None, text
    assert statuses == ["holds"], text


def test_a_check_for_contradictions_past_its_deadline_is_no_clean_bill(monkeypatch):
    """A sub-check that meets the time limit gives up quietly; past the deadline, "no contradiction seen"
    was taken as consistent, and a false claim held with exit 0 on a loaded machine (four unit variances
    with pairwise covariances -2/5 at --timeout 3..7)."""
    import time

    import stepcheck.kernel.consistency as kc
    from stepcheck.kernel import KernelLimit, Limits

    def slow(*a, **k):
        time.sleep(0.3)
        return None  # what a sub-check that swallowed the limit returns

    monkeypatch.setattr(kc, "_check_consistency", slow)
    with pytest.raises(KernelLimit):
        kc.check_consistency(None, {"a": []}, Limits(seconds=0.1))
    monkeypatch.setattr(kc, "_check_consistency", lambda *a, **k: None)
    assert kc.check_consistency(None, {"a": []}, Limits(seconds=5)) is None  # in time: consistent


def test_a_step_resting_on_assumptions_whose_check_ran_out_of_time_is_not_verified(monkeypatch):
    import stepcheck.assumptions as sa
    from stepcheck.kernel import KernelLimit

    def out_of_time(*a, **k):
        raise KernelLimit("time limit of 5 s reached while checking the assumptions")

    monkeypatch.setattr(sa, "check_consistency", out_of_time)
    text = ("random X, Y\nassume v: Var(X) = 1\nassume c: Cov(X, Y) = 0\n"
            "step s: Var(X + Y) = 1 + Var(Y)\nstep t: E[2 X] = 2 E[X]\n")
    rep = check_text(text, "t.step")
    assert [d.code for d in rep.diagnostics] == ["W-unchecked-assumptions"]
    s, t = rep.steps
    assert s.links[0].status == "unknown" and "ran out of time" in s.links[0].message
    assert t.links[0].status == "holds"  # rests on no assumption: unaffected


@pytest.mark.parametrize("cov, inconsistent", [("-2/5", True), ("-1/2", True), ("-1/3", False), ("1/2", False)])
def test_stated_covariances_are_checked_before_any_polynomial_system(cov, inconsistent):
    """Four unit variances with pairwise covariance c: PSD iff c >= -1/3.  Read from the facts as written,
    with no basis to compute: the basis alone took longer than a link has on a loaded machine (the -2/5
    and -1/2 files held, false, at stop 37's tree here)."""
    from stepcheck.options import Options

    text = (f"let i, j: index 1..4\nrandom q_i for i in 1..4\nassume v: Var(q_i) = 1\n"
            f"assume c: Cov(q_i, q_j) = {cov} for i != j\nstep s: Var(q_1 + q_2 + q_3 + q_4) = 4 + 12 ({cov})\n")
    rep = check_text(text, "t.step", Options(timeout=1.0))
    codes = [d.code for d in rep.diagnostics]
    (lk,) = rep.steps[0].links
    if inconsistent:
        assert codes == ["E-inconsistent"] and lk.status == "unknown", codes
    else:
        assert "E-inconsistent" not in codes and lk.status != "fails", codes


def test_generic_members_of_a_quantified_range_give_no_matrix_of_their_own():
    # over 1..n, n may be 2: Cov = -1/2 between two unit variances is a real law; nothing is contradictory
    text = ("let n: positive integer\nlet i, j: index 1..n\nrandom q_i for i in 1..n\nassume v: Var(q_i) = 1\n"
            "assume c: Cov(q_i, q_j) = -1/2 for i != j\nstep s: Var(q_i) = 1\n")
    rep = check_text(text, "t.step")
    assert "E-inconsistent" not in [d.code for d in rep.diagnostics]


@pytest.mark.parametrize("text, moment", [
    # W = f(Z) on every outcome for two declared laws: one distribution, so every moment agrees (_laws_disagree)
    ("random Z ~ Normal(0, 1)\nrandom W ~ Normal(0, 1)\nassume h: W = (Z^3 - 3 Z)/sqrt(6)\nstep s: 0 = 1 by h\n",
     "E[W^4] = 3"),                                     # mean 0 and variance 1 agree; the fourth moment does not
    # (the first moments that disagree, the polynomial check finds too: either reports it)
    ("random Z ~ Normal(0, 1)\nrandom W ~ Normal(0, 2)\nassume h: W = 2 Z\nstep s: E[W^2] = 4 by h\n", None),
    ("random U ~ Uniform(0, 1)\nrandom V ~ Uniform(0, 1)\nassume u: V = U^2\nstep s: E[V] = 1/3 by u\n", None),
    ("random R ~ Rademacher\nrandom B ~ Bernoulli(1/3)\nassume r: R = 2 B - 1\nstep s: E[R] = -1/3 by r\n", None),
    ("random Z ~ Normal(0, 1)\nrandom R ~ Rademacher\nassume r: 3 R = 3 Z\nstep s: E[R^4] = 3 by r\n", "E[R^4] = 1"),
])
def test_an_equation_between_two_declared_laws_must_keep_their_moments(text, moment):
    d, statuses = _inconsistent(text)
    assert d is not None and (moment is None or any(moment in n for n in d.notes)), (text, d and d.notes)
    assert "holds" not in statuses


@pytest.mark.parametrize("text", [
    "random Z ~ Normal(0, 1)\nrandom W ~ Normal(1, 4)\nassume h: W = 2 Z + 1\nstep s: E[W] = 1 by h\n",
    "random Z ~ Normal(0, 1)\nrandom W ~ Normal(0, 1)\nassume h: W = -Z\nstep s: E[W Z] = -1 by h\n",
    "random U ~ Uniform(0, 1)\nrandom V ~ Uniform(-1, 1)\nassume u: V = 2 U - 1\nstep s: E[V] = 0 by u\n",
    "random U ~ Uniform(0, 1)\nrandom V ~ Uniform(0, 1)\nassume u: V = 1 - U\nstep s: E[U + V] = 1 by u\n",
    "random R ~ Rademacher\nrandom B ~ Bernoulli(1/2)\nassume r: R = 2 B - 1\nstep s: E[R] = 0\n",
])
def test_an_equation_that_keeps_both_laws_is_no_contradiction(text):
    d, statuses = _inconsistent(text)
    assert d is None, (text, d and d.notes)
    assert statuses == ["holds"], text


def test_assumptions_that_share_no_name_are_checked_apart(monkeypatch):
    """Each group of assumptions with no name in common with the others is its own check with its own time
    limit: a group out of time leaves only its own steps unknown (a generated file with 500 assumptions about
    distinct variables before its first step had 500 of 1500 links unknown, the whole set past one deadline)."""
    import stepcheck.assumptions as sa
    from stepcheck.kernel import KernelLimit

    seen = []
    inner = sa.check_consistency

    def per_group(decls, facts, *a, **k):
        seen.append(sorted(lab for lab in facts if not lab.startswith(("X", "Y", "Z"))))
        if "slow" in facts:
            raise KernelLimit("time limit of 5 s reached while checking the assumptions")
        return inner(decls, facts, *a, **k)

    monkeypatch.setattr(sa, "check_consistency", per_group)
    rep = check_text("random X, Y, Z\nassume slow: E[X] = 1\nassume fast: E[Y] = 2\nassume bad: Var(Z) = -1\n"
                     "step a: E[2 X] = 2 by slow\nstep b: E[2 Y] = 4 by fast\nstep c: Var(Z) = -1 by bad\n", "t.step")
    assert sorted(seen) == [["bad"], ["fast"], ["slow"]]
    status = {s.name: s.status for s in rep.steps}
    assert status == {"a": "unknown", "b": "holds", "c": "unknown"}
    assert {d.code for d in rep.diagnostics} >= {"W-unchecked-assumptions", "E-inconsistent"}
    # a name in common joins them: one check
    seen.clear()
    check_text("random X, Y\nassume one: E[X] = 1\nassume two: Cov(X, Y) = 0\nassume three: E[Y] = 2\n"
               "step a: E[X + Y] = 3 by one, three\n", "t.step")
    assert seen == [["one", "three", "two"]]


ORDER = "let n: positive integer\nlet i, j: index 1..n\nreal r_i for i in 1..n\n"


@pytest.mark.parametrize("facts, labels", [
    ("assume ord: r_i < r_j for i != j\nassume two: n >= 2\n", "`ord`, `two`"),
    ("assume ord: r_i - r_j > 0 for i != j\nassume two: n > 1\n", "`ord`, `two`"),
    ("assume ord: r_i < r_j for i != j\nassume seen: r_2 > 0\n", "`ord`, `seen`"),  # r_2 presupposes n >= 2
    ("assume ord: r_i < r_j for i != j\nassume two: n = 2\n", "`ord`, `two`"),      # a dimension fixed
    ("assume ord: r_i <= r_j - 1 for i != j\nassume two: n >= 2\n", "`ord`, `two`"),  # both ways: 2 <= 0
])
def test_a_strict_order_both_ways_is_a_contradiction_where_the_range_has_two_members(facts, labels):
    hit, statuses = _inconsistent(ORDER + facts + "step s: r_1 < r_2\n")
    assert hit is not None and labels in hit.title and any("distinct indices" in n for n in hit.notes), (facts, hit)
    assert "holds" not in statuses


def test_an_order_made_strict_both_ways_by_an_equation_is_a_contradiction():
    """`r_i < r_j + x for i != j` with `x = 0` is the strict order both ways; with x free it is not."""
    facts = "assume ord: r_i < r_j + x for i != j\nassume two: n >= 2\n"
    hit, statuses = _inconsistent(ORDER + "let x: real\n" + facts + "assume xz: x = 0\nstep s: r_1 < r_2\n")
    assert hit is not None and "`ord`, `two`, `xz`" in hit.title, hit
    assert "holds" not in statuses
    assert _inconsistent(ORDER + "let x: real\n" + facts + "step s: r_1 <= r_1\n")[0] is None  # x = 1 satisfies it
    assert _inconsistent(ORDER + "let x: real\n" + facts + "assume xo: x = 1\nstep s: r_1 <= r_1\n")[0] is None


@pytest.mark.parametrize("text, labels", [
    ("let x, y: real\nassume a: (x - y)^2 < 0\nstep s: x = 5\n", "`a`"),
    ("let x: real\nassume a: x^2 + 1 <= 0\nstep s: x = 5\n", "`a`"),
    ("random X\nassume a: X^2 + 1 <= 0\nstep s: E[X] = 5\n", "`a`"),
    ("let c: real\nassume b: c > 2\nassume a: c^2 - 4 <= 0\nstep s: c = 5\n", "`a`, `b`"),  # with a bound
    (ORDER + "assume a: r_i^2 + 1 < 1/2\nstep s: r_1 = 5\n", "`a`"),              # 1..n has a member
    (ORDER + "assume a: (r_i - r_j)^2 < 0 for i != j\nassume two: n >= 2\nstep s: r_1 = 5\n", "`a`, `two`"),
    ("let i, j: index 1..3\nreal r_i for i in 1..3\nassume a: (r_i - r_j)^2 < 0 for i != j\nstep s: r_1 = 5\n", "`a`"),
])
def test_a_bound_false_at_every_reading_is_a_contradiction(text, labels):
    hit, statuses = _inconsistent(text)
    assert hit is not None and any("which is false for every value" in n for n in hit.notes), hit
    assert sorted(hit.title.split(": ", 1)[1].split(", ")) == sorted(labels.split(", ")), hit.title  # in any order
    assert "holds" not in statuses


@pytest.mark.parametrize("text", [
    "let x, y: real\nassume a: (x - y)^2 <= 0\nstep s: x <= x\n",      # x = y
    "let x: real\nassume a: x^2 - 1 < 0\nstep s: x <= x\n",
    "let c: real\nassume b: c < 1/2\nassume a: c^2 - 1 > 0\nstep s: c <= c\n",  # c = -2
    ORDER + "assume a: (r_i - r_j)^2 < 0 for i != j\nstep s: r_1 <= r_1\n",       # n = 1: no two indices
    "let i, j: index 1..1\nreal r_i for i in 1..1\nassume a: (r_i - r_j)^2 < 0 for i != j\nstep s: 1 <= 1\n",
    ORDER + "assume a: r_i^2 >= -1\nstep s: r_1 <= r_1\n",
])
def test_a_bound_some_reading_keeps_is_not(text):
    assert _inconsistent(text)[0] is None, text


def test_a_fact_over_two_indices_that_may_be_equal_is_read_at_equal_ones():
    """`r_i < r_j` with no `for i != j` says r_1 < r_1 at i = j: no values satisfy it."""
    hit, statuses = _inconsistent(ORDER + "assume ord: r_i < r_j\nstep s: r_i < r_i\n")
    assert hit is not None and "`ord`" in hit.title and any("equal ones too" in n for n in hit.notes)
    assert "holds" not in statuses
    for fine in ("r_i - r_j <= 1", "|r_i - r_j| >= 0"):  # hold at i = j
        assert _inconsistent(ORDER + f"assume ord: {fine}\nstep s: r_1 <= r_1\n")[0] is None, fine


@pytest.mark.parametrize("facts", [
    "assume ord: r_i < r_j for i != j\n",                          # n = 1: no two distinct indices, it holds
    "assume ord: r_i < r_j + 1 for i != j\nassume two: n >= 2\n",  # not the negation when swapped
    "assume ord: r_i <= r_j for i != j\nassume two: n >= 2\n",     # weak: every r equal satisfies it
    "assume ord: |r_i - r_j| >= 1 for i != j\nassume two: n >= 2\n",  # r_i = i satisfies it
    "assume ord: r_i <= r_j - 1 for i != j\nassume two: n = 1\n",     # one member: no two distinct indices
])
def test_no_contradiction_where_the_order_can_hold(facts):
    hit, _ = _inconsistent(ORDER + facts + "step s: r_1 <= r_1\n")
    assert hit is None, (facts, hit.title)


def test_a_remainder_nonnegative_at_an_allowed_point_is_not_negative_and_sympy_decides_the_rest():
    """consistency._negative asks sympy only where no point its assumptions allow makes the remainder >= 0
    (_nonnegative_somewhere); the points keep every assumption of each symbol, so sympy's answer is unchanged."""
    import sympy

    from stepcheck.kernel.consistency import _negative, _nonnegative_somewhere
    from stepcheck.terms.objects import E

    n = sympy.Symbol("n", positive=True, integer=True)
    x = sympy.Symbol("x", real=True)
    X = sympy.Symbol("X", real=True)
    assert _nonnegative_somewhere(n**6 / 240 - n / 60 - 1 / sympy.Integer(180) + n**2)   # n = 1 gives >= 0
    assert not _negative(n**2 - 2)
    assert _negative(-n**2 - 1) and not _nonnegative_somewhere(-n**2 - 1)                # sympy still proves it
    assert _negative(-x**2 - 1)
    assert _nonnegative_somewhere(E(X**6) - x**12 - 5)      # an unconstrained mean outweighs the rest
    assert not _nonnegative_somewhere(-E(X**6)**2 - 1)
    z = sympy.Symbol("z", composite=True)
    assert not _nonnegative_somewhere(z + 100)              # no trial value is composite: unsure, never a wrong point
    q = sympy.Symbol("q", prime=True)
    assert not _nonnegative_somewhere(q - 100)              # 2, the one prime trial value, gives -98
    assert _nonnegative_somewhere(q - 2)
    assert _negative(sympy.Integer(-1)) and not _negative(sympy.Integer(0))
