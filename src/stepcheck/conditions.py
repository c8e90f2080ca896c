"""Where an expression is defined: the side conditions the elaborator records as it reads.

sympy simplifies ``y/y`` to 1 and ``sqrt(s)^2`` to ``s`` as it builds them,
so the conditions are recorded here, from the parse tree: on the link's own
names as conditions shown with the result (``where: y ≠ 0``), elsewhere as
guards a counterexample must satisfy (:meth:`DomainConditions._guard`).
A mixin of :class:`~stepcheck.elaborate.Elaborator` (its ``scope``, ``bound``,
``bound_ranges`` and ``conditions``).
"""
from __future__ import annotations

import sympy
from sympy import Symbol

from .errors import error
from .terms.objects import SD, Cov, E, Var
from .terms.printer import show

#: the relation of a guard (see :meth:`DomainConditions._guard`): the expression must have a real value
DEFINED = "defined"


class NoRealValue(Exception):
    """Raised by :meth:`DomainConditions.need` where ``x REL 0`` holds for no admissible value (``sqrt(-4)``,
    ``log(-1)``, ``sqrt(-c)`` for a declared positive c): the expression has no real value at all; the
    elaborator reports it at the smallest expression being read (:meth:`Elaborator.mexpr`)."""

    def __init__(self, x, rel: str):
        super().__init__(x, rel)
        self.x, self.rel = x, rel


def _negative_near(c, x, pt) -> bool:
    """Is ``c`` negative near ``x = pt`` by the declared signs: strictly negative at a finite point (then
    near it too: the conditions are continuous where defined), or of a negative limit at ±oo?"""
    try:
        at = c.xreplace({x: pt}) if pt.is_finite else sympy.limit(c, x, pt)
    except Exception:  # noqa: BLE001 - sympy could not tell: nothing is said
        return False
    return at.is_extended_negative is True


def _set_text(st) -> str:
    """(0, 1], [0, 2) ∪ (2, 3], {-1, 1}: a set of reals as a reader writes it."""
    if isinstance(st, sympy.Interval):
        return f"{'(' if st.left_open else '['}{show(st.start)}, {show(st.end)}{')' if st.right_open else ']'}"
    if isinstance(st, sympy.Union):
        return " ∪ ".join(_set_text(a) for a in st.args)
    if st == sympy.S.EmptySet:
        return "no point of it"
    if isinstance(st, sympy.FiniteSet):
        return "{" + ", ".join(show(a) for a in st.args) + "}"
    return show(st)


_RELATION = {">=": sympy.Ge, ">": sympy.Gt, "!=": sympy.Ne}
#: a condition's relation as shown (``x ≥ 0``)
RELATION_SHOWN = {">=": "≥", ">": ">", "!=": "≠"}
#: an expression with a real value exactly where ``x REL 0``: sqrt(x), log(x), 1/x
_GUARD = {">=": sympy.sqrt, ">": sympy.log, "!=": lambda v: sympy.Pow(v, -1)}
_FAILS = {">=": "is_extended_negative", ">": "is_extended_nonpositive", "!=": "is_zero"}


def _never(x, rel: str) -> bool:
    """Does sympy know ``x REL 0`` false for every value of the declared names (their declared signs)?
    A number that is not real fails every relation (``sqrt(-1) >= 0``)."""
    if rel not in _FAILS:
        return False
    if x.is_number and x.is_extended_real is False:
        return True
    return getattr(x, _FAILS[rel]) is True


def _always(x, rel: str) -> bool:
    """``x REL 0`` for every value: a variance, a mean of a square, a sum of squares is never negative."""
    if rel != ">=" or x.is_nonnegative:
        return bool(getattr(x, {">=": "is_nonnegative", ">": "is_positive", "!=": "is_nonzero"}[rel]))
    if isinstance(x, (Var, SD)) or (isinstance(x, sympy.Pow) and x.exp.is_integer and x.exp.is_even):
        return True
    parts = x.args if isinstance(x, (E, sympy.Add, sympy.Mul)) else ()
    return bool(parts) and all(_always(a, ">=") for a in parts)


class DomainConditions:
    def need(self, x, rel: str):
        """Record that the expression being read is defined (real) only where ``x REL 0``.

        sympy simplifies ``y/y`` to 1 and ``exp(log(y))`` to ``y`` as it builds
        them, so the side conditions are recorded here, from the parse tree.
        Conditions that hold for every value are not recorded; conditions on
        random quantities or on a bound variable (a summation index, a limit's
        variable) are recorded as guards (:meth:`_guard`), not shown.
        """
        if _never(x, rel):
            raise NoRealValue(x, rel)
        for d, acc in self.watched.items():
            if d in x.free_symbols:
                acc.append((x, rel))
        if x.is_number:
            return
        bound = {v for fr in self.bound for v in fr.values()}
        if x.has(E, Var, Cov, SD) or any(s in self.scope.random_symbols for s in x.free_symbols) \
                or any(isinstance(a, sympy.Indexed) and self._random_family(a) for a in x.atoms(sympy.Indexed)) \
                or x.free_symbols & bound:
            g = self._guard(x, rel)
            if g is not None and (g, DEFINED) not in self.conditions:
                self.conditions.append((g, DEFINED))
            if not x.free_symbols & bound and (x, rel) not in self.random_needs:
                self.random_needs.append((x, rel))
            return
        if (x, rel) not in self.conditions:
            self.conditions.append((x, rel))

    def defined_on(self, conds, x, a, b, f: str, span):
        """An extremum over ``[a, b]`` needs its body defined on all of it: an error where sympy shows a
        condition on ``x`` false somewhere in a numeric interval (``max(log(x), x in [-3, 1])``: sympy
        would write ``exp(2 log(x))`` as ``x^2`` and find 9 at x = -3).  Undecided (symbolic ends, other
        names in the condition): nothing is said, as before."""
        self.not_random_near(conds, x, span)
        if not (a.is_number and b.is_number) or not conds:
            return
        whole = sympy.Interval(a, b)
        for c, rel in conds:
            if c.free_symbols != {x}:
                continue
            try:
                ok = sympy.solveset(_RELATION[rel](c, 0), x, whole)
            except Exception:  # noqa: BLE001 - sympy could not solve it: undecided
                continue
            if isinstance(ok, sympy.ConditionSet) or ok == whole:
                continue
            raise error(f"the expression is not defined on all of [{a}, {b}]", span,
                        f"defined only where {show(c)} {RELATION_SHOWN[rel]} 0",
                        notes=[f"`{f}` over an interval needs a real value at every point of it; here only "
                               f"for {x.name} in {_set_text(ok)}"],
                        help="take the extremum over an interval where it is defined", code="E-undefined")

    def defined_near(self, conds, x, pt, side: str, span):
        """A limit needs its body defined near the point, on each side it is taken from (a two-sided limit:
        on both).  Refused where a condition on ``x`` fails at 10^-6 and 10^-9 from the point on a side
        (at 10^6 and 10^9 for ±oo), or where it fails strictly at the point itself by the declared signs
        (``t - c`` at t = 0 for a positive c: negative there, so near it too; a ``log``'s ``t > 0`` failing
        only as ``t = 0`` at 0 says nothing); at ±oo, where sympy finds the condition's limit negative.
        Only ever a refusal: a body let through is checked as before."""
        if not conds:
            return
        self.not_random_near(conds, x, span)
        if not pt.is_number:
            return
        steps = [sympy.Rational(1, 10**6), sympy.Rational(1, 10**9)]
        sides = ["+", "-"] if side == "+-" else [side]
        for c, rel in conds:
            if x not in c.free_symbols:
                continue
            if rel in (">=", ">") and _negative_near(c, x, pt):
                self._undefined_near(c, rel, x, pt, side, span)
            if c.free_symbols != {x}:
                continue
            for sd in sides:
                if pt.is_finite:
                    probes = [pt + e if sd == "+" else pt - e for e in steps]
                else:
                    probes = [sympy.Integer(10**k) * (1 if pt == sympy.oo else -1) for k in (6, 9)]
                if all(_never(c.xreplace({x: v}), rel) for v in probes):
                    self._undefined_near(c, rel, x, pt, sd, span, two_sided=side == "+-")

    def not_random_near(self, conds, x, span):
        """A limit's or an extremum's body with a condition on a random quantity (``limit(sqrt(R + t)^2, t -> 0)``,
        ``max(E[sqrt(R + t)^2], t in [0, 1])``): no guard is kept for it (the variable has no range of values
        one by one), and sympy writes the body without its root, so it would be taken where it has no value."""
        for c, rel in conds:
            if (self._raw_random(c) or c.has(E, Var, Cov, SD)) and not _always(c, rel):
                raise error("a limit or an extremum of an expression defined only for some outcomes is not "
                            "supported", span, f"needs {show(c)} {RELATION_SHOWN[rel]} 0 on every outcome",
                            notes=[f"a random quantity must keep it real on every outcome, for every {x.name}"],
                            help="write it for a number in place of the random quantity, or with an expression "
                                 "defined on every outcome", code="E-unsupported")

    def _undefined_near(self, c, rel, x, pt, side, span, two_sided=False):
        where = f"{x.name} -> {show(pt)}{side if pt.is_finite and side in ('+', '-') else ''}"
        other = {"+": "-", "-": "+"}.get(side)
        raise error(f"the expression has no real value near {x.name} = {show(pt)}", span,
                    f"needs {show(c)} {RELATION_SHOWN[rel]} 0",
                    notes=[f"a limit needs the expression defined near the point on each side it is taken from "
                           f"({where})"],
                    help=f"take the limit from the side where it is defined: `{x.name} -> {show(pt)}{other}`"
                    if two_sided and other else None, code="E-undefined")

    def _guard(self, x, rel: str):
        """A condition that is not one on the link's own names, as an expression that has a real value
        exactly where it holds: ``sqrt(x)`` for x ≥ 0, ``log(x)`` for x > 0, ``1/x`` for x ≠ 0, taken under
        ``E`` when x is random (almost surely) and summed over the ranges of the bound indices it mentions
        (every term). None when a bound variable has no range (a limit's): no guard, as before.

        It is shown to no one: a counterexample must give it a real value (``sqrt(s_i)^2 = |s_i|`` at
        s_3 = -1 refutes nothing; sympy has already written ``sqrt(s_i)^2`` as ``s_i``)."""
        if isinstance(x, sympy.Mul):  # 2 W ≥ 0 is W ≥ 0 (sympy writes sqrt(2 W) as sqrt(2) sqrt(W))
            x = sympy.Mul(*[a for a in x.args if not a.is_positive])
        g = _GUARD[rel](x)
        if self._raw_random(x):
            g = E(g)
        for frame in reversed(self.bound):  # innermost first: an inner range may mention an outer index
            for d in frame.values():
                if d in g.free_symbols:
                    if d not in self.bound_ranges:
                        return None
                    lo, hi, _ = self.bound_ranges[d]
                    g = sympy.Sum(g, (d, lo, hi))
        return g

    def _raw_random(self, x) -> bool:
        """Does ``x`` mention a random variable outside every E, Var, Cov and SD?"""
        if isinstance(x, (E, Var, Cov, SD)) or type(x).__name__ == "Prob":
            return False
        if isinstance(x, Symbol):
            return x in self.scope.random_symbols
        if isinstance(x, sympy.Indexed):
            return self._random_family(x)
        return any(self._raw_random(a) for a in x.args if isinstance(a, sympy.Basic))

    def _random_family(self, a) -> bool:
        fam = self.scope.families.get(str(a.base.label))
        return bool(fam and fam.random)

    def finite_moments(self, f: str, args, node):
        """E-undefined where a mean the call needs is certainly infinite (:mod:`~stepcheck.integrability`):
        E[g] needs E|g| < ∞; Var(g) and SD(g) need E[g^2] < ∞; Cov(a, b) needs E|a|, E|b| and E|a b| < ∞."""
        from .integrability import infinite_moment, moment_needs, unproved_heavy_mean

        for body, p in moment_needs(f, args):
            randoms = {a for a in body.atoms(Symbol, sympy.Indexed)
                       if a in self.scope.random_symbols or (isinstance(a, sympy.Indexed) and self._random_family(a))}
            why = infinite_moment(body, p, randoms, self._law_of)
            unproved = unproved_heavy_mean(body, p, randoms, self._law_of) if why is None else None
            aliases = [self.scope.heavy_aliases[n] for n in sorted({str(a.base.label) if isinstance(a, sympy.Indexed)
                                                                   else str(a) for a in randoms})
                       if n in self.scope.heavy_aliases]
            if why is None and unproved is None and aliases:  # assume Y = 2 C: E[Y] rests on E[C]
                unproved = "; ".join(aliases) + ", whose means may not exist"
            if why is None and unproved is None and randoms & set(self.scope.law_aliases):
                unproved = self._through_ties(body, p)  # assume Y = Z^2: E[exp(Y)] is E[exp(Z^2)]
            if unproved is not None:  # judge/heavy.py: the link is not checked
                shown = f"E[{show(args[0])}]" if f == "E" else f"{f}({', '.join(show(a) for a in args)})"
                text = f"{shown} may not exist ({unproved})"
                if text not in self.unproved_means:
                    self.unproved_means.append(text)
            if why is not None:
                what = {"E": "mean", "Var": "variance", "SD": "standard deviation", "Cov": "covariance"}[f]
                moment = f"E[|{show(body)}|{'^2' if p == 2 else ''}]"
                raise error(f"this {what} does not exist", node.span, f"{moment} is infinite",
                            notes=[f"{show(body)}: {why}, so {moment} = ∞",
                                   "linearity and every other rule presuppose finite means: with an infinite "
                                   "mean, E[g] - E[g] is ∞ - ∞, not 0"],
                            help="write the derivation for a quantity whose mean is finite (bounded away from "
                                 "the pole, growing slowly enough in the tails, or under a law that keeps it "
                                 "finite)", code="E-undefined")

    def _through_ties(self, body, p: int):
        """Why ``E|body|^p`` may not exist once each random variable of no law is replaced by what an equation
        ties it to (``Y = W + 1`` and ``W = Z^2``: followed to variables with laws, at most 8 ties), or None."""
        from .integrability import infinite_moment

        ties, used, sub = self.scope.law_aliases, {}, body
        for _ in range(8):  # each variable of no law through one of its ties that leads to none already followed
            here = {}
            for y in sorted(sub.atoms(Symbol) & set(ties), key=str):  # a tie to variables with laws first
                ok = [t for t in ties[y] if not t[0].free_symbols & (set(used) | {y})]
                here[y] = min(ok, key=lambda t: sum(1 for a in t[0].free_symbols if a in self.scope.random_symbols
                                                    and self._law_of(a) is None), default=None)
            here = {y: t for y, t in here.items() if t is not None}
            if not here:
                break
            used.update(here)
            sub = sub.xreplace({y: t[0] for y, t in here.items()})
        randoms = {a for a in sub.atoms(Symbol) if a in self.scope.random_symbols}
        if not used or any(self._law_of(a) is None for a in randoms):
            return None
        got = infinite_moment(sub, p, randoms, self._law_of) if randoms else None
        said = ", ".join(f"`{t[1]}` ties {show(y)} to {show(t[0])}" for y, t in used.items())
        return f"{said}, and {show(sub)}: {got}" if got is not None else None

    def _law_of(self, a):
        return self.scope.laws.get(str(a.base.label) if isinstance(a, sympy.Indexed) else str(a))

    def need_law(self, name: str):
        """The conditions under which the law declared for ``name`` exists (Uniform(a, b): a < b)."""
        for x, rel in self.scope.law_conditions[name]:
            self.need(x, rel)

    def free_index(self, i):
        """A declared index written free (``k`` of 2..n): the link says something only where its range has a
        member, a guard read here, before sympy cancels ``k - k`` or ``delta(k, k)`` away (a counterexample
        at n = 1 refutes nothing; not shown: the link holds vacuously there)."""
        lo, hi = self.scope.index_ranges.get(i, (None, None))
        if lo is not None and sympy.Ge(hi, lo) != sympy.true:
            g = self._guard(hi - lo, ">=")
            if g is not None and (g, DEFINED) not in self.conditions:
                self.conditions.append((g, DEFINED))
                self.range_guards.add(g)
        return i

    def check_range(self, name, fam, iv, span):
        """A family member's index inside the family's range: an error where it is certainly outside, a side
        condition where it may be (s_2 of a family over 1..n: n ≥ 2)."""
        if iv.is_Integer:
            lo_ok = sympy.Ge(iv, fam.lo)
            hi_ok = sympy.Le(iv, fam.hi)
            if lo_ok == sympy.false or hi_ok == sympy.false:
                raise error(f"index {iv} is outside the range of `{name}`", span, "out of range",
                            notes=[f"`{name}` is declared for {fam.var} in {fam.lo}..{fam.hi}"], code="E-range")
            # s_2 of a family over 1..n exists only where n >= 2: a side condition of the link, so that a step
            # about s_2 proves nothing at n = 1 (where s_2 cancelling out of two such steps would prove
            # sum(i=1..n, delta(i, 2)) = 1)
            why = f"`{name}_{iv}` is a member of `{name}` (declared for {fam.var} in {fam.lo}..{fam.hi}) only there"
            for x, ok in ((iv - fam.lo, lo_ok), (fam.hi - iv, hi_ok)):
                if ok != sympy.true:
                    self.need(x, ">=")
                    self.reasons.setdefault((x, ">="), why)
            return
        self.index_inside(iv, fam.lo, fam.hi, f"the range of `{name}`",
                          f"`{name}` is declared for {fam.var} in {fam.lo}..{fam.hi}", span)

    def index_inside(self, iv, lo, hi, what: str, declared: str, span):
        """A summation index or a declared index ``iv`` used where only lo..hi exists (a family's range, a
        matrix's rows or columns): an error where its range is certainly past it; a side condition of the
        link where it may be (``sum(t=1..m, x_t)`` of a family over 1..n: m ≤ n), so that nothing is said
        about members or entries that do not exist."""
        if iv in self.bound_ranges:
            # a summation index must stay inside: sum(i=1..n+1, x_i) would invent x_{n+1}
            ilo, ihi, _ = self.bound_ranges[iv]
            if sympy.Lt(ihi, ilo) == sympy.true:
                return  # an empty sum invents nothing
            kind = f"the sum runs over {iv.name} in {ilo}..{ihi}"
        elif iv.is_Symbol and iv in self.scope.index_ranges:
            ilo, ihi = self.scope.index_ranges[iv]
            kind = f"index `{iv}` ranges over {ilo}..{ihi}"
        else:
            return
        if (ilo, ihi) == (lo, hi):
            return
        if sympy.Lt(ilo, lo) == sympy.true or sympy.Gt(ihi, hi) == sympy.true:
            raise error(f"{kind}, past {what}", span, "out of range",
                        notes=[f"{declared}; an index past it would invent members"],
                        help=f"use an index over a range inside {lo}..{hi}", code="E-range")
        why = f"{kind}, inside {what} ({lo}..{hi}) only there"
        for x, ok in ((ilo - lo, sympy.Ge(ilo, lo)), (hi - ihi, sympy.Ge(hi, ihi))):
            if ok != sympy.true and not (x.is_number and x.is_nonnegative):
                self.need(x, ">=")
                self.reasons.setdefault((x, ">="), why)

    def matrix_indices(self, m, idx, spans, name: str = ""):
        """The symbolic indices of an entry ``M_{i, j}`` inside the matrix's shape (see :meth:`index_inside`);
        a whole number past a symbolic dimension is a side condition (Q_{2, 1} of an n × d matrix: n ≥ 2)."""
        what = f"`{name}`" if name else "the matrix"
        if len(idx) == 1 and m.is_column():  # v_i of a vector
            idx, spans = [idx[0], sympy.Integer(1)], [spans[0]] * 2
        for pos, (iv, dim, sp) in enumerate(zip(idx, (m.rows, m.cols), spans)):
            if iv.is_Integer and not (dim - iv).is_nonnegative and not (dim - iv).is_number:
                self.need(dim - iv, ">=")  # a number past the dimension: E-range in matrices.entry
            elif not iv.is_Integer:
                self.index_inside(iv, sympy.Integer(1), dim, f"the {('rows', 'columns')[pos]} of {what}",
                                  f"{what} is {m.shape_text}", sp)
