"""Assumed inequalities read at the link's own indices (kernel/fact_bounds.py, part of the rule `inequality`).

A fact about a free index i (`x_i <= M`) holds for every i of its range: it is read at the link's other free
indices whose range lies inside i's (that range then used), at literal members, and at the bound index of a
sum whose summand is proved member by member.  Where a reading needs more than the fact gives (another range,
a strict margin from a weak fact, a pair the fact does not say differ), the link does not hold."""
import pytest

from conftest import assert_verdict, claim_link

DECLS = ("let n, N: positive integer\nlet i, j: index 1..n\nlet k: index 2..n\nlet J: index 1..N\n"
         "let m: index 1..n\nlet M, a: real\nreal x_i for i in 1..n\nreal y_i for i in 1..n\n"
         "real z_i for i in 1..n\nreal u_i for i in 1..n\nreal w_J for J in 1..N\n"
         "assume top: x_i <= M\nassume strict: y_i < a\nassume peak: z_k < z_1\n"
         "assume sep: |u_i - u_j| >= 1 for i != j\nassume wtop: w_J <= M\n")
WEIGHTS = "real v_i for i in 1..n\nassume vpos: v_i >= 0\n"
MEAN = "random W\nassume mw: 2 E[W] > 3\n"


def _link(claim):
    extra = (WEIGHTS if "v_" in claim else "") + (MEAN if "W" in claim else "")
    return claim_link(DECLS + extra, claim)


@pytest.mark.parametrize("claim, rule, uses", [
    ("x_j <= M", "inequality", {"top", "range of j"}),                # read at another index of the range
    ("x_k <= M", "inequality", {"top", "range of k"}),                # 2..n lies inside 1..n
    ("x_1 <= M", "inequality", {"top"}),                              # a member the link writes exists
    ("exp(x_j) <= exp(M)", "inequality", {"top"}),
    ("sum(j=1..n, M - x_j) >= 0", "termwise", {"top"}),               # at the sum's bound index
    ("sum(t=1..n, exp(x_t)) <= n exp(M)", "termwise", {"top"}),
    ("sum(t=1..n, exp(y_t)) < n exp(a)", "termwise", {"strict"}),     # strict members over a range with one
    ("log(sum(t=1..n, exp(x_t))) <= M + log(n)", "monotone", {"top"}),
    ("log(sum(t=1..n, exp(x_t))) - log(n) <= M", "monotone", {"top"}),
    ("z_1 > z_k", "inequality", {"peak"}),
    ("z_1 > z_2", "inequality", {"peak"}),                            # z_2 written: 2 <= n, so 2 lies in 2..n
    ("sum(t=2..n, z_1 - z_t) >= 0", "termwise", {"peak"}),            # at the bound index over 2..n
    ("|u_1 - u_2| >= 1", "inequality", {"sep"}),                       # two literal members, known distinct
    ("|u_i - u_j| >= 1 for i != j", "inequality", {"sep"}),            # free indices, distinct in this case
    ("v_i (M - x_i) >= 0", "inequality", {"top", "vpos"}),             # factor by factor
    ("sum(t=1..n, v_t x_t) <= M sum(t=1..n, v_t)", "termwise", {"top", "vpos"}),
    ("E[W] > 3/2", "inequality", {"mw"}),                              # the fact scaled by 1/2
])
def test_readings_hold(claim, rule, uses):
    link = _link(claim)
    assert_verdict(link, "holds", rule, claim)
    got = {u.label for u in link.uses} | {f"range of {r}" for r in getattr(link, "ranges", ())}
    assert all(any(u in g for g in got) for u in uses), (claim, got)


@pytest.mark.parametrize("claim, status", [
    ("x_J <= M", "not holds"),                         # J ranges over 1..N, not inside 1..n
    ("w_j <= M", "not holds"),                         # the fact is about w over 1..N; j over 1..n may not lie in it
    ("sum(t=1..n, exp(x_t)) < n exp(M)", "fails"),     # a weak fact gives no strict sum (x_t = M)
    ("sum(j=1..n, M - x_j) >= 1", "fails"),
    ("z_1 > z_i", "fails"),                            # i = 1 is a member of the claim
    ("z_1 > z_1", "fails"),                            # 1 is not in 2..n
    ("sum(t=2..n, z_1 - z_t) > 0", "fails"),           # n = 1: no member
    ("z_k > z_1", "not holds"),                        # the other way
    ("|u_i - u_j| >= 1", "fails"),                     # i = j
    ("v_i (x_i - M) >= 0", "fails"),                   # a factor of the wrong sign
    ("sum(t=1..n, v_t (M - x_t)) > 0", "fails"),       # weak facts: v = 0
    ("E[W] > 2", "fails"),                             # more than the fact gives
    ("sum(t=1..n, (M - x_t) z_t) >= 0", "fails"),      # a factor of no sign
])
def test_readings_do_not_give_more(claim, status):
    assert_verdict(_link(claim), status, claim=claim)


TAIL = ("let n: positive integer\nlet k: index 2..n\nlet m: index 1..n\nlet a, b: real\nreal x_i for i in 1..n\n"
        "real l_i, u_i for i in 1..n\nrandom A, B\n"
        "assume tail_lo: x_k >= a\nassume tail_hi: x_k <= b\nassume all_lo: x_m >= a\nassume all_hi: x_m <= b\n"
        "assume two: n >= 2\nassume lo: A >= a\nassume hi: A <= b\nassume other: B <= b\n"
        "assume box_lo: x_k >= l_k\nassume box_hi: x_k <= u_k\n")


@pytest.mark.parametrize("claim, status, uses", [
    # a fact over 2..n read at an index the link does not have presumes a member: none at n = 1
    ("b - a >= 0 by tail_lo, tail_hi", "fails", None),
    ("b - a >= 0 by tail_lo, tail_hi, two", "holds", {"tail_lo", "tail_hi", "two"}),  # n >= 2: k = 2 exists
    ("b - a >= 0 by all_lo, all_hi", "holds", {"all_lo", "all_hi"}),                   # 1..n is never empty
    # through a shared middle (through_middle): a <= A <= b gives a <= b, for a random A too
    ("b >= a by lo, hi", "holds", {"lo", "hi"}),
    ("SD(A) <= (b - a) / 2 by lo, hi", "holds", {"lo", "hi"}),                          # Popoviciu, squared
    ("u_k - l_k >= 0 by box_lo, box_hi", "holds", {"box_lo", "box_hi"}),                # at the link's own k
    ("b - a >= 0 by lo, other", "not holds", None),                                      # two different middles
    ("SD(A) <= (b - a) / 2 by lo", "not holds", None),                                   # one end only
    ("b - a > 0 by lo, hi", "fails", None),                                              # a = b is allowed
    ("SD(A) < (b - a) / 2 by lo, hi", "fails", None),
])
def test_a_fact_at_an_index_the_link_does_not_have(claim, status, uses):
    link = claim_link(TAIL, claim)
    assert_verdict(link, status, claim=claim)
    if uses is not None:
        assert {u.label for u in link.uses} == uses, (claim, [u.label for u in link.uses])
