"""Rule ``quotient`` (kernel/quotient.py): a margin ``a / D^k + b`` with D > 0 and b of a proved sign has the
sign of ``a / |b| -+ D^k``, proved by the prover's other tries.  Where it applies, and where it must not."""
from __future__ import annotations

import pytest
import sympy

from stepcheck.checker import check_text
from stepcheck.kernel.calculus import sign_proof, symbol_domain
from stepcheck.kernel.quotient import _merged, quotient_proof

x, y = sympy.symbols("x y", real=True)
p = sympy.Symbol("p", positive=True)


def by_signs(h, strict):
    """The second margin proved by intervals alone (the prover passes its whole list of tries)."""
    return sign_proof(h, strict)


def test_a_positive_denominator_gives_the_margin_without_it():
    seen = []

    def record(h, strict):
        seen.append(h)
        return by_signs(h, strict)

    # 1/(1 + p) - 1/(2 + p) >= 0: D = 1 + p, b = -1/(2 + p) < 0: the margin (2 + p) - (1 + p) = 1
    ok, _, _ = quotient_proof(1 / (1 + p) - 1 / (2 + p), True, symbol_domain, record)
    assert ok and sympy.Integer(1) in [sympy.expand(h) for h in seen]


@pytest.mark.parametrize("g", [
    1 / (1 + p) - 1 / (1 + p / 2),        # false: the second margin 1 + p/2 - (1 + p) < 0
    1 / (1 + x ** 2) - x,                 # b = -x: no proved sign
    y / (x - 1) - 1,                      # D = x - 1: no proved sign
])
def test_not_without_proved_signs_or_a_true_second_margin(g):
    assert not quotient_proof(g, False, symbol_domain, by_signs)[0]


def test_a_sum_leaving_out_a_free_index_is_written_whole_only_where_the_index_is_in_its_range():
    from stepcheck.terms.objects import DSum

    i, b, n = sympy.Symbol("i", integer=True), sympy.Symbol("_b1", integer=True), sympy.Symbol("n", integer=True)
    h = sympy.IndexedBase("h")
    part = DSum(sympy.exp(h[b]), sympy.Tuple(sympy.Tuple(b, 1, n)), sympy.Tuple(i))
    whole = DSum(sympy.exp(h[b]), sympy.Tuple(sympy.Tuple(b, 1, n)), sympy.Tuple())
    m = n * sympy.exp(y) - sympy.exp(h[i]) - part
    assert _merged(m, lambda e, rng: True) == (sympy.expand(n * sympy.exp(y) - whole), {i})
    assert _merged(m, lambda e, rng: False) == (sympy.expand(m), set())  # i not known to be in 1..n
    # a member of another coefficient is no part of the sum
    assert _merged(n * sympy.exp(y) - 2 * sympy.exp(h[i]) - part, lambda e, rng: True)[0] != n * sympy.exp(y) - whole


HEAD = "let n: positive integer\nlet i: index 1..n\nreal h_i for i in 1..n\ndefine π_i = exp(h_i) / sum(r=1..n, exp(h_r))\n"


@pytest.mark.parametrize("claim", ["π_i >= exp(h_i - max(h)) / n", "softmax(h)_i >= exp(h_i - max(h)) / n"])
def test_a_softmax_weight_is_at_least_its_share_of_the_largest(claim):
    rep = check_text(HEAD + "step s: " + claim + "\n", "t.step")
    assert rep.steps[0].status == "holds", rep.steps[0].links[0].message


@pytest.mark.parametrize("claim", ["π_i > exp(h_i - max(h)) / n", "π_i >= 2 exp(h_i - max(h)) / n",
                                   "π_i >= exp(h_i - max(h))"])
def test_near_misses_do_not_hold(claim):
    # equal at n = 1 (strict), twice the share, and the share without the 1/n
    assert check_text(HEAD + "step s: " + claim + "\n", "t.step").steps[0].status == "fails"
