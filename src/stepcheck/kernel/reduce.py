"""Ideal membership: applying equation facts soundly.

A polynomial ``p`` (in moment atoms and every other generator, over QQ) that
reduces to 0 modulo a Gröbner basis of the fact polynomials lies in the ideal
they generate, so ``p = 0`` wherever the facts hold.  Every generator
(``d_k``, ``1/d_k``, ``sqrt(d_k)``, ``E[q_i]``...) is treated as an
independent variable: this can miss identities, never invent them.
Denominators are cleared first (``p = N/D`` is 0 where defined iff ``N`` is).
"""
from __future__ import annotations

import contextvars
import signal
import threading
from contextlib import contextmanager
from functools import lru_cache

import sympy
from sympy import QQ, groebner
from sympy.core.exprtools import decompose_power
from sympy.polys.orderings import MonomialOrder, grevlex
from sympy.polys.polyerrors import PolynomialError, GeneratorsNeeded, PolificationFailed, CoercionFailed
from sympy.polys.polytools import parallel_poly_from_expr
from sympy.polys.rings import PolyRing

from .groups import linked_groups
from ..terms.facts import KernelLimit
from ..terms.objects import DSum, E
from ..terms.printer import show


class Inconsistent(Exception):
    """The facts generate the unit ideal: they contradict each other."""


def _num_den(x):
    """(numerator, denominator) of ``x``; without a negative or unknown power nothing is put over a common
    denominator (a rational factor is harmless: over QQ it changes neither the ideal nor the remainder)."""
    if x.is_Rational or all(p.exp.is_nonnegative for p in x.atoms(sympy.Pow)):
        return (sympy.expand(x) if x.has(sympy.Pow) else x), sympy.Integer(1)
    n, d = sympy.fraction(sympy.together(x))
    return sympy.expand(n), d


def has_atoms(x) -> bool:
    return x.has(E, DSum)


#: sympy's Gröbner basis cannot be interrupted, so systems that can take minutes are refused up front
#: (KernelLimit: the link is unknown).  The shipped derivations stay far below: at most 26 generators,
#: degree 2 and 36 terms in one system.
MAX_BASIS_GENS = 150
MAX_BASIS_TERMS = 1500
MAX_BASIS_DEGREE = 6  # for a system of two or more polynomials


MAX_EXPONENT = 1000  # a power a polynomial may hold: sympy's dense polynomials store every lower degree


def _exponent_guard(polys) -> None:
    """Before any dense polynomial is built: exp(10^8) is the generator e to the power 10^8 for sympy, and
    x^(10^8) the degree 10^8 (10^8 coefficients, memory gone)."""
    for p in polys:
        for node in sympy.preorder_traversal(p):
            if isinstance(node, (sympy.Pow, sympy.exp)):
                e = node.as_base_exp()[1]
                c = e if e.is_Number else e.as_coeff_Mul(rational=True)[0]
                if c.is_Rational and abs(c) > MAX_EXPONENT:
                    raise KernelLimit(f"a power {show(node)} too large for a polynomial (exponent above {MAX_EXPONENT})")


def _size_guard(polys) -> None:
    """Before any Poly is built (building one of 10^4 terms already takes seconds)."""
    _exponent_guard(polys)
    terms = sum(len(sympy.Add.make_args(p)) for p in polys)
    gens = set().union(*(p.atoms(E, DSum) | p.free_symbols for p in polys)) if polys else set()
    if terms > MAX_BASIS_TERMS or len(gens) > MAX_BASIS_GENS:
        raise KernelLimit(f"the facts form a polynomial system too large to solve here ({len(polys)} equations, "
                          f"about {len(gens)} unknowns, {terms} terms)")


def _guard(polys, gens) -> None:
    try:
        ps = [sympy.Poly(p, *gens) for p in polys]
    except (PolynomialError, GeneratorsNeeded, CoercionFailed):
        return
    terms = sum(len(p.terms()) for p in ps)
    deg = max((p.total_degree() for p in ps), default=0)
    high = len(ps) > 1 and deg > MAX_BASIS_DEGREE and _core_degree(ps, gens) > MAX_BASIS_DEGREE
    if len(gens) > MAX_BASIS_GENS or terms > MAX_BASIS_TERMS or high:
        raise KernelLimit(f"the facts form a polynomial system too large to solve here ({len(ps)} equations, "
                          f"{len(gens)} unknowns, degree {deg}, {terms} terms)")


def _core_degree(ps, gens) -> int:
    """The largest total degree among the polynomials that do not merely define a generator of their own:
    one whose leading monomial (in the elimination order) is a generator, to the first power, that no
    other polynomial mentions (E[G^8] - 105 σ^8 beside a law's lower moments) only eliminates that
    generator (its leading monomial is coprime to every other's: Buchberger's first criterion), so its
    degree costs the basis nothing."""
    order = _monomial_order(tuple(gens))
    used = [sum(1 for p in ps if p.degree(g) > 0) for g in gens]
    core = []
    for p in ps:
        lead = max(p.monoms(), key=order)
        own = [k for k, e in enumerate(lead) if e]
        if not (sum(lead) == 1 and used[own[0]] == 1):
            core.append(p)
    return max((p.total_degree() for p in core), default=0)


#: the time budget of the link being proved (a terms.facts.Deadline), set by the prover around a proof
_DEADLINE: contextvars.ContextVar = contextvars.ContextVar("stepcheck_deadline", default=None)


@contextmanager
def bounded_by(deadline):
    """Gröbner bases computed inside stop at ``deadline`` (KernelLimit), where an interval timer can run."""
    token = _DEADLINE.set(deadline)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


class _Alarm(BaseException):
    """The interval timer's interrupt: a BaseException, so that no ``except Exception`` on the way (sympy's or
    ours) swallows it and runs on past the deadline unguarded; :func:`interrupted_at` turns it into KernelLimit."""


_ARMED = [False]  # the alarm interrupts only while a basis is being computed (never after, in cleanup)


def _on_alarm(signum, frame):
    if _ARMED[0]:
        raise _Alarm()


def _groebner(polys: list, gens: tuple, order):
    """sympy's groebner, interrupted at the link's deadline (sympy offers no way to stop a Buchberger run,
    and the size guard cannot foresee every slow system)."""
    with interrupted_at(_DEADLINE.get(), "solving the facts' polynomial system"):
        return groebner(polys, *gens, order=order, domain=QQ)


def within_link_time(what: str):
    """:func:`interrupted_at` the deadline of the link being proved (``bounded_by``), for a sympy computation
    that can take minutes on an unlucky input (``factor``: Wang's algorithm draws its evaluation points)."""
    return interrupted_at(_DEADLINE.get(), what)


@contextmanager
def interrupted_at(deadline, what: str):
    """Run the body under an interval timer (SIGALRM, in the main thread) that stops it at ``deadline`` with
    a :class:`KernelLimit` naming ``what``: for sympy computations that cannot be stopped otherwise.
    Elsewhere (a worker thread), or when the caller's own timer runs, the body runs unguarded."""
    left = deadline.remaining() if deadline is not None else None
    usable = (left is not None and threading.current_thread() is threading.main_thread()
              and hasattr(signal, "setitimer") and signal.getitimer(signal.ITIMER_REAL)[0] == 0)
    if not usable:
        yield
        return
    if left <= 0:
        raise KernelLimit(f"time limit of {deadline.seconds:g} s per link reached")
    old = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        _ARMED[0] = True
        signal.setitimer(signal.ITIMER_REAL, left)
        yield
    except _Alarm:
        raise KernelLimit(f"time limit of {deadline.seconds:g} s per link reached ({what})") from None
    finally:
        _ARMED[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


#: caches whose values hold elements of a polynomial ring keep that ring alive (about 5 KiB each, with the
#: monomial functions sympy generates for it): they are bounded more tightly than those of expressions
RING_CACHE = 256


@lru_cache(maxsize=RING_CACHE)
def _basis(polys: tuple, gens: tuple) -> tuple:
    """The reduced Gröbner basis of ``polys`` over ``gens``: (its expressions, its elements of the ring)."""
    _guard(polys, gens)
    order = _monomial_order(gens)
    G = _groebner(list(polys), gens, order)
    ring = _ring(gens)
    return tuple(G.exprs), tuple(ring.from_dict(P.rep.to_dict(), QQ) for P in G.polys)


@lru_cache(maxsize=RING_CACHE)
def _system(facts: frozenset):
    """The facts' polynomial system, built once per fact set: (generators in elimination order, the basis
    in the ring over them), or None when the facts are not polynomials over QQ."""
    fn = tuple(sorted({_num_den(f)[0] for f in facts}, key=sympy.default_sort_key))
    _size_guard(fn)
    try:
        _, opt = parallel_poly_from_expr(list(fn), domain=QQ)
    except (PolynomialError, GeneratorsNeeded, PolificationFailed, CoercionFailed):
        return None
    gens = _order_gens(opt.gens)
    if not gens:
        return (), (sympy.Integer(1),) if any(f != 0 for f in fn) else ()
    exprs, elements = _basis(fn, gens)
    return gens, exprs if list(exprs) == [1] else elements


def reduce_modulo(p, facts) -> sympy.Expr:
    """The remainder of ``p`` modulo the ideal of ``facts`` (each ``= 0``).

    Raises :class:`Inconsistent` when the facts generate the unit ideal.
    A pure function of ``p`` and the set of facts: memoised (attribution
    asks the same question under several fact sets, and again per link).
    """
    facts = frozenset(f for f in facts if f != 0)
    if not facts:
        return p
    return _reduce_modulo(p, facts)


@lru_cache(maxsize=2048)
def _reduce_modulo(p, facts: frozenset) -> sympy.Expr:
    """In the ring: the basis is the facts' alone, over their own generators, computed once per fact set.

    A Gröbner basis G of the facts' ideal I in QQ[x] is one of I QQ[x, y] for any order on QQ[x, y]
    that restricts to G's order on QQ[x] (its S-polynomials never leave QQ[x]); ``_order_gens`` and
    ``_monomial_order`` restrict that way, so the remainder is the one a basis over the generators of
    ``p`` and the facts together would give, without recomputing a basis for each ``p``.
    """
    if p == 0:
        basis_of(facts)  # still report inconsistency
        return p
    pn, pd = _num_den(p)
    system = _system(facts)
    if system is None:
        return p
    fgens, G = system
    if pn.is_number:  # a number is its own remainder modulo any ideal but the unit one
        if fgens and list(G) == [1]:
            raise Inconsistent()
        return p
    if list(G) == [1]:
        raise Inconsistent()
    if not G:
        return p
    try:
        f, gens = _element(pn, fgens)
    except (PolynomialError, GeneratorsNeeded, PolificationFailed, CoercionFailed):
        return p
    try:
        r = f.rem(_basis_in(facts, gens)).as_expr()
    except (ZeroDivisionError, PolynomialError, CoercionFailed, NotImplementedError):
        return p  # no reduction is always sound (the link may stay unproved)
    return r / pd if pd != 1 else r


def _element(pn, fgens: tuple):
    """``pn`` as an element of the ring over its generators and ``fgens`` (in elimination order): (element,
    generators).  The generators and exponents are sympy's own (``parallel_poly_from_expr`` over QQ:
    ``decompose_power`` of each factor of each term of the expansion), read directly when every number
    factor is rational; otherwise ``parallel_poly_from_expr`` itself reads them."""
    terms = _rational_terms(pn)
    if terms is None:
        _exponent_guard([pn])
        (P,), opt = parallel_poly_from_expr([pn], domain=QQ)
        gens = _order_gens(tuple(set(fgens) | set(opt.gens)))
        return _ring(gens).from_dict(_embed(P.rep.to_dict(), opt.gens, gens), QQ), gens
    gens = _order_gens(tuple(set(fgens).union(*(e for _, e in terms))))
    where = {g: k for k, g in enumerate(gens)}
    out: dict = {}
    for c, elements in terms:
        m = [0] * len(gens)
        for b, e in elements.items():
            m[where[b]] = e
        m = tuple(m)
        out[m] = out.get(m, QQ.zero) + c
    return _ring(gens).from_dict({m: c for m, c in out.items() if c}, QQ), gens


def _rational_terms(pn):
    """[(coefficient in QQ, {generator: exponent})] per term of ``pn`` expanded, as sympy's
    ``_parallel_dict_from_expr_no_gens`` splits them; None when a number factor is not rational (a float,
    sqrt(2), oo: sympy's own reading decides those), a generator is a Piecewise or the expression is not
    commutative."""
    x = pn.expand()
    if x.is_commutative is False:
        return None
    out = []
    for term in sympy.Add.make_args(x):
        c, elements = QQ.one, {}
        for factor in sympy.Mul.make_args(term):
            if factor.is_Rational:
                c *= QQ(factor.p, factor.q)
            elif factor.is_number:
                return None
            else:
                b, e = decompose_power(factor)
                if e < 0:
                    e, b = -e, sympy.Pow(b, -1)
                if isinstance(b, sympy.Piecewise):
                    return None  # sympy refuses it as a generator
                elements[b] = elements.get(b, 0) + e
        out.append((c, elements))
    return out


@lru_cache(maxsize=RING_CACHE)
def _ring(gens: tuple) -> PolyRing:
    return PolyRing(gens, QQ, _monomial_order(gens))


def _embed(terms: dict, old: tuple, new: tuple) -> dict:
    """Exponent vectors over the generators ``old`` rewritten over ``new`` (a superset), by position."""
    where = {g: k for k, g in enumerate(new)}
    slots = [where[g] for g in old]
    out = {}
    for m, c in terms.items():
        e = [0] * len(new)
        for k, x in zip(slots, m):
            e[k] = x
        out[tuple(e)] = c
    return out


@lru_cache(maxsize=RING_CACHE)
def _basis_in(facts: frozenset, gens: tuple) -> list:
    """The facts' basis as elements of the ring over ``gens`` (their generators and more)."""
    fgens, G = _system(facts)
    ring = _ring(gens)
    return [ring.from_dict(_embed(dict(g), fgens, gens), QQ) for g in G]


@lru_cache(maxsize=4096)
def radical(p):
    """The square-free part of a fact polynomial: g^2 h = 0 gives g h = 0 (in any integral domain), so
    E[Z]^2 = 0 gives E[Z] = 0.  Only for small polynomials; otherwise the fact as it is."""
    if p == 0 or not isinstance(p, (sympy.Add, sympy.Mul, sympy.Pow)) or len(sympy.Add.make_args(p)) > 30:
        return p
    try:
        _exponent_guard([p])
        if _visibly_squarefree(sympy.Poly(p)):
            return p
        q = sympy.sqf_part(p)
    except (sympy.PolynomialError, NotImplementedError, ValueError, TypeError, KernelLimit):
        return p
    return q if q != 0 else p


def _visibly_squarefree(P) -> bool:
    """A cheap sufficient test (no gcd): ``P = A x + B`` for a generator x with A a single term, and no
    generator's power >= 2 divides every term.  A square factor f^2 of P would be free of x (P has degree
    1 in x), so it would divide A and B; dividing the term A, f is a monomial, and then f^2 divides every
    term of P -- which the second condition excludes."""
    if not (P.domain.is_ZZ or P.domain.is_QQ):
        return False
    monos = P.monoms()
    n = len(P.gens)
    if not monos or any(min(m[k] for m in monos) >= 2 for k in range(n)):
        return False
    return any(max(m[k] for m in monos) == 1 and sum(1 for m in monos if m[k] == 1) == 1 for k in range(n))


def basis_of(facts) -> tuple:
    """A Gröbner basis of the facts, computed per group of facts sharing a symbol.

    Facts in disjoint variables generate the unit ideal only if one group
    does, so splitting is sound (merging too much would only cost time);
    each group's basis is cached, so re-checking after one more assumption
    only recomputes the group it joins.  Raises Inconsistent for {1}.
    """
    fn = tuple(sorted({_num_den(f)[0] for f in facts if f != 0}, key=sympy.default_sort_key))
    if not fn:
        return ()
    if any(f.is_number for f in fn):
        if any(f.is_number and f != 0 for f in fn):
            raise Inconsistent()
        fn = tuple(f for f in fn if not f.is_number)
    out = []
    for group in _components(fn):
        G = _group_basis(group)
        if list(G) == [1]:
            raise Inconsistent()
        out.extend(G)
    return tuple(out)


@lru_cache(maxsize=4096)
def _group_basis(group: tuple) -> tuple:
    """The basis of one group (cached: unchanged groups cost nothing when re-checked)."""
    _size_guard(group)
    try:
        polys, opt = parallel_poly_from_expr(list(group), domain=QQ)
    except (PolynomialError, GeneratorsNeeded, PolificationFailed, CoercionFailed):
        return ()
    return _basis(tuple(group), _order_gens(opt.gens))[0]


def _components(polys) -> list:
    """Groups of polynomials linked (transitively) by a shared free symbol."""
    return [tuple(polys[k] for k in g) for g in linked_groups([p.free_symbols for p in polys])]


@lru_cache(maxsize=4096)
def _monomial_order(gens):
    """An elimination order: moment atoms (first in ``gens``) before parameters, grevlex within each block.

    Plain grevlex compares total degrees first, so a fact E[q^2] - E[q]^2 = σ^2 would keep E[q^2] and
    eliminate σ^2; with the atoms' block first the remainder of a sum's summand is written in the
    parameters (E[q_i^2] -> σ^2 under E[q_i] = 0), which is what lets a fact apply inside a sum.
    """
    k = sum(1 for g in gens if g.has(E, DSum))
    if 0 < k < len(gens):
        return BlockGrevlex(k)
    return grevlex


class BlockGrevlex(MonomialOrder):
    """grevlex on the first ``k`` exponents, ties broken by grevlex on the rest: sympy's
    ``ProductOrder((grevlex, m[:k]), (grevlex, m[k:]))`` with the same keys, built in one function
    (the remainder compares monomials tens of thousands of times)."""

    alias = "block_grevlex"
    is_global = True

    def __init__(self, k: int):
        self.k = k

    def __call__(self, monomial):
        a, b = monomial[:self.k], monomial[self.k:]
        return ((sum(a), tuple([-m for m in reversed(a)])), (sum(b), tuple([-m for m in reversed(b)])))

    def __eq__(self, other):
        return isinstance(other, BlockGrevlex) and other.k == self.k

    def __hash__(self):
        return hash(("block_grevlex", self.k))

    def __repr__(self):
        return f"BlockGrevlex({self.k})"


def _order_gens(gens) -> tuple:
    """Moment atoms first (eliminated in favour of parameters), bigger ones first."""
    atoms = [g for g in gens if g.has(E, DSum)]
    rest = [g for g in gens if not g.has(E, DSum)]
    atoms.sort(key=_atom_key)
    rest.sort(key=_sort_key)
    return tuple(atoms + rest)


@lru_cache(maxsize=8192)
def _atom_key(g):
    return -sympy.count_ops(g), _sort_key(g)


@lru_cache(maxsize=8192)
def _sort_key(g):
    """sympy's ``default_sort_key`` of one generator, memoised (it walks the expression every time)."""
    return sympy.default_sort_key(g)


_MEMOS: list = []  # memoised pure functions of other kernel modules (``memo``)


def memo(f):
    """``lru_cache``'d ``f``, registered so that ``clear_caches`` forgets it too."""
    _MEMOS.append(f)
    return f


def clear_caches() -> None:
    """Forget every memoised basis and remainder (benchmarks measure without them)."""
    for f in (_basis, _system, _basis_in, _ring, _reduce_modulo, _group_basis, _monomial_order, radical, _atom_key,
              _sort_key, *_MEMOS):
        f.cache_clear()
