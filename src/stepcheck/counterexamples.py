"""Counterexamples in the checker: failed links, `refute`, `--why`, cross-checks.

The finite-model side lives in ``models.py`` and never calls the kernel's
normaliser or prover; this module connects it to the checker:

* :func:`search_link_model`: a finite model of a link's candidate facts in
  which the two sides differ (the judge then says ``fails``), or a note that
  the bounded search found none;
* :func:`cross_check`: a link the kernel accepted is evaluated exactly on a
  few random finite models of the facts it used; a disagreement is an
  internal soundness error (``E-internal-soundness``);
* :func:`refute_step`: ``refute NAME: A = B [under REFS]`` holds exactly when
  a counterexample is found, fails when the kernel proves ``A = B``;
* :func:`why_pass`: ``verify --why``: for every assumption a step rests on,
  drop it, keep the others, and look for a counterexample to the step.

Every function reads the :class:`~stepcheck.state.FileState` and returns what
it found; none writes into the state (apart from its cross-check model
cache) and none decides a status except through :func:`stepcheck.judge.settle`.
"""
from __future__ import annotations

import time
import zlib

from sympy import Rational

from dataclasses import dataclass

from .errors import Diagnostic, StepError, error
from .judge import KERNEL, WITNESS, Verdict, settle, settle_step
from .results import FAILS, HOLDS, UNKNOWN, LinkResult, StepResult, Use

LINK_SECONDS = 2.0  # counterexample search for a failed or unknown link
REFUTE_SECONDS = 4.0  # search for a `refute`
WHY_SECONDS = 2.0  # search per (step, assumption) under --why
CROSS_MODELS = 3  # random models per accepted link
CROSS_SECONDS = 0.3  # time per accepted link


# ------------------------------------------------------------------ helpers


def _distributions(state, labels, surrogate: bool = False):
    """(fixed marginals for finite declared distributions, labels with no finite model).

    ``surrogate``: a continuous law is replaced by a finite one with the same
    moments (all the kernel knows of it), as the cross-check may do; a
    counterexample search never does (its model must follow the law itself).
    """
    from fractions import Fraction

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


def _one_line(text: str) -> str:
    return " — ".join(line.strip() for line in text.splitlines() if line.strip())


def _rel(rel: str) -> str:
    return {"≤": "<=", "≥": ">=", "≠": "!="}.get(rel, rel)


def _seed(*parts) -> int:
    return zlib.crc32("|".join(str(p) for p in parts).encode())


# ------------------------------------------------------------------ failed links


def search_link_model(state, decls, lhs, rhs, candidates, rel: str, seed_parts, deadline):
    """(model text or None, note or None): a finite model refuting a link that was not proved.

    The model satisfies every candidate fact (those cited, or all in scope)
    and makes the two sides differ; ``models`` evaluates it exactly with its
    own arithmetic.  The note says why none was found or searched.
    """
    from .models import find_counterexample

    labels = [c for c in candidates if c not in state.contradiction]
    fixed, blocked = _distributions(state, labels)
    if blocked:
        return None, ("no counterexample searched: " + ", ".join(f"`{b}`" for b in blocked)
                      + " is not a finite distribution")
    seconds = min(LINK_SECONDS, deadline.remaining())
    if seconds <= 0:
        return None, "no counterexample searched: the time limit of the link was reached"
    try:
        w = find_counterexample(lhs, rhs, decls, state.facts_of(labels), {}, seconds=seconds,
                                seed=_seed(*seed_parts), fixed=fixed, rel=_rel(rel))
    except Exception as e:  # noqa: BLE001 - the search never breaks a check
        return None, f"the counterexample search stopped: {type(e).__name__}: {e}"
    if w:
        return w.text, None
    return None, f"no counterexample found within the search limits ({w.reason})"


# ------------------------------------------------------------------ cross-check


@dataclass
class CrossCheck:
    """The cross-check disagreed with the kernel (``disagrees``), or could not run."""

    disagrees: bool
    message: str
    notes: list
    model: str | None = None


def cross_check(state, decls, lhs, rhs, used, rel: str, seed_parts, deadline) -> CrossCheck | None:
    """Evaluate a link the kernel accepted on random finite models of its assumptions.

    Models are drawn once per set of used facts (under the same
    declarations) and reused by later links resting on the same facts; a link
    the reused models cannot evaluate (a variable or dimension they lack)
    draws its own.  None when every model agrees (or none can evaluate it).
    """
    from .models import Evaluator, ModelError, _index_syms, assignments, holds_rel, random_models

    t0 = time.monotonic()
    budget = min(CROSS_SECONDS, deadline.remaining())
    facts = state.facts_of(used)
    cache = state.cross_models
    if cache.get("decls") is not decls:  # new declarations: the old models go (and their decls)
        cache.clear()
        cache["decls"] = decls
    key = frozenset(used)

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
        return None
    try:
        free = _index_syms([lhs, rhs], decls)
        hit = cache.get(key)
        reused = hit is not None
        done, found = disagreement(hit if reused else draw())
        if found is None and reused and done == 0:
            done, found = disagreement(draw())
        return found
    except ModelError:
        return None
    except Exception as e:  # noqa: BLE001 - never turn a bug here into a verdict
        return CrossCheck(False, f"the soundness cross-check could not run: {type(e).__name__}: {e}", [])


def _soundness_error(decls, model, env, lv, rv, facts) -> CrossCheck:
    from .models import render_model, show_value

    at = ", ".join(f"{s} = {int(v)}" for s, v in env.items())
    notes = [f"finite model: {render_model(model, decls)}" + (f"; at {at}" if at else ""),
             f"it satisfies {', '.join(facts) or 'no assumption'} (checked exactly)",
             f"there the left side is {show_value(lv)} and the right side {show_value(rv)}"]
    msg = "internal soundness error: the kernel accepted this link, but it fails on a finite model of its assumptions"
    return CrossCheck(True, msg, notes, render_model(model, decls))


# ------------------------------------------------------------------ refute


def refute_step(checker, st) -> StepResult:
    """``checker``: the driver (its state, prover, deadline and error sink)."""
    state = checker.state
    from .elaborate import Elaborator
    from .models import find_counterexample, related

    lk = st.links[0]
    statement = f"{state.src(st.first.span)} {lk.rel} {state.src(lk.rhs.span)}"
    res = StepResult(st.name.name, st.span, "refute", statement, lk.rel, [], UNKNOWN)
    lr = LinkResult(1, lk.rel, state.src(st.first.span), state.src(lk.rhs.span), lk.span, UNKNOWN,
                    cited=[r.text for r in st.under])
    res.links.append(lr)
    claim_span = lk.span
    el = Elaborator(state.scope)
    try:
        lhs, rhs = el.expr(st.first), el.expr(lk.rhs)
    except StepError as e:
        checker.err(e)
        lr.message = "not checked: the expression has an error (see above)"
        return res
    lr.lhs_expr, lr.rhs_expr = lhs, rhs
    if lk.rel != "=":
        lr.message = f"refuting `{lk.rel}` is not supported by this version (only `=`)"
        lr.diagnostics.append(Diagnostic("warning", "relation not supported yet", lk.span, "only `=` is refuted",
                                         code="W-relation"))
        return res
    labels, bad = [], False
    for r in st.under:
        if r.text in state.facts or (r.text in state.steps and state.step_facts.get(r.text)):
            labels.append(r.text)
        else:
            checker.err(error(f"unknown reference `{r.text}`", r.span, "not an assumption or a proven step",
                              help="list assumption labels (or proven steps) after `under`", code="E-unknown-ref"))
            bad = True
    if bad:
        lr.message = "not checked: a reference is unknown (see above)"
        return res
    if not st.under:
        labels = list(state.facts)
    if state.contradiction & set(labels):
        lr.message = "rests on contradictory assumptions: " + ", ".join(sorted(state.contradiction))
        return res
    keep = state.facts_of(labels)
    others = related({lab: fs for lab, fs in state.facts.items() if lab not in labels}, [lhs, rhs], keep,
                     checker.prover.decls)
    lr.uses = [Use(lab, state.fact_kinds.get(lab, "step" if lab in state.steps else "equation")) for lab in labels]
    t0 = time.perf_counter()
    deadline = checker.deadline()
    out = checker.prover.prove_link(lhs, rhs, labels, "=", deadline)
    if out.holds:
        settle(lr, Verdict(FAILS, KERNEL))
        settle_step(res)
        lr.rules = list(out.rules)
        lr.uses = [u for u in lr.uses if u.label in out.used]
        used = ", ".join(f"`{u}`" for u in out.used) or "no assumption at all"
        lr.message = f"the statement follows from {used}: it cannot be refuted"
        lr.diagnostics.append(Diagnostic(
            "error", "this refutation fails: the statement is proved", claim_span, "holds",
            notes=[f"the kernel proves it from {used}"],
            help="a refutation holds only when a counterexample exists; drop an assumption from `under`",
            code="E-refute-proved"))
        lr.seconds = time.perf_counter() - t0
        return res
    fixed, blocked = _distributions(state, labels)
    if blocked:
        w = None
        reason = ", ".join(f"`{b}`" for b in blocked) + " is not a finite distribution"
    else:
        w = find_counterexample(lhs, rhs, checker.prover.decls, keep, others,
                                seconds=min(REFUTE_SECONDS, deadline.remaining()), seed=_seed(st.name.name), fixed=fixed,
                                claim="the statement claims")
        reason = None if w else w.reason
    lr.seconds = time.perf_counter() - t0
    if w:
        settle(lr, Verdict(HOLDS, WITNESS))  # the model finder's model, evaluated exactly by models.py
        settle_step(res)
        lr.counterexample = w.text
        lr.message = "refuted by a finite model"
        return res
    lr.message = f"no counterexample found within the search limits ({reason})"
    lr.diagnostics.append(Diagnostic(
        "error", "could not refute this statement", claim_span, "no counterexample found",
        notes=[lr.message, "not refuted is not the same as true"], code="E-refute-unknown"))
    return res


# ------------------------------------------------------------------ --why


def why_pass(state, decls) -> None:
    """For every assumption a step rests on: drop it, keep the others, look for a counterexample."""
    from .models import find_counterexample

    for res in state.rep.steps:
        if res.kind != "step" or res.status != HOLDS or not state.step_facts.get(res.name):
            continue
        stmt = state.step_facts[res.name][0]
        labels = [lab for lab in res.rests_on if lab in state.facts]
        for lab in labels:
            if lab in state.contradiction:
                res.why[lab] = "not shown to be needed (contradictory assumptions)"
                continue
            keep = [x for x in labels if x != lab]
            fixed, blocked = _distributions(state, keep)
            if blocked:
                res.why[lab] = ("not shown to be needed (the search needs finite models, and no finite model has "
                                + ", ".join(blocked) + ")")
                continue
            try:
                w = find_counterexample(stmt.lhs, stmt.rhs, decls, state.facts_of(keep), {lab: state.facts[lab]},
                                        seconds=WHY_SECONDS, seed=_seed(res.name, lab), fixed=fixed)
            except Exception as e:  # noqa: BLE001
                res.why[lab] = f"not shown to be needed (the search stopped: {type(e).__name__})"
                continue
            if w:
                res.why[lab] = f"needed (witness: {_one_line(w.text)})"
            else:
                res.why[lab] = f"not shown to be needed (no counterexample without it: {w.reason})"
