"""What checking a file has established so far: its scope, facts and step results.

:class:`FileState` is owned by the :class:`~stepcheck.checker.Checker` (the
driver), which alone adds to it; the helpers (numeric claims, distributions,
counterexamples, the judge) read it and return what they computed.  Its
queries -- which facts are connected to a link, what a label says -- are
pure reads (their indexes are caches over facts that never change once
declared).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import sympy
from sympy import IndexedBase

from .elaborate import Scope
from .errors import Span
from .results import FileReport, StepResult
from .terms.facts import IndepFact


@dataclass
class FileState:
    rep: FileReport
    scope: Scope = field(default_factory=Scope)
    facts: dict = field(default_factory=dict)  # assumption label -> kernel facts
    fact_kinds: dict = field(default_factory=dict)  # label -> kind (for reports)
    labels_span: dict = field(default_factory=dict)  # label -> where it is declared
    steps: dict = field(default_factory=dict)  # step name -> StepResult
    step_facts: dict = field(default_factory=dict)  # step name -> [EqFact] (its statement, once checked)
    # step name -> the side conditions it holds under (`x ≥ 0`, as shown): a fact only for links that have them
    step_conditions: dict = field(default_factory=dict)
    laws: dict = field(default_factory=dict)  # variable or family name -> distributions.Declared
    contradiction: set = field(default_factory=set)  # labels of contradictory assumptions
    unchecked: set = field(default_factory=set)  # labels whose check for contradictions ran out of time
    implicit_index: set = field(default_factory=set)  # indices declared by `for i in 1..n`
    entry_indices: dict = field(default_factory=dict)  # (name, hi) -> the index a matrix link is checked at
    verified: list = field(default_factory=list)  # steps that hold, in order (candidates for later links)
    # caches, freed with the state
    consistency_cache: dict = field(default_factory=dict)  # fact normal forms for check_consistency
    timeout: float | None = None  # the per-link time limit (Options.timeout), for numeric statements too
    cross_models: dict = field(default_factory=dict)  # cross-check: "decls" -> Decls, used facts -> models
    _fact_names: dict = field(default_factory=dict)
    _name_index: dict = field(default_factory=dict)
    _verified_pos: dict = field(default_factory=dict)
    _fact_pos: dict = field(default_factory=dict)

    def __post_init__(self):
        self.lines = self.rep.text.splitlines()

    def entry_index(self, name: str, hi):
        """(the index, new?) over 1..hi at which a link between matrices is checked entrywise (one per name
        and range): printed as the user's i, but never equal to a declared symbol (those are not `finite`)."""
        key = (name, hi)
        if key in self.entry_indices:
            return self.entry_indices[key], False
        taken = self.scope.all_names() | {s.name for s in self.entry_indices.values()}
        shown = next(c for c in (name, name + "'", name + "''", *(f"{name}{k}" for k in range(99))) if c not in taken)
        sym = self.entry_indices[key] = sympy.Symbol(shown, integer=True, positive=True, finite=True)
        self.scope.index_ranges[sym] = (sympy.Integer(1), hi)
        return sym, True

    # ------------------------------------------------------------ source text
    def src(self, span: Span) -> str:
        """The source text under ``span`` (joined over lines)."""
        if span.line == span.end_line and 1 <= span.line <= len(self.lines):
            return self.lines[span.line - 1][span.col - 1:span.end_col - 1].strip()
        if 1 <= span.line <= len(self.lines):
            first = self.lines[span.line - 1][span.col - 1:]
            rest = [self.lines[k - 1] for k in range(span.line + 1, min(span.end_line, len(self.lines)) + 1)]
            if rest:
                rest[-1] = rest[-1][:span.end_col - 1]
            return " ".join(x.strip() for x in [first, *rest])
        return ""

    # ------------------------------------------------------------ facts by label
    def facts_of(self, labels) -> dict:
        """label -> kernel facts, for assumptions and checked steps with a statement."""
        out = {}
        for lab in labels:
            if lab in self.facts:
                out[lab] = self.facts[lab]
            elif self.step_facts.get(lab):
                out[lab] = self.step_facts[lab]
        return out

    def fact_symbols(self) -> set:
        """Every symbol an assumption (a law's moment facts included) mentions."""
        return {s for fs in self.facts.values() for f in fs for side in (getattr(f, "lhs", None),
                getattr(f, "rhs", None)) if isinstance(side, sympy.Basic) for s in side.free_symbols}

    def describe(self, label: str) -> str:
        if label in self.steps:
            return f"step: {self.steps[label].statement}"
        info = next((a for a in self.rep.assumptions if a.label == label), None)
        return f"{info.kind}: " + ", ".join(info.facts) if info else label

    def step(self, name: str) -> StepResult | None:
        return self.steps.get(name)

    # ------------------------------------------------------------ relevance
    def names(self, x) -> set:
        out = set()
        for a in x.free_symbols:
            out.add(a.base.label if isinstance(a, sympy.Indexed) else a)
        return {a for a in out if a not in self.scope.index_ranges}

    def fact_names(self, label) -> frozenset:
        """Names a fact mentions (cached: facts never change once declared)."""
        got = self._fact_names.get(label)
        if got is None:
            got = self._fact_names[label] = frozenset(self._fact_names_uncached(label))
        return got

    def _fact_names_uncached(self, label) -> set:
        out = set()
        for f in self.step_facts[label] if label in self.step_facts else self.facts.get(label, []):
            if isinstance(f, IndepFact):
                out |= {sympy.Symbol(n) for n in f.families}
                out |= {IndexedBase(n).label for n in f.families}
                for m in f.members:
                    out |= self.names(m)
            else:
                out |= self.names(f.lhs - f.rhs) if not isinstance(f.lhs, int) else set()
                out |= self.names(sympy.Integer(0) + f.rhs) if not isinstance(f.rhs, int) else set()
        return out

    def relevant(self, lhs, rhs) -> list:
        """The candidates connected to the link through shared names (transitively).

        Candidates are the verified steps with a fact (in the order they were
        verified), then the assumptions (in the order written).  A fact sharing
        no name with the link, directly or through other candidates, cannot
        help prove it (contradictions are checked apart).  Names are compared
        by their text (a family `q` and its members share `q`).
        """
        names = [getattr(n, "name", str(n)) for n in self.names(lhs) | self.names(rhs)]
        vpos, fpos = self._index_labels()
        chosen = self._connected(names, lambda lab: lab in fpos or lab in vpos)
        # `assume d: i != j` names only indices (which connect nothing): relevant when both are in the link
        free = (lhs.free_symbols | rhs.free_symbols) & set(self.scope.index_ranges)
        for lab, fs in self.facts.items():
            if lab not in chosen and fs and all(getattr(f, "rel", None) == "!=" and {f.lhs, f.rhs} <= free
                                                for f in fs):
                chosen = set(chosen) | {lab}
        return sorted(chosen, key=lambda lab: (0, vpos[lab]) if lab in vpos else (1, fpos[lab]))

    def relevant_facts(self, names) -> list:
        """The assumptions connected (transitively, through shared names) to ``names``, in order."""
        _, fpos = self._index_labels()
        return sorted(self._connected(names, fpos.__contains__), key=fpos.__getitem__)

    def _index_labels(self):
        """Positions of the candidate labels, and the index from names to labels, brought up to date.

        Assumptions and verified steps are only ever added, so only the new
        ones are indexed: a link costs time in the size of its answer, not in
        the number of facts of the file.
        """
        index, vpos, fpos = self._name_index, self._verified_pos, self._fact_pos
        new = []
        for name in itertools.islice(self.verified, len(vpos), None):
            vpos[name] = len(vpos)
            new.append(name)
        if len(self.facts) > len(fpos):
            for lab in itertools.islice(self.facts, len(fpos), None):
                fpos[lab] = len(fpos)
                new.append(lab)
        for lab in new:  # a verified step without a fact (a numeric check) has no name: never a candidate
            for n in self.fact_names(lab):
                index.setdefault(getattr(n, "name", str(n)), set()).add(lab)
        return vpos, fpos

    def _connected(self, names, allowed) -> set:
        index = self._name_index
        todo = list(names)
        seen_names, chosen = set(), set()
        while todo:
            name = todo.pop()
            if name in seen_names:
                continue
            seen_names.add(name)
            for lab in index.get(name, ()):
                if lab not in chosen and allowed(lab):
                    chosen.add(lab)
                    todo.extend(getattr(n, "name", str(n)) for n in self.fact_names(lab))
        return chosen
