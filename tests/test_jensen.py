"""Jensen's inequality (kernel/jensen.py, rule `jensen`): a mean E[f(w)] of a convex f is f(E[w]) plus a
gap >= 0, of a concave f (log, sqrt, where w is signed on every outcome) minus one; never strict, never the
wrong way round, never for an odd power or under a sum's bound index."""
import pytest

from conftest import assert_verdict, claim_link

DECLS = ("let n: positive integer\nlet c: real\nrandom X, Y, N, V, U\nrandom W_i for i in 1..n\n"
         "assume vpos: V > 0\nassume unn: U >= 0\nassume nmean: E[N] = 1\n")


@pytest.mark.parametrize("claim, status", [
    ("|E[X]| <= E[|X|]", "holds"),
    ("E[exp(X)] >= exp(E[X])", "holds"),
    ("E[exp(X)] > exp(E[X])", "fails"),                    # a constant X closes the gap
    ("E[exp(X)] <= exp(E[X])", "fails"),                   # the wrong way round
    ("E[exp(X + Y)] >= exp(E[X] + E[Y])", "holds"),        # expansion leaves exp(X) exp(Y): read as one exp
    ("E[exp(c X)] >= exp(c E[X])", "holds"),
    ("E[|X - c|] >= |E[X] - c|", "holds"),
    ("E[X^4] >= E[X]^4", "holds"),                          # an even power
    ("E[X^3] >= E[X]^3", "fails"),                          # an odd power is not convex
    ("E[exp(W_i)] >= exp(E[W_i])", "holds"),                # a member at a free index: one number
    ("sum(i=1..n, E[exp(W_i)]) >= sum(i=1..n, exp(E[W_i]))", "not holds"),  # true, but a family of gaps
    ("E[log(V)] <= log(E[V]) by vpos", "holds"),            # concave where V > 0 on every outcome
    ("E[log(V)] >= log(E[V]) by vpos", "fails"),
    ("E[log(X)] <= log(E[X])", "not holds"),                # no sign of X on the outcomes
    ("E[log(U)] <= log(E[U]) by unn", "not holds"),         # U >= 0 is not U > 0: log(0) is no number
    ("E[sqrt(U)] <= sqrt(E[U]) by unn", "holds"),
    ("E[sqrt(U)] >= sqrt(E[U]) by unn", "fails"),
    ("E[N^2] >= 1 by nmean", "holds"),                      # E[N] = 1 put in E[N]^2 + G
    ("E[N^2] > 1 by nmean", "fails"),
    ("E[N^2] >= 2 by nmean", "fails"),
    ("log(E[exp(X)]) >= E[X]", "holds"),                    # the mean inside log, through exp
    ("log(E[exp(X)]) > E[X]", "fails"),
    # a mean linearity splits into several atoms, as the link writes it (kernel/jensen.py: _written_means)
    ("E[(X + Y)^4] >= (E[X] + E[Y])^4", "holds"),
    ("E[(X - c)^4] >= E[X - c]^4", "holds"),
    ("E[exp(X) + exp(Y)] >= exp(E[X]) + exp(E[Y])", "holds"),
    ("E[(X + Y)^4] > (E[X] + E[Y])^4", "fails"),             # X + Y constant
    ("E[(X + Y)^4] >= (E[X] + E[Y])^4 + 1", "fails"),
    ("E[(X + Y)^3] >= (E[X] + E[Y])^3", "fails"),            # an odd power
    # w^p for a number p: convex for p < 0 where w > 0, and for p > 1 where w >= 0; concave for 0 < p < 1
    ("E[1/V] >= 1/E[V] by vpos", "holds"),
    ("E[V^(-2)] >= E[V]^(-2) by vpos", "holds"),
    ("E[U^3] >= E[U]^3 by unn", "holds"),                    # an odd power, but U >= 0 on every outcome
    ("E[U^(3/2)] >= E[U]^(3/2) by unn", "holds"),
    ("E[U^(1/3)] <= E[U]^(1/3) by unn", "holds"),
    ("E[1/V] > 1/E[V] by vpos", "fails"),                    # a constant V closes the gap
    ("E[1/V] <= 1/E[V] by vpos", "fails"),
    ("E[1/X] >= 1/E[X]", "not holds"),                      # no sign of X: X = -1 or 2
    ("E[1/U] >= 1/E[U] by unn", "not holds"),               # U >= 0 is not U > 0: 1/0 is no number
    ("E[U^(1/3)] >= E[U]^(1/3) by unn", "fails"),
])
def test_jensen(claim, status):
    assert_verdict(claim_link(DECLS, claim), status, "jensen", claim)


def test_the_sign_on_every_outcome_is_reported_as_used():
    link = claim_link(DECLS, "E[log(V)] <= log(E[V]) by vpos")
    assert [u.label for u in link.uses if not u.implicit] == ["vpos"]


def test_jensen_is_not_listed_where_the_link_needs_no_gap():
    link = claim_link(DECLS, "E[exp(X)] >= E[exp(X)] - 1")
    assert link.status == "holds" and "jensen" not in link.rules


def test_a_spent_deadline_is_the_proof_s_limit_not_a_failed_try():
    """A limit inside the rule ends only its try, unless the link's time is spent: then the proof reports the
    limit (unknown, with the time limit named) and no later rule runs."""
    import sympy

    from stepcheck.kernel.jensen import jensen_proof
    from stepcheck.terms.facts import Deadline, KernelLimit
    from stepcheck.terms.objects import E

    class Stub:
        def __init__(self, seconds):
            self.deadline = Deadline(seconds)

        def expr(self, x):
            raise KernelLimit("expanding this expression would give too many terms")

    X = sympy.Symbol("X", real=True)
    g = E(sympy.exp(X)) - sympy.exp(E(X))
    assert jensen_proof(Stub(60), g, False, None, lambda s: s == X, None) == (False, set())
    with pytest.raises(KernelLimit, match="time limit"):
        jensen_proof(Stub(0), g, False, None, lambda s: s == X, None)
