"""The assumptions of a file, checked for contradictions before any step uses them.

The kernel finds the contradiction (:func:`stepcheck.kernel.check_consistency`:
equations with no common solution, moment inequalities every distribution
satisfies); this module adds the declared laws' higher moments the facts
mention and reports it as an ``E-inconsistent`` diagnostic.
"""
from __future__ import annotations

from .errors import Diagnostic
from .kernel import KernelLimit, check_consistency


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
    from .distributions import higher_moment_facts

    facts = {**facts, **higher_moment_facts(state, facts)}
    try:
        bad = check_consistency(checker.prover.decls, facts, checker.limits, cache=state.consistency_cache)
    except KernelLimit as e:  # too large to check: say so (links resting on them hit the same limit: unknown)
        if any(d.code == "W-unchecked-assumptions" for d in checker.rep.diagnostics):
            return  # said once per file
        first = state.labels_span.get(new_label or list(facts)[-1])
        checker.rep.diagnostics.append(Diagnostic(
            "warning", "the assumptions could not be checked for contradictions", first, "too large",
            notes=[str(e), "a step that needs these facts is not proved either (it stays unknown)"],
            code="W-unchecked-assumptions"))
        return
    except Exception:  # an unsupported shape: no verdict
        bad = None
    if bad and not set(bad) <= state.contradiction:
        state.contradiction |= set(bad)
        first = state.labels_span.get(bad[0])
        checker.rep.diagnostics.append(Diagnostic(
            "error", "contradictory assumptions: " + ", ".join(f"`{b}`" for b in bad), first,
            "these facts cannot all hold",
            notes=[f"no distribution satisfies them: {bad.reason}",
                   "from contradictory facts every claim would follow; no step is counted as verified from them"],
            help="fix the values (a variance cannot be negative; one quantity cannot have two values)",
            code="E-inconsistent"))
