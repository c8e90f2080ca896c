"""The assumptions of a file, checked for contradictions before any step uses them.

The kernel finds the contradiction (:func:`stepcheck.kernel.check_consistency`:
equations with no common solution, moment inequalities every distribution
satisfies); this module adds the declared laws' higher moments the facts
mention and reports it as an ``E-inconsistent`` diagnostic.
"""
from __future__ import annotations

import sympy

from . import syntax as S
from .errors import Diagnostic, error
from .kernel import KernelLimit, check_consistency
from .terms.facts import EqFact, IndepFact, IneqFact
from .terms.objects import SD, Cov, E, Var
from .terms.printer import show


def consistency(checker, new_label: str | None = None):
    """Check the assumptions for contradictions.

    After a later `assume`, only the facts connected to it through shared
    names are re-checked: the others were consistent before and share
    nothing with it, so a new contradiction must involve its group.
    """
    state = checker.state
    if not state.facts:
        return
    facts = state.facts
    if new_label is not None:
        names = [getattr(n, "name", str(n)) for n in state.fact_names(new_label)]
        group = set(state.relevant_facts(names)) | {new_label}
        facts = {lab: fs for lab, fs in state.facts.items() if lab in group}
    for part in _unconnected(state, facts):
        _check_part(checker, new_label, part)


def _unconnected(state, facts) -> list[dict]:
    """The facts in groups that share no name, directly or through others: each is checked on its own, with
    a time limit of its own (500 assumptions about distinct variables are 500 small checks, not one
    system past its deadline).  Sound: groups with no name in common have a model each, and together the
    product of those models (disjoint names, independent probability spaces)."""
    root: dict = {}

    def find(x):
        while root[x] != x:
            root[x] = root[root[x]]
            x = root[x]
        return x

    owner: dict = {}  # name -> a label that mentions it
    for lab in facts:
        root[lab] = lab
        # a fact over a free index also speaks of the ends of its range: `r_i < r_j for i != j` over 1..n and
        # `n >= 2` contradict each other
        ends = {e for f in facts[lab] for i in getattr(f, "free", ()) if i in state.scope.index_ranges
                for end in state.scope.index_ranges[i] for e in getattr(end, "free_symbols", ())}
        for n in state.fact_names(lab) | ends:
            key = getattr(n, "name", str(n))
            if key in owner:
                root[find(lab)] = find(owner[key])
            else:
                owner[key] = lab
    parts: dict = {}
    for lab in facts:
        parts.setdefault(find(lab), {})[lab] = facts[lab]
    return list(parts.values())


def _check_part(checker, new_label, facts):
    state = checker.state
    from .law_facts import higher_moment_facts
    from .link_cache import consistent

    facts = {**facts, **higher_moment_facts(state, facts)}
    try:  # through the link cache: the same statements give the same facts
        bad = consistent(checker, new_label, lambda: check_consistency(checker.prover.decls, facts, checker.limits,
                                                                       cache=state.consistency_cache),
                         part=sorted(facts))
    except Exception as e:  # noqa: BLE001 - too large or out of time (links resting on them stay unknown), or
        # a shape the check does not handle: said, never taken as "consistent" in silence
        if isinstance(e, KernelLimit):
            state.unchecked |= set(facts) - {d.label for d in state.laws.values()}
        _report(checker, _by_laws(state, facts))  # what the declared laws alone show is said even so
        if any(d.code == "W-unchecked-assumptions" for d in checker.rep.diagnostics):
            return  # said once per file
        first = state.labels_span.get(new_label or list(facts)[-1])
        notes = ([str(e), "a step that needs these facts is not proved either (it stays unknown)"]
                 if isinstance(e, KernelLimit) else
                 [f"the check stopped on an internal error ({type(e).__name__}: {e}); please report it",
                  "steps are still checked, but a contradiction among these facts may go unseen"])
        checker.rep.diagnostics.append(Diagnostic(
            "warning", "the assumptions could not be checked for contradictions", first,
            "too large, or out of time" if isinstance(e, KernelLimit) else "not checked", notes=notes,
            code="W-unchecked-assumptions"))
        return
    # a bound a law breaks at one of its outcomes (R = -1) is said so, before any moment identity that follows
    bad = _law_breaks_a_bound(state, facts) or bad or _law_breaks_an_equation(state, facts) or \
        _laws_disagree(state, facts)
    _report(checker, bad)
    for _ in range(3):  # another contradiction among the facts the first one leaves out (each is reported)
        rest = {lab: fs for lab, fs in facts.items() if lab not in state.contradiction}
        if not bad or len(rest) == len(facts) or not rest:
            return
        try:
            bad = check_consistency(checker.prover.decls, rest, checker.limits, cache=state.consistency_cache)
        except Exception as e:  # noqa: BLE001 - the first contradiction is reported; the rest is unchecked
            if isinstance(e, KernelLimit):
                state.unchecked |= set(rest) - {d.label for d in state.laws.values()}
            return
        bad = bad or _by_laws(state, rest)
        _report(checker, bad)
        facts = rest


def _report(checker, bad) -> None:
    state = checker.state
    if bad and not set(bad) <= state.contradiction:
        state.contradiction |= set(bad)
        first = state.labels_span.get(bad[0])
        checker.rep.diagnostics.append(Diagnostic(
            "error", "contradictory assumptions: " + ", ".join(f"`{b}`" for b in bad), first,
            "these facts cannot all hold",
            notes=[f"nothing satisfies them: {bad.reason}",
                   "from contradictory facts every claim would follow; no step is counted as verified from them"],
            help="fix the values (a variance cannot be negative; one quantity cannot have two values)",
            code="E-inconsistent"))


def _by_laws(state, facts):
    """A contradiction between the facts and the declared laws that needs no polynomial system, or None."""
    return _law_breaks_a_bound(state, facts) or _law_breaks_an_equation(state, facts) or _laws_disagree(state, facts)


_EVENT = {">": lambda x: sympy.StrictGreaterThan(x, 0), ">=": lambda x: sympy.GreaterThan(x, 0),
          "<": lambda x: sympy.StrictGreaterThan(-x, 0), "<=": lambda x: sympy.GreaterThan(-x, 0),
          "!=": lambda x: sympy.Unequality(x, 0)}


def _law_breaks_a_bound(state, facts):
    """An assumed almost-sure bound on a variable of a declared law that the law breaks with positive
    probability, whatever its names stand for (``R >= 0`` for a Rademacher R: R = -1 has probability 1/2;
    ``Z > 0`` for a Normal): a contradiction (judge/support.py finds the outcome)."""
    from .distributions import lookup
    from .judge.support import surely_violated
    from .kernel import Contradiction

    for lab, fs in facts.items():
        for f in fs:
            if not isinstance(f, IneqFact) or f.free or f.distinct or f.rel not in _EVENT:
                continue
            x = sympy.expand(f.lhs - f.rhs)
            if x.has(E, Var, SD, Cov):
                continue  # a bound on a moment is a number, not a bound on each outcome
            where = surely_violated(state, _EVENT[f.rel](x))
            if where:
                laws = [d.label for a in x.atoms(sympy.Symbol, sympy.Indexed) if (d := lookup(state, a)) is not None]
                said = f"`{lab}` needs {f.text}" if "to have a real value" in (f.text or "") else \
                    f"`{lab}` holds almost surely"
                return Contradiction(list(dict.fromkeys([lab] + laws)), f"{said}, but {where}")
    return None


def _law_breaks_an_equation(state, facts):
    """An equation p(X) = 0 on every outcome, p a polynomial with number coefficients in one variable X of a
    declared law: a continuous law puts probability 0 on p's finitely many roots (``Z^3 = 3 Z`` for a
    Normal), and a finite law with number parameters breaks it at a support point where p is not 0
    (``D^3 = 3 D^2 + D - 4`` for D ~ DiscreteUniform(1, 3)).  The kernel reads such an equation as a rule
    and the law's moments as facts: together they proved E[Z^6] = 9 (it is 15)."""
    from .distributions import lookup
    from .kernel import Contradiction

    for lab, fs in facts.items():
        for f in fs:
            if not isinstance(f, EqFact) or f.free or f.distinct:
                continue
            x = sympy.expand(f.lhs - f.rhs)
            rvs = [a for a in x.atoms(sympy.Symbol, sympy.Indexed) if lookup(state, a) is not None]
            if len(rvs) != 1 or x.has(E, Var, SD, Cov) or x.free_symbols - set(rvs) or not x.is_polynomial(rvs[0]):
                continue
            v, law = rvs[0], lookup(state, rvs[0])
            p = sympy.Poly(x, v)
            if p.degree() < 1 or lab == law.label:
                continue
            if law.dist.continuous:
                return Contradiction([lab, law.label], f"`{lab}` holds on every outcome, but {show(x)} = 0 only at "
                                     f"finitely many values of {show(v)}, which `{law.label}` gives probability 0")
            for value, prob in (law.dist.support() or []) if law.dist.numeric_params() else []:
                at = x.xreplace({v: value})
                if prob != 0 and at != 0:
                    return Contradiction([lab, law.label], f"`{lab}` holds on every outcome, but at {show(v)} = "
                                         f"{show(value)} (probability {show(prob)} under `{law.label}`) "
                                         f"{show(x)} = {show(at)}")
    return None


MAX_LAW_MOMENT = 6  # moments compared by _laws_disagree


def _laws_disagree(state, facts):
    """An equation ``W = f(Z)`` on every outcome between two variables of declared laws with number
    parameters, linear in W (a number coefficient) and a polynomial in Z with number coefficients: W and
    f(Z) then have one distribution, so E[W^k] = E[f(Z)^k] for every k; a k ≤ 6 where the two laws give
    different numbers is a contradiction (``W = (Z^3 - 3 Z)/sqrt(6)`` for two standard Normals: E[W^4] = 3,
    E[f(Z)^4] = 93).  Sound for any pair: both sides are polynomials of laws with every moment finite."""
    from .distributions import lookup
    from .kernel import Contradiction

    for lab, fs in facts.items():
        for f in fs:
            if not isinstance(f, EqFact) or f.free or f.distinct:
                continue
            x = sympy.expand(f.lhs - f.rhs)
            rvs = sorted((a for a in x.atoms(sympy.Symbol, sympy.Indexed) if lookup(state, a) is not None), key=str)
            if len(rvs) != 2 or x.has(E, Var, SD, Cov) or x.free_symbols - set(rvs) or not x.is_polynomial(*rvs):
                continue
            if any(not lookup(state, v).dist.numeric_params() or lookup(state, v).dist.tail_index is not None
                   for v in rvs):
                continue  # (a heavy-tailed law's moments of order ≥ its tail index are infinite)
            for w, z in (rvs, rvs[::-1]):
                c = x.coeff(w)
                g = sympy.expand(-(x - c * w) / c) if c.is_number and c != 0 else None
                if g is None or g.has(w) or sympy.degree(x, w) != 1:
                    continue
                lw, lz = lookup(state, w), lookup(state, z)
                poly = sympy.Poly(g, z)
                for k in range(1, MAX_LAW_MOMENT + 1):
                    pk = poly ** k
                    of_f = sum((cf * lz.dist.moment(m[0]) for m, cf in pk.terms()), sympy.Integer(0))
                    d = sympy.expand(lw.dist.moment(k) - of_f)
                    if d.is_number and d.is_zero is False:
                        return Contradiction([lab, lw.label, lz.label],
                                             f"`{lab}` makes {show(w)} = {show(g)} on every outcome, so both have one "
                                             f"distribution, but E[{show(w ** k)}] = {show(lw.dist.moment(k))} under "
                                             f"`{lw.label}` and E[({show(g)})^{k}] = {show(sympy.expand(of_f))} under "
                                             f"`{lz.label}`")
                break
    return None


def independence_fact(checker, label, f: S.IndepFact, el, distinct):
    """The kernel fact of `independent(...)`, `X ⟂ Y` (block independence of families) or `uncorrelated(X, Y)`."""
    scope = checker.state.scope
    if f.kind == "uncorrelated":
        if len(f.args) != 2:
            raise error("`uncorrelated` takes two random variables", f.span, code="E-arity")
        a, b = el.expr(f.args[0]), el.expr(f.args[1])
        return EqFact(label, Cov(a, b), sympy.Integer(0), free=checker._free(a + b), distinct=distinct,
                      text=checker.src(f.span))
    if len(f.args) < 2 and not (len(f.args) == 1 and isinstance(f.args[0], S.Name)
                                and f.args[0].name in scope.families):
        raise error("`independent` needs at least two random variables or a family", f.span, code="E-arity")
    families, members, blocks = [], [], []
    for a in f.args:
        if isinstance(a, S.BinOp) and a.op == "*" and isinstance(a.left, S.Name) and a.left.name == "vector" \
                and "vector" not in scope.symbols and isinstance(a.right, S.Name):
            if a.right.name not in scope.families:
                raise error(f"`vector {a.right.name}`: `{a.right.name}` is not a family", a.right.span,
                            code="E-family")
            a = a.right
            blocks.append(len(families) + len(members))  # this argument is a block
        elif f.blocks and isinstance(a, S.Name) and a.name in scope.families:
            blocks.append(len(families) + len(members))
        if isinstance(a, S.Name) and a.name in scope.families:
            fam = scope.families[a.name]
            if not fam.random:
                raise error(f"`{a.name}` is not random", a.span, code="E-not-random")
            families.append(a.name)
            continue
        v = el.expr(a)
        if not (v in scope.random_symbols or (isinstance(v, sympy.Indexed) and
                                              scope.families.get(str(v.base.label)) and
                                              scope.families[str(v.base.label)].random)):
            raise error("`independent` takes random variables or random families", a.span, "not a random variable",
                        code="E-not-random")
        members.append(v)
    free = tuple(sorted({s for m in members for s in m.free_symbols if s in scope.index_ranges},
                        key=lambda s: s.name))
    groups = ()
    if blocks:  # block independence: one block per argument (a family read as a whole, or a variable)
        if members and any(m.free_symbols & set(free) for m in members):
            raise error("block independence takes whole families and single variables", f.span,
                        help="write `q ⟂ k` for two families, or `q_i ⟂ q_j for i != j` for members",
                        code="E-unsupported")
        groups = tuple((n,) for n in families) + tuple((m,) for m in members)
    return IndepFact(label, families=tuple(families), members=tuple(members), free=free, distinct=distinct,
                     text=checker.src(f.span), blocks=groups)


def implied_facts(facts: list, state=None) -> list:
    """Facts the kernel reads more easily, implied by ``facts`` (same label, same quantifier): those of
    :func:`sd_squared` and of :func:`abs_sides`.  With ``state``, also record the heavy aliases the facts make
    (:func:`heavy_aliases`)."""
    if state is not None:
        heavy_aliases(state, facts)
    return sd_squared(facts) + abs_sides(facts)


def heavy_aliases(state, facts: list) -> None:
    """``Y = 2 C`` for a random Y with no declared law and C of a heavy-tailed law (Cauchy, Student's t): Y's
    means rest on C's, which may not exist, though Y has no law of its own to say so; sympy would cancel
    ``E[Y] - E[Y]`` before any judge.  Recorded in ``scope.heavy_aliases`` (name -> why): the elaborator
    leaves links with a mean of Y unchecked (``conditions.finite_moments``)."""
    from .distributions import lookup
    from .judge.heavy import heavy_outside

    scope = state.scope
    for f in facts:
        if type(f) not in (EqFact, IneqFact):
            continue
        for one, other in ((f.lhs, f.rhs), (f.rhs, f.lhs)):
            if not isinstance(other, sympy.Basic) or not isinstance(one, sympy.Basic):
                continue
            heavy = sorted(set(heavy_outside(state, other)))
            for y in one.atoms(sympy.Symbol, sympy.Indexed):
                name = str(y.base.label) if isinstance(y, sympy.Indexed) else str(y)
                fam = scope.families.get(name) if isinstance(y, sympy.Indexed) else None
                random = y in scope.random_symbols or (fam is not None and fam.random)
                if heavy and random and lookup(state, y) is None:
                    scope.heavy_aliases.setdefault(name, f"`{f.label}` ties {show(y)} to {', '.join(heavy)}")
        # Y = Z^2 (or S - Z^2 = 0, or Y = W + 1 beside W = Z^2) for a Y of no law: Y's means are read through
        # the tie (conditions.finite_moments follows ties to variables with laws; E[exp(Y)] = ∞)
        if type(f) is EqFact and isinstance(f.lhs, sympy.Basic) and isinstance(f.rhs, sympy.Basic) \
                and not (f.lhs - f.rhs).atoms(sympy.Indexed):
            d = sympy.expand(f.lhs - f.rhs)
            for y in sorted(d.atoms(sympy.Symbol) & scope.random_symbols, key=str):
                c = d.coeff(y)
                if lookup(state, y) is None and c.is_number and c != 0 and not (d - c * y).has(y):
                    scope.law_aliases.setdefault(y, []).append((-(d - c * y) / c, f.label))


def abs_sides(facts: list) -> list:
    """``|u| <= c`` (or ``<``, either way round) gives ``u <= c`` and ``-u <= c``: the two linear facts it is,
    which the readings of a fact at a sum's members and the orderings can add up (``Σ_t g_t >= -h`` under
    ``|g_t| <= 1``); ``|u| >= c`` for a number ``c >= 0`` gives ``u^2 >= c^2``."""
    out = []
    for f in facts:
        if type(f) is not IneqFact or f.rel not in ("<", "<=", ">", ">="):
            continue
        flip = {">": "<", ">=": "<="}
        small, big, rel = (f.lhs, f.rhs, f.rel) if f.rel in ("<", "<=") else (f.rhs, f.lhs, flip[f.rel])
        if isinstance(small, sympy.Abs) and not big.has(sympy.Abs):
            u = small.args[0]
            for side in (u, -u):
                out.append(IneqFact(f.label, side, big, rel, free=f.free, distinct=f.distinct,
                                    text=f"{show(side)} {rel} {show(big)}, as `{f.text or f.label}` says"))
        elif isinstance(big, sympy.Abs) and small.is_number and small.is_nonnegative:
            u = big.args[0]  # c <= |u| for a number c >= 0: c^2 <= u^2 (not for c < 0, where it says nothing)
            out.append(IneqFact(f.label, small ** 2, u ** 2, rel, free=f.free, distinct=f.distinct,
                                text=f"{show(small ** 2)} {rel} {show(u ** 2)}, as `{f.text or f.label}` says"))
    return out


def sd_squared(facts: list) -> list:
    """The facts an equation with a standard deviation alone on one side implies: ``SD(U) = r`` gives
    ``Var(U) = r^2`` and ``r >= 0``, since SD(U) is the square root of Var(U) and never negative.  The
    kernel's polynomials cannot read a square root; its square they can (``SD(X) = σ`` proves
    ``Var(X) = σ^2`` and ``SD(a X) = |a| σ``).  Same label, same quantifier: cited together."""
    out = []
    for f in facts:
        if type(f) is not EqFact:
            continue
        for a, r in ((f.lhs, f.rhs), (f.rhs, f.lhs)):
            if isinstance(a, SD) and not r.has(SD):
                u = a.args[0]
                out.append(EqFact(f.label, Var(u), r ** 2, free=f.free, distinct=f.distinct,
                                  text=f"Var({show(u)}) = ({show(r)})^2, as `{f.text or f.label}` says"))
                out.append(IneqFact(f.label, r, sympy.Integer(0), ">=", free=f.free, distinct=f.distinct,
                                    text=f"{show(r)} >= 0, a standard deviation"))
                break
    return out


def inequality_kind(lhs, rhs) -> str:
    """``sign`` for a bound on a value (``c > 0``, ``T <= 1``), ``inequality`` for an order between two
    values (``s_1 > s_2``) or one between moments."""
    moments = lhs.has(E, Var, Cov, SD) or rhs.has(E, Var, Cov, SD)
    return "sign" if (lhs.is_number or rhs.is_number) and not moments else "inequality"


def fact_kind(f) -> str:
    if isinstance(f, IndepFact):
        return "independence"
    lhs, rhs = f.lhs, f.rhs
    if getattr(f, "kind", None):
        return f.kind
    for a, b in ((lhs, rhs), (rhs, lhs)):
        if isinstance(a, Cov) and b == 0:
            return "uncorrelated"
        if isinstance(a, E) and b == 0:
            return "zero mean"
        if isinstance(a, Var) and b == 1:
            return "unit variance"
        if isinstance(a, (Var, SD)):
            return "variance"
    return "equation"
