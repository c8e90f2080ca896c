"""The checker: runs a parsed file through the elaborator and the kernel.

It walks the statements in order, builds the scope, turns assumptions into
kernel facts, and checks every link of every step: with ``by``, the cited
facts must suffice; without it, everything in scope is a candidate.  It is a
driver over the :class:`~stepcheck.state.FileState` it owns: the kernel
proves, the judge (``stepcheck.judge``) gives verdicts, and this module turns
judgements into results and diagnostics.
"""
from __future__ import annotations

import contextlib
import gc
import time
from collections import ChainMap

import sympy
from sympy import IndexedBase, Integer, KroneckerDelta, Symbol

from . import syntax as S
from .assumptions import fact_kind, implied_facts, inequality_kind
from .elaborate import DEFINED, KIND_OF_TYPE, Definition, Elaborator, Family
from .judge.domains import always_defined, condition_texts, discharging_facts, law_defined, open_conditions
from .uses import built_signs, domain_uses, fill_uses
from .errors import Diagnostic, Span, StepError, clip, closest, error, redeclared
from .judge import settle, settle_step
from .judge.link import BY_HELP, LinkJudgement, judge_link
from .matrices import Mat, MatrixDecl, entrywise
from .kernel import LinkProver
from .kernel.rules import RULES
from .link_cache import judged
from .link_notes import _MARGIN, _search_note, _show_expr, _unknown_help
from .options import Options
from .results import FAILS, HOLDS, UNKNOWN, AssumptionInfo, FileReport, LinkResult, StepResult
from .state import FileState
from .terms.facts import Deadline, Decls, EqFact, IneqFact, Limits
from .terms.printer import show

MAX_STEPS = 2000
REL_TEXT = {"=": "=", "<": "<", "<=": "≤", ">": ">", ">=": "≥", "!=": "≠", "≈": "≈"}


def check_file(path: str, options: Options | None = None, *, strict: bool | None = None,
               timeout: float | None = None, why: bool | None = None, cross_check: bool | None = None) -> FileReport:
    """Check a ``.step`` file under ``options`` (keyword arguments override single fields)."""
    from .markdown import read_any as read_source  # a Markdown file: its ```step blocks (markdown.py)

    try:
        text = read_source(path)
    except StepError as e:
        rep = FileReport(path=path, text="", fatal=True)
        rep.diagnostics.append(e.diagnostic)
        return rep
    return check_text(text, path, options, strict=strict, timeout=timeout, why=why, cross_check=cross_check)


def check_text(text: str, file: str = "<string>", options: Options | None = None, *, strict: bool | None = None,
               timeout: float | None = None, why: bool | None = None, cross_check: bool | None = None) -> FileReport:
    """Check ``.step`` source text under ``options`` (keyword arguments override single fields)."""
    from .parser import MAX_FILE_BYTES, parse

    if not isinstance(file, str) or not (options is None or isinstance(options, Options)):
        raise TypeError("check_text(text, file, options): `file` is the name shown in diagnostics, "
                        "`options` an Options")
    options = (options or Options()).but(strict=strict, timeout=timeout, why=why, cross_check=cross_check)
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
    rep.program = prog
    with _fewer_collections():
        Checker(rep, options).run(prog)
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
    """The driver: walks the statements, owns the file's state, records what the helpers return."""

    def __init__(self, rep: FileReport, options: Options | None = None):
        self.rep = rep
        self.options = options or Options()
        self.limits = Limits(seconds=self.options.timeout)
        self.state = FileState(rep, timeout=self.options.timeout)
        self._prover = None
        self._link_defs: set = set()  # definitions the current link unfolds
        # the current link's side conditions: texts, (x, rel), {label: condition} of the assumptions discharging one
        self._link_where, self._link_domain, self._link_gives, self._link_unproved = frozenset(), [], {}, []

    # ------------------------------------------------------------ utilities
    def err(self, e: StepError):
        self.rep.diagnostics.append(e.diagnostic)
        self.rep.fatal = True  # input errors: exit code 2

    def src(self, span: Span) -> str:
        return self.state.src(span)

    def deadline(self) -> Deadline:
        """A fresh budget for one link: everything done for the link spends from it."""
        return Deadline(self.options.timeout)

    def _redeclared(self, n: str, span):
        sc = self.state.scope  # a family or an indexed `define y_i` declares `y`
        return redeclared(n, span, sc.spans.get(n), n in sc.families or bool(getattr(sc.defines.get(n), "params", ())))

    def declare(self, name: S.Name, kind: str, sym):
        n = name.name
        scope = self.state.scope
        if n in scope.symbols or n in scope.families or n in scope.defines or n in scope.matrices:
            raise self._redeclared(n, name.span)
        scope.symbols[n] = sym
        scope.kinds[n] = kind
        scope.spans[n] = name.span

    @property
    def prover(self) -> LinkProver:
        if self._prover is None:
            scope = self.state.scope
            decls = Decls(
                random_symbols=frozenset(scope.random_symbols),
                random_families=frozenset(n for n, f in scope.families.items() if f.random),
                index_ranges=dict(scope.index_ranges),
                family_ranges={n: (f.lo, f.hi) for n, f in scope.families.items()},
                order={n: k for k, n in enumerate(scope.spans)})
            # a live view: facts added later are seen without rebuilding the prover (and its caches)
            self._prover = LinkProver(decls, ChainMap(self.state.facts, self.state.step_facts), self.limits)
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
        if self.options.why:
            from . import counterexamples

            counterexamples.why_pass(self.state, self.prover.decls)

    def s_Derivation(self, st: S.Derivation):
        self.rep.name = st.name.name
        self.rep.title = st.title

    def s_Source(self, st: S.Source):
        self.rep.source = st.text

    # numeric statements: check and table in numeric.py, simulate in simulate.py
    def s_Check(self, st):
        from . import numeric

        self._record(numeric.check_statement(self.state, st))

    def s_Table(self, st):
        from . import numeric

        for res in numeric.table_statement(self.state, st):
            self._record(res)

    def s_Simulate(self, st):
        from . import simulate

        self._record(simulate.simulate_statement(self.state, st))

    def _record(self, res: StepResult):
        state = self.state
        if res.name in state.steps or res.name in state.facts:
            raise error(f"the name `{res.name}` is used twice", res.span, code="E-redeclared")
        state.steps[res.name] = res
        self.rep.steps.append(res)
        state.step_facts.setdefault(res.name, [])

    def s_Use(self, st: S.Use):
        raise error("`use` is not supported by this version of stepcheck", st.span, code="E-unsupported")

    def s_Let(self, st: S.Let):
        self._prover = None  # new declarations: the kernel's Decls change
        scope = self.state.scope
        el = Elaborator(scope)
        if st.type.kind == "index":
            lo, hi = el.expr(st.type.lo), el.expr(st.type.hi)
            for v, node in ((lo, st.type.lo), (hi, st.type.hi)):
                if not v.is_integer:
                    raise error("an index range needs whole-number bounds", node.span,
                                help="declare the bound with `let n: positive integer`", code="E-index")
            if (hi - lo).is_negative:  # 5..1: no index has a value, so every claim about one would hold
                raise error("this index range is empty", st.type.span, f"{lo}..{hi} has no member",
                            help=f"write the smaller bound first: {hi}..{lo}", code="E-index")
            for nm in st.names:
                sym = Symbol(nm.name, integer=True)
                if nm.name in self.state.implicit_index and scope.index_ranges.get(sym) == (lo, hi):
                    self.state.implicit_index.discard(nm.name)  # the same index, declared explicitly later
                    continue
                self.declare(nm, "index", sym)
                scope.index_ranges[sym] = (lo, hi)
            return
        if st.type.kind == "matrix":
            return self.matrix(st, el)
        assumptions = KIND_OF_TYPE.get(st.type.kind)
        if assumptions is None:
            raise error(f"unknown type `{st.type.kind}`", st.type.span, code="E-type")
        for nm in st.names:
            self.declare(nm, "dimension" if "integer" in st.type.kind else "real", Symbol(nm.name, **assumptions))

    def matrix(self, st: S.Let, el: Elaborator):
        """``let Q, K: matrix n × d_k``: matrices of real entries ``Q_{i, j}`` (``Q`` alone is the matrix)."""
        dims = [el.expr(d) for d in (st.type.lo, st.type.hi)]
        for bad in [d for v, d in zip(dims, (st.type.lo, st.type.hi)) if not (v.is_integer and v.is_positive)][:1]:
            raise error("a matrix dimension must be a positive whole number", bad.span,
                        help="declare it with `let n: positive integer`", code="E-index")
        for nm in st.names:
            self.declare(nm, "matrix", None)
            self.state.scope.symbols.pop(nm.name)  # not a symbol: the matrix is scope.matrices[name]
            self.state.scope.matrices[nm.name] = MatrixDecl(IndexedBase(nm.name, real=True), *dims, nm.span)

    def _entry_index(self, name: str, hi):
        sym, new = self.state.entry_index(name, hi)
        self._prover = None if new else self._prover  # a new index range: the kernel's Decls change
        return sym

    def _family(self, st, names, random: bool):
        scope = self.state.scope
        el = Elaborator(scope)
        fr = st.family
        lo, hi = el.expr(fr.lo), el.expr(fr.hi)
        for v, node in ((lo, fr.lo), (hi, fr.hi)):
            if not v.is_integer:
                raise error("a family range needs whole-number bounds", node.span, code="E-index")
        var = fr.var.name
        if var not in scope.symbols:
            # `for i in 1..n` declares i as an index over 1..n unless it is declared already
            sym = Symbol(var, integer=True)
            self.declare(fr.var, "index", sym)
            scope.index_ranges[sym] = (lo, hi)
            self.state.implicit_index.add(var)
        elif scope.kinds.get(var) != "index":
            raise error(f"`{var}` is not an index", fr.var.span, help=f"declare it with `let {var}: index {lo}..{hi}`",
                        code="E-index")
        elif (rng := scope.index_ranges.get(scope.symbols[var])) != (lo, hi):  # `for i in 1..64`, i over 1..d_k
            self.rep.diagnostics.append(Diagnostic("warning", f"`{var}` ranges over {rng[0]}..{rng[1]}, not {lo}..{hi}",
                                                   fr.var.span, "another range", code="W-family-index", help=f"give "
                                                   f"the family an index of its own: `for r in {lo}..{hi}`"))
        for nm in names:
            n = nm.name
            if not n.endswith("_" + var):
                raise error(f"`{n}` does not use the family index `{var}`", nm.span,
                            help=f"write `{n}_{var}` (the family is indexed by `{var}`)", code="E-family")
            base = n[: -len(var) - 1]
            if base in scope.families or base in scope.symbols:
                raise self._redeclared(base, nm.span)
            scope.families[base] = Family(IndexedBase(base, real=True), var, lo, hi, random, nm.span)
            scope.spans[base] = nm.span

    def s_Random(self, st: S.Random):
        self._prover = None  # new declarations: the kernel's Decls change
        if st.family is not None:
            self._family(st, st.names, True)
        else:
            for nm in st.names:
                sym = Symbol(nm.name, real=True)
                self.declare(nm, "random", sym)
                self.state.scope.random_symbols.add(sym)
        if st.distribution is not None:
            self.distribution(st)

    def distribution(self, st: S.Random):
        """Record the declared laws and the moment facts they give the kernel (see distributions.py)."""
        from . import distributions

        distributions.record(self.state, st, self.rep)

    def s_RealDecl(self, st: S.RealDecl):
        self._prover = None  # new declarations: the kernel's Decls change
        if st.family is not None:
            self._family(st, st.names, False)
        else:
            for nm in st.names:
                self.declare(nm, "real", Symbol(nm.name, real=True))

    def s_Define(self, st: S.Define):
        scope = self.state.scope
        n = st.name.name
        el, params = Elaborator(scope), ()
        if "_" in n and n not in scope.symbols:
            base, suffix = n.rsplit("_", 1)
            iv = el.index_value(suffix, st.name.span)
            if iv is not None and iv.is_Symbol:
                n, params = base, (iv,)
        if n in scope.symbols or n in scope.families or n in scope.defines or n in scope.matrices:
            raise self._redeclared(n, st.name.span)
        body = el.mexpr(st.body) if not params else el.expr(st.body)
        signs = tuple(built_signs(scope, st.body, body))  # the declared signs sympy used to build it
        scope.defines[n] = Definition(n, params, body, st.span, tuple(el.conditions), signs)
        scope.spans[n] = st.name.span

    def s_Assume(self, st: S.Assume):
        state = self.state
        label = st.label.name
        if label in state.facts or label in state.steps:
            raise error(f"the label `{label}` is used twice", st.label.span, code="E-redeclared")
        el = Elaborator(state.scope)
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
                free = self._free(lhs - rhs)
                if f.rel != "=":
                    kf = IneqFact(label, lhs, rhs, f.rel, free=free, distinct=distinct, text=self.src(f.span))
                    kfacts.append(kf)
                    texts.append(self.src(f.span))
                    kinds.append(inequality_kind(lhs, rhs))
                    continue
                kf = EqFact(label, lhs, rhs, free=free, distinct=distinct, text=self.src(f.span))
            kfacts.append(kf)
            texts.append(self.src(f.span))
            kinds.append(fact_kind(kf))
        # an assumption presupposes that what it writes has a real value: sqrt(R) that R >= 0 on every outcome,
        # 1/c that c != 0; implied facts of the same label, so the check for contradictions reads them too
        kfacts += implied_facts(kfacts, state)  # SD(X) = σ: Var(X) = σ^2, σ >= 0; |u| <= c: u <= c, -u <= c
        for x, rel in [c for c in el.conditions if c[1] != DEFINED] + el.random_needs:
            kfacts.append(IneqFact(label, x, Integer(0), rel, free=self._free(x), text=f"{show(x)} {REL_TEXT.get(rel, rel)} 0 for what `{label}` writes to have a real value"))
        state.facts[label] = kfacts
        state.fact_kinds[label] = kinds[0] if len(set(kinds)) == 1 else " + ".join(dict.fromkeys(kinds))
        state.labels_span[label] = st.label.span
        self.rep.assumptions.append(AssumptionInfo(label, state.fact_kinds[label], texts, kinds, st.span))
        if state.steps:  # an assumption after the first step: check its group again
            self.consistency(label)

    def _free(self, expr) -> tuple:
        """The declared index symbols free in ``expr`` (a fact is quantified over them)."""
        ranges = self.state.scope.index_ranges
        return tuple(sorted({s for s in expr.free_symbols if s in ranges}, key=lambda s: s.name))

    def indep_fact(self, label, f: S.IndepFact, el: Elaborator, distinct):
        from .assumptions import independence_fact

        return independence_fact(self, label, f, el, distinct)

    def consistency(self, new_label: str | None = None):
        """Check the assumptions for contradictions (see :func:`stepcheck.assumptions.consistency`)."""
        from .assumptions import consistency

        consistency(self, new_label)

    # ------------------------------------------------------------ steps
    def s_Step(self, st: S.Step):
        state = self.state
        name = st.name.name
        if name in state.steps or name in state.facts:
            raise error(f"the name `{name}` is used twice", st.name.span, code="E-redeclared")
        for lk in S.one_line_citations(st):  # `= A = B by r`: the `by` is B's alone; say so
            self.rep.diagnostics.append(Diagnostic("warning", ONE_LINE_BY, lk.span, "checked against every "
                                                   "assumption in scope", code="W-one-line-by", help=ONE_LINE_HELP))
        if st.kind == "refute":
            from . import counterexamples

            res = counterexamples.refute_step(self, st)
            state.steps[name] = res
            self.rep.steps.append(res)
            state.step_facts[name] = []
            return
        el = Elaborator(state.scope)
        exprs, defs = [], []
        ok = True
        conds = []
        for node in [st.first] + [lk.rhs for lk in st.links]:
            el.used_defs, el.conditions, el.unproved_means = set(), [], []
            try:
                exprs.append(el.mexpr(node))
                law_defined(state, el.conditions, node)  # a guard the declared laws break: E-undefined
            except StepError as e:
                self.err(e)
                exprs[len(defs):] = [None]
                ok = False
            defs.append(set(el.used_defs))
            conds.append((list(el.conditions), list(el.unproved_means)))
        guard, distinct = self._condition(st, el)
        res = StepResult(name, st.span, "step", "", "=", [], UNKNOWN)
        rels = [lk.rel for lk in st.links]
        res.rel = S.compose_relations(rels)
        res.statement = f"{self.src(st.first.span)} {REL_TEXT.get(res.rel, res.rel)} {self.src(st.links[-1].rhs.span)}"
        if st.cond is not None:
            res.statement += " " + self.src(st.cond.span)
        rests, cited_steps, step_where = [], [], frozenset()
        prev_node = st.first
        for k, lk in enumerate(st.links):
            lhs, rhs = exprs[k], exprs[k + 1]
            lr = LinkResult(k + 1, lk.rel, self.src(prev_node.span), self.src(lk.rhs.span), lk.span, UNKNOWN,
                            cited=[r.text for r in lk.refs])
            prev_node = lk.rhs
            lr.lhs_expr, lr.rhs_expr = lhs, rhs
            self._link_defs = defs[k] | defs[k + 1]  # definitions this link unfolds
            t0 = time.perf_counter()
            if lhs is not None and rhs is not None and (isinstance(lhs, Mat) or isinstance(rhs, Mat)):  # entrywise
                try:
                    lhs, rhs = entrywise(lhs, rhs, self._entry_index, lk.span)
                except StepError as e:
                    self.err(e)
                    lhs = ok = None
                lr.lhs_expr = lr.rhs_expr = None
            if lhs is None or rhs is None or guard is None:
                lr.message = "not checked: the expression has an error (see above)"
            else:
                # under `for i != j` the link is checked as lhs (1 - δ_ij) = rhs (1 - δ_ij): the same claim
                # where i ≠ j, and 0 = 0 where i = j (so no counterexample can put i = j)
                both = conds[k][0] + [c for c in conds[k + 1][0] if c not in conds[k][0]]
                self._link_unproved = conds[k][1] + [t for t in conds[k + 1][1] if t not in conds[k][1]]
                where = [c for c in both if c[1] != DEFINED]  # guards (DEFINED) only keep witnesses in
                # the link holds where both sides are defined: a name that must be positive there (log(a))
                # is checked as a positive name, and the condition is shown with the result
                signed = {x: Symbol(x.name, positive=True) if rel == ">" else Symbol(x.name, nonnegative=True)
                          for x, rel in where if rel in (">", ">=") and isinstance(x, Symbol)
                          and x not in self.state.scope.index_ranges and not x.is_nonnegative
                          and x not in self.state.fact_symbols()}
                # a conditional step is a fact only where its conditions hold; a witness must lie where they do
                # a free index's range having a member (k of 2..n: n >= 2) keeps witnesses in, never shown
                shown = [c for c in both if c[0] not in el.range_guards]
                self._link_where = frozenset(text for text, _ in condition_texts(shown, state.facts))
                self._link_gives = discharging_facts(shown, state.facts)  # cited for them: not unneeded
                step_where |= self._link_where
                self._link_domain = [(x.xreplace(signed), rel) for x, rel in open_conditions(where, state.facts)
                                     + [c for c in both if c[1] == DEFINED and not always_defined(c[0])]]
                self.check_link(lr, lk, (lhs * guard).xreplace(signed), (rhs * guard).xreplace(signed), name)
                if lr.status == HOLDS:
                    domain_uses(self.state, lr, shown, zip([st.first, *(x.rhs for x in st.links)][k:k + 2], exprs[k:]),
                                el.reasons)
            lr.seconds = time.perf_counter() - t0
            for u in lr.uses:
                if u.kind == "step":
                    cited_steps.append(u.label)
                    rests.extend(state.steps[u.label].rests_on)
                else:
                    rests.append(u.label)
            res.links.append(lr)
        settle_step(res)
        res.rests_on = list(dict.fromkeys(rests))
        res.steps_cited = list(dict.fromkeys(cited_steps))
        state.steps[name] = res
        self.rep.steps.append(res)
        if res.status == HOLDS:
            state.verified.append(name)
        # the proven statement (an equation, or an inequality: exp(t E[M]) <= n exp(t^2/2)) is a fact for later steps
        state.step_conditions[name] = step_where  # (a link not proved has no uses, but has its conditions)
        if ok and res.rel in ("=", "<", "<=", ">", ">=") and exprs[0] is not None and exprs[-1] is not None \
                and not isinstance(exprs[0], Mat) and not isinstance(exprs[-1], Mat):
            state.step_facts[name] = [(EqFact if res.rel == "=" else IneqFact)(
                name, exprs[0], exprs[-1], *((res.rel,) if res.rel != "=" else ()), free=self._free(exprs[0] - exprs[-1]),
                distinct=distinct, text=res.statement)]
        else:
            state.step_facts[name] = []

    def _condition(self, st: S.Step, el: Elaborator):
        """(the factor 1 - δ_ij, ((i, j),)) for `step ... for i != j`; (1, ()) without; (None, ()) on an error."""
        if st.cond is None:
            return sympy.Integer(1), ()
        try:
            a, b = el.name(st.cond.left), el.name(st.cond.right)
            for n, v in ((st.cond.left, a), (st.cond.right, b)):
                if v not in self.state.scope.index_ranges:
                    raise error(f"`{n.name}` is not an index", n.span, "`for i != j` takes two declared indices",
                                code="E-index")
            strict = [lk for lk in st.links if lk.rel in ("<", ">")]
            if strict:
                raise error("a strict inequality under `for i != j` is not supported yet", strict[0].span,
                            help="prove `<=` or `>=`, or state the step for given indices", code="E-unsupported")
        except StepError as e:
            self.err(e)
            return None, ()
        return 1 - KroneckerDelta(a, b), ((a, b),)

    def resolve_refs(self, lk: S.Link, current: str):
        state = self.state
        labels, rules, bad = [], [], False
        for r in lk.refs:
            t = r.text
            if t in state.facts or t in state.steps:
                labels.append(t)
            elif t in RULES and RULES[t].citable:
                rules.append(t)
            elif t.startswith("def ") and t[4:] in state.scope.defines:
                rules.append(t)
            elif t in state.scope.defines:
                rules.append(f"def {t}")  # `by p` is the same as `by def p`
            elif t == current:
                self.err(error(f"step `{t}` cites itself", r.span, code="E-circular"))
                bad = True
            else:
                cands = (list(state.facts) + list(state.steps) + [n for n, rl in sorted(RULES.items()) if rl.citable]
                         + [f"def {d}" for d in state.scope.defines])
                guess = closest(t, cands)
                self.err(error(f"unknown reference `{t}`", r.span, "not an assumption, step or rule",
                               help=f"did you mean `{guess}`?" if guess else
                               "cite an assumption label, an earlier step, or a rule name", code="E-unknown-ref"))
                bad = True
        return labels, rules, bad

    # ------------------------------------------------------------ one link: judgement, then diagnosis
    def check_link(self, lr: LinkResult, lk: S.Link, lhs, rhs, current: str):
        if lk.rel not in ("=", "<", "<=", ">", ">="):
            lr.message = f"the relation `{lk.rel}` cannot be a step of a chain (use `=`, `<`, `<=`, `>`, `>=`)"
            help_ = ("an estimate is a `check` (`check NAME: E[...] ≈ VALUE`) or a `simulate`" if lk.rel == "≈" else
                     "write `x != y` as a `check` or an `assume`")
            lr.diagnostics.append(Diagnostic("error", f"`{lk.rel}` is not a chain relation", lk.span,
                                             "not checked", code="E-relation", help=help_))
            return
        cited, cited_rules, bad = self.resolve_refs(lk, current)
        if bad:
            lr.message = "not checked: a reference is unknown (see above)"
            return
        def judge():  # through the link cache (link_cache.py): an unchanged link in an unchanged scope is read
            j = judge_link(self.state, self.prover, lhs, rhs, lk.rel, cited, lk.has_by, self.deadline(),
                           cross_check=self.options.cross_check, seed_parts=(lr.lhs, lr.rhs, lr.index),
                           where=self._link_where, domain=self._link_domain, unproved=self._link_unproved)
            self.diagnose(lr, lk, j, cited, cited_rules)
            return j
        judged(self, lr, lk, lhs, rhs, cited, judge)

    def diagnose(self, lr: LinkResult, lk: S.Link, j: LinkJudgement, cited, cited_rules):
        """Fill the link's result and diagnostics from the judge's judgement."""
        settle(lr, j.verdict)
        proof = j.proof
        if j.outcome in ("contradiction", "unchecked-assumptions", "mean-unchecked"):
            lr.message = j.message
            if j.outcome == "unchecked-assumptions":
                fill_uses(self.state, lr, proof)
            return
        if j.outcome == "cites-too-little":
            lr.missing = j.missing
            fill_uses(self.state, lr, proof)
            miss = ", ".join(f"`{m}`" for m in j.missing)
            shown = j.counterexample is not None  # a model of the cited facts alone refutes the link
            lr.message = ("does not follow from what is cited" if shown else
                          "not proved from what is cited alone") + "; it also needs " + miss
            lr.diagnostics.append(Diagnostic(
                "error", "this step cites too little" if shown else "this step may cite too little",
                lk.refs_span(), "needs " + miss,
                notes=[f"`{m}`: {self.state.describe(m)}" for m in j.missing],
                help="add " + miss + " to its `by` list", code="E-cites-too-little"))
            lr.counterexample = j.counterexample
            lr.diagnostics += [_search_note(n) for n in j.search_notes]
            return
        lr.rules = list(proof.rules)
        if j.outcome == "unverified-citation":
            fill_uses(self.state, lr, proof)
            lr.message = j.message
            lr.diagnostics.append(Diagnostic(
                "error", "this step rests on an unverified step", lk.span,
                "uses " + ", ".join(f"`{u}`" for u in j.shaky),
                notes=[f"`{u}` is {self.state.steps[u].status}" for u in j.shaky],
                help="fix the cited step first", code="E-unverified-citation"))
            return
        if j.outcome in ("proved", "unsound"):
            fill_uses(self.state, lr, proof)
            cc = j.cross_check
            if cc is not None:
                lr.cross_checked = cc.models > 0 and not cc.disagrees and cc.message is None
                if cc.disagrees:
                    self.rep.diagnostics.append(Diagnostic(
                        "error", cc.message, lr.span, "accepted by the kernel, refuted by a model", notes=cc.notes,
                        help="this is a bug in stepcheck: please report it with this file",
                        code="E-internal-soundness"))
                    lr.message, lr.counterexample = cc.message, cc.model
                elif cc.message:
                    self.rep.diagnostics.append(Diagnostic("warning", cc.message, lr.span, code="W-cross-check"))
            if proof.message:
                lr.message = proof.message
            unfolded = {f"def {d}" for d in self._link_defs}
            lr.rules.extend(sorted(unfolded))
            for r in cited_rules:
                if r.startswith("def ") and r[4:] in self.state.scope.defines:
                    if r not in unfolded:
                        lr.unneeded.append(r)  # cited a definition the link does not use
                elif r not in proof.rules and not RULES[r].implicit:
                    lr.unneeded.append(r)
            lr.unneeded += [c for c in cited if c not in proof.used and c not in self._link_gives]
            if lr.unneeded:
                strict = self.options.strict
                lr.diagnostics.append(Diagnostic(
                    "error" if strict else "warning",
                    "cited but not needed: " + ", ".join(f"`{u}`" for u in lr.unneeded), lk.refs_span(),
                    "holds without " + ", ".join(f"`{u}`" for u in lr.unneeded),
                    help="remove it from `by`" + (" (an error under --strict)" if strict else ""),
                    code="E-unneeded" if strict else "W-unneeded"))
            return
        lr.message = j.message  # not proved
        lr.residual = _show_expr(proof.residual, lk, self.state.scope.symbols) if proof.residual is not None else None
        lr.counterexample = j.counterexample
        lr.diagnostics += [_search_note(n) for n in j.search_notes]
        notes = []
        if lr.residual is not None:
            notes.append(f"{_MARGIN.get(lk.rel, 'left side − right side')} reduces to: {clip(lr.residual)}")
        if j.witness is not None and j.witness[0] is not None and lr.counterexample == j.witness[0]:
            what = "the two sides differ by" if lk.rel == "=" else "the inequality fails: its margin is"
            notes.append(f"counterexample: {j.witness[0]}: {what} {_show_expr(j.witness[1])}")
        elif j.message and lr.status == UNKNOWN and lr.residual is None:
            notes.append(j.message)
        if lr.status == FAILS:  # (with `by`, refuted on the cited facts: other facts may still give it)
            lr.diagnostics.append(Diagnostic("error", "this step does not hold", lk.claim_span(),
                                             "the two sides differ" if lk.rel == "=" else "the inequality is false",
                                             notes=notes, code="E-fails", help=BY_HELP if j.uncited else None))
        else:
            notes.append("not proved is not the same as false")
            lr.diagnostics.append(Diagnostic(
                "error", "could not verify this step", lk.claim_span(), "not proved", notes=notes,
                help=_unknown_help(lk, proof, j.message), code="E-unknown"))


ONE_LINE_BY = "this link has no `by`: the one at the end of the line cites for the last link"
ONE_LINE_HELP = "put each link on its own line, with its own `by`"
