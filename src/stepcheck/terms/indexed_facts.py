"""Cheaper assumptions for ``Indexed`` objects: each new ``x[i]`` copies a table, not a deduction.

sympy gives every new ``Indexed`` (``s[i]``, and every one rebuilt by ``xreplace``) the
assumptions of its base by running the full fact deduction
(``StdFactKB(assumptions)``, about 40 µs).  The kernel rebuilds members by
the hundred thousand (renaming bound indices, instantiating facts), and that
deduction was about a tenth of checking ``derivations/``.  The deduced table
depends only on the base's assumptions, so it is deduced once per set of
assumptions, kept pristine, and each new object gets its own copy of it
(queries later add facts to an object's own table, never to the kept one).

The result is the same table sympy builds: :func:`install` checks that on a
sample of bases before it replaces ``IndexedBase._set_assumptions``, and
leaves sympy alone when the check fails (another sympy version with
another layout).  tests/test_indexed_facts.py compares the two on every
combination of declared properties the language has.
"""
from __future__ import annotations

from sympy import Dummy, Idx, IndexedBase, Symbol

_original = None
_protos: dict = {}


def _fast(obj, assumptions):
    key = frozenset(assumptions.items())
    proto = _protos.get(key)
    if proto is None:
        _original(obj, dict(assumptions))
        _protos[key] = (dict(obj._assumptions), dict(obj._assumptions._generator), obj._assumptions.rules)
        return
    table, generator, rules = proto
    kb = _KB.__new__(_KB)
    dict.update(kb, table)
    kb.rules = rules
    kb._generator = dict(generator)
    obj._assumptions = kb


def _same(a, b) -> bool:
    return dict(a._assumptions) == dict(b._assumptions) and a._assumptions._generator == b._assumptions._generator


def install() -> bool:
    """Replace sympy's deduction for new ``Indexed`` objects by a copy of a kept one, where it agrees."""
    global _original, _KB
    if _original is not None:
        return True
    from sympy.core.assumptions import StdFactKB
    _KB = StdFactKB
    original = IndexedBase._set_assumptions
    i = Idx(Symbol("i", integer=True))
    bases = [IndexedBase("x"), IndexedBase("x", real=True), IndexedBase("x", positive=True),
             IndexedBase("x", integer=True, nonnegative=True), IndexedBase(Dummy("x", real=True))]
    sample = [(b, b[i]) for b in bases]
    try:
        _original = original
        IndexedBase._set_assumptions = staticmethod(_fast)
        ok = all(_same(b[i], old) and _same(b[i], old) for b, old in sample)  # first deduced, then copied
        if ok:
            first = bases[2][i]
            _ = first.is_negative, first.is_zero  # queries fill the object's own table ...
            ok = dict(bases[2][i]._assumptions) == dict(sample[2][1]._assumptions)  # ... not the kept one
    except Exception:  # pragma: no cover - another sympy's layout
        ok = False
    if not ok:  # pragma: no cover
        IndexedBase._set_assumptions = staticmethod(original)
        _original = None
        _protos.clear()
    return ok


_KB = None
