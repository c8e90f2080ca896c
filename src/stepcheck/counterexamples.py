"""Counterexamples as statements: `refute` and `verify --why`.

The finite-model side lives in ``models.py`` and never calls the kernel's
normaliser or prover; this module connects it to the checker:

* :func:`refute_step`: ``refute NAME: A = B [under REFS]`` holds exactly when
  a counterexample is found, fails when the kernel proves ``A = B``;
* :func:`why_pass`: ``verify --why``: for every assumption a step rests on,
  drop it, keep the others, and look for a counterexample to the step.

Both read the :class:`~stepcheck.state.FileState`; statuses are given only
through :func:`stepcheck.judge.settle`.  The searches for failed links and
the cross-check are in :mod:`stepcheck.judge.refuters`.
"""
from __future__ import annotations

import time

import sympy

from .errors import Diagnostic, StepError, error
from .judge import KERNEL, UNDECIDED, WITNESS, Verdict, settle, settle_step
from .judge.attribution import attribute
from .judge.domains import open_conditions
from .judge.link import domain_facts
from .judge.refuters import _distributions, _seed, confirm_model, cross_check
from .results import FAILS, HOLDS, UNKNOWN, LinkResult, StepResult, Use

REFUTE_SECONDS = 4.0  # search for a `refute` (at least; 80 % of a longer --timeout; within the link's deadline)
WHY_SECONDS = 2.0  # search per (step, assumption) under --why


def _one_line(text: str) -> str:
    return " — ".join(line.strip() for line in text.splitlines() if line.strip())


# ------------------------------------------------------------------ refute


def _without_unrelated_laws(state, labels, exprs, decls) -> list:
    """``labels`` less the declared laws of random variables that neither the statement nor any other fact
    among them mentions: a model of the rest extends by such a variable drawn from its law independently, so a
    counterexample without it is one with it (a Student t law has no finite model, and blocked every search)."""
    from .models.search import mentions
    from .terms.facts import EqFact

    laws = {lab for lab in labels if state.fact_kinds.get(lab) == "distribution"}
    names = set().union(*(mentions(EqFact("", x, sympy.Integer(0)), decls) for x in exprs))
    for lab in labels:
        if lab not in laws:
            names |= set().union(*(mentions(f, decls) for fs in state.facts_of([lab]).values() for f in fs))
    of_law: dict = {}
    for name, dec in state.laws.items():
        of_law.setdefault(dec.label, set()).add(name)
    return [lab for lab in labels if lab not in laws or lab not in of_law or of_law[lab] & names]


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
    labels = _without_unrelated_laws(state, labels, (lhs, rhs), checker.prover.decls)
    keep = state.facts_of(labels)
    others = related({lab: fs for lab, fs in state.facts.items() if lab not in labels}, [lhs, rhs], keep,
                     checker.prover.decls)
    lr.uses = [Use(lab, state.fact_kinds.get(lab, "step" if lab in state.steps else "equation")) for lab in labels]
    t0 = time.perf_counter()
    deadline = checker.deadline()
    # a step proved under side conditions (`where: x ≥ 0`) says nothing outside them: no proof rests on it here
    # (the model search below may still use it as a fact: a model of the stronger fact is a model of the step)
    out = attribute(checker.prover, lhs, rhs, [lab for lab in labels if not state.step_conditions.get(lab)],
                    "=", deadline)
    conds = open_conditions([c for c in el.conditions if c[1] != "defined"], keep) \
        + [c for c in el.conditions if c[1] == "defined"]
    defined = domain_facts(conds, checker.prover.decls)  # a counterexample must lie where it is defined
    cc = cross_check(state, checker.prover.decls, lhs, rhs, out.used, "=", (lr.lhs, lr.rhs, 1), deadline, defined) \
        if out.holds and checker.options.cross_check else None
    if cc is not None and cc.disagrees:  # the kernel's proof is refuted: the refutation is undecided
        settle(lr, UNDECIDED)
        settle_step(res)
        lr.message, lr.counterexample, lr.cross_checked = cc.message, cc.model, False
        checker.rep.diagnostics.append(Diagnostic(
            "error", cc.message, lr.span, "proved by the kernel, refuted by a model", notes=cc.notes,
            help="this is a bug in stepcheck: please report it with this file", code="E-internal-soundness"))
        return res
    if out.holds:
        lr.cross_checked = cc.models > 0 if cc is not None else None
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
    fixed, blocked = _distributions(state, labels, exprs=(lhs, rhs))
    if blocked:
        w = None
        reason = ", ".join(f"`{b}`" for b in blocked) + " has no finite model here (a continuous law, or parameters that are names)"
    else:
        w = find_counterexample(lhs, rhs, checker.prover.decls, {**keep, **defined}, others,
                                seconds=min(max(REFUTE_SECONDS, 0.8 * deadline.seconds), deadline.remaining()), seed=_seed(st.name.name), fixed=fixed,
                                claim="the statement claims")
        reason = None if w else w.reason
        if w:  # a refutation is a counterexample: re-checked by the judge's own code before it counts
            ok, why = confirm_model(w, checker.prover.decls, lhs, rhs, "=", {**keep, **defined})
            if not ok:
                w, reason = None, f"a counterexample candidate was dropped: {why}"
    lr.seconds = time.perf_counter() - t0
    if w:
        settle(lr, Verdict(HOLDS, WITNESS))  # found by the model finder, re-checked exactly (judge.recheck)
        settle_step(res)
        lr.counterexample = w.text
        lr.message = "refuted by a finite model"
        return res
    lr.message = f"no counterexample found within the search limits ({reason})"
    timed_out = reason is not None and "time limit" in reason
    lr.diagnostics.append(Diagnostic(
        "error", "could not refute this statement", claim_span, "no counterexample found",
        notes=[lr.message, "not refuted is not the same as true"],
        help=(f"the search ran out of time: give it longer with `--timeout SECONDS` (now {deadline.seconds:g} s "
              "per link; `timeout=` in the Python API, `--stepcheck-timeout` under pytest)") if timed_out else None,
        code="E-refute-unknown"))
    return res


# ------------------------------------------------------------------ --why


def why_pass(state, decls) -> None:
    """For every assumption a step rests on: drop it, keep the others, look for a counterexample."""
    from .models import find_counterexample

    for res in state.rep.steps:
        if res.kind != "step" or res.status != HOLDS or not state.step_facts.get(res.name):
            continue
        stmt = state.step_facts[res.name][0]
        if getattr(stmt, "rel", "=") != "=":  # an inequality step: the search below refutes equations
            continue
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
                ok, why = confirm_model(w, decls, stmt.lhs, stmt.rhs, "=", state.facts_of(keep))
                w = w if ok else None
                if w is None:
                    res.why[lab] = f"not shown to be needed (a witness was dropped: {why})"
                    continue
            if w:
                res.why[lab] = f"needed (witness: {_one_line(w.text)})"
            else:
                res.why[lab] = f"not shown to be needed (no counterexample without it: {w.reason})"
