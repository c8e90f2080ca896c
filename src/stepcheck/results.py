"""Result objects: what checking a file produced.

These are plain data, shared by the checker (which fills them), the
terminal/JSON reporters, the pytest plugin and the Python API.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import Diagnostic, Span

HOLDS = "holds"
FAILS = "fails"
UNKNOWN = "unknown"
# a `simulate` statement: evidence, never a proof.  A consistent simulation
# does not make a file fail (exit 0 is allowed); an inconsistent one carries
# an error diagnostic on its link, which makes the file fail (exit 1).
SIMULATED = "simulated"

# kinds of assumptions (used for reports and colours)
KINDS = (
    "independence",
    "uncorrelated",
    "zero mean",
    "unit variance",
    "variance",
    "distribution",
    "range",
    "sign",
    "equation",
    "inequality",
    "definition",
    "step",
)


@dataclass
class AssumptionInfo:
    label: str
    kind: str  # one of KINDS (the kind of its first fact when mixed)
    facts: list[str]  # the facts as written
    kinds: list[str]  # kind of each fact
    span: Span


@dataclass
class Use:
    """One assumption (or cited step, or implicit side condition) a link needs."""

    label: str  # the user's label, a step name, or e.g. "range of i"
    kind: str
    implicit: bool = False  # a side condition the user did not state
    weakest: str | None = None  # e.g. "uncorrelated(q_i, k_i)" when that suffices
    detail: str | None = None


@dataclass
class LinkResult:
    index: int  # 1-based position in its chain
    rel: str
    lhs: str  # the two sides as the user wrote them (source text)
    rhs: str
    span: Span
    status: str  # HOLDS | FAILS | UNKNOWN | SIMULATED, set only by stepcheck.judge.settle
    rules: list[str] = field(default_factory=list)
    uses: list[Use] = field(default_factory=list)
    cited: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # facts needed but not cited
    unneeded: list[str] = field(default_factory=list)  # cited but not needed
    residual: str | None = None  # lhs - rhs after normalisation, when not zero
    message: str | None = None  # why unknown / fails, in words
    counterexample: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    seconds: float = 0.0
    # the two sides as sympy expressions (for typesetting; None when they did not elaborate)
    lhs_expr: object = field(default=None, repr=False, compare=False)
    rhs_expr: object = field(default=None, repr=False, compare=False)
    # numeric claims: the message (the exact value, the allowed interval) is shown whatever the status
    show_message: bool = False
    # what decided a holds / fails / simulated status (stepcheck.judge: "kernel proof",
    # "exact numeric", "re-checked witness", "simulation"); None while unknown
    decided_by: str | None = None
    # a link the kernel proved: True when finite models of its facts evaluated it and agreed, False
    # when it got no cross-check (no model found in time); None when not applicable or switched off
    cross_checked: bool | None = None


@dataclass
class StepResult:
    name: str
    span: Span
    kind: str  # "step" | "refute"
    statement: str  # "first REL last" as text
    rel: str
    links: list[LinkResult]
    status: str
    rests_on: list[str] = field(default_factory=list)  # assumption labels, transitively
    steps_cited: list[str] = field(default_factory=list)
    # `simulate`: estimate, low, high, samples, seed, confidence, claimed, consistent
    simulation: dict | None = None
    # verify --why: assumption label -> "needed (witness: ...)" / "not shown to be needed (...)"
    why: dict[str, str] = field(default_factory=dict)


@dataclass
class FileReport:
    path: str
    text: str
    name: str | None = None
    title: str | None = None
    source: str | None = None
    assumptions: list[AssumptionInfo] = field(default_factory=list)
    steps: list[StepResult] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)  # errors and warnings
    seconds: float = 0.0
    # the parsed program (syntax.Program) the report was checked from: the PDF typesets the
    # maths as written from it, without parsing the file again; None when it did not parse
    program: object = field(default=None, repr=False, compare=False)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    fatal: bool = False  # the file could not be read or parsed: no steps checked

    @property
    def link_errors(self) -> list[Diagnostic]:
        """Error diagnostics attached to links (e.g. unneeded citations under --strict)."""
        return [d for s in self.steps for lk in s.links for d in lk.diagnostics if d.severity == "error"]

    @property
    def ok(self) -> bool:
        return (not self.fatal and not self.errors and all(s.status == HOLDS or _sim_ok(s) for s in self.steps)
                and not self.link_errors)

    def exit_code(self) -> int:
        if self.fatal:
            return 2
        return 0 if self.ok else 1

    def cross_checks(self) -> tuple[int, int]:
        """(links cross-checked on finite models, kernel proofs eligible for it)."""
        links = [lk for s in self.steps for lk in s.links if lk.cross_checked is not None]
        return sum(1 for lk in links if lk.cross_checked), len(links)

    def counts(self) -> dict[str, int]:
        c = {HOLDS: 0, FAILS: 0, UNKNOWN: 0}  # "simulated" appears when a file simulates
        for s in self.steps:
            for link in s.links:
                c[link.status] = c.get(link.status, 0) + 1
        return c


def _sim_ok(s: StepResult) -> bool:
    """A simulated step that does not stop a file from verifying: consistent, no error attached."""
    if s.status != SIMULATED or not s.simulation or not s.simulation.get("consistent"):
        return False
    return not any(d.severity == "error" for link in s.links for d in link.diagnostics)
