"""A limit whose variable occurs inside a sum over a symbolic range (kernel/calculus.py: _parts_limit).

For each value of its ends the sum has finitely many terms, so where every part has a finite limit the
algebra of limits applies: Σ_{m=1..n} exp(s_m/T) -> n as T -> oo, and softmax(s/T)_i -> 1/n.  Where a
part is infinite (∞ · 0, ∞ - ∞) or a power's base may tend to 0, nothing is concluded."""
import pytest
import sympy

from conftest import assert_verdict, claim_link
from stepcheck.checker import check_text
from stepcheck.kernel.limits import parts_limit as _parts_limit
from stepcheck.terms.facts import KernelLimit
from stepcheck.terms.objects import DSum, canon_bound

DECLS = "let n: positive integer\nlet i: index 1..n\nreal s_i for i in 1..n\nlet x: real\n"


def _link(claim):
    return claim_link(DECLS, claim)


@pytest.mark.parametrize("claim", [
    "limit(softmax(s / T)_i, T -> oo) = 1/n",              # a hot softmax is uniform, for any number of logits
    "limit(softmax(c s)_i, c -> 0) = 1/n",                 # logits shrunk towards 0
    "limit(exp(s_i / T) / sum(m=1..n, exp(s_m / T)), T -> oo) = 1/n",
    "limit(sum(m=1..n, exp(s_m / T)), T -> oo) = n",
    "limit(sum(m=1..n, s_m + 1/T), T -> oo) = sum(m=1..n, s_m)",
    "limit(log(sum(m=1..n, exp(s_m / T))), T -> oo) = log(n)",
])
def test_limits_through_a_sum_hold(claim):
    link = _link(claim)
    assert link.status == "holds", (claim, link.status, link.residual, link.message)
    assert "calculus" in link.rules


@pytest.mark.parametrize("claim", [
    "limit(softmax(s / T)_i, T -> oo) = 1/(n + 1)",
    "limit(sum(m=1..n, exp(s_m / T)), T -> oo) = n + 1",
])
def test_wrong_limits_through_a_sum_fail(claim):
    link = _link(claim)
    assert link.status == "fails", (claim, link.status)


@pytest.mark.parametrize("claim", [
    # ∞ · 0: the true value is Σ s_m, the parts say nothing
    "limit(T (sum(m=1..n, exp(s_m / T)) - n), T -> oo) = 0",
    # ∞ - ∞: the true value is the mean of the logits
    "limit(T log(sum(m=1..n, exp(s_m / T))) - T log(n), T -> oo) = 0",
    # the summand's limit depends on the sign of each logit
    "limit(sum(m=1..n, exp(s_m T)), T -> oo) = n",
])
def test_indeterminate_parts_are_not_added(claim):
    assert _link(claim).status != "holds", claim


def test_a_power_of_a_part_that_may_tend_to_zero_is_refused():
    n, T = sympy.Symbol("n", integer=True, positive=True), sympy.Symbol("T", positive=True)
    s, b = sympy.IndexedBase("s", real=True), canon_bound(1)
    tends_to_zero = DSum(s[b] / T, sympy.Tuple(sympy.Tuple(b, 1, n)), sympy.Tuple())  # Σ s_m/T -> 0
    with pytest.raises(KernelLimit):
        _parts_limit(1 / tends_to_zero, T, sympy.oo, "-")
    positive = DSum(sympy.exp(s[b] / T), sympy.Tuple(sympy.Tuple(b, 1, n)), sympy.Tuple())
    assert _parts_limit(1 / positive, T, sympy.oo, "-") == 1 / DSum(1, sympy.Tuple(sympy.Tuple(b, 1, n)), sympy.Tuple())


# ---------------------------------------------------------------- a dominant term: one-hot as T -> 0+

COLD = ("let n: positive integer\nlet k: index 2..n\nlet m: index 3..n\nreal s_i for i in 1..n\n"
        "real r_i for i in 1..n\nreal w_i for i in 1..n\nreal z_i for i in 1..n\n"
        "assume top: s_k < s_1\nassume weak: r_k <= r_1\nassume part: w_m < w_1\nassume rev: z_k > z_1\n")


def _cold(claim):
    (link,) = check_text(COLD + f"step t: {claim}\n", "t.step").steps[-1].links
    return link


@pytest.mark.parametrize("claim", [
    "limit(softmax(s / T)_1, T -> 0+) = 1",   # the largest of n logits takes everything
    "limit(softmax(s / T)_k, T -> 0+) = 0",   # every other entry vanishes
    "limit(exp(s_k / T) / sum(j=1..n, exp(s_j / T)), T -> 0+) = 0",
])
def test_one_hot_for_any_number_of_logits(claim):
    link = _cold(claim)
    assert link.status == "holds", (claim, link.status, link.message)
    assert "top" in [u.label for u in link.uses]


@pytest.mark.parametrize("claim", [
    "limit(softmax(r / T)_1, T -> 0+) = 1",   # r_k <= r_1 only: ties split the mass
    "limit(softmax(w / T)_1, T -> 0+) = 1",   # w_2 is not below w_1 by any fact
    "limit(softmax(z / T)_1, T -> 0+) = 1",   # z_1 is the smallest
    "limit(softmax(s / T)_1, T -> 0+) = 1/n",
])
def test_one_hot_needs_a_strict_fact_about_every_other_logit(claim):
    assert _cold(claim).status != "holds", claim


def test_member_facts_are_read_only_over_one_declared_range():
    from stepcheck.kernel.limits import limit_gap
    from stepcheck.terms.facts import Decls, IneqFact

    n, k, i = sympy.Symbol("n", integer=True, positive=True), sympy.Symbol("k", integer=True), sympy.Symbol("i")
    s = sympy.IndexedBase("s", real=True)
    decls = Decls(index_ranges={k: (sympy.Integer(2), n)})
    got = limit_gap(IneqFact("top", s[k], s[1], "<", free=(k,)), decls)
    assert isinstance(got, sympy.Tuple) and got.args[2:] == (2, n, k) and got.args[0] == (s[1] - s[k]).xreplace({k: got.args[1]})
    assert limit_gap(IneqFact("weak", s[k], s[1], "<=", free=(k,)), decls) is None          # not strict
    assert limit_gap(IneqFact("undeclared", s[i], s[1], "<", free=(i,)), decls) is None    # no declared range


LSE = "let a, b, c: real\nassume ab: a > b\n"


@pytest.mark.parametrize("claim, status", [
    # log-sum-exp at a temperature tends to the largest value: the larger exp factored out of the log
    ("limit(T log(exp(a/T) + exp(b/T)), T -> 0+) = a", "holds"),
    ("limit(T log(2 exp(a/T) + exp(b/T) + exp(b/T)), T -> 0+) = a", "holds"),
    ("limit(T log(exp(a/T) + exp(b/T)), T -> 0+) = b", "fails"),
    ("limit(T log(exp(a/T) + exp(b/T)), T -> 0+) = a + 1", "fails"),
    ("limit(T log(exp(a/T) + exp(c/T)), T -> 0+) = a", "not holds"),  # nothing orders a and c
    ("limit(T log(exp(a/T) + exp(b/T)), T -> 0-) = a", "not holds"),  # from below it is the smaller, b
    ("limit(T log(exp(a/T) + exp(b/T)), T -> 0-) = b", "holds"),
    # with no ordering, by cases: a > b, a = b, a < b (a limit can turn on whether a slack is 0)
    ("limit(T log(exp(a/T) + exp(c/T)), T -> 0+) = max(a, c)", "holds"),
    ("limit(T log(exp(a/T) + exp(c/T)), T -> 0-) = min(a, c)", "holds"),
    ("limit(T log(1 + exp(c/T)), T -> 0+) = max(c, 0)", "holds"),
    ("limit(T log(exp(a/T) + exp(c/T)), T -> 0+) = min(a, c)", "not holds"),
    ("limit(T log(exp(a/T) + exp(c/T)), T -> 0-) = max(a, c)", "not holds"),
    ("limit(T log(exp(a/T) + exp(c/T)), T -> 0+) = max(a, c) + 1", "not holds"),
])
def test_log_sum_exp_at_zero_temperature(claim, status):
    (link,) = check_text(LSE + f"step t: {claim}\n", "t.step").steps[0].links
    if status == "not holds":
        assert link.status != "holds", claim
    else:
        assert link.status == status, (claim, link.status, link.message)


# ---------------------------------------------------------------- ranges read with assumed bounds by numbers

SECOND = ("let n: positive integer\nlet u: index 3..n\nreal g_i for i in 1..n\n"
          "assume top: g_u < g_2, g_1 < g_2\n")


@pytest.mark.parametrize("bound, claim, status", [
    # writing g_1 and g_2 out of the sum over 1..n needs 3..n not reversed: n >= 2, assumed
    ("n >= 2", "limit(softmax(g / T)_2, T -> 0+) = 1", "holds"),
    ("n > 1", "limit(exp(g_1 / T) / sum(j=1..n, exp(g_j / T)), T -> 0+) = 0", "holds"),
    ("n >= 3", "limit(softmax(g / T)_2, T -> 0+) = 1/2", "not holds"),  # (unknown: no witness is searched at these limits)
    # n >= 1 is the declaration's own bound, but `top` writes g_2, which presupposes n >= 2 (a fact of `top`,
    # read as the bound n - 2 >= 0): the sums are split all the same, and `big` is not needed
    ("n >= 1", "limit(softmax(g / T)_2, T -> 0+) = 1", "holds"),
    ("n <= 5", "limit(softmax(g / T)_2, T -> 0+) = 1", "holds"),
    # ... and that presupposition gives n >= 2, nothing more
    ("n >= 1", "n >= 3", "not holds"),
])
def test_a_sum_is_split_where_an_assumed_bound_keeps_its_range(bound, claim, status):
    text = SECOND + f"assume big: {bound}\nstep t: {claim}   by top, big\n"
    (link,) = check_text(text, "t.step").steps[-1].links
    assert_verdict(link, status, "calculus", f"{bound}: {claim}")
    if status == "holds":
        assert "top" in {u.label for u in link.uses}



@pytest.mark.parametrize("claim, status", [
    # inside a sum over the same range, the limit's Σ_m 1 still has n members: the enclosing index is one of them
    ("sum(l=1..n, limit(softmax(s / T)_l, T -> oo)) = 1", "holds"),
    ("sum(l=1..n, limit(softmax(s / T)_l, T -> oo) s_l) = sum(l=1..n, s_l)/n", "holds"),
    # (the kernel once counted Σ_m 1 there as n - 1, the members other than l, and proved this)
    ("sum(l=1..n, limit(softmax(s / T)_l, T -> oo)) = n/(n - 1)", "not holds"),
])
def test_a_limit_through_a_sum_inside_another_sum_counts_every_member(claim, status):
    assert_verdict(_link(claim), status, "calculus", claim)


def test_a_verified_limit_step_is_a_fact_that_contradicts_nothing():
    """The fact limit(softmax(z/T)_r, T -> oo) = 1/N read at a sum's bound index was 1/(N - 1) = 1/N: 'the
    assumptions in scope contradict each other' for every later link (red team, stop 51)."""
    rep = check_text("let N: positive integer\nlet r: index 1..N\nreal z_r for r in 1..N\n"
                     "step a7: limit(softmax(z / T)_r, T -> oo) = 1 / N\nrandom x_r for r in 1..N\n"
                     "assume mx: E[x_r] = 0\nstep b3: E[sum(l=1..N, x_l)] = 0\n", "t.step")
    assert [s.status for s in rep.steps] == ["holds", "holds"], [lk.message for s in rep.steps for lk in s.links]
