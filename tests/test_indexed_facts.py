"""The copied assumption tables of new Indexed objects (terms/indexed_facts.py) equal sympy's own deduction."""
import itertools

import pytest
from sympy import Dummy, Idx, Indexed, IndexedBase, Symbol

from stepcheck.terms import indexed_facts

PROPS = ["real", "positive", "nonnegative", "negative", "nonzero", "integer", "finite"]


def _deduced(base, *indices):
    """sympy's own table for base[indices], computed by the function the module replaced."""
    obj = Indexed.__new__(Indexed, base, *indices)  # the patched table, replaced below
    indexed_facts._original(obj, base.assumptions0)
    return obj


def test_the_copy_is_installed():
    assert indexed_facts._original is not None


@pytest.mark.parametrize("props", [c for k in range(3) for c in itertools.combinations(PROPS, k)])
def test_table_equals_sympys_deduction(props):
    kw = {p: True for p in props}
    try:
        label = Symbol("x", **kw)
    except Exception:  # inconsistent combinations (positive and negative) are not bases
        pytest.skip("inconsistent assumptions")
    i = Idx(Symbol("i", integer=True))
    for base in (IndexedBase(label), IndexedBase(Dummy("y", **kw))):
        for _ in range(2):  # the first deduces and keeps, the second copies
            new = base[i]
            ref = _deduced(base, i)
            assert dict(new._assumptions) == dict(ref._assumptions)
            assert new._assumptions._generator == ref._assumptions._generator
            for q in ("positive", "negative", "zero", "real", "integer", "finite", "rational"):
                assert getattr(new, "is_" + q) == getattr(ref, "is_" + q)


def test_a_query_on_one_member_does_not_reach_the_next():
    base = IndexedBase("q", real=True)
    i = Idx(Symbol("i", integer=True))
    before = dict(base[i]._assumptions)
    first = base[i]
    first._assumptions["positive"] = True  # what a later query could store in the object's own table
    assert dict(base[i]._assumptions) == before
    assert base[i].is_positive is None


def test_rebuilt_members_keep_their_bases_facts():
    x = IndexedBase("w", positive=True)
    i, j = Symbol("i", integer=True), Symbol("j", integer=True)
    assert (x[i] * x[j]).xreplace({j: i}).is_positive
    assert x[i].xreplace({i: j}).is_positive and x[i].is_real
