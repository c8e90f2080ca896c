"""The consistency check's answers in this process, by what they depend on (bounded, least recently used first).

:func:`stepcheck.kernel.check_consistency` is a function of the facts (their kinds, labels, sides, relations,
quantifiers, in order), of the declarations (random names and families, index and family ranges, the
display order its reason is printed in) and of the limits; the same declared laws checked again (an API
test per claim, a pytest run of many small files, an editor's re-check) are answered from here.  Facts are
keyed by their fields (``srepr``, with every Dummy renumbered by first appearance), not their identity; a
check without declarations is not kept.  An answer is kept only when the check finished before its deadline:
every sub-check runs under that deadline (``reduce.bounded_by``; a Normalizer's own starts later), so none
gave up for lack of time, and the answer is what these facts give; a check that raised is not kept.
``clear_caches`` forgets every answer (``reduce.memo``).
"""
from __future__ import annotations

import dataclasses
import hashlib
import re
from collections import OrderedDict

import sympy

from .reduce import memo

SIZE = 512
_DUMMY = re.compile(r"dummy_index=(\d+)")


class _Answers:
    def __init__(self, size: int = SIZE):
        self.size = size
        self._d: OrderedDict = OrderedDict()

    def cache_clear(self) -> None:
        self._d.clear()

    def get(self, key):
        """(True, the answer) for a key seen before, else (False, None); a Contradiction is copied out."""
        if key is None or key not in self._d:
            return False, None
        self._d.move_to_end(key)
        return True, _copy(self._d[key])

    def put(self, key, answer) -> None:
        if key is None:
            return
        self._d[key] = _copy(answer)
        while len(self._d) > self.size:
            self._d.popitem(last=False)


ANSWERS = memo(_Answers())


def _copy(answer):
    return answer if answer is None else type(answer)(list(answer), answer.reason)


def key(decls, facts: dict, limits):
    """What the check's answer depends on, hashable; None where it cannot be formed."""
    if decls is None:
        return None
    try:
        k = (tuple((lab, tuple((type(f).__name__,) + tuple(getattr(f, x.name) for x in dataclasses.fields(f))
                               for f in fs)) for lab, fs in facts.items()),
             _sorted(decls.random_symbols), _sorted(decls.random_families), _items(decls.index_ranges),
             _items(decls.family_ranges), _items(decls.order),
             tuple(getattr(limits, x.name) for x in dataclasses.fields(limits)))
        text = sympy.srepr(k)
    except (TypeError, AttributeError, ValueError):
        return None
    # a Dummy (an index of a declaration, a law's own names) is fresh in every check: renumbered by first
    # appearance, so two keys are equal when the facts are equal up to the names of their Dummies
    order: dict = {}
    text = _DUMMY.sub(lambda m: f"dummy_index={order.setdefault(m.group(1), len(order))}", text)
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def _sorted(names) -> tuple:
    return tuple(sorted(names, key=str))


def _items(d: dict) -> tuple:
    return tuple(sorted(d.items(), key=str))
