"""A limit whose variable occurs inside a sum over a symbolic range (kernel/calculus.py: _parts_limit).

For each value of its ends the sum has finitely many terms, so where every part has a finite limit the
algebra of limits applies: Σ_{m=1..n} exp(s_m/T) -> n as T -> oo, and softmax(s/T)_i -> 1/n.  Where a
part is infinite (∞ · 0, ∞ - ∞) or a power's base may tend to 0, nothing is concluded."""
import pytest
import sympy

from stepcheck.checker import check_text
from stepcheck.kernel.calculus import _parts_limit
from stepcheck.terms.facts import KernelLimit
from stepcheck.terms.objects import DSum, canon_bound

DECLS = "let n: positive integer\nlet i: index 1..n\nreal s_i for i in 1..n\nlet x: real\n"


def _link(claim):
    (link,) = check_text(DECLS + f"step t: {claim}\n", "t.step").steps[0].links
    return link


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
