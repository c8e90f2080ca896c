"""The checker: runs a parsed file through the elaborator and the kernel.

It walks the statements in order, builds the scope, turns assumptions into
kernel facts, and checks every link of every step: with ``by``, the cited
facts must suffice; without it, everything in scope is a candidate.  The
kernel decides; this module only collects, attributes and reports.
"""
from __future__ import annotations

import contextlib
import gc
import itertools
import time
from collections import ChainMap

import sympy
from sympy import IndexedBase, Symbol

from . import syntax as S
from .elaborate import KIND_OF_TYPE, Definition, Elaborator, Family, Scope, fact_kind
from .errors import Diagnostic, Span, StepError, closest, error
from .kernel import EqFact, IndepFact, IneqFact, Limits, LinkProver, check_consistency
from .terms.objects import SD, Cov, E, Var
from .results import FAILS, HOLDS, UNKNOWN, AssumptionInfo, FileReport, LinkResult, StepResult, Use

RULES = {"linearity", "def Var", "def Cov", "def SD", "factorization", "sums", "facts", "algebra"}
MAX_STEPS = 2000
REL_TEXT = {"=": "=", "<": "<", "<=": "≤", ">": ">", ">=": "≥", "!=": "≠", "≈": "≈"}


def check_file(path: str, *, strict: bool = False, timeout: float = 5.0, why: bool = False,
               cross_check: bool = True) -> FileReport:
    from .parser import read_source

    try:
        text = read_source(path)
    except StepError as e:
        rep = FileReport(path=path, text="", fatal=True)
        rep.diagnostics.append(e.diagnostic)
        return rep
    return check_text(text, path, strict=strict, timeout=timeout, why=why, cross_check=cross_check)


def check_text(text: str, file: str = "<string>", *, strict: bool = False, timeout: float = 5.0, why: bool = False,
               cross_check: bool = True) -> FileReport:
    from .parser import parse

    from .parser import MAX_FILE_BYTES

    t0 = time.perf_counter()
    rep = FileReport(path=file, text=text)
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_FILE_BYTES:
        rep.fatal = True
        rep.diagnostics.append(Diagnostic(
            "error", f"input too large: {size:,} bytes (the limit is {MAX_FILE_BYTES:,})", None,
            help="split the derivation into several smaller files", code="E-input-too-large"))
        return rep
    try:
        prog = parse(text, file)
    except StepError as e:
        rep.fatal = True
        rep.diagnostics.append(e.diagnostic)
        return rep
    except RecursionError:
        rep.fatal = True
        rep.diagnostics.append(Diagnostic("error", "input nested too deeply", None, code="E-limit"))
        return rep
    with _fewer_collections():
        Checker(rep, strict=strict, limits=Limits(seconds=timeout), why=why, cross_check=cross_check).run(prog)
    rep.seconds = time.perf_counter() - t0
    return rep


@contextlib.contextmanager
def _fewer_collections(young: int = 20_000):
    """Run the cyclic garbage collector less often while a file is checked (restored after).

    Checking allocates many short-lived sympy objects while the report keeps
    growing; with the default threshold (700 allocations) the collector
    traverses that growing heap again and again, which made a 1,000-step file
    about 15 % slower per step than a 100-step one (6 % with this setting).
    Memory is still reclaimed: objects without cycles are freed at once by
    reference counting, and cycles within at most ``young`` allocations.
    """
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], young), old[1], old[2])
    try:
        yield
    finally:
        gc.set_threshold(*old)


class Checker:
    def __init__(self, rep: FileReport, strict: bool = False, limits: Limits | None = None, why: bool = False,
                 cross_check: bool = True):
        self.rep = rep
        self.why = why
        self.do_cross_check = cross_check
        self.strict = strict
        self.limits = limits or Limits()
        self.scope = Scope()
        self.facts: dict[str, list] = {}  # label -> kernel facts
        self.fact_kinds: dict[str, str] = {}
        self.labels_span: dict[str, Span] = {}
        self.steps: dict[str, StepResult] = {}
        self.step_facts: dict[str, list] = {}
        self.lines = rep.text.splitlines()
        self._prover = None
        self._consistency_cache: dict = {}  # fact normal forms for check_consistency, freed with the checker
        self._cross_models: dict = {}  # for the soundness cross-check: "decls" -> Decls, used facts -> models
        self.contradiction: set[str] = set()
        self.implicit_index: set[str] = set()
        self._verified: list[str] = []  # steps that hold, in order (candidates for later links)

    # ------------------------------------------------------------ utilities
    def err(self, e: StepError):
        self.rep.diagnostics.append(e.diagnostic)
        self.rep.fatal = True  # input errors: exit code 2

    def src(self, span: Span) -> str:
        if span.line == span.end_line and 1 <= span.line <= len(self.lines):
            return self.lines[span.line - 1][span.col - 1:span.end_col - 1].strip()
        if 1 <= span.line <= len(self.lines):
            first = self.lines[span.line - 1][span.col - 1:]
            rest = [self.lines[k - 1] for k in range(span.line + 1, min(span.end_line, len(self.lines)) + 1)]
            if rest:
                rest[-1] = rest[-1][:span.end_col - 1]
            return " ".join(x.strip() for x in [first, *rest])
        return ""

    def declare(self, name: S.Name, kind: str, sym):
        n = name.name
        if n in self.scope.symbols or n in self.scope.families or n in self.scope.defines:
            prev = self.scope.spans.get(n)
            raise error(f"`{n}` is declared twice", name.span, "declared again here",
                        notes=[f"first declared at {prev}"] if prev else [], code="E-redeclared")
        self.scope.symbols[n] = sym
        self.scope.kinds[n] = kind
        self.scope.spans[n] = name.span

    @property
    def prover(self) -> LinkProver:
        if self._prover is None:
            from .kernel import Decls

            decls = Decls(
                random_symbols=frozenset(self.scope.random_symbols),
                random_families=frozenset(n for n, f in self.scope.families.items() if f.random),
                index_ranges=dict(self.scope.index_ranges),
                family_ranges={n: (f.lo, f.hi) for n, f in self.scope.families.items()},
                order={n: k for k, n in enumerate(self.scope.spans)},
            )
            # a live view: facts added later are seen without rebuilding the prover (and its caches)
            self._prover = LinkProver(decls, ChainMap(self.facts, self.step_facts), self.limits)
        return self._prover

    # ------------------------------------------------------------ statements
    def run(self, prog: S.Program):
        n_steps = sum(isinstance(s, S.Step) for s in prog.statements)
        if n_steps > MAX_STEPS:
            self.err(error(f"too many steps ({n_steps}; the limit is {MAX_STEPS})", None, code="E-limit"))
            return
        if not prog.statements:
            self.rep.diagnostics.append(Diagnostic("warning", "this file has no statements", Span(prog.file, 1, 1, 1, 2),
                                                   help="start with `derivation NAME \"title\"`", code="W-empty"))
        checked_consistency = False
        for st in prog.statements:
            if isinstance(st, S.Step) and not checked_consistency:
                self.consistency()
                checked_consistency = True
            try:
                getattr(self, "s_" + type(st).__name__)(st)
            except StepError as e:
                self.err(e)
        if self.why:
            from . import counterexamples

            counterexamples.why_pass(self)

    def s_Derivation(self, st: S.Derivation):
        self.rep.name = st.name.name
        self.rep.title = st.title

    def s_Source(self, st: S.Source):
        self.rep.source = st.text

    # numeric statements (check, table, simulate) live in numeric.py
    def s_Check(self, st):
        from . import numeric

        self._record(numeric.check_statement(self, st))

    def s_Table(self, st):
        from . import numeric

        for res in numeric.table_statement(self, st):
            self._record(res)

    def s_Simulate(self, st):
        from . import numeric

        self._record(numeric.simulate_statement(self, st))

    def _record(self, res: StepResult):
        if res.name in self.steps or res.name in self.facts:
            raise error(f"the name `{res.name}` is used twice", res.span, code="E-redeclared")
        self.steps[res.name] = res
        self.rep.steps.append(res)
        self.step_facts.setdefault(res.name, [])

    def s_Use(self, st: S.Use):
        raise error("`use` is not supported by this version of stepcheck", st.span, code="E-unsupported")

    def s_Let(self, st: S.Let):
        self._prover = None  # new declarations: the kernel's Decls change
        el = Elaborator(self.scope)
        if st.type.kind == "index":
            lo, hi = el.expr(st.type.lo), el.expr(st.type.hi)
            for v, node in ((lo, st.type.lo), (hi, st.type.hi)):
                if not v.is_integer:
                    raise error("an index range needs whole-number bounds", node.span,
                                help="declare the bound with `let n: positive integer`", code="E-index")
            for nm in st.names:
                sym = Symbol(nm.name, integer=True)
                if nm.name in self.implicit_index and self.scope.index_ranges.get(sym) == (lo, hi):
                    self.implicit_index.discard(nm.name)  # the same index, declared explicitly later
                    continue
                self.declare(nm, "index", sym)
                self.scope.index_ranges[sym] = (lo, hi)
            return
        assumptions = KIND_OF_TYPE.get(st.type.kind)
        if assumptions is None:
            raise error(f"unknown type `{st.type.kind}`", st.type.span, code="E-type")
        for nm in st.names:
            self.declare(nm, "dimension" if "integer" in st.type.kind else "real", Symbol(nm.name, **assumptions))

    def _family(self, st, names, random: bool):
        el = Elaborator(self.scope)
        fr = st.family
        lo, hi = el.expr(fr.lo), el.expr(fr.hi)
        for v, node in ((lo, fr.lo), (hi, fr.hi)):
            if not v.is_integer:
                raise error("a family range needs whole-number bounds", node.span, code="E-index")
        var = fr.var.name
        if var not in self.scope.symbols:
            # `for i in 1..n` declares i as an index over 1..n unless it is declared already
            sym = Symbol(var, integer=True)
            self.declare(fr.var, "index", sym)
            self.scope.index_ranges[sym] = (lo, hi)
            self.implicit_index.add(var)
        elif self.scope.kinds.get(var) != "index":
            raise error(f"`{var}` is not an index", fr.var.span, help=f"declare it with `let {var}: index {lo}..{hi}`",
                        code="E-index")
        for nm in names:
            n = nm.name
            if not n.endswith("_" + var):
                raise error(f"`{n}` does not use the family index `{var}`", nm.span,
                            help=f"write `{n}_{var}` (the family is indexed by `{var}`)", code="E-family")
            base = n[: -len(var) - 1]
            if base in self.scope.families or base in self.scope.symbols:
                raise error(f"`{base}` is declared twice", nm.span, code="E-redeclared")
            self.scope.families[base] = Family(IndexedBase(base, real=True), var, lo, hi, random, nm.span)
            self.scope.spans[base] = nm.span

    def s_Random(self, st: S.Random):
        self._prover = None  # new declarations: the kernel's Decls change
        if st.family is not None:
            self._family(st, st.names, True)
        else:
            for nm in st.names:
                sym = Symbol(nm.name, real=True)
                self.declare(nm, "random", sym)
                self.scope.random_symbols.add(sym)
        if st.distribution is not None:
            self.distribution(st)

    def distribution(self, st: S.Random):
        """Register the declared law and give the kernel its moments (see distributions.py)."""
        from . import distributions

        distributions.declare(self, st)

    def s_RealDecl(self, st: S.RealDecl):
        self._prover = None  # new declarations: the kernel's Decls change
        if st.family is not None:
            self._family(st, st.names, False)
        else:
            for nm in st.names:
                self.declare(nm, "real", Symbol(nm.name, real=True))

    def s_Define(self, st: S.Define):
        n = st.name.name
        el = Elaborator(self.scope)
        params = ()
        if "_" in n and n not in self.scope.symbols:
            base, suffix = n.rsplit("_", 1)
            iv = el.index_value(suffix, st.name.span)
            if iv is not None and iv.is_Symbol:
                n, params = base, (iv,)
        if n in self.scope.symbols or n in self.scope.families or n in self.scope.defines:
            raise error(f"`{n}` is declared twice", st.name.span, code="E-redeclared")
        body = el.expr(st.body)
        self.scope.defines[n] = Definition(n, params, body, st.span)
        self.scope.spans[n] = st.name.span

    def s_Assume(self, st: S.Assume):
        label = st.label.name
        if label in self.facts or label in self.steps:
            raise error(f"the label `{label}` is used twice", st.label.span, code="E-redeclared")
        el = Elaborator(self.scope)
        kfacts, texts, kinds = [], [], []
        for f in st.facts:
            distinct = ()
            if f.cond is not None:
                a, b = el.name(f.cond.left), el.name(f.cond.right)
                distinct = ((a, b),)
            if isinstance(f, S.IndepFact):
                kf = self.indep_fact(label, f, el, distinct)
            else:
                lhs, rhs = el.expr(f.left), el.expr(f.right)
                free = tuple(sorted({s for s in (lhs - rhs).free_symbols if s in self.scope.index_ranges},
                                    key=lambda s: s.name))
                if f.rel != "=":
                    kf = IneqFact(label, lhs, rhs, f.rel, free=free, distinct=distinct, text=self.src(f.span))
                    kfacts.append(kf)
                    texts.append(self.src(f.span))
                    kinds.append("sign" if not (lhs.has(E, Var, Cov, SD) or rhs.has(E, Var, Cov, SD)) else "inequality")
                    continue
                kf = EqFact(label, lhs, rhs, free=free, distinct=distinct, text=self.src(f.span))
            kfacts.append(kf)
            texts.append(self.src(f.span))
            kinds.append(getattr(kf, "_kind", None) or fact_kind(kf))
        self.facts[label] = kfacts
        self.fact_kinds[label] = kinds[0] if len(set(kinds)) == 1 else " + ".join(dict.fromkeys(kinds))
        self.labels_span[label] = st.label.span
        self.rep.assumptions.append(AssumptionInfo(label, self.fact_kinds[label], texts, kinds, st.span))
        if self.steps:  # an assumption after the first step: check its group again
            self.consistency(label)

    def indep_fact(self, label, f: S.IndepFact, el: Elaborator, distinct):
        if f.kind == "uncorrelated":
            if len(f.args) != 2:
                raise error("`uncorrelated` takes two random variables", f.span, code="E-arity")
            a, b = el.expr(f.args[0]), el.expr(f.args[1])
            free = tuple(sorted({s for s in (a + b).free_symbols if s in self.scope.index_ranges}, key=lambda s: s.name))
            kf = EqFact(label, Cov(a, b), sympy.Integer(0), free=free, distinct=distinct, text=self.src(f.span))
            return kf
        if len(f.args) < 2 and not (len(f.args) == 1 and isinstance(f.args[0], S.Name)
                                    and f.args[0].name in self.scope.families):
            raise error("`independent` needs at least two random variables or a family", f.span, code="E-arity")
        families, members = [], []
        for a in f.args:
            if isinstance(a, S.Name) and a.name in self.scope.families:
                fam = self.scope.families[a.name]
                if not fam.random:
                    raise error(f"`{a.name}` is not random", a.span, code="E-not-random")
                families.append(a.name)
                continue
            v = el.expr(a)
            if not (v in self.scope.random_symbols or (isinstance(v, sympy.Indexed) and
                                                       self.scope.families.get(str(v.base.label)) and
                                                       self.scope.families[str(v.base.label)].random)):
                raise error("`independent` takes random variables or random families", a.span, "not a random variable",
                            code="E-not-random")
            members.append(v)
        free = tuple(sorted({s for m in members for s in m.free_symbols if s in self.scope.index_ranges},
                            key=lambda s: s.name))
        return IndepFact(label, families=tuple(families), members=tuple(members), free=free, distinct=distinct,
                         text=self.src(f.span))

    def consistency(self, new_label: str | None = None):
        """Check the assumptions for contradictions.

        After a later `assume`, only the facts connected to it through shared
        names are re-checked: the others were consistent before and share
        nothing with it, so a new contradiction must involve its group.
        """
        if not self.facts:
            return
        facts = self.facts
        if new_label is not None:
            names = [getattr(n, "name", str(n)) for n in self._fact_names(new_label)]
            group = set(self.relevant_facts(names)) | {new_label}
            facts = {lab: fs for lab, fs in self.facts.items() if lab in group}
        try:
            bad = check_consistency(self.prover.decls, facts, self.limits, cache=self._consistency_cache)
        except Exception:  # a limit or an unsupported shape: no verdict
            bad = None
        if bad and not set(bad) <= self.contradiction:
            self.contradiction |= set(bad)
            first = self.labels_span.get(bad[0])
            self.rep.diagnostics.append(Diagnostic(
                "error", "contradictory assumptions: " + ", ".join(f"`{b}`" for b in bad), first,
                "these facts cannot all hold",
                notes=["from contradictory facts every claim would follow; no step is counted as verified from them"],
                help="fix the values (a variance cannot be negative; one quantity cannot have two values)",
                code="E-inconsistent"))

    # ------------------------------------------------------------ steps
    def s_Step(self, st: S.Step):
        name = st.name.name
        if name in self.steps or name in self.facts:
            raise error(f"the name `{name}` is used twice", st.name.span, code="E-redeclared")
        if st.kind == "refute":
            from . import counterexamples

            res = counterexamples.refute_step(self, st)
            self.steps[name] = res
            self.rep.steps.append(res)
            self.step_facts[name] = []
            return
        el = Elaborator(self.scope)
        exprs, defs = [], []
        ok = True
        for node in [st.first] + [lk.rhs for lk in st.links]:
            el.used_defs = set()
            try:
                exprs.append(el.expr(node))
            except StepError as e:
                self.err(e)
                exprs.append(None)
                ok = False
            defs.append(set(el.used_defs))
        res = StepResult(name, st.span, "step", "", "=", [], HOLDS)
        rels = [lk.rel for lk in st.links]
        res.rel = _compose(rels)
        res.statement = f"{self.src(st.first.span)} {REL_TEXT.get(res.rel, res.rel)} {self.src(st.links[-1].rhs.span)}"
        rests, cited_steps = [], []
        prev_node = st.first
        for k, lk in enumerate(st.links):
            lhs, rhs = exprs[k], exprs[k + 1]
            lr = LinkResult(k + 1, lk.rel, self.src(prev_node.span), self.src(lk.rhs.span), lk.span, UNKNOWN,
                            cited=[r.text for r in lk.refs])
            prev_node = lk.rhs
            lr.lhs_expr, lr.rhs_expr = lhs, rhs
            self._link_defs = defs[k] | defs[k + 1]  # definitions this link unfolds
            t0 = time.perf_counter()
            if lhs is None or rhs is None:
                lr.message = "not checked: the expression has an error (see above)"
            else:
                self.check_link(lr, lk, lhs, rhs, name)
            lr.seconds = time.perf_counter() - t0
            for u in lr.uses:
                if u.kind == "step":
                    cited_steps.append(u.label)
                    rests.extend(self.steps[u.label].rests_on)
                else:
                    rests.append(u.label)
            res.links.append(lr)
        sts = [lk.status for lk in res.links]
        res.status = FAILS if FAILS in sts else (UNKNOWN if UNKNOWN in sts else HOLDS)
        res.rests_on = list(dict.fromkeys(rests))
        res.steps_cited = list(dict.fromkeys(cited_steps))
        self.steps[name] = res
        self.rep.steps.append(res)
        if res.status == HOLDS:
            self._verified.append(name)
        # the proven statement becomes a fact for later steps
        if ok and res.rel == "=" and exprs[0] is not None and exprs[-1] is not None:
            free = tuple(sorted({s for s in (exprs[0] - exprs[-1]).free_symbols if s in self.scope.index_ranges},
                                key=lambda s: s.name))
            self.step_facts[name] = [EqFact(name, exprs[0], exprs[-1], free=free, text=res.statement)]
        else:
            self.step_facts[name] = []

    def resolve_refs(self, lk: S.Link, current: str):
        labels, rules, bad = [], [], False
        for r in lk.refs:
            t = r.text
            if t in self.facts:
                labels.append(t)
            elif t in self.steps:
                labels.append(t)
            elif t in RULES:
                rules.append(t)
            elif t.startswith("def ") and t[4:] in self.scope.defines:
                rules.append(t)
            elif t in self.scope.defines:
                rules.append(f"def {t}")  # `by p` is the same as `by def p`
            elif t == current:
                self.err(error(f"step `{t}` cites itself", r.span, code="E-circular"))
                bad = True
            else:
                cands = list(self.facts) + list(self.steps) + sorted(RULES) + [f"def {d}" for d in self.scope.defines]
                guess = closest(t, cands)
                self.err(error(f"unknown reference `{t}`", r.span, "not an assumption, step or rule",
                               help=f"did you mean `{guess}`?" if guess else
                               "cite an assumption label, an earlier step, or a rule name", code="E-unknown-ref"))
                bad = True
        return labels, rules, bad

    def check_link(self, lr: LinkResult, lk: S.Link, lhs, rhs, current: str):
        if lk.rel not in ("=", "<", "<=", ">", ">="):
            lr.status = UNKNOWN
            lr.message = f"the relation `{lk.rel}` cannot be a step of a chain (use `=`, `<`, `<=`, `>`, `>=`)"
            lr.diagnostics.append(Diagnostic("error", f"`{lk.rel}` is not a chain relation", lk.span,
                                             "not checked", code="E-relation"))
            return
        cited, cited_rules, bad = self.resolve_refs(lk, current)
        if bad:
            lr.message = "not checked: a reference is unknown (see above)"
            return
        # only verified steps are inferred; a cited unverified step is flagged below
        all_labels = self.relevant(lhs, rhs)
        candidates = cited if lk.has_by else all_labels
        if lk.has_by:
            # declared distributions are part of the declarations: usable without citing them
            candidates = candidates + [c for c in all_labels
                                       if self.fact_kinds.get(c) == "distribution" and c not in candidates]
        if self.contradiction & set(candidates):
            lr.status = UNKNOWN
            lr.message = "rests on contradictory assumptions: " + ", ".join(sorted(self.contradiction))
            return
        out = self.prover.prove(lhs, rhs, candidates, lk.rel)
        if out.status != HOLDS and lk.has_by:
            wider = [c for c in all_labels if not (self.contradiction and c in self.contradiction)]
            out_all = self.prover.prove(lhs, rhs, wider, lk.rel)
            # "cites too little" only when both proofs ran to completion (a limit proves nothing)
            if out_all.status == HOLDS and not out.limited and not out_all.limited:
                missing = [u for u in out_all.used if u not in cited]
                lr.status = FAILS
                lr.missing = missing
                self.fill_uses(lr, out_all)
                lr.message = "does not follow from what is cited; it also needs " + ", ".join(f"`{m}`" for m in missing)
                lr.diagnostics.append(Diagnostic(
                    "error", "this step cites too little", _refs_span(lk),
                    "needs " + ", ".join(f"`{m}`" for m in missing),
                    notes=[f"`{m}`: {self.describe(m)}" for m in missing],
                    help="add " + ", ".join(f"`{m}`" for m in missing) + " to its `by` list", code="E-cites-too-little"))
                # show why: a model of the cited facts alone in which the link is false
                from . import counterexamples

                counterexamples.attach_counterexample(self, lr, lhs, rhs, cited, out)
                return
            if out_all.status == FAILS:
                out = out_all
        lr.rules = list(out.rules)
        shaky = [u for u in out.used if u in self.steps and self.steps[u].status != HOLDS]
        if out.status == HOLDS and shaky:
            lr.status = UNKNOWN
            self.fill_uses(lr, out)
            lr.message = "follows only from " + ", ".join(f"`{u}`" for u in shaky) + ", which is not verified"
            lr.diagnostics.append(Diagnostic(
                "error", "this step rests on an unverified step", lk.span,
                "uses " + ", ".join(f"`{u}`" for u in shaky),
                notes=[f"`{u}` is {self.steps[u].status}" for u in shaky],
                help="fix the cited step first", code="E-unverified-citation"))
            return
        if out.status == HOLDS:
            lr.status = HOLDS
            self.fill_uses(lr, out)
            if self.do_cross_check:
                from . import counterexamples

                counterexamples.cross_check(self, lr, lhs, rhs, out)
            if out.message:
                lr.message = out.message
            unfolded = {f"def {d}" for d in getattr(self, "_link_defs", set())}
            lr.rules.extend(sorted(unfolded))
            for r in cited_rules:
                if r.startswith("def ") and r[4:] in self.scope.defines:
                    if r not in unfolded:
                        lr.unneeded.append(r)  # cited a definition the link does not use
                elif r not in out.rules:
                    lr.unneeded.append(r)
            for c in cited:
                if c not in out.used:
                    lr.unneeded.append(c)
            if lr.unneeded:
                sev = "error" if self.strict else "warning"
                lr.diagnostics.append(Diagnostic(
                    sev, "cited but not needed: " + ", ".join(f"`{u}`" for u in lr.unneeded), _refs_span(lk),
                    "holds without " + ", ".join(f"`{u}`" for u in lr.unneeded),
                    help="remove it from `by`" + (" (an error under --strict)" if self.strict else ""),
                    code="E-unneeded" if self.strict else "W-unneeded"))
            return
        lr.status = out.status
        lr.message = out.message
        lr.residual = _show_expr(out.residual) if out.residual is not None else None
        from . import counterexamples

        # a finite model satisfying the candidate facts refutes the link (sets lr.status)
        counterexamples.attach_counterexample(self, lr, lhs, rhs, candidates, out)
        if out.witness and lr.counterexample is None:
            # no model, but the kernel's own witness (concrete values) refutes it
            lr.counterexample = out.witness
            lr.diagnostics = [d for d in lr.diagnostics if d.code != "N-no-counterexample"]
        notes = []
        if lr.residual is not None:
            notes.append(f"left side − right side reduces to: {lr.residual}")
        if out.witness and lr.counterexample == out.witness:
            what = "the two sides differ by" if lk.rel == "=" else "the inequality fails: its margin is"
            notes.append(f"counterexample: {out.witness}: {what} {_show_expr(out.witness_value)}")
        elif out.message and lr.status == UNKNOWN and lr.residual is None:
            notes.append(out.message)
        if lr.status == FAILS:
            lr.diagnostics.append(Diagnostic("error", "this step does not hold", _claim_span(lk),
                                             "the two sides differ" if lk.rel == "=" else "the inequality is false",
                                             notes=notes, code="E-fails"))
        else:
            notes.append("not proved is not the same as false")
            lr.diagnostics.append(Diagnostic(
                "error", "could not verify this step", _claim_span(lk), "not proved", notes=notes,
                help=None if lk.has_by else "cite the facts it needs with `by`, or split it into smaller steps",
                code="E-unknown"))

    def _names(self, x) -> set:
        out = set()
        for a in x.free_symbols:
            out.add(a.base.label if isinstance(a, sympy.Indexed) else a)
        return {a for a in out if a not in self.scope.index_ranges}

    def _fact_names(self, label) -> frozenset:
        """Names a fact mentions (cached: facts never change once declared)."""
        cache = self.__dict__.setdefault("_fact_names_cache", {})
        got = cache.get(label)
        if got is None:
            got = cache[label] = frozenset(self._fact_names_uncached(label))
        return got

    def _fact_names_uncached(self, label) -> set:
        out = set()
        for f in self.step_facts[label] if label in self.step_facts else self.facts.get(label, []):
            if isinstance(f, IndepFact):
                out |= {sympy.Symbol(n) for n in f.families}
                out |= {IndexedBase(n).label for n in f.families}
                for m in f.members:
                    out |= self._names(m)
            else:
                out |= self._names(f.lhs - f.rhs) if not isinstance(f.lhs, int) else set()
                out |= self._names(sympy.Integer(0) + f.rhs) if not isinstance(f.rhs, int) else set()
        return out

    def relevant(self, lhs, rhs) -> list:
        """The candidates connected to the link through shared names (transitively).

        Candidates are the verified steps with a fact (in the order they were
        verified), then the assumptions (in the order written).  A fact sharing
        no name with the link, directly or through other candidates, cannot
        help prove it (contradictions are checked apart).  Names are compared
        by their text (a family `q` and its members share `q`).
        """
        names = [getattr(n, "name", str(n)) for n in self._names(lhs) | self._names(rhs)]
        vpos, fpos = self._index_labels()
        chosen = self._connected(names, lambda lab: lab in fpos or lab in vpos)
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
        index = self.__dict__.setdefault("_name_index", {})
        vpos = self.__dict__.setdefault("_verified_pos", {})
        fpos = self.__dict__.setdefault("_fact_pos", {})
        new = []
        for name in itertools.islice(self._verified, len(vpos), None):
            vpos[name] = len(vpos)
            new.append(name)
        if len(self.facts) > len(fpos):
            for lab in itertools.islice(self.facts, len(fpos), None):
                fpos[lab] = len(fpos)
                new.append(lab)
        for lab in new:  # a verified step without a fact (a numeric check) has no name: never a candidate
            for n in self._fact_names(lab):
                index.setdefault(getattr(n, "name", str(n)), set()).add(lab)
        return vpos, fpos

    def _connected(self, names, allowed) -> set:
        index = self.__dict__.get("_name_index", {})
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
                    todo.extend(getattr(n, "name", str(n)) for n in self._fact_names(lab))
        return chosen

    def describe(self, label: str) -> str:
        if label in self.steps:
            return f"step: {self.steps[label].statement}"
        info = next((a for a in self.rep.assumptions if a.label == label), None)
        return f"{info.kind}: " + ", ".join(info.facts) if info else label

    def fill_uses(self, lr: LinkResult, out):
        for lab in out.used:
            if lab in self.steps:
                lr.uses.append(Use(lab, "step", detail=self.steps[lab].statement))
            else:
                lr.uses.append(Use(lab, self.fact_kinds.get(lab, "equation"), weakest=out.weakest.get(lab)))
        for r in out.ranges:
            lo, hi = self.scope.index_ranges[r]
            lr.uses.append(Use(f"range of {r}", "range", implicit=True, detail=f"{r} in {lo}..{hi}"))
        for sym in getattr(out, "signs", []):
            name = getattr(sym, "name", str(sym))
            sign = "> 0" if sym.is_positive else (">= 0" if sym.is_nonnegative else "< 0")
            lr.uses.append(Use(f"{name} {sign}", "sign", implicit=True, detail="from its declaration"))


def _claim_span(lk: S.Link) -> Span:
    """From the relation to the end of the right-hand side (not the `by` list)."""
    return lk.span.to(lk.rhs.span)


def _refs_span(lk: S.Link) -> Span:
    if lk.refs:
        return lk.refs[0].span.to(lk.refs[-1].span)
    return lk.span


def _num(x):
    return sympy.Integer(x) if isinstance(x, int) else x


def _compose(rels):
    if any(r == "≈" for r in rels):
        return "≈"
    strict = any(r in ("<", ">") for r in rels)
    if all(r == "=" for r in rels):
        return "="
    if all(r in ("=", "<", "<=") for r in rels):
        return "<" if strict else "<="
    if all(r in ("=", ">", ">=") for r in rels):
        return ">" if strict else ">="
    return "?"


def _show_expr(x) -> str:
    from .terms.printer import show

    return show(x)
