"""Products of sums put back together (kernel/products.py, part of `sums`): an off-diagonal sum over one range,
Σ_{m ≠ t} f_m g_t, is (Σ_m f_m)(Σ_t g_t) − Σ_m f_m g_m, so that a sum met as its own factor elsewhere (a
softmax's denominator) cancels."""
import pytest

from conftest import assert_verdict, claim_link

SOFTMAX = ("let N: positive integer\nreal z_r, v_r for r in 1..N\n"
           "define w_r = exp(z_r) / sum(l=1..N, exp(z_l))\n")


@pytest.mark.parametrize("claim, status", [
    # where it applies
    ("sum(l=1..N, w_l) sum(m=1..N, w_m v_m) = sum(m=1..N, w_m v_m)", "holds"),
    ("sum(l=1..N, w_l (v_l - sum(m=1..N, w_m v_m))) = 0", "holds"),        # centred values weigh nothing
    ("sum(l=1..N, w_l v_l) - sum(l=1..N, w_l) sum(m=1..N, w_m v_m) = 0", "holds"),
    ("sum(l=1..N, exp(z_l)) sum(m=1..N, v_m) / sum(l=1..N, exp(z_l)) = sum(m=1..N, v_m)", "holds"),
    ("sum(l=1..N, w_l v_l^2) - sum(l=1..N, w_l v_l)^2 = sum(l=1..N, w_l (v_l - sum(m=1..N, w_m v_m))^2)", "holds"),
    # where it must not
    ("sum(l=1..N, w_l (v_l - sum(m=1..N, w_m v_m))) = 1", "fails"),
    ("sum(l=1..N, w_l) sum(m=1..N, w_m v_m) = sum(m=1..N, w_m v_m) + 1/N", "fails"),
    ("sum(l=1..N, exp(z_l)) sum(m=1..N, v_m) = sum(m=1..N, exp(z_m) v_m)", "fails"),  # the diagonal alone
    ("sum(l=1..N, w_l v_l) sum(m=1..N, w_m) = sum(m=1..N, w_m v_m^2)", "fails"),
    # three indices: the weighted variance, and a near miss of it
    ("sum(l=1..N, w_l v_l^2) - sum(l=1..N, w_l v_l)^2 = sum(l=1..N, w_l (v_l - sum(m=1..N, w_m v_m))^2) + 1/N",
     "fails"),
    ("sum(l=1..N, w_l v_l^2) + sum(l=1..N, w_l v_l)^2 = sum(l=1..N, w_l (v_l - sum(m=1..N, w_m v_m))^2)", "fails"),
])
def test_products_of_sums(claim, status):
    assert_verdict(claim_link(SOFTMAX, claim), status, "sums", claim)


def test_a_mean_of_a_product_of_random_sums_is_not_a_product_of_means():
    """Means are never read by the rule: E[(Σ x)(Σ y)] is not E[Σ x] E[Σ y] without independence."""
    decls = ("let n: positive integer\nrandom x_i, y_i for i in 1..n\n")
    link = claim_link(decls, "E[sum(i=1..n, x_i) sum(j=1..n, y_j)] = E[sum(i=1..n, x_i)] E[sum(j=1..n, y_j)]")
    assert link.status != "holds", link.rules


def test_sums_over_ranges_that_differ_are_not_put_together():
    decls = "let N, M: positive integer\nreal a_r for r in 1..N\nreal b_r for r in 1..M\n"
    assert claim_link(decls, "sum(l=1..N, a_l) sum(m=1..M, b_m) = sum(l=1..N, sum(m=1..M, a_l b_m))").status == "holds"
    assert claim_link(decls, "sum(l=1..N, a_l) sum(m=1..M, b_m) = sum(m=1..N, a_m b_m)").status != "holds"


FREE = SOFTMAX + "let i: index 1..N\nreal a_r for r in 1..N\n"


@pytest.mark.parametrize("claim, status", [
    # a free index i splits its member out of every sum: the sums put together leave out the same member
    ("sum(l=1..N, w_l (v_l - sum(m=1..N, w_m v_m))) a_i = 0", "holds"),
    ("sum(l=1..N, w_l (v_l + v_i - sum(m=1..N, w_m v_m))) = v_i", "holds"),
    ("sum(l=1..N, w_l (v_l + v_i - sum(m=1..N, w_m v_m))) = v_i + w_i", "fails"),
    ("sum(l=1..N, w_l (v_l - sum(m=1..N, w_m v_m))) a_i = a_i/N", "fails"),
])
def test_products_of_sums_beside_a_free_index(claim, status):
    assert_verdict(claim_link(FREE, claim), status, "sums", claim)
