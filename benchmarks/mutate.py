"""Mutation testing of the kernel: small edits to true derivations must not be accepted.

``python -m benchmarks.mutate [--sample N] [--seed S] [--json] [--jobs J] [PATHS...]``
(from the repository root; a development tool, not part of the installed package)

Every ``step`` link that holds in ``derivations/*.step`` (not ``bad/``) is
mutated by editing the *source text* at the span of one AST node: a constant
changed, a dimension wrapped in or stripped of ``sqrt``, an exponent changed,
a term or a factor dropped, a sign flipped, an index swapped, ``Var`` turned
into ``E`` (and back), a relation changed, or an assumption's value changed.
Each mutant is a whole ``.step`` text, re-checked with
:func:`stepcheck.checker.check_text`.

Whether a mutant is still *true* is decided by an independent route, the
:class:`Oracle` below: it never calls the kernel.  It builds random finite
instances (dimension symbols set to 1..3, deterministic reals to random
rationals, random variables to sums of independent two-point "latent"
variables, correlated through shared latents wherever no independence is
assumed), checks that every assumption in scope holds on the instance, and
evaluates both sides exactly (moments by expanding polynomials in the latents;
derivatives, limits and extrema numerically at 60 digits).  A link that
differs on one valid instance is false; a link that agrees on every instance
tried is taken as true (*equivalent* mutant, set aside).  The hand-curated
:data:`EQUIVALENT` table covers mutants the oracle cannot decide.

Outcome of a mutant:

* ``equivalent``: every affected link is still true: set aside;
* ``rejected``: some affected link is false and the checker does not say
  ``holds`` for it (``fails`` or ``unknown``);
* ``accepted``: the checker says ``holds`` for a false link: a soundness bug;
* ``undecided``: the oracle could not decide and the table has no entry
  (reported; counted neither way);
* ``invalid``: the mutant is not a well-formed file (parse or input error):
  not counted as a kill.
"""
from __future__ import annotations

import argparse
import dataclasses
import glob
import itertools
import json
import os
import random
import re
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction

import sympy
from sympy import Indexed, KroneckerDelta, Symbol

from stepcheck import syntax as S
from stepcheck.models.ranges import count, index_range, unit

KINDS = ("constant", "sqrt", "exponent", "drop_term", "drop_factor", "sign", "index", "var_e", "relation",
         "assumption")

COLUMNS = ("generated", "equivalent", "non_equivalent", "rejected", "accepted", "undecided", "unresolved", "invalid",
           "crash")

# Mutants the oracle cannot decide, marked equivalent (still true) by hand:
# (file name, description) -> reason.  Keep reasons specific.
EQUIVALENT: dict[tuple[str, str], str] = {}

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # benchmarks/.. = the repository


# ====================================================================== mutants


@dataclass
class Mutant:
    kind: str
    file: str  # path of the original derivation
    where: str  # "step var_sum, link 2" or "assume var1"
    description: str  # "line 12: `d_k` -> `sqrt(d_k)`"
    text: str  # the whole mutated .step text
    targets: list  # [(step name, link index)] whose truth may have changed
    line: int = 0

    @property
    def key(self) -> tuple[str, str]:
        return (os.path.basename(self.file), self.description)


@dataclass
class Outcome:
    mutant: Mutant
    verdict: str  # equivalent | rejected | accepted | undecided | invalid
    statuses: dict = field(default_factory=dict)  # "step#k" -> checker status
    truth: dict = field(default_factory=dict)  # "step#k" -> True / False / None
    seconds: float = 0.0
    note: str = ""


@dataclass
class Summary:
    outcomes: list
    seconds: float = 0.0

    def counts(self) -> dict:
        out = {k: dict.fromkeys(COLUMNS, 0) for k in KINDS}
        for o in self.outcomes:
            c = out.setdefault(o.mutant.kind, dict.fromkeys(COLUMNS, 0))
            c["generated"] += 1
            if o.verdict in ("rejected", "accepted"):
                c["non_equivalent"] += 1
            c[o.verdict] += 1
        return out

    def totals(self) -> dict:
        tot: dict = {}
        for c in self.counts().values():
            for k, v in c.items():
                tot[k] = tot.get(k, 0) + v
        return tot

    @property
    def accepted(self) -> list:
        return [o for o in self.outcomes if o.verdict == "accepted"]

    @property
    def problems(self) -> list:
        """Accepted false mutants, crashes of check_text, and held links the oracle cannot decide."""
        return [o for o in self.outcomes if o.verdict in ("accepted", "crash", "unresolved")]

    def table(self) -> str:
        cols = list(COLUMNS)
        rows = [["kind"] + cols]
        for k, c in self.counts().items():
            rows.append([k] + [str(c[x]) for x in cols])
        rows.append(["total"] + [str(self.totals().get(x, 0)) for x in cols])
        w = [max(len(r[i]) for r in rows) for i in range(len(cols) + 1)]
        return "\n".join("  ".join(x.ljust(w[i]) if i == 0 else x.rjust(w[i]) for i, x in enumerate(r)) for r in rows)

    def to_json(self) -> dict:
        return {
            "counts": self.counts(),
            "totals": self.totals(),
            "seconds": round(self.seconds, 1),
            "problems": [dict(verdict=o.verdict, kind=o.mutant.kind, file=o.mutant.file, where=o.mutant.where,
                              description=o.mutant.description, statuses=o.statuses, truth=o.truth, note=o.note,
                              text=o.mutant.text) for o in self.problems],
            "undecided": [dict(file=o.mutant.file, where=o.mutant.where, description=o.mutant.description,
                               statuses=o.statuses, note=o.note) for o in self.outcomes if o.verdict == "undecided"],
        }


# ---------------------------------------------------------------- text edits


class _Text:
    def __init__(self, text: str):
        self.text = text
        self.starts = [0]
        for ln in text.split("\n"):
            self.starts.append(self.starts[-1] + len(ln) + 1)

    def off(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col - 1

    def span(self, sp) -> tuple[int, int]:
        return self.off(sp.line, sp.col), self.off(sp.end_line, sp.end_col)

    def get(self, sp) -> str:
        a, b = self.span(sp)
        return self.text[a:b]


def _children(node):
    if not dataclasses.is_dataclass(node):
        return
    for f in dataclasses.fields(node):
        v = getattr(node, f.name)
        if isinstance(v, list):
            for x in v:
                if dataclasses.is_dataclass(x) and not isinstance(x, S.Span.__class__) and hasattr(x, "span"):
                    yield x
        elif dataclasses.is_dataclass(v) and hasattr(v, "span") and f.name != "span":
            yield v


def _walk(node):
    yield node
    for c in _children(node):
        yield from _walk(c)


def _paren(t: str) -> str:
    return t if re.fullmatch(r"[\w.]+", t) else f"({t})"


_DIM_TYPES = ("positive integer", "integer", "positive real", "nonnegative real", "real")


class _Decl:
    """What the mutator needs to know about a file's names."""

    def __init__(self, prog: S.Program):
        self.indices: list[str] = []
        self.dims: set[str] = set()  # positive integer / real symbols (not indices)
        self.families: set[str] = set()  # family bases and indexed definitions
        for st in prog.statements:
            if isinstance(st, (S.Random, S.RealDecl)) and st.family is not None:
                self.families |= {n.name.rsplit("_", 1)[0] for n in st.names}
            if isinstance(st, S.Define) and "_" in st.name.name:
                self.families.add(st.name.name.rsplit("_", 1)[0])
            if isinstance(st, S.Let):
                if st.type.kind == "index":
                    self.indices += [n.name for n in st.names]
                else:
                    self.dims |= {n.name for n in st.names}
            elif isinstance(st, (S.Random, S.RealDecl)) and st.family is not None:
                if st.family.var.name not in self.indices:
                    self.indices.append(st.family.var.name)


def _expr_edits(node, tx: _Text, decl: _Decl) -> list[tuple[str, int, int, str, str]]:
    """(kind, start, end, old, new) text edits inside one expression."""
    out = []
    bounds = {id(x) for n in _walk(node) if isinstance(n, S.BigOp) for b in (n.lo, n.hi) for x in _walk(b)}
    for n in _walk(node):
        if id(n) in bounds and isinstance(n, S.Name):
            continue  # a summation bound must stay a whole number
        a, b = tx.span(n.span)
        old = tx.text[a:b]
        if isinstance(n, S.Num):
            try:
                v = Fraction(n.text)
            except ValueError:
                continue
            new = "1" if v == 0 else ("2" if v == 1 else str(v + 1) if v.denominator == 1 else f"{n.text}1")
            out.append(("constant", a, b, old, new))
        elif isinstance(n, S.Name):
            if n.name in decl.dims:
                out.append(("sqrt", a, b, old, f"sqrt({old})"))
                out.append(("constant", a, b, old, f"2 {old}" if True else old))
            if "_" in n.name:
                base, suf = n.name.rsplit("_", 1)
                if suf in decl.indices and base in decl.families:
                    others = [x for x in decl.indices if x != suf] or ["1"]
                    out.append(("index", a, b, old, f"{base}_{others[0]}"))
        elif isinstance(n, S.Call):
            if n.func == "sqrt" and len(n.args) == 1:
                out.append(("sqrt", a, b, old, tx.get(n.args[0].span)))
            if n.func == "Var" and len(n.args) == 1:
                out.append(("var_e", a, b, old, f"E[{tx.get(n.args[0].span)}]"))
            if n.func == "E" and len(n.args) == 1:
                out.append(("var_e", a, b, old, f"Var({tx.get(n.args[0].span)})"))
            if n.func == "delta" and len(n.args) == 2:
                x, y = tx.get(n.args[0].span), tx.get(n.args[1].span)
                out.append(("index", a, b, old, f"delta({x}, {x})"))
        elif isinstance(n, S.Neg):
            out.append(("sign", a, b, old, _paren(tx.get(n.operand.span))))
        elif isinstance(n, S.BinOp):
            lt, rt = tx.get(n.left.span), tx.get(n.right.span)
            la, lb = tx.span(n.left.span)
            ra, rb = tx.span(n.right.span)
            if n.op in "+-":
                between = tx.text[lb:ra]
                pos = between.find(n.op)
                if pos >= 0:
                    out.append(("sign", lb + pos, lb + pos + 1, n.op, "-" if n.op == "+" else "+"))
                out.append(("drop_term", a, b, old, lt))
                out.append(("drop_term", a, b, old, rt if n.op == "+" else f"-{_paren(rt)}"))
            elif n.op in "*/":
                out.append(("drop_factor", a, b, old, lt))
                out.append(("drop_factor", a, b, old, rt if n.op == "*" else f"1/{_paren(rt)}"))
                if n.op == "/":
                    out.append(("drop_factor", a, b, old, f"{_paren(lt)} {_paren(rt)}"))  # / -> *
            elif n.op == "^":
                if isinstance(n.right, S.Num):
                    try:
                        v = Fraction(n.right.text)
                    except ValueError:
                        v = None
                    if v is not None:
                        out.append(("exponent", ra, rb, rt, str(v + 1) if v.denominator == 1 else f"({v * 2})"))
                else:
                    out.append(("exponent", ra, rb, rt, f"(2 {_paren(rt)})"))
                out.append(("exponent", a, b, old, _paren(lt)))  # ^k dropped
    # de-duplicate identical edits
    seen, res = set(), []
    for e in out:
        if (e[1], e[2], e[4]) not in seen and e[3] != e[4]:
            seen.add((e[1], e[2], e[4]))
            res.append(e)
    return res


_REL_ALT = {"=": ["<", ">", "<=", ">="], "<": [">", ">=", "="], "<=": [">", "<"], ">": ["<", "<="], ">=": ["<", ">"]}
_REL_TOKENS = {"=": ("=",), "<": ("<",), "<=": ("<=", "≤"), ">": (">",), ">=": (">=", "≥")}


def _prepare(text: str, cut_after: int | None) -> str:
    """Blank out `simulate` lines (slow, not kernel links); drop the lines after ``cut_after``."""
    lines = text.split("\n")
    if cut_after is not None:
        lines = lines[:cut_after]
    return "\n".join("" if ln.lstrip().startswith("simulate") else ln for ln in lines) + "\n"


def derivation_paths() -> list[str]:
    return sorted(glob.glob(os.path.join(REPO, "derivations", "*.step")))


def parsed(paths=None):
    """(path, text, program, _Text) for each of ``paths`` (default: ``derivations/*.step``)."""
    from stepcheck.parser import parse

    for path in paths or derivation_paths():
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        yield path, text, parse(text, path), _Text(text)


def generate(paths=None) -> list[Mutant]:
    """All mutants of the ``step`` links of ``paths`` (default: ``derivations/*.step``)."""
    out: list[Mutant] = []
    for path, text, prog, tx in parsed(paths):
        decl = _Decl(prog)
        steps = [st for st in prog.statements if isinstance(st, S.Step) and st.kind == "step"]
        for st in steps:
            cut = max([st.span.end_line] + [lk.span.end_line for lk in st.links] +
                      [lk.rhs.span.end_line for lk in st.links])
            exprs = [st.first] + [lk.rhs for lk in st.links]
            for k, node in enumerate(exprs):
                # the expression is the rhs of link k and the lhs of link k + 1
                targets = [(st.name.name, j) for j in (k, k + 1) if 1 <= j <= len(st.links)]
                where = f"step {st.name.name}, " + ("first expression" if k == 0 else f"link {k}")
                for kind, a, b, old, new in _expr_edits(node, tx, decl):
                    mtext = text[:a] + new + text[b:]
                    line = text.count("\n", 0, a) + 1
                    out.append(Mutant(kind, path, where, f"line {line}: `{old}` -> `{new}`",
                                      _prepare(mtext, cut), targets, line))
            for k, lk in enumerate(st.links, start=1):
                a, _ = tx.span(lk.span)
                for alt in _REL_ALT.get(lk.rel, []):
                    tok = next((t for t in _REL_TOKENS[lk.rel] if text.startswith(t, a)), None)
                    if tok is None:
                        continue
                    mtext = text[:a] + alt + text[a + len(tok):]
                    line = text.count("\n", 0, a) + 1
                    out.append(Mutant("relation", path, f"step {st.name.name}, link {k}",
                                      f"line {line}: `{tok}` -> `{alt}`", _prepare(mtext, cut),
                                      [(st.name.name, k)], line))
        # assumptions: change the value of each equation fact
        for st in prog.statements:
            if not isinstance(st, S.Assume):
                continue
            after = [s for s in steps if s.span.line > st.span.line]
            targets = [(s.name.name, k) for s in after for k in range(1, len(s.links) + 1)]
            if not targets:
                continue
            for f in st.facts:
                if not isinstance(f, S.EqFact) or f.rel != "=":
                    continue
                edits = [e for e in _expr_edits(f.right, tx, decl) if e[0] in ("constant", "sqrt", "exponent")]
                edits += [e for e in _expr_edits(f.left, tx, decl) if e[0] in ("var_e",)]
                for kind, a, b, old, new in edits:
                    mtext = text[:a] + new + text[b:]
                    line = text.count("\n", 0, a) + 1
                    out.append(Mutant("assumption", path, f"assume {st.label.name}",
                                      f"line {line}: `{old}` -> `{new}` ({kind})", _prepare(mtext, None), targets, line))
    return out


# ====================================================================== the oracle


def _sym(x):
    """A sympy object from a Python number or a sympy object; never parses a string."""
    if isinstance(x, sympy.Basic):
        return x
    if isinstance(x, bool) or not isinstance(x, (int, float, Fraction)):
        raise TypeError(f"not a number: {type(x).__name__}")
    if isinstance(x, Fraction):
        return sympy.Rational(x.numerator, x.denominator)
    return sympy.Integer(x) if isinstance(x, int) else sympy.Float(x)


class Undecided(Exception):
    pass


@dataclass
class _StepInfo:
    name: str
    exprs: list
    rels: list
    facts: dict  # label -> kernel fact records in scope before the step
    distinct: tuple = ()  # (a, b) index symbols the step's `for a != b` keeps apart


def _elaborate(text: str):
    """Elaborate declarations, assumptions and steps without running the kernel.

    Returns (scope, {step name: _StepInfo}, distributions) or None when the
    text does not elaborate.
    """
    from stepcheck.checker import Checker
    from stepcheck.options import Options
    from stepcheck.parser import parse
    from stepcheck.results import FileReport

    class _Elab(Checker):
        def consistency(self, *args, **kwargs):
            pass

        def s_Step(self, st):
            from stepcheck.elaborate import Elaborator

            if st.kind != "step":
                return
            state = self.state
            el = Elaborator(state.scope)
            exprs = []
            for node in [st.first] + [lk.rhs for lk in st.links]:
                try:
                    exprs.append(el.expr(node))
                except Exception:
                    exprs.append(None)
            apart = ()
            if st.cond is not None:
                apart = ((state.scope.symbols.get(st.cond.left.name), state.scope.symbols.get(st.cond.right.name)),)
            self.infos[st.name.name] = _StepInfo(st.name.name, exprs, [lk.rel for lk in st.links], dict(state.facts),
                                                 apart)
            state.steps[st.name.name] = None

        def s_Check(self, st):
            pass

        def s_Table(self, st):
            pass

        def s_Simulate(self, st):
            pass

    try:
        prog = parse(text, "<mutant>")
    except Exception:
        return None
    ch = _Elab(FileReport(path="<mutant>", text=text), Options(cross_check=False))
    ch.infos = {}
    ch.run(prog)
    # name -> distributions.Declared: the laws of `random X ~ LAW` (family base name or variable name)
    return ch.state.scope, ch.infos, dict(ch.state.laws)


class _Latent:
    """A two-point variable with mean 0: values -a and w/a (variance w)."""

    def __init__(self, name, w, a):
        self.sym = Symbol(name)
        self.w, self.a = sympy.nsimplify(w), sympy.Rational(a)
        p1 = self.w / (self.a**2 + self.w)
        self.points = [(-self.a, p1), (self.w / self.a, 1 - p1)]
        self._m = {}

    def moment(self, k):
        if k not in self._m:
            self._m[k] = sympy.nsimplify(sum(v**k * p for v, p in self.points))
        return self._m[k]


class _Fixed:
    """A latent with a given law: standard normal or a finite distribution."""

    def __init__(self, name, moments=None, points=None):
        self.sym = Symbol(name)
        self.points = points
        self._mom = moments

    def moment(self, k):
        if self.points is not None:
            return sum(v**k * p for v, p in self.points)
        return self._mom(k)


def _normal_moment(k):
    return sympy.Integer(0) if k % 2 else sympy.factorial2(k - 1) if k else sympy.Integer(1)


class Instance:
    def __init__(self, values, rv, latents):
        self.values = values  # Symbol / (family, i) -> number
        self.rv = rv  # Symbol / (family, i) -> sympy expression in latent symbols
        self.latents = latents  # latent Symbol -> _Latent / _Fixed


class Oracle:
    """Decides links on random finite instances, with its own evaluator (no kernel)."""

    def __init__(self, scope, dists, rng: random.Random):
        self.scope = scope
        self.dists = dists
        self.rng = rng
        self.random_fams = {n for n, f in scope.families.items() if f.random}

    # -------------------------------------------------------------- instances
    def _rand_q(self, lo=-3, hi=3, nonzero=False):
        while True:
            v = sympy.Rational(self.rng.randint(lo * 4, hi * 4), self.rng.choice([1, 2, 4]))
            if not (nonzero and v == 0):
                return v

    def _ival(self, x, values) -> int:
        v = _sym(x).xreplace({k: v for k, v in values.items() if isinstance(k, sympy.Basic)}) \
            if not isinstance(x, int) else sympy.Integer(x)
        if not v.is_Integer:
            raise Undecided(f"bound {x} is not concrete")
        return int(v)

    def _members(self, fam, values):
        f = self.scope.families[fam]
        return [(fam, i) for i in index_range(self._ival(f.lo, values), self._ival(f.hi, values))]

    def _key(self, x, values):
        if isinstance(x, Indexed):
            return (x.base.label.name, self._ival(x.indices[0], values))
        return x

    def _instantiations(self, free, distinct, values):
        ranges = []
        for s in free:
            lo, hi = self.scope.index_ranges[s]
            ranges.append(index_range(self._ival(lo, values), self._ival(hi, values)))
        for combo in itertools.product(*ranges):
            env = dict(zip(free, map(sympy.Integer, combo)))
            if any(env.get(a) is not None and env.get(a) == env.get(b) for a, b in distinct):
                continue
            yield env

    def instance(self, facts: dict, dependent: bool) -> Instance:
        from stepcheck.terms.facts import EqFact, IndepFact
        from stepcheck.terms.objects import SD, Cov, E, Var

        values: dict = {}
        for name, sym in self.scope.symbols.items():
            kind = self.scope.kinds.get(name)
            if kind == "index" or sym in self.scope.random_symbols:
                continue
            if sym.is_integer:
                values[sym] = sympy.Integer(self.rng.randint(1, 3) if sym.is_positive else self.rng.randint(-2, 3))
            elif sym.is_positive:
                values[sym] = self._rand_q(0, 4, nonzero=True)
                values[sym] = abs(values[sym])
            elif sym.is_nonnegative:
                values[sym] = abs(self._rand_q(0, 3))
            else:
                values[sym] = self._rand_q()
        for name, f in self.scope.families.items():
            if not f.random:
                for k in self._members(name, values):
                    values[k] = self._rand_q()
        # random variables
        rvs = [s for s in self.scope.random_symbols]
        for name in self.random_fams:
            rvs += self._members(name, values)
        indep_pairs = set()
        mean, var, cov = {}, {}, {}
        for lab, fs in facts.items():
            for f in fs:
                if isinstance(f, IndepFact):
                    for env in self._instantiations(f.free, f.distinct, values):
                        group = [m for fam in f.families for m in self._members(fam, values)]
                        group += [self._key(m.xreplace(env), values) for m in f.members]
                        for x, y in itertools.combinations(group, 2):
                            indep_pairs.add(frozenset((x, y)))
                elif isinstance(f, EqFact):
                    for env in self._instantiations(f.free, f.distinct, values):
                        lhs, rhs = f.lhs.xreplace(env), f.rhs.xreplace(env)
                        if isinstance(lhs, Cov) and rhs == 0:
                            indep_pairs.add(frozenset(self._key(a, values) for a in lhs.args))
                            continue
                        if isinstance(lhs, Cov) and not rhs.has(E, Var, Cov, SD):
                            pair = tuple(self._key(a, values) for a in lhs.args)
                            if pair[0] != pair[1]:
                                try:
                                    cov.setdefault(pair, self.value(rhs, values, None))
                                except Exception:
                                    pass
                            continue
                        if isinstance(lhs, (E, Var, SD)):
                            arg = lhs.args[0]
                            if isinstance(arg, (Symbol, Indexed)) and not rhs.has(E, Var, Cov, SD):
                                try:
                                    v = self.value(rhs, values, None)
                                except Exception:
                                    continue
                                k = self._key(arg, values)
                                if isinstance(lhs, E):
                                    mean.setdefault(k, v)
                                elif isinstance(lhs, Var):
                                    var.setdefault(k, v)
                                else:
                                    var.setdefault(k, v**2)
        latents: dict = {}
        rv: dict = {}
        shared: dict = {}
        if dependent:
            free_pairs = [(x, y) for x, y in itertools.combinations(rvs, 2)
                          if frozenset((x, y)) not in indep_pairs and not self._declared(x) and not self._declared(y)]
            self.rng.shuffle(free_pairs)
            for x, y in free_pairs[:2]:
                shared.setdefault(x, []).append((x, y))
                shared.setdefault(y, []).append((x, y))
        wshared = {}
        for pair, c in cov.items():  # Cov(X, Y) = c: a shared latent of variance |c|
            if c == 0 or not c.is_number:
                continue
            lt = _Latent(f"W{len(latents)}", abs(c), self.rng.choice(["1/2", "1", "3/2", "2"]))
            latents[lt.sym] = lt
            wshared[pair] = (lt, (1, 1 if c > 0 else -1))
            for x in pair:
                shared.setdefault(x, []).append(pair)
        for x in rvs:
            for pair in shared.get(x, []):
                if pair not in wshared:
                    cap = min(var.get(pair[0], 4), var.get(pair[1], 4))
                    if not (cap.is_number if hasattr(cap, "is_number") else True) or cap <= 0:
                        continue
                    w = cap * sympy.Rational(self.rng.randint(1, 3), 4)
                    lt = _Latent(f"W{len(latents)}", w, self.rng.choice(["1/2", "1", "3/2", "2"]))
                    latents[lt.sym] = lt
                    sg = self.rng.choice([1, -1])
                    wshared[pair] = (lt, (1, sg))
        for x in rvs:
            name = f"U{len(latents)}"
            d = self._declared(x)
            if d is not None:
                lt = self._fixed(name, d)
                latents[lt.sym] = lt
                rv[x] = lt.sym
                continue
            m = mean.get(x, self._rand_q(-2, 2))
            parts = [(wshared[p][0], wshared[p][1][p.index(x)]) for p in shared.get(x, []) if p in wshared]
            v = var.get(x, sum(lt.w for lt, _ in parts) + abs(self._rand_q(0, 3, nonzero=True)))
            own = v - sum(lt.w for lt, _ in parts)
            if own.is_number and own < 0:
                raise Undecided("a variance is negative")
            expr = m + sum(sg * lt.sym for lt, sg in parts)
            if own != 0:
                lt = _Latent(name, own, self.rng.choice(["1/2", "1", "3/2", "2", "3"]))
                latents[lt.sym] = lt
                expr += lt.sym
            rv[x] = expr
        for pair in indep_pairs:  # independence: no shared latent
            x, y = tuple(pair) if len(pair) == 2 else (next(iter(pair)),) * 2
            if x in rv and y in rv and x != y:
                lx = _sym(rv[x]).free_symbols
                if lx & _sym(rv[y]).free_symbols:
                    raise Undecided("the instance would violate an independence fact")
        return Instance(values, rv, latents)

    def _declared(self, x):
        name = x[0] if isinstance(x, tuple) else getattr(x, "name", None)
        return self.dists.get(name)

    def _fixed(self, name, declared):
        d = declared.dist
        n = d.name
        args = [sympy.nsimplify(a) for a in getattr(d, "params", ())]
        if n == "Rademacher":
            return _Fixed(name, points=[(sympy.Integer(1), sympy.Rational(1, 2)), (sympy.Integer(-1), sympy.Rational(1, 2))])
        if n == "Bernoulli":
            p = args[0]
            return _Fixed(name, points=[(sympy.Integer(1), p), (sympy.Integer(0), 1 - p)])
        if n == "Normal":
            mu, s2 = args
            if mu != 0 or s2 != 1:
                return _Fixed(name, moments=lambda k, mu=mu, s2=s2: sum(
                    sympy.binomial(k, j) * mu**(k - j) * sympy.sqrt(s2)**j * _normal_moment(j) for j in range(k + 1)))
            return _Fixed(name, moments=_normal_moment)
        raise Undecided(f"distribution {n} is not modelled by the oracle")

    # -------------------------------------------------------------- evaluation
    def value(self, x, values, inst: Instance | None):
        """The value of ``x``; random variables stay as polynomials in the latents."""
        from stepcheck.terms.objects import SD, Cov, E, Extremum, Var

        if isinstance(x, (int, Fraction)):
            return sympy.Rational(x)
        if x.is_Number or x.is_NumberSymbol:
            return x
        if isinstance(x, Symbol):
            if x in values:
                return values[x]
            if inst is not None and x in inst.rv:
                return inst.rv[x]
            if x.name.startswith("max("):  # an opaque real: any value will do
                return values.setdefault(x, self._rand_q())
            raise Undecided(f"no value for {x}")
        if isinstance(x, Indexed):
            k = self._key(x, values)
            if k in values:
                return values[k]
            if inst is not None and k in inst.rv:
                return inst.rv[k]
            raise Undecided(f"no value for {x}")
        if isinstance(x, E):
            return self.expect(self.value(x.args[0], values, inst), inst)
        if isinstance(x, Var):
            a = self.value(x.args[0], values, inst)
            return self.expect((a - self.expect(a, inst))**2, inst)
        if isinstance(x, Cov):
            a, b = (self.value(y, values, inst) for y in x.args)
            return self.expect((a - self.expect(a, inst)) * (b - self.expect(b, inst)), inst)
        if isinstance(x, SD):
            a = self.value(x.args[0], values, inst)
            return sympy.sqrt(self.expect((a - self.expect(a, inst))**2, inst))
        if isinstance(x, (sympy.Sum, sympy.Product)):
            body, limits = x.function, list(x.limits)
            var, lo, hi = limits[-1]  # the outermost bound first
            a, b = self._ival(lo, values), self._ival(hi, values)
            if count(a, b) > 41:
                raise Undecided("sum too long")
            vals = []
            for i in index_range(a, b):  # the language's convention: empty when b < a
                sub = {var: sympy.Integer(i)}
                inner = body.xreplace(sub) if len(limits) == 1 else type(x)(body, *limits[:-1]).xreplace(sub)
                vals.append(self.value(inner, values, inst))
            if not vals:
                return unit(x)  # an empty sum is 0, an empty product 1 (never sympy's reversed ranges)
            return sympy.Add(*vals) if isinstance(x, sympy.Sum) else sympy.Mul(*vals)
        if isinstance(x, sympy.Derivative):
            return self.derivative(x, values, inst)
        if isinstance(x, sympy.Limit):
            return self.limit(x, values, inst)
        if isinstance(x, Extremum):
            return self.extremum(x, values, inst)
        if isinstance(x, KroneckerDelta):
            a, b = (self.value(y, values, inst) for y in x.args)
            return sympy.Integer(1 if a == b else 0)
        if isinstance(x, sympy.Dummy):
            raise Undecided(f"unbound {x}")
        if isinstance(x, (sympy.Add, sympy.Mul, sympy.Pow, sympy.exp, sympy.log, sympy.tanh, sympy.Abs, sympy.Max,
                          sympy.Min)):
            return x.func(*[self.value(a, values, inst) for a in x.args])
        raise Undecided(f"cannot evaluate {type(x).__name__}")

    def expect(self, a, inst: Instance | None):
        if inst is None:
            raise Undecided("a moment outside an instance")
        lats = [s for s in a.free_symbols if s in inst.latents]
        if not lats:
            return a
        try:
            p = sympy.Poly(sympy.expand(a), *lats)
        except sympy.PolynomialError as e:
            raise Undecided(f"not a polynomial in the random variables: {e}")
        acc = sympy.Integer(0)
        for monom, coeff in p.terms():
            t = coeff
            for s, k in zip(lats, monom):
                if k:
                    t *= inst.latents[s].moment(k)
            acc += t
        return acc

    def _at(self, body, var, t, values, inst):
        return self.value(body.xreplace({var: t}), values, inst)

    def derivative(self, x, values, inst):
        body = x.expr
        (var, n), = x.variable_count
        if n != 1:
            raise Undecided("higher derivative")
        if isinstance(var, Indexed):
            key = self._key(var, values)
            t0 = values[key]
            sub = dict(values)
            def fn(t):
                sub[key] = t
                try:
                    # every occurrence s_m with m == the index also gets t
                    return self.value(body, sub, inst)
                finally:
                    sub[key] = t0
        else:
            t0 = values[var]
            sub = dict(values)

            def fn(t):
                sub[var] = t
                return self.value(body, sub, inst)
        h = sympy.Rational(1, 10**20)
        d = (fn(t0 + h) - fn(t0 - h)) / (2 * h)
        return sympy.Float(sympy.N(d, 60), 60) + _APPROX

    def limit(self, x, values, inst):
        body, var, pt = x.args[0], x.args[1], x.args[2]
        ptv = self.value(pt, values, inst)
        if ptv == sympy.oo:
            ts = [sympy.Integer(10**10), sympy.Integer(10**16)]
        elif ptv == -sympy.oo:
            ts = [sympy.Integer(-10**10), sympy.Integer(-10**16)]
        else:
            ts = [ptv + sympy.Rational(1, 10**30), ptv - sympy.Rational(1, 10**30)]
        vals = [sympy.N(self._at(body, var, t, values, inst), 60) for t in ts]
        if abs(vals[0] - vals[1]) > 1e-6 * (1 + abs(vals[1])):
            raise Undecided("limit not settled numerically")
        return sympy.Float(vals[1], 60) + _APPROX

    def extremum(self, x, values, inst):
        body, var, a, b, kind = x.args
        av, bv = sympy.N(self.value(a, values, inst), 60), sympy.N(self.value(b, values, inst), 60)
        n = 2000
        pts = [av + (bv - av) * sympy.Rational(k, n) for k in range(n + 1)]
        vals = [(sympy.N(self._at(body, var, t, values, inst), 30), t) for t in pts]
        best = max(vals, key=lambda p: p[0]) if str(kind) in ("max", "argmax") else min(vals, key=lambda p: p[0])
        out = best[0] if str(kind) in ("max", "min") else best[1]
        return sympy.Float(out, 30) + _APPROX

    # -------------------------------------------------------------- facts and links
    def fact_holds(self, f, inst) -> bool:
        from stepcheck.terms.facts import EqFact, IneqFact

        if not isinstance(f, (EqFact, IneqFact)):
            return True
        for env in self._instantiations(f.free, f.distinct, inst.values):
            rel = getattr(f, "rel", "=")
            if _compare(self.value(f.lhs.xreplace(env), inst.values, inst),
                        self.value(f.rhs.xreplace(env), inst.values, inst), rel, inst.latents) is not True:
                return False
        return True

    def link_truth(self, info: _StepInfo, k: int, tries: int = 6, only=None):
        """True (agrees on every valid instance), False (a counterexample), None (undecided).

        ``only``: model only these assumption labels (the ones the checker
        says the link rests on); a counterexample to them refutes the
        checker's claim that they suffice.
        """
        lhs, rhs, rel = info.exprs[k - 1], info.exprs[k], info.rels[k - 1]
        facts = info.facts if only is None else {k2: v for k2, v in info.facts.items() if k2 in only}
        if lhs is None or rhs is None:
            return None, "does not elaborate"
        syms = set()
        for x in (lhs, rhs):
            if isinstance(x, sympy.Basic):
                syms |= x.atoms(Symbol)
        free = sorted({s for s in syms if s in self.scope.index_ranges and not isinstance(s, sympy.Dummy)},
                      key=lambda s: s.name)
        valid = 0
        why = ""
        for t in range(tries):
            try:
                inst = self.instance(facts, dependent=bool(t % 2))
                if not all(self.fact_holds(f, inst) for fs in facts.values() for f in fs):
                    why = "instance violates a fact"
                    continue
                for env in self._instantiations(free, info.distinct, inst.values):
                    a = self.value(lhs.xreplace(env), inst.values, inst)
                    b = self.value(rhs.xreplace(env), inst.values, inst)
                    c = _compare(a, b, rel, inst.latents)
                    if c is False:
                        return False, f"differs at {_show_inst(inst, env)}: {sympy.N(a, 8)} vs {sympy.N(b, 8)}"
                    if c is None:
                        raise Undecided("too close to call")
                valid += 1
            except Undecided as e:
                why = str(e)
            except (ZeroDivisionError, ValueError, TypeError, OverflowError, RecursionError) as e:
                why = f"{type(e).__name__}: {e}"
        return (True, f"{valid} instances") if valid >= 2 else (None, why)


_APPROX = sympy.Symbol("_approx_zero")  # marks a numerically computed value (removed before comparing)


def _compare_random(d, rel: str, latents):
    """Compare a random difference with 0 outcome by outcome (an identity between random variables)."""
    syms = sorted(d.free_symbols, key=lambda s: s.name)
    if any(latents[s].points is None for s in syms):  # a continuous latent: a polynomial identity
        if rel in ("=", "<=", ">=") and sympy.expand(d) == 0:
            return True
        if rel == "=":
            return False  # a nonzero polynomial in normal variables is nonzero with positive probability
        raise Undecided("an inequality between continuous random variables")
    out = True
    for combo in itertools.product(*[latents[s].points for s in syms]):
        v = d.xreplace({s: pt for s, (pt, _) in zip(syms, combo)})
        c = _compare(v, sympy.Integer(0), rel)
        if c is False:
            return False
        if c is None:
            out = None
    return out


def _compare(a, b, rel: str, latents=None):
    approx = (_sym(a).has(_APPROX) or _sym(b).has(_APPROX))
    d = (_sym(a) - _sym(b)).xreplace({_APPROX: sympy.Integer(0)})
    if d.free_symbols:
        if latents is None or not d.free_symbols <= set(latents):
            raise Undecided(f"left over symbols {d.free_symbols}")
        return _compare_random(d, rel, latents)
    if d.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise Undecided("undefined value")
    v = sympy.N(d, 50)
    if not v.is_real:
        raise Undecided("not real")
    scale = 1 + abs(sympy.N(_sym(b).xreplace({_APPROX: sympy.Integer(0)}), 30))
    if approx:
        eps_eq, eps_ne = 1e-9 * scale, 1e-5 * scale
    else:  # exact values: zero when |d| stays below 1e-380 at 400 digits (1 - tanh(66) is 1e-57: not zero)
        eps_eq = eps_ne = 0
        nonzero = False
        if d != 0:
            for prec in (50, 150, 400):
                v = sympy.N(d, prec)
                if abs(v) > sympy.Float(10, prec) ** (-(prec - 20)) * scale:
                    nonzero = True
                    break
    zero = (not nonzero) if not approx else abs(v) <= eps_eq
    if not zero and abs(v) < eps_ne:
        return None
    if rel == "=":
        return bool(zero)
    if zero:
        return rel in ("<=", ">=")
    return bool(v < 0) if rel in ("<", "<=") else bool(v > 0)


def _show_inst(inst: Instance, env) -> str:
    parts = [f"{k}={v}" for k, v in list(inst.values.items())[:6] if isinstance(k, Symbol)]
    parts += [f"{k}={v}" for k, v in env.items()]
    return ", ".join(parts)


# ====================================================================== running


def _link_of(rep, step: str, k: int):
    for s in rep.steps:
        if s.name == step:
            return s.links[k - 1] if k <= len(s.links) else None
    return None


def _rests_on(rep, lr) -> set | None:
    """The assumption labels a holding link rests on (directly and through cited steps)."""
    out = set()
    steps = {s.name: s for s in rep.steps}
    for u in lr.uses:
        if u.implicit:
            continue
        if u.kind == "step":
            if u.label not in steps:
                return None
            out |= set(steps[u.label].rests_on)
        else:
            out.add(u.label)
    return out


def run_one(m: Mutant, *, timeout: float = 2.0, seed: int = 0) -> Outcome:
    from stepcheck.checker import check_text
    from stepcheck.results import HOLDS

    t0 = time.perf_counter()
    out = Outcome(m, "invalid")
    try:
        rep = check_text(m.text, os.path.basename(m.file), timeout=timeout, cross_check=False)
    except Exception as e:  # check_text must never raise
        out.verdict = "crash"
        out.note = f"check_text raised {type(e).__name__}: {e}"
        out.seconds = time.perf_counter() - t0
        return out
    if rep.fatal:
        out.note = "; ".join(d.title for d in rep.errors)[:200]
        out.seconds = time.perf_counter() - t0
        return out
    links = {}
    for st, k in m.targets:
        lr = _link_of(rep, st, k)
        links[f"{st}#{k}"] = lr
        out.statuses[f"{st}#{k}"] = lr.status if lr is not None else None
    # the oracle: its own elaboration and evaluation, never the kernel
    try:
        el = _elaborate(m.text)
    except Exception as e:
        el = None
        out.note = f"oracle: {type(e).__name__}: {e}"
    if el is None:
        out.verdict = "undecided" if any(s == HOLDS for s in out.statuses.values()) else "invalid"
        out.seconds = time.perf_counter() - t0
        return out
    scope, infos, dists = el
    notes = []
    for st, k in m.targets:
        info = infos.get(st)
        key = f"{st}#{k}"
        if info is None:
            out.truth[key] = None
            continue
        lr = links.get(key)
        only = _rests_on(rep, lr) if lr is not None and lr.status == HOLDS else None
        oracle = Oracle(scope, dists, random.Random(f"{seed}/{m.file}/{m.description}/{key}"))
        try:
            t, why = oracle.link_truth(info, k, only=only)
            if t is None and only is not None:  # e.g. the cited facts alone admit no simple instance
                t, why = oracle.link_truth(info, k)
        except Exception as e:  # the oracle's own limits
            t, why = None, f"{type(e).__name__}: {e}"
        out.truth[key] = t
        if why:
            notes.append(f"{key}: {why}")
        if t is False and out.statuses.get(key) == HOLDS:
            break  # one accepted false link is enough
    out.note = "; ".join(notes)[:600]
    false_links = [k for k, t in out.truth.items() if t is False]
    held_unknown = [k for k, t in out.truth.items() if t is None and out.statuses.get(k) == HOLDS]
    if any(out.statuses.get(k) == HOLDS for k in false_links):
        out.verdict = "accepted"
    elif false_links:
        out.verdict = "rejected"
    elif m.key in EQUIVALENT:
        out.verdict = "equivalent"
        out.note = "hand-marked equivalent: " + EQUIVALENT[m.key]
    elif out.truth and all(t is True for t in out.truth.values()):
        out.verdict = "equivalent"
    elif held_unknown:
        out.verdict = "unresolved"  # the checker says holds and the oracle cannot tell: review by hand
    else:
        out.verdict = "undecided"  # the oracle cannot tell, and the checker did not accept it either
    out.seconds = time.perf_counter() - t0
    return out


def _run_star(args):
    m, timeout, seed = args
    return run_one(m, timeout=timeout, seed=seed)


def run(mutants, *, timeout: float = 2.0, seed: int = 0, jobs: int = 1, progress=None) -> Summary:
    t0 = time.perf_counter()
    args = [(m, timeout, seed) for m in mutants]
    outcomes = []
    if jobs > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(jobs) as pool:
            for o in pool.imap(_run_star, args, chunksize=2):
                outcomes.append(o)
                if progress:
                    progress(o)
    else:
        for a in args:
            o = _run_star(a)
            outcomes.append(o)
            if progress:
                progress(o)
    return Summary(outcomes, time.perf_counter() - t0)


def sample(mutants, n: int, seed: int = 0, kinds=KINDS) -> list[Mutant]:
    """A deterministic sample of ``n`` mutants spread over the ``kinds``."""
    rng = random.Random(seed)
    by_kind: dict = {}
    for m in mutants:
        by_kind.setdefault(m.kind, []).append(m)
    for v in by_kind.values():
        rng.shuffle(v)
    out = []
    while len(out) < n and any(by_kind.values()):
        for k in kinds:
            if by_kind.get(k) and len(out) < n:
                out.append(by_kind[k].pop())
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.mutate", description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*", help="derivations to mutate (default: derivations/*.step)")
    ap.add_argument("--sample", type=int, default=0, help="run only N mutants, spread over the kinds")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=2.0, help="seconds per link (default 2)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print the counts as JSON")
    ap.add_argument("--verbose", "-v", action="store_true", help="one line per mutant")
    a = ap.parse_args(argv)
    mutants = generate(a.paths or None)
    if a.sample:
        mutants = sample(mutants, a.sample, a.seed)

    def progress(o):
        if a.verbose:
            print(f"{o.verdict:10} {o.mutant.kind:12} {os.path.basename(o.mutant.file)} {o.mutant.where}: "
                  f"{o.mutant.description} {o.statuses} {o.truth} {o.note[:120]}", file=sys.stderr)

    summary = run(mutants, timeout=a.timeout, seed=a.seed, jobs=a.jobs, progress=progress)
    if a.json:
        print(json.dumps(summary.to_json(), indent=2, ensure_ascii=False))
    else:
        print(summary.table())
        for o in summary.problems:
            title = {"accepted": "ACCEPTED FALSE MUTANT", "crash": "CHECKER CRASHED",
                     "unresolved": "HOLDS, ORACLE UNDECIDED (review; add to EQUIVALENT if true)"}[o.verdict]
            print(f"\n{title} ({o.mutant.kind}) {o.mutant.file}, {o.mutant.where}: "
                  f"{o.mutant.description}\n  {o.statuses} {o.truth} {o.note}")
        print(f"\n{len(summary.outcomes)} mutants in {summary.seconds:.0f} s; accepted: {len(summary.accepted)}")
    return 1 if summary.accepted or any(o.verdict == "crash" for o in summary.outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
