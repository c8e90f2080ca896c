"""What the kernel is told: declarations and facts (plain data, no parsing)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import sympy
from sympy import Indexed, Symbol

from ..options import DEFAULT_TIMEOUT


class KernelLimit(Exception):
    """A resource limit was hit: the link is ``unknown``, never ``holds``."""


@dataclass
class Decls:
    """The declarations a link is checked under.

    ``random_symbols``: plain random variables; ``random_families``: names of
    indexed random families (``q`` for ``q_i``); ``index_ranges``: the
    declared range (lo, hi) of every index symbol.
    """

    random_symbols: frozenset = frozenset()
    random_families: frozenset = frozenset()
    index_ranges: dict = field(default_factory=dict)
    family_ranges: dict = field(default_factory=dict)  # family name -> (lo, hi)
    order: dict = field(default_factory=dict)  # name -> declaration position (for display)

    def display_key(self, x):
        name = x.base.label.name if isinstance(x, Indexed) else str(x)
        return (self.order.get(name, 10**6), sympy.default_sort_key(x))

    def is_rv(self, x) -> bool:
        if isinstance(x, Symbol):
            return x in self.random_symbols
        if isinstance(x, Indexed):
            return x.base.label.name in self.random_families
        if type(x).__name__ == "FamilyExtremum":  # max(x) of a random family is itself random
            return x.args[0].label.name in self.random_families
        return False


@dataclass(frozen=True, eq=False)
class IndepFact:
    """Mutual independence of a set of random variables.

    ``families``: names of whole families (every member, every index);
    ``members``: single variables, possibly with free index symbols (which
    are universally quantified over their declared ranges); ``distinct``:
    pairs of free index symbols required to differ (``for i != j``).
    """

    label: str
    families: tuple = ()
    members: tuple = ()
    free: tuple = ()
    distinct: tuple = ()
    text: str = ""
    #: block independence (``q ⟂ k``, ``independent(vector q, vector k)``): each block a tuple of family
    #: names and single variables; the blocks are mutually independent, nothing is said inside a block.
    #: ``families``/``members`` then list everything, for readers that may use a STRONGER reading (finite
    #: models, re-checks: a model of mutual independence is a model of block independence); the kernel and
    #: exact numbers read ``blocks``.
    blocks: tuple = ()


@dataclass(frozen=True, eq=False)
class EqFact:
    """An equation ``lhs = rhs``, universally quantified over ``free``."""

    label: str
    lhs: sympy.Expr
    rhs: sympy.Expr
    free: tuple = ()
    distinct: tuple = ()
    text: str = ""


@dataclass(frozen=True, eq=False)
class SurelyFact(EqFact):
    """An equation a declared law makes true on every outcome (``R^2 = 1`` for a Rademacher R): a fact of
    the declaration for the kernel, which any realisation of the law satisfies."""


@dataclass(frozen=True, eq=False)
class IneqFact:
    """An inequality ``lhs REL rhs`` (REL one of <, <=, >, >=, !=), quantified over ``free``."""

    label: str
    lhs: sympy.Expr
    rhs: sympy.Expr
    rel: str
    free: tuple = ()
    distinct: tuple = ()
    text: str = ""


# Two different size limits, on purpose:
# * MAX_EXPANSION bounds ONE sympy expansion (a product of sums, a power), estimated
#   before expanding, so that a single expand() call cannot blow up;
# * Limits.max_terms bounds the number of terms of a link's whole normal form
#   (after the kernel's own collection), which may legitimately be larger.
MAX_EXPANSION = 1500  # monomials one expansion may produce before it is refused


@dataclass
class Limits:
    seconds: float = DEFAULT_TIMEOUT  # per link (the whole link: proof, witness search, cross-check)
    max_terms: int = 4000  # terms in a link's normal form (see MAX_EXPANSION for one expansion)
    max_power: int = 12  # integer power of a sum / random expression
    max_free_indices: int = 5  # free indices case-split


class Deadline:
    """One link's time budget, shared by its proof, its witness search and its cross-check.

    ``--timeout`` is the time per link: every stage spends from the same
    budget (``remaining()``), so a link never takes much more than that.
    """

    def __init__(self, seconds: float):
        self.end = time.monotonic() + seconds
        self.seconds = seconds

    def check(self):
        if time.monotonic() > self.end:
            raise KernelLimit(f"time limit of {self.seconds:g} s per link reached")

    def remaining(self) -> float:
        return max(0.0, self.end - time.monotonic())
