"""Counterexamples in the checker: failed links, `refute`, `--why`, cross-checks.

The finite-model side lives in ``models.py`` and never calls the kernel's
normaliser or prover; this module connects it to the checker:

* :func:`attach_counterexample`: a link that did not hold gets a finite model
  of its candidate facts in which the two sides differ (then it ``fails``),
  or a note that the bounded search found none;
* :func:`cross_check`: a link the kernel accepted is evaluated exactly on a
  few random finite models of the facts it used; a disagreement is an
  internal soundness error (``E-internal-soundness``);
* :func:`refute_step`: ``refute NAME: A = B [under REFS]`` holds exactly when
  a counterexample is found, fails when the kernel proves ``A = B``;
* :func:`why_pass`: ``verify --why``: for every assumption a step rests on,
  drop it, keep the others, and look for a counterexample to the step.
"""
from __future__ import annotations

import time
import zlib

from sympy import Rational

from .errors import Diagnostic, StepError, error
from .results import FAILS, HOLDS, UNKNOWN, LinkResult, StepResult, Use

LINK_SECONDS = 2.0  # counterexample search for a failed or unknown link
REFUTE_SECONDS = 4.0  # search for a `refute`
WHY_SECONDS = 2.0  # search per (step, assumption) under --why
CROSS_MODELS = 3  # random models per accepted link
CROSS_SECONDS = 0.3  # time per accepted link


# ------------------------------------------------------------------ helpers


def _facts(checker, labels) -> dict:
    out = {}
    for lab in labels:
        if lab in checker.facts:
            out[lab] = checker.facts[lab]
        elif checker.step_facts.get(lab):
            out[lab] = checker.step_facts[lab]
    return out


def _distributions(checker, labels, surrogate: bool = False):
    """(fixed marginals for finite declared distributions, labels with no finite model).

    ``surrogate``: a continuous law is replaced by a finite one with the same
    moments (all the kernel knows of it), as the cross-check may do; a
    counterexample search never does (its model must follow the law itself).
    """
    from fractions import Fraction

    def value(v):
        return Fraction(int(v.p), int(v.q)) if isinstance(v, Rational) else v

    fixed, blocked = {}, []
    wanted = {lab for lab in labels if checker.fact_kinds.get(lab) == "distribution"}
    if not wanted:
        return fixed, blocked
    try:
        from . import distributions

        reg = distributions.registry(checker)
    except Exception:  # noqa: BLE001 - no registry: no finite law is known
        reg = {}
    seen = set()
    for name, dec in reg.items():
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


def attach_counterexample(checker, lr: LinkResult, lhs, rhs, candidates, outcome) -> None:
    """Search a finite model refuting a link that did not hold; fill lr.counterexample.

    The model satisfies every candidate fact (those cited, or all in scope)
    and makes the two sides differ.  When one is found the link ``fails``
    (``lr.status``); otherwise a note says the search found nothing.
    """
    from .models import find_counterexample

    labels = [c for c in candidates if c not in checker.contradiction]
    fixed, blocked = _distributions(checker, labels)
    if blocked:
        lr.diagnostics.append(Diagnostic(
            "note", "no counterexample searched: " + ", ".join(f"`{b}`" for b in blocked)
            + " is not a finite distribution", None, code="N-no-counterexample"))
        return
    try:
        w = find_counterexample(lhs, rhs, checker.prover.decls, _facts(checker, labels), {},
                                seconds=min(LINK_SECONDS, checker.limits.seconds), seed=_seed(lr.lhs, lr.rhs),
                                fixed=fixed, rel=_rel(lr.rel))
    except Exception as e:  # noqa: BLE001 - the search never breaks a check
        lr.diagnostics.append(Diagnostic("note", f"the counterexample search stopped: {type(e).__name__}: {e}",
                                         None, code="N-no-counterexample"))
        return
    if w:
        lr.status = FAILS
        lr.counterexample = w.text
        return
    lr.diagnostics.append(Diagnostic("note", f"no counterexample found within the search limits ({w.reason})",
                                     None, code="N-no-counterexample"))


# ------------------------------------------------------------------ cross-check


def cross_check(checker, lr: LinkResult, lhs, rhs, outcome) -> None:
    """Evaluate a link the kernel accepted on random finite models of its assumptions.

    Models are drawn once per set of used facts (under the same
    declarations) and reused by later links resting on the same facts; a link
    the reused models cannot evaluate (a variable or dimension they lack)
    draws its own.
    """
    from .models import Evaluator, ModelError, _index_syms, assignments, holds_rel, random_models

    t0 = time.monotonic()
    decls = checker.prover.decls
    facts = _facts(checker, outcome.used)
    if checker._cross_models.get("decls") is not decls:  # new declarations: the old models go (and their decls)
        checker._cross_models = {"decls": decls}
    cache = checker._cross_models
    key = frozenset(outcome.used)

    def draw():
        fixed, _ = _distributions(checker, outcome.used, surrogate=True)
        models = random_models(decls, facts, CROSS_MODELS, seed=_seed(lr.lhs, lr.rhs, lr.index), exprs=[lhs, rhs],
                               seconds=CROSS_SECONDS, fixed=fixed)
        cache[key] = models
        return models

    def disagreement(models) -> int | None:
        """Models evaluated; None once a disagreement is reported."""
        done = 0
        for model in models:
            if time.monotonic() - t0 > 2 * CROSS_SECONDS:
                break
            ev = Evaluator(model, decls)
            try:
                for env in assignments(free, decls, model):
                    lv, rv = ev.ev(lhs, env, None), ev.ev(rhs, env, None)
                    if holds_rel(lv, _rel(lr.rel), rv, need_true=False) is False:
                        _soundness_error(checker, lr, model, env, lv, rv, facts)
                        return None
            except ModelError:
                continue
            done += 1
        return done

    try:
        free = _index_syms([lhs, rhs], decls)
        hit = cache.get(key)
        reused = hit is not None
        done = disagreement(hit if reused else draw())
        if reused and done == 0:
            disagreement(draw())
    except ModelError:
        return
    except Exception as e:  # noqa: BLE001 - never turn a bug here into a verdict
        checker.rep.diagnostics.append(Diagnostic(
            "warning", f"the soundness cross-check could not run: {type(e).__name__}: {e}", lr.span,
            code="W-cross-check"))


def _soundness_error(checker, lr, model, env, lv, rv, facts):
    from .models import render_model, show_value

    decls = checker.prover.decls
    at = ", ".join(f"{s} = {int(v)}" for s, v in env.items())
    notes = [f"finite model: {render_model(model, decls)}" + (f"; at {at}" if at else ""),
             f"it satisfies {', '.join(facts) or 'no assumption'} (checked exactly)",
             f"there the left side is {show_value(lv)} and the right side {show_value(rv)}"]
    msg = "internal soundness error: the kernel accepted this link, but it fails on a finite model of its assumptions"
    checker.rep.diagnostics.append(Diagnostic(
        "error", msg, lr.span, "accepted by the kernel, refuted by a model", notes=notes,
        help="this is a bug in stepcheck: please report it with this file", code="E-internal-soundness"))
    lr.status = UNKNOWN
    lr.message = msg
    lr.counterexample = render_model(model, decls)


# ------------------------------------------------------------------ refute


def refute_step(checker, st) -> StepResult:
    from .elaborate import Elaborator
    from .models import find_counterexample, related

    lk = st.links[0]
    statement = f"{checker.src(st.first.span)} {lk.rel} {checker.src(lk.rhs.span)}"
    res = StepResult(st.name.name, st.span, "refute", statement, lk.rel, [], UNKNOWN)
    lr = LinkResult(1, lk.rel, checker.src(st.first.span), checker.src(lk.rhs.span), lk.span, UNKNOWN,
                    cited=[r.text for r in st.under])
    res.links.append(lr)
    claim_span = lk.span
    el = Elaborator(checker.scope)
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
        if r.text in checker.facts or (r.text in checker.steps and checker.step_facts.get(r.text)):
            labels.append(r.text)
        else:
            checker.err(error(f"unknown reference `{r.text}`", r.span, "not an assumption or a proven step",
                              help="list assumption labels (or proven steps) after `under`", code="E-unknown-ref"))
            bad = True
    if bad:
        lr.message = "not checked: a reference is unknown (see above)"
        return res
    if not st.under:
        labels = list(checker.facts)
    if checker.contradiction & set(labels):
        lr.message = "rests on contradictory assumptions: " + ", ".join(sorted(checker.contradiction))
        return res
    keep = _facts(checker, labels)
    others = related({lab: fs for lab, fs in checker.facts.items() if lab not in labels}, [lhs, rhs], keep,
                     checker.prover.decls)
    lr.uses = [Use(lab, checker.fact_kinds.get(lab, "step" if lab in checker.steps else "equation")) for lab in labels]
    t0 = time.perf_counter()
    out = checker.prover.prove(lhs, rhs, labels)
    if out.status == HOLDS:
        lr.status = res.status = FAILS
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
    fixed, blocked = _distributions(checker, labels)
    if blocked:
        w = None
        reason = ", ".join(f"`{b}`" for b in blocked) + " is not a finite distribution"
    else:
        w = find_counterexample(lhs, rhs, checker.prover.decls, keep, others,
                                seconds=REFUTE_SECONDS, seed=_seed(st.name.name), fixed=fixed,
                                claim="the statement claims")
        reason = None if w else w.reason
    lr.seconds = time.perf_counter() - t0
    if w:
        lr.status = res.status = HOLDS
        lr.counterexample = w.text
        lr.message = "refuted by a finite model"
        return res
    lr.message = f"no counterexample found within the search limits ({reason})"
    lr.diagnostics.append(Diagnostic(
        "error", "could not refute this statement", claim_span, "no counterexample found",
        notes=[lr.message, "not refuted is not the same as true"], code="E-refute-unknown"))
    return res


# ------------------------------------------------------------------ --why


def why_pass(checker) -> None:
    """For every assumption a step rests on: drop it, keep the others, look for a counterexample."""
    from .models import find_counterexample

    decls = checker.prover.decls
    for res in checker.rep.steps:
        if res.kind != "step" or res.status != HOLDS or not checker.step_facts.get(res.name):
            continue
        stmt = checker.step_facts[res.name][0]
        labels = [lab for lab in res.rests_on if lab in checker.facts]
        for lab in labels:
            if lab in checker.contradiction:
                res.why[lab] = "not shown to be needed (contradictory assumptions)"
                continue
            keep = [x for x in labels if x != lab]
            fixed, blocked = _distributions(checker, keep)
            if blocked:
                res.why[lab] = ("not shown to be needed (the search needs finite models, and no finite model has "
                                + ", ".join(blocked) + ")")
                continue
            try:
                w = find_counterexample(stmt.lhs, stmt.rhs, decls, _facts(checker, keep), {lab: checker.facts[lab]},
                                        seconds=WHY_SECONDS, seed=_seed(res.name, lab), fixed=fixed)
            except Exception as e:  # noqa: BLE001
                res.why[lab] = f"not shown to be needed (the search stopped: {type(e).__name__})"
                continue
            if w:
                res.why[lab] = f"needed (witness: {_one_line(w.text)})"
            else:
                res.why[lab] = f"not shown to be needed (no counterexample without it: {w.reason})"
