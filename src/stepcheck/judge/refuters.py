"""The model finder as the judge's witness source: failed links and cross-checks.

The finite-model side lives in :mod:`stepcheck.models` and never calls the
kernel's normaliser or prover; this module connects it to the judge:

* :func:`search_link_model`: a finite model of a link's candidate facts in
  which the two sides differ (the judge then says ``fails``, decided by a
  re-checked witness), or a note that the bounded search found none;
* :func:`cross_check`: a link the kernel accepted is evaluated exactly on a
  few random finite models of the facts it used; a disagreement is an
  internal soundness error (``E-internal-soundness``).

Both read the :class:`~stepcheck.state.FileState` and return what they found;
they write nothing but the state's cross-check model cache.  Every search
spends from the link's deadline.
"""
from __future__ import annotations

import time
import zlib
from dataclasses import dataclass

import sympy
from sympy import Rational

from ..terms.printer import show

LINK_SECONDS = 2.0  # search for a failed or unknown link (or 40 % of a longer --timeout; within the link's deadline)
CROSS_MODELS = 3  # random models per accepted link
CROSS_SECONDS = 0.3  # time per accepted link (at most; within the link's deadline)


# ------------------------------------------------------------------ helpers


def _distributions(state, labels, surrogate: bool = False, exprs=()):
    """(fixed marginals for finite declared distributions, labels with no finite model).

    ``surrogate``: a continuous law is replaced by a finite one with the same
    moments (all the kernel knows of it), as the cross-check may do; a
    counterexample search never does (its model must follow the law itself).
    ``exprs``: the link's sides, whose random variables' declared laws are wanted too, candidates or not (a
    Cauchy law gives the kernel no fact, so it is no candidate; a model must still follow it).
    """
    from fractions import Fraction

    from ..distributions import lookup

    labels = list(labels)
    for x in exprs:
        for a in x.atoms(sympy.Symbol, sympy.Indexed):
            dec = lookup(state, a)
            if dec is not None and dec.label not in labels:
                labels.append(dec.label)

    def value(v):
        return Fraction(int(v.p), int(v.q)) if isinstance(v, Rational) else v

    fixed, blocked = {}, []
    wanted = {lab for lab in labels if state.fact_kinds.get(lab) == "distribution"}
    if not wanted:
        return fixed, blocked
    seen = set()
    for name, dec in state.laws.items():
        if dec.label not in wanted:
            continue
        seen.add(dec.label)
        sup = dec.dist.moment_surrogate() if surrogate else dec.dist.support()
        if sup is None or not all(isinstance(p, Rational) and (isinstance(v, Rational) or surrogate and v.is_real)
                                  for v, p in sup):
            blocked.append(dec.label)
            continue
        fixed[name] = tuple(sorted(((value(v), value(p)) for v, p in sup if p != 0), key=lambda t: float(t[0])))
    blocked += sorted(wanted - seen)
    return fixed, blocked


def verified_identity(state, label: str) -> bool:
    step = state.steps.get(label)
    # (an index range such as "range of c" is no assumption: every model gives c a value inside it)
    return step is not None and label not in state.facts and step.status == "holds" \
        and not any(r in state.facts for r in step.rests_on) and not state.step_conditions.get(label)


def _rel(rel: str) -> str:
    return {"≤": "<=", "≥": ">=", "≠": "!="}.get(rel, rel)


def _seed(*parts) -> int:
    return zlib.crc32("|".join(str(p) for p in parts).encode())


# ------------------------------------------------------------------ failed links


def search_link_model(state, decls, lhs, rhs, candidates, rel: str, seed_parts, deadline, defined=None, hint=None):
    """(model text or None, note or None): a finite model refuting a link that was not proved.

    The model satisfies every candidate fact (those cited, or all in scope)
    and makes the two sides differ; ``models`` evaluates it exactly with its
    own arithmetic, and the judge re-evaluates it with its own
    (:func:`.recheck.confirms`) before it counts: a model that does not
    survive is dropped, with a note.  The note says why none was found or
    searched.  ``defined``: facts the model must also satisfy when it is re-evaluated (the link's side
    conditions: a model where a side has no value refutes nothing).  ``hint``: values of deterministic names
    where the residual is not 0 (a witness of the residual that could not be re-evaluated without a model of
    the random variables): the search tries them first.
    """
    from ..models import find_counterexample

    # a verified step that rests on nothing (an identity, unconditional) holds in every model: it constrains
    # none, and a derivative in it would only stop the models from being evaluated
    labels = [c for c in candidates if c not in state.contradiction and not verified_identity(state, c)]
    fixed, blocked = _distributions(state, labels, exprs=(lhs, rhs))
    if blocked:
        return None, ("no counterexample searched: " + ", ".join(f"`{b}`" for b in blocked)
                      + " has no finite model here (a continuous law, or parameters that are names)")
    seconds = min(max(LINK_SECONDS, 0.4 * deadline.seconds), deadline.remaining())
    if seconds <= 0:
        return None, "no counterexample searched: the time limit of the link was reached"
    try:
        w = find_counterexample(lhs, rhs, decls, {**state.facts_of(labels), **(defined or {})}, {}, seconds=seconds,
                                seed=_seed(*seed_parts), fixed=fixed, rel=_rel(rel), prefer=hint)
    except Exception as e:  # noqa: BLE001 - the search never breaks a check
        return None, f"the counterexample search stopped: {type(e).__name__}: {e}"
    if w:
        ok, why = confirm_model(w, decls, lhs, rhs, rel, {**state.facts_of(labels), **(defined or {})})
        if ok:
            return w.text, None
        return None, f"a counterexample candidate was dropped: {why}"
    more = (f"; a longer search may find one: raise `--timeout` (now {deadline.seconds:g} s per link)"
            if "time limit" in w.reason else "")
    return None, f"no counterexample found within the search limits ({w.reason}){more}"


#: points tried by :func:`search_point` (each may be a sympy ``limit`` at a concrete point: about 0.1 s)
POINTS_TRIED = 16


def search_point(state, decls, lhs, rhs, candidates, rel: str, deadline, defined=None):
    """(text, value of lhs - rhs) of a concrete point refuting a deterministic link that was not proved, or None.

    For what neither the residual's witness nor the finite models reach: a limit or an extremum the kernel
    could not take (``limit(softmax([a/λ, b/λ])_1, λ -> 0+) = 1`` is 1/2 at a = b).  The points are those of
    the cross-check (:mod:`.pointwise`), where every candidate fact and side condition holds exactly and both
    sides have values (a limit that does not exist there refutes nothing); the disagreement's sign is proved,
    and the point is confirmed once more by :func:`.recheck.confirms`, as every witness is.
    """
    from sympy import Indexed

    from ..kernel.reduce import interrupted_at
    from ..terms.objects import SD, Cov, E, Var
    from ..terms.probability import Prob
    from .pointwise import pointwise_check
    from .recheck import Point, confirms

    sides = (lhs, rhs)
    if any(x.has(E, Var, Cov, SD, Prob) or x.free_symbols & set(decls.random_symbols)
           or any(decls.is_rv(a) for a in x.atoms(Indexed)) for x in sides):
        return None
    labels = [c for c in candidates if c not in state.contradiction and not verified_identity(state, c)]
    facts = {**state.facts_of(labels), **(defined or {})}
    # facts about random quantities say nothing at a deterministic point: the point is sought with the others,
    # then a finite model of these is looked for at the point's dimensions and the two checked together
    chance = {lab: fs for lab, fs in facts.items() if any(_random_fact(f, decls) for f in fs)}
    try:
        with interrupted_at(deadline, "evaluating the link at concrete points"):  # sympy's limit may not end
            _, bad = pointwise_check(decls, lhs, rhs, rel, {k: v for k, v in facts.items() if k not in chance},
                                     cap=POINTS_TRIED, deadline=deadline, patterns=(0, 1, 3))
    except Exception:  # noqa: BLE001 - the search never breaks a check (the time limit included)
        return None
    if bad is None:
        return None
    p, lv, rv = bad
    point, law = Point(dict(p.values), {}, pattern=p.pattern), ""
    if chance:
        got = _with_a_model_of(point, chance, decls, deadline)
        if got is None:
            return None
        point, law = got
    ok, _, defaulted = confirms(point, decls, lhs, rhs, rel, facts, complete=True)  # every fact, exactly
    if not ok:
        return None
    values = {**p.values, **defaulted}
    parts = [f"{show(k)} = {show(v)}" for k, v in sorted(values.items(), key=lambda kv: str(kv[0]))]
    given = list(sides) + [side for fs in facts.values() for f in fs for side in (getattr(f, "lhs", None),
                                                                               getattr(f, "rhs", None)) if side is not None]
    fams = sorted({a.base.label.name for x in given for a in x.atoms(Indexed)  # the facts' too: their values
                   if a.base.label.name not in decls.random_families})
    taken = set(decls.order) | {str(k) for k in values}
    m = next(n for n in ("m", "k", "r", "u", "w", "ι") if n not in taken)
    shown = {0: "{m} - 1", 1: "1 for {m} = 1, else 0", 3: "0"}[p.pattern]
    parts += [f"{fam}_{m} = " + shown.format(m=m) for fam in fams]
    return ", ".join(parts + ([law] if law else [])) or None, lv - rv


def _random_fact(f, decls) -> bool:
    from sympy import Indexed

    from ..terms.facts import IndepFact
    if isinstance(f, IndepFact):
        return True
    sides = [x for x in (getattr(f, "lhs", None), getattr(f, "rhs", None)) if x is not None]
    from ..terms.objects import SD, Cov, E, Var
    from ..terms.probability import Prob
    return any(x.free_symbols & set(decls.random_symbols) or any(decls.is_rv(a) for a in x.atoms(Indexed))
               or x.has(E, Var, Cov, SD, Prob) for x in sides)


def _with_a_model_of(point, chance: dict, decls, deadline):
    """(``point`` with the joint law of a finite model of the facts ``chance`` (about random quantities) that
    agrees with it on every dimension both fix, that law in words), or None (none found in the time left, up
    to a second).  The caller re-checks every fact at the whole point."""
    from ..models.evaluate import Model
    from ..models.render import render_model
    from ..models.search import random_models
    from .recheck import Point as P, point_of_model

    seconds = max(0.0, min(1.0, deadline.remaining()))
    for model in random_models(decls, chance, n=3, seed=7, seconds=seconds):
        if any(s in point.values and point.values[s] != v for s, v in model.dims.items()):
            continue
        m = point_of_model(model, {})  # its random variables' law; the point's own values win everywhere else
        law = render_model(Model(groups=list(model.groups)), decls)
        return P({**m.values, **point.values}, dict(point.indexed), m.groups, point.pattern, point.laws), law
    return None


def confirm_model(w, decls, lhs, rhs, rel: str, facts) -> tuple[bool, str]:
    """Re-evaluate a model-finder witness exactly, with the judge's own code (never trust the search)."""
    from .recheck import confirms, point_of_model

    names = {}
    for side in (lhs, rhs):
        names.update({s.name: s for s in getattr(side, "free_symbols", ())})
    try:
        env = {names[k]: v for k, v in w.assignment.items()}
        point = point_of_model(w.model, env)
    except (KeyError, AttributeError, TypeError, ValueError) as e:
        return False, f"its values could not be read ({type(e).__name__})"
    ok, why, _ = confirms(point, decls, lhs, rhs, rel, facts)
    return ok, why


# ------------------------------------------------------------------ cross-check


@dataclass
class CrossCheck:
    """What the cross-check of an accepted link found.

    ``models``: how many finite models evaluated the link (0: it got no
    cross-check -- no model of its facts was found in time, or none could
    evaluate it); ``disagrees``: a model refutes the kernel's proof;
    ``message``: why the cross-check could not run (a bug in it), or the
    soundness error.
    """

    disagrees: bool
    message: str | None
    notes: list
    model: str | None = None
    models: int = 0


def cross_check(state, decls, lhs, rhs, used, rel: str, seed_parts, deadline, defined=None) -> CrossCheck:
    """Evaluate a link the kernel accepted on random finite models of its assumptions.

    Models are drawn once per set of used facts (under the same
    declarations) and reused by later links resting on the same facts; a link
    the reused models cannot evaluate (a variable or dimension they lack)
    draws its own.
    """
    from ..models import Evaluator, ModelError, _index_syms, assignments, holds_rel, random_models

    t0 = time.monotonic()
    budget = min(CROSS_SECONDS, deadline.remaining())
    # ``defined``: the link's side conditions; a model or point outside them (n = 1 for a link about s_2)
    # is no model of the link at all
    facts = {**state.facts_of(used), **(defined or {})}
    cache = state.cross_models
    if cache.get("decls") is not decls:  # new declarations: the old models go (and their decls)
        cache.clear()
        cache["decls"] = decls
    key = (frozenset(used), tuple((str(f.lhs), str(f.rhs), getattr(f, "rel", "=")) for fs in (defined or {}).values()
                                  for f in fs))

    def draw():
        fixed, _ = _distributions(state, used, surrogate=True)
        models = random_models(decls, facts, CROSS_MODELS, seed=_seed(*seed_parts), exprs=[lhs, rhs],
                               seconds=budget, fixed=fixed)
        cache[key] = models
        return models

    def disagreement(models):
        """(models evaluated, None) or (_, CrossCheck) at the first disagreement."""
        done = 0
        for model in models:
            if time.monotonic() - t0 > 2 * budget:
                break
            ev = Evaluator(model, decls)
            try:
                for env in assignments(free, decls, model):
                    lv, rv = ev.ev(lhs, env, None), ev.ev(rhs, env, None)
                    if holds_rel(lv, _rel(rel), rv, need_true=False) is False:
                        return done, _soundness_error(decls, model, env, lv, rv, facts)
            except ModelError:
                continue
            done += 1
        return done, None

    if budget <= 0:
        return CrossCheck(False, None, [])
    try:
        free = _index_syms([lhs, rhs], decls)
        hit = cache.get(key)
        reused = hit is not None
        if _unevaluable(lhs) or _unevaluable(rhs):
            done, found = 0, None  # no model evaluates it (ModelError on each): no models are drawn for nothing
        else:
            done, found = disagreement(hit if reused else draw())
            if found is None and reused and done == 0:
                done, found = disagreement(draw())
        if found is None and done == 0:  # limits, derivatives, extrema: exact values at concrete points
            done, found = _pointwise(decls, lhs, rhs, rel, facts, cache.setdefault("points", {}))
        return found if found is not None else CrossCheck(False, None, [], models=done)
    except ModelError:
        return CrossCheck(False, None, [])
    except Exception as e:  # noqa: BLE001 - never turn a bug here into a verdict
        return CrossCheck(False, f"the soundness cross-check could not run: {type(e).__name__}: {e}", [])


def _unevaluable(x) -> bool:
    """Does ``x`` hold a limit, a derivative or an extremum over an interval?  The finite-model evaluator
    evaluates every node of an expression and refuses each of these (``models.evaluate``), so a link
    holding one is checked at concrete points only."""
    from sympy import Derivative, Limit

    from ..terms.objects import Extremum

    return x.has(Limit, Derivative, Extremum)


def _pointwise(decls, lhs, rhs, rel, facts, memo):
    from .pointwise import pointwise_check

    done, bad = pointwise_check(decls, lhs, rhs, rel, facts, memo=memo)
    if bad is None:
        return done, None
    p, lv, rv = bad
    at = ", ".join(f"{s} = {v}" for s, v in sorted(p.values.items(), key=lambda kv: str(kv[0])))
    notes = [f"at {at or 'any point'}" + (f" (families: pattern {p.pattern})" if p.pattern is not None else ""),
             f"there the left side is {lv} and the right side {rv} (evaluated exactly)"]
    msg = "internal soundness error: the kernel accepted this link, but it fails at a concrete point"
    return done, CrossCheck(True, msg, notes, at)


def _soundness_error(decls, model, env, lv, rv, facts) -> CrossCheck:
    from ..models import render_model, show_value

    at = ", ".join(f"{s} = {int(v)}" for s, v in env.items())
    notes = [f"finite model: {render_model(model, decls)}" + (f"; at {at}" if at else ""),
             f"it satisfies {', '.join(facts) or 'no assumption'} (checked exactly)",
             f"there the left side is {show_value(lv)} and the right side {show_value(rv)}"]
    msg = "internal soundness error: the kernel accepted this link, but it fails on a finite model of its assumptions"
    return CrossCheck(True, msg, notes, render_model(model, decls))
