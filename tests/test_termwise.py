"""Sums compared term by term (kernel/termwise.py): sums over one range merged, the triangle inequality.

Where the rule applies the link holds with `termwise`; where it must not (a reversed or off-by-one
bound, a strict bound met with equality, sums over different ranges or leaving out different
indices), the link does not hold."""
import pytest
import sympy

from conftest import assert_verdict, claim_link
from stepcheck.checker import check_text
from stepcheck.kernel.calculus import symbol_domain
from stepcheck.kernel.termwise import merge_sums, termwise_proof
from stepcheck.terms.objects import DSum, canon_bound

DECLS = ("let d: positive integer\nlet n: integer\nlet i, j: index 1..d\nreal v_j, u_j for j in 1..d\n"
         "random X_j for j in 1..d\n")


def _link(claim):
    return claim_link(DECLS, claim)


@pytest.mark.parametrize("claim", [
    "|sum(j=1..d, v_j tanh(u_j))| <= sum(j=1..d, |v_j|)",   # article 001 §4.1
    "|sum(j=1..d, v_j)| <= sum(j=1..d, |v_j|)",
    "|sum(m=1..d, 3 v_m - u_m)| <= 3 sum(m=1..d, |v_m|) + sum(m=1..d, |u_m|)",
    "sum(j=1..d, v_j^2) - sum(j=1..d, 2 v_j) >= -d",         # Σ (v_j - 1)^2 >= 0, d = Σ 1
    "sum(j=1..d, u_j^2 + 1) >= sum(j=1..d, 2 u_j)",
])
def test_termwise_holds(claim):
    link = _link(claim)
    assert link.status == "holds", (claim, link.status, link.residual)
    assert "termwise" in link.rules


@pytest.mark.parametrize("claim", [
    "|sum(j=1..d, v_j)| <= sum(j=1..d, v_j)",                 # v_1 = -1
    "|sum(j=1..d, v_j tanh(u_j))| < sum(j=1..d, |v_j|)",      # every v_j = 0: equality
    "|sum(j=1..d, v_j)| <= sum(j=1..d, |v_j|) - 1",
    "sum(j=1..d, v_j^2) - sum(j=1..d, 2 v_j) >= 1 - d",       # v_j = 1
])
def test_termwise_near_misses_fail(claim):
    link = _link(claim)
    assert link.status == "fails", (claim, link.status)


def test_sums_over_different_members_are_not_merged():
    b = canon_bound(1)
    d, i = sympy.Symbol("d", integer=True, positive=True), sympy.Symbol("i", integer=True)
    v = sympy.IndexedBase("v", real=True)
    whole = DSum(v[b], sympy.Tuple(sympy.Tuple(b, 1, d)), sympy.Tuple())
    but_i = DSum(v[b], sympy.Tuple(sympy.Tuple(b, 1, d)), sympy.Tuple(i))
    from_2 = DSum(v[b], sympy.Tuple(sympy.Tuple(b, 2, d)), sympy.Tuple())
    # Σ_{m} v_m - Σ_{m ≠ i} v_m is v_i, of no sign; Σ_{m=1..d} v_m - Σ_{m=2..d} v_m is v_1
    for g in (whole - but_i, whole - from_2):
        assert len(merge_sums(g).atoms(DSum)) == 2
        assert termwise_proof(g, False, symbol_domain) == (False, set())


def test_a_count_joins_a_sum_only_over_a_range_that_is_not_reversed():
    b = canon_bound(1)
    n = sympy.Symbol("n", integer=True)  # of no sign: 1..n may be reversed
    v = sympy.IndexedBase("v", real=True)
    s = DSum(v[b] ** 2 - 2 * v[b], sympy.Tuple(sympy.Tuple(b, 1, n)), sympy.Tuple())
    assert merge_sums(s + n).has(n) and not termwise_proof(s + n, False, symbol_domain)[0]
    d = sympy.Symbol("d", integer=True, positive=True)
    t = DSum(v[b] ** 2 - 2 * v[b], sympy.Tuple(sympy.Tuple(b, 1, d)), sympy.Tuple())
    assert termwise_proof(t + d, False, symbol_domain)[0]


def test_a_term_joins_a_sum_leaving_out_free_indices_only_where_they_are_in_its_range():
    # n c - Σ_{b ≠ i} v_b = c + Σ_{b ≠ i} (c - v_b): the sum has n - 1 members where i lies in 1..n
    b = canon_bound(1)
    n = sympy.Symbol("n", integer=True, positive=True)
    i, c = sympy.Symbol("i", integer=True), sympy.Symbol("c", real=True)
    v = sympy.IndexedBase("v", real=True)
    but_i = DSum(v[b], sympy.Tuple(sympy.Tuple(b, 1, n)), sympy.Tuple(i))
    g = n * c - but_i
    merged = merge_sums(g, lambda e, rng: e == i)
    assert merged == c + DSum(c - v[b], sympy.Tuple(sympy.Tuple(b, 1, n)), sympy.Tuple(i)), merged
    unsplit = merge_sums(g)
    assert unsplit.has(n * c) and merge_sums(g, lambda e, rng: False) == unsplit  # i not known in 1..n: no count
    # a term with no multiple of the count n - 1 stays outside
    assert merge_sums(c - but_i, lambda e, rng: True) == merge_sums(c - but_i)


@pytest.mark.parametrize("claim, status", [
    # the members the normal form leaves out of a sum beside a free index, bounded by the facts read at it
    ("n exp(M) + h_i >= sum(r=1..n, exp(h_r)) + h_i", "holds"),
    ("exp(h_i) / sum(r=1..n, exp(h_r)) >= exp(h_i - M) / n", "holds"),   # with rule quotient
    ("(n - 1) exp(M) + h_i >= sum(r=1..n, exp(h_r)) + h_i", "fails"),    # n = 1
    ("exp(h_i) / sum(r=1..n, exp(h_r)) > exp(h_i - M) / n", "fails"),    # n = 1, h_1 = M
])
def test_a_sum_beside_a_free_index_under_a_fact_about_every_member(claim, status):
    text = ("let n: positive integer\nlet i: index 1..n\nlet M: real\nreal h_i for i in 1..n\n"
            "assume top: h_i <= M\nstep s: " + claim + "\n")
    link = check_text(text, "t.step").steps[0].links[0]
    assert link.status == status, (claim, link.status, link.message)
    if status == "holds":
        assert [u.label for u in link.uses if u.kind == "inequality"] == ["top"]


def test_a_fact_that_misses_a_member_gives_no_bound_beside_a_free_index():
    text = ("let n: positive integer\nlet k: index 2..n\nlet M: real\nreal g_i for i in 1..n\n"
            "assume most: g_k <= M\nstep s: n exp(M) + g_k >= sum(r=1..n, exp(g_r)) + g_k\n")
    assert check_text(text, "t.step").steps[0].links[0].status != "holds"


SOFTMAX = ("let K: positive integer\nlet u: index 1..K\nreal l_u for u in 1..K\nrandom q_u for u in 1..K\n"
           "let T: positive real\ndefine pr_u = exp(l_u / T) / sum(w=1..K, exp(l_w / T))\n")


@pytest.mark.parametrize("claim, status", [
    # a softmax-weighted mean lies between the smallest and the largest logit (over the sum's denominator)
    ("sum(v=1..K, pr_v * l_v) <= max(l)", "holds"),
    ("sum(v=1..K, pr_v * l_v) >= min(l)", "holds"),
    ("sum(v=1..K, l_v) <= K max(l)", "holds"),
    ("sum(v=1..K, pr_v * l_v) < max(l)", "fails"),           # K = 1
    ("sum(v=1..K, pr_v * l_v) <= min(l)", "fails"),
    ("sum(v=1..K, l_v) <= max(l)", "fails"),
    ("sum(v=1..K, q_v) <= K max(q)", "not by this rule"),   # a random family: max(q) - q_v is no number
])
def test_members_below_their_max(claim, status):
    (link,) = check_text(SOFTMAX + f"step t: {claim}\n", "t.step").steps[0].links
    if status == "not by this rule":
        assert link.status != "fails" and "termwise" not in (link.rules or []), (claim, link.status)
        return
    assert link.status == status, (claim, link.status)
    if status == "holds":
        assert "termwise" in link.rules


@pytest.mark.parametrize("claim, status", [
    # a power of a sum of nonnegative terms is at least the sum of their powers
    ("sum(v=1..K, pr_v^2) <= 1", "holds"),                    # a softmax's collision probability
    ("1/(sum(v=1..K, exp(l_v)))^2 <= 1/sum(v=1..K, exp(2 l_v))", "holds"),
    # the normal form expands these (diagonal + off-diagonal of nonnegative terms): held without the rule
    ("(sum(v=1..K, exp(l_v)))^2 >= sum(v=1..K, exp(2 l_v))", "holds by any rule"),
    ("(sum(v=1..K, |l_v|))^3 >= sum(v=1..K, |l_v|^3)", "holds by any rule"),
    ("sum(v=1..K, pr_v^2) < 1", "fails"),                     # K = 1: equality
    ("(sum(v=1..K, l_v))^2 >= sum(v=1..K, l_v^2)", "fails"),   # l = (1, -1): terms of no sign
    ("(sum(v=1..K, |l_v|))^2 >= 2 sum(v=1..K, l_v^2)", "fails"),
])
def test_powers_of_sums_of_nonnegative_terms(claim, status):
    (link,) = check_text(SOFTMAX + f"step t: {claim}\n", "t.step").steps[0].links
    assert link.status == status.split()[0], (claim, link.status)
    if status == "holds":
        assert "termwise" in link.rules


def test_an_odd_power_of_a_sum_over_a_range_that_may_be_reversed_is_not_bounded():
    b = canon_bound(1)
    n = sympy.Symbol("n", integer=True)  # of no sign: 1..n may be reversed
    v = sympy.IndexedBase("v", real=True)
    s = DSum(sympy.Abs(v[b]), sympy.Tuple(sympy.Tuple(b, 1, n)), sympy.Tuple())
    cubes = DSum(sympy.Abs(v[b]) ** 3, sympy.Tuple(sympy.Tuple(b, 1, n)), sympy.Tuple())
    assert not termwise_proof(s ** 3 - cubes, False, symbol_domain)[0]
    d = sympy.Symbol("d", integer=True, positive=True)
    s, cubes = (x.xreplace({n: d}) for x in (s, cubes))
    assert termwise_proof(s ** 3 - cubes, False, symbol_domain)[0]


CS = "let n: positive integer\nlet m: integer\nreal a_i, b_i for i in 1..n\nreal c_i for i in 1..m\n"


@pytest.mark.parametrize("claim, status", [
    # sums over two distinct members written symmetric in them: Cauchy-Schwarz and its count form
    ("(sum(i=1..n, a_i b_i))^2 <= sum(i=1..n, a_i^2) sum(i=1..n, b_i^2)", "holds"),
    ("(sum(i=1..n, a_i))^2 <= n sum(i=1..n, a_i^2)", "holds"),
    ("n sum(i=1..n, a_i^2) - (sum(i=1..n, a_i))^2 >= 0", "holds"),
    ("(sum(i=1..n, a_i b_i))^2 < sum(i=1..n, a_i^2) sum(i=1..n, b_i^2)", "fails"),   # a = b
    ("(sum(i=1..n, a_i b_i))^2 <= sum(i=1..n, a_i^2) sum(i=1..n, b_i^2) - 1", "fails"),
    ("(sum(i=1..n, a_i))^2 <= (n - 1) sum(i=1..n, a_i^2)", "fails"),               # every a_i equal
    # a count of no proved sign (1..m may be reversed) is never read as the number of members
    ("(sum(i=1..m, c_i))^2 <= m sum(i=1..m, c_i^2)", "not holds"),
])
def test_sums_over_pairs_written_symmetric(claim, status):
    (link,) = check_text(CS + f"step t: {claim}\n", "t.step").steps[0].links
    if status == "not holds":
        assert link.status != "holds", (claim, link.status)
        return
    assert link.status == status, (claim, link.status)
    if status == "holds":
        assert "termwise" in link.rules


@pytest.mark.parametrize("claim, status", [
    # |v| - v tanh(u) >= 0 for every member, by the sign of v: G (1 - tanh(u)) and G (1 + tanh(u))
    ("sum(j=1..d, v_j tanh(u_j)) <= sum(j=1..d, |v_j|)", "holds"),
    ("sum(j=1..d, v_j tanh(u_j)) >= -sum(j=1..d, |v_j|)", "holds"),
    ("sum(j=1..d, v_j tanh(u_j) - |v_j| tanh(|u_j|)) <= 0", "holds"),   # two absolute values: four cases
    ("sum(j=1..d, v_j tanh(u_j)) <= sum(j=1..d, |v_j|) - 1", "fails"),
    ("sum(j=1..d, v_j tanh(u_j)) < sum(j=1..d, |v_j|)", "fails"),         # every v_j = 0
    ("sum(j=1..d, 2 v_j tanh(u_j)) <= sum(j=1..d, |v_j|)", "fails"),
    ("sum(j=1..d, v_j u_j) <= sum(j=1..d, |v_j|)", "fails"),              # u_j is not bounded
    # the other member's |.| (false at v = 10, u = 1; the witness search's small values miss it)
    ("sum(j=1..d, v_j tanh(u_j)) <= sum(j=1..d, |u_j|)", "not holds"),
])
def test_a_summand_by_the_signs_of_its_absolute_values(claim, status):
    link = _link(claim)
    assert_verdict(link, status, "termwise", claim)


def test_a_sum_of_terms_that_may_be_zero_is_not_positive():
    # v_j^2 (1 - tanh(u_j)^2) is 0 at v_j = 0: the interval of the product is closed at 0
    assert _link("sum(j=1..d, v_j^2 (1 - tanh(u_j)) (1 + tanh(u_j))) > 0").status == "fails"
    assert _link("sum(j=1..d, v_j^2 (1 - tanh(u_j)) (1 + tanh(u_j))) >= 0").status == "holds"


LITERAL = "let n: positive integer\nreal x_i for i in 1..n\n"
TWO = "assume two: n >= 2\n"


@pytest.mark.parametrize("extra, claim, status", [
    # members at literal indices written out of the sum: Σ_{1..n} = x_1 + Σ_{2..n} where n >= 1 (declared)
    ("", "sum(j=1..n, exp(x_j)) >= exp(x_1)", "holds"),
    ("", "log(sum(j=1..n, exp(x_j))) >= x_1", "holds"),
    ("", "sum(j=1..n, x_j^2) >= x_1^2", "holds"),
    (TWO, "sum(j=1..n, exp(x_j)) >= exp(x_1) + exp(x_2)", "holds"),    # n >= 2, assumed
    (TWO, "log(sum(j=1..n, exp(x_j))) > x_1", "holds"),                # a second member: strict
    ("", "log(sum(j=1..n, exp(x_j))) > x_1", "not holds"),             # n = 1: equality
    ("", "sum(j=1..n, exp(x_j)) >= exp(x_1) + exp(x_2)", "not holds"), # n = 1 has no x_2 in the sum
    ("", "sum(j=1..n, x_j) >= x_1", "fails"),                          # x_2 < 0
    ("", "sum(j=2..n, x_j^2) >= x_1^2", "fails"),                      # x_1 is not a member
])
def test_literal_members_written_out_of_a_sum(extra, claim, status):
    (link,) = check_text(LITERAL + extra + f"step t: {claim}\n", "t.step").steps[-1].links
    assert_verdict(link, status, claim=claim)


@pytest.mark.parametrize("extra, claim, status", [
    # a sum over pairs of distinct members is empty at n = 1: positive summands give only >= 0 there
    ("", "sum(m=1..n, exp(h_m))^2 > sum(m=1..n, exp(2 h_m))", "fails"),
    ("", "sum(m=1..n, exp(h_m))^2 >= sum(m=1..n, exp(2 h_m))", "holds"),
    ("assume two: n >= 2\n", "sum(m=1..n, exp(h_m))^2 > sum(m=1..n, exp(2 h_m))", "holds"),
    # the collision probability of a softmax: at least 1/n (quotient, then n Σ a^2 - (Σ a)^2 over pairs)
    ("", "sum(i=1..n, softmax(h)_i^2) >= 1/n", "holds"),
    ("", "sum(i=1..n, softmax(h)_i^2) > 1/n", "fails"),
    ("", "sum(i=1..n, softmax(h)_i^2) >= 2/n", "fails"),
    ("", "sum(i=1..n, softmax(h)_i^2) < 1", "fails"),
])
def test_sums_over_pairs_of_distinct_members(extra, claim, status):
    text = "let n: positive integer\nreal h_i for i in 1..n\n" + extra + "step s: " + claim + "\n"
    link = check_text(text, "t.step").steps[0].links[0]
    assert link.status == status, (claim, link.status, link.message)


@pytest.mark.parametrize("claim, status", [
    # a term q (n - 1) + r beside a sum over 2..n (n - 1 members): q joins the sum, r stays outside
    ("sum(k=2..n, w_k) < n by wle", "holds"),           # 1 (n - 1) + 1: Σ (1 - w_k) + 1 > 0
    ("sum(k=2..n, w_k) < 2 n by wle", "holds"),         # 2 (n - 1) + 2
    ("sum(k=2..n, w_k) < n - 1/2 by wle", "holds"),
    ("sum(k=2..n, w_k) < n - 1 by wle", "fails"),       # every w_k = 1 (and n = 1: 0 < 0)
    ("sum(k=2..n, w_k) <= n - 2 by wle", "fails"),
    ("sum(k=3..n, w_k) < n - 1 by wle", "not holds"),   # 3..n is reversed at n = 1: its count n - 2 is -1 there
])
def test_a_term_divided_by_the_count_of_a_sum(claim, status):
    assert_verdict(claim_link("let n: positive integer\nreal w_k for k in 2..n\nassume wle: w_k <= 1\n", claim),
                   status, "termwise" if status == "holds" else None, claim)
