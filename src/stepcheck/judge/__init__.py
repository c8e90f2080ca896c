"""The judge: the one place where a link gets its verdict.

The kernel proves (``holds``) or does not (``not proved``); it never refutes.
The judge turns evidence into a verdict and tags it with what decided it:

* ``KERNEL`` -- a kernel proof (:meth:`stepcheck.kernel.LinkProver.prove_link`);
* ``EXACT`` -- exact numeric evaluation with a proved sign (:mod:`.exact`):
  ``check`` / ``table`` claims, and a residual that is a number or is
  evaluated at a concrete witness (:mod:`.witness`);
* ``WITNESS`` -- a finite model found by the model finder and evaluated
  exactly by :mod:`stepcheck.models` (its own arithmetic, never the kernel);
* ``SIMULATION`` -- a Monte Carlo estimate (status ``simulated``: evidence,
  never a proof).

:func:`settle` is the only writer of a result's status (a test enforces it:
tests/test_architecture.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..results import FAILS, HOLDS, SIMULATED, UNKNOWN

KERNEL = "kernel proof"
EXACT = "exact numeric"
WITNESS = "re-checked witness"
SIMULATION = "simulation"
DECIDERS = (KERNEL, EXACT, WITNESS, SIMULATION)


@dataclass(frozen=True)
class Verdict:
    status: str  # HOLDS | FAILS | UNKNOWN | SIMULATED
    by: str | None = None  # one of DECIDERS; None for unknown

    def __post_init__(self):
        if self.status == UNKNOWN:
            if self.by is not None:
                raise ValueError("an unknown verdict is decided by nothing")
        elif self.by not in DECIDERS:
            raise ValueError(f"a {self.status} verdict needs what decided it, not {self.by!r}")
        if self.status == SIMULATED and self.by != SIMULATION:
            raise ValueError("only a simulation gives `simulated`")
        if self.status == HOLDS and self.by not in (KERNEL, EXACT, WITNESS):
            raise ValueError(f"`holds` cannot be decided by {self.by}")


UNDECIDED = Verdict(UNKNOWN)


def proved(proof) -> Verdict:
    """A link the kernel proved."""
    if not proof.holds:
        raise ValueError("not a proof")
    return Verdict(HOLDS, KERNEL)


def settle(result, verdict: Verdict) -> None:
    """Give a LinkResult or StepResult its verdict (the only place statuses are written)."""
    result.status = verdict.status
    if hasattr(result, "decided_by"):
        result.decided_by = verdict.by


def combine(statuses) -> str:
    """A chain's status from its links': fails if one fails, else unknown if one is, else
    simulated if one is, else holds."""
    statuses = list(statuses)
    if not statuses:
        return UNKNOWN  # nothing was checked: never holds
    for st in (FAILS, UNKNOWN, SIMULATED):
        if st in statuses:
            return st
    return HOLDS


def settle_step(step) -> None:
    """A step's status, from its links' verdicts.  A chain that goes both ways (``a >= b <= c``) states
    nothing about its two ends: its links are checked, but the step is never verified (E-mixed-chain)."""
    step.status = combine(lk.status for lk in step.links)
    if step.kind == "step" and step.rel in ("?", "!=", "≠"):
        if step.status == HOLDS:
            step.status = UNKNOWN
        _mixed_chain(step)


def _mixed_chain(step) -> None:
    from ..errors import Diagnostic

    ups = [k for k, lk in enumerate(step.links) if lk.rel in ("<", "<=", "≤")]
    downs = [k for k, lk in enumerate(step.links) if lk.rel in (">", ">=", "≥")]
    if not (ups and downs):  # no composite relation for another reason (`!=`, `≈`: E-relation says so)
        return
    turn = step.links[max(min(ups), min(downs))]  # the first link that goes against an earlier one
    if any(d.code == "E-mixed-chain" for d in turn.diagnostics):
        return
    turn.diagnostics.append(Diagnostic(
        "error", "this chain goes both ways: it proves no relation between its first and last expressions",
        turn.span, "against the direction of an earlier link",
        notes=["a chain of `=`, `<=` and `<` (or of `=`, `>=` and `>`) states the relation between its ends; "
               "this one mixes the two directions, so the step is not verified even where every link holds"],
        help="split it into two steps, one per direction", code="E-mixed-chain"))
