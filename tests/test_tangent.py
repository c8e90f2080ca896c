"""The tangent-line rule (kernel/tangent.py): exp(u) >= 1 + u, log(v) <= v - 1 for v > 0.

Where it applies the link holds with the rule `tangent`, and the margin is checked at many points with
mpmath (independent of the kernel); where it must not, the link does not hold (a false claim fails with a
witness, a true one the rule must not touch stays unknown or holds by another rule)."""
import mpmath
import pytest
import sympy

from stepcheck.checker import check_text
from stepcheck.kernel.calculus import symbol_domain
from stepcheck.kernel.tangent import tangent_proof

DECLS = "let a: real\nlet w: real\nlet b: positive real\nlet n: positive integer\nreal s_i for i in 1..n\n"


def _link(claim):
    rep = check_text(DECLS + f"step t: {claim}\n", "t.step")
    (step,) = rep.steps
    (link,) = step.links
    return link


TRUE = [
    # claim, the margin as a function of (a, w, b) that must be >= 0
    ("exp(a) >= 1 + a", lambda a, w, b: mpmath.exp(a) - 1 - a),
    ("exp(2 w) >= 1 + 2 w", lambda a, w, b: mpmath.exp(2 * w) - 1 - 2 * w),
    ("exp(w^2 - 1) >= w^2", lambda a, w, b: mpmath.exp(w ** 2 - 1) - w ** 2),
    ("exp(a) * exp(w) >= 1 + a + w", lambda a, w, b: mpmath.exp(a + w) - 1 - a - w),
    ("log(b) <= b - 1", lambda a, w, b: b - 1 - mpmath.log(b)),
    ("log(1 + b) <= b", lambda a, w, b: b - mpmath.log(1 + b)),
    ("-log(b) >= 1 - b", lambda a, w, b: -mpmath.log(b) - 1 + b),
    ("3 exp(a - w) >= 3 + 3 a - 3 w", lambda a, w, b: 3 * mpmath.exp(a - w) - 3 - 3 * a + 3 * w),
]


@pytest.mark.parametrize("claim, margin", TRUE)
def test_tangent_lines_hold_and_the_margin_is_nonnegative(claim, margin):
    link = _link(claim)
    assert link.status == "holds", (claim, link.status)
    assert "tangent" in link.rules
    for a in (-5, -1.5, -0.25, 0, 0.25, 1, 3):
        for w in (-2, -0.5, 0, 0.5, 2):
            for b in (0.01, 0.5, 1, 2, 40):
                assert margin(mpmath.mpf(a), mpmath.mpf(w), mpmath.mpf(b)) >= -mpmath.mpf(10) ** -20


@pytest.mark.parametrize("claim, witness", [
    ("exp(a) >= 1 + 2 a", "a = "),
    ("1 + a >= exp(a)", "a = "),
    ("log(b) <= b - 2", "b = "),
    ("exp(w) >= 1 + w + w^2/2", "w = "),
    ("exp(w) > 1 + w", "w = 0"),  # strict fails at the tangent point
    ("w exp(w) >= w (1 + w)", "w = "),  # the gap multiplied by a factor of no sign
    ("exp(a) + log(b) >= a + b", "a = "),  # false: at a = 1, b = 3
])
def test_false_near_misses_fail(claim, witness):
    link = _link(claim)
    assert link.status == "fails", (claim, link.status)
    assert link.counterexample.startswith(witness) and link.decided_by == "re-checked witness"
    assert "tangent" not in (link.rules or [])


@pytest.mark.parametrize("claim", [
    "exp(X) >= 1 + X",  # a random variable: the gap would be a random variable
    "sum(i=1..n, exp(s_i)) >= sum(i=1..n, 1 + s_i)",  # inside a sum: one gap per member, not one number
])
def test_the_rule_does_not_reach_random_values_or_summands(claim):
    rep = check_text(DECLS + "random X\n" + f"step t: {claim}\n", "t.step")
    (link,) = rep.steps[0].links
    assert link.status != "fails"
    assert "tangent" not in (link.rules or [])


def test_one_gap_per_member_would_be_unsound_and_is_not_taken():
    # Σ_{i=1..2} (-1)^i (exp(s_i) - 1 - s_i) with one gap t for both members would be 0; it is not >= 0 in
    # general (s_1 = 1, s_2 = 0 gives -(e - 2) < 0).  Unrolled, each member gets its own gap: not proved.
    s1, s2 = sympy.symbols("s1 s2", real=True)
    g = -(sympy.exp(s1) - 1 - s1) + (sympy.exp(s2) - 1 - s2)
    assert tangent_proof(g, False, symbol_domain, lambda x: False) == (False, set())
    # and a margin the rule proves, for contrast
    assert tangent_proof(sympy.exp(s1) - 1 - s1, False, symbol_domain, lambda x: False)[0]


def test_log_needs_a_positive_argument():
    y = sympy.Symbol("y", real=True)
    # log(y) <= y - 1 with no sign of y: the rule does not rewrite it (a real log needs y > 0 proved)
    assert tangent_proof(y - 1 - sympy.log(y), False, symbol_domain, lambda x: False) == (False, set())
    c = sympy.Symbol("c", positive=True)
    ok, signs = tangent_proof(c - 1 - sympy.log(c), False, symbol_domain, lambda x: False)
    assert ok and c in signs


def test_an_argument_of_unknown_reality_is_not_rewritten():
    w, v = sympy.symbols("w v", real=True)
    never = lambda s: False  # noqa: E731
    # exp(sqrt(w)) for a real w of no sign: not a real number at w < 0
    assert tangent_proof(sympy.exp(sympy.sqrt(w)) - 1 - sympy.sqrt(w), False, symbol_domain, never) == (False, set())
    # a/w is real wherever it is defined
    assert tangent_proof(sympy.exp(v / w) - 1 - v / w, False, symbol_domain, never)[0]


def test_a_random_argument_is_not_rewritten():
    x = sympy.Symbol("X", real=True)
    assert tangent_proof(sympy.exp(x) - 1 - x, False, symbol_domain, lambda s: s == x) == (False, set())


# ---------------------------------------------------------------- margins with logarithms, through exp

SOFTMAX = "let m: positive integer\nlet a: index 1..m\nreal z_a for a in 1..m\nlet y: real\nlet b: positive real\n"


def _link2(claim):
    rep = check_text(SOFTMAX + f"step t: {claim}\n", "t.step")
    (link,) = rep.steps[0].links
    return link


@pytest.mark.parametrize("claim", [
    "log(sum(r=1..m, exp(z_r))) >= z_a",  # log-sum-exp is at least every logit
    "-log(exp(z_a) / sum(r=1..m, exp(z_r))) >= 0",  # cross-entropy of a softmax is nonnegative
    "log(y^2 + 1) <= 2 log(|y| + 1)",
    "log(b + 1) - log(b) > 0",
    "log(sum(r=1..m, exp(b z_r))) / b >= z_a",  # at a temperature: a positive factor divided out first
    "b log(sum(r=1..m, exp(z_r / b))) >= z_a",
])
def test_log_margins_compared_through_exp_hold(claim):
    link = _link2(claim)
    assert link.status == "holds", (claim, link.status, link.residual)
    assert "monotone" in link.rules


@pytest.mark.parametrize("claim, witness", [
    ("log(sum(r=1..m, exp(z_r))) >= z_a + 1", "m = 1"),
    ("log(sum(r=1..m, exp(z_r))) > z_a", "m = 1"),  # equal when a is the only logit: the other sum is empty
    ("2 log(b) >= log(b)", "b = "),
    ("log(y^2 + 1) > 0", "y = 0"),
    ("log(sum(r=1..m, exp(b z_r))) / b > z_a", "m = 1"),
    ("log(sum(r=1..m, exp(b z_r))) / (-b) >= -z_a", "m = 2"),  # a negative factor flips the bound
    ("log(sum(r=1..m, exp(z_r))) / y >= z_a", "m = 1"),  # a factor of no sign
])
def test_false_log_margins_fail(claim, witness):
    link = _link2(claim)
    assert link.status == "fails", (claim, link.status)
    assert link.counterexample.startswith(witness)


def test_exp_margin_needs_every_log_argument_positive():
    from stepcheck.kernel.tangent import exp_margin_proof

    y = sympy.Symbol("y", real=True)
    c = sympy.Symbol("c", positive=True)
    # 2 log(y) - log(y^2) is 0 where y > 0 and not real where y < 0: never exponentiated
    assert exp_margin_proof(sympy.log(y ** 2 + 1) - 2 * sympy.log(y), False, symbol_domain) == (False, set())
    ok, signs = exp_margin_proof(sympy.log(c + 1) - sympy.log(c), True, symbol_domain)
    assert ok and c in signs


@pytest.mark.parametrize("claim, status", [
    # log-sum-exp below max + log n: exp of the margin is n exp(max(x))/Σ_j exp(x_j) - 1, compared term by term
    ("log(sum(j=1..n, exp(x_j))) <= max(x) + log(n)", "holds"),
    ("T log(sum(j=1..n, exp(x_j / T))) <= max(x) + T log(n)", "holds"),
    ("log(sum(j=1..n, exp(x_j))) < max(x) + log(n)", "fails"),        # n = 1: equality
    ("log(sum(j=1..n, exp(x_j))) <= max(x) + log(n) - 1", "fails"),
    ("log(sum(j=1..n, exp(x_j))) <= max(x)", "fails"),
])
def test_log_sum_exp_below_the_max_plus_log_n(claim, status):
    text = "let n: positive integer\nreal x_i for i in 1..n\nlet T: positive real\n" + f"step t: {claim}\n"
    (link,) = check_text(text, "t.step").steps[-1].links
    assert link.status == status, (claim, link.status, link.residual)
