"""From the parse tree to sympy objects (the elaborator).

Declarations become sympy symbols with assumptions, random families become
``IndexedBase`` objects, and expressions are built node by node from the AST:
no user text is ever handed to ``sympify``/``eval``.  Name errors, arity
errors and indices outside their declared range raise
:class:`~stepcheck.errors.StepError` with the span of the culprit.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy
from sympy import Dummy, IndexedBase, Integer, KroneckerDelta, Symbol

from . import matrices as M
from . import syntax as S
from .errors import Span, closest, error
from .literals import number
from .terms.functions import FUNCTIONS
from .conditions import DEFINED, RELATION_SHOWN, DomainConditions, NoRealValue
from .terms.objects import SD, Cov, E, Var
from .terms.printer import show

MAX_EXPONENT = 1000  # a numeric exponent larger than this is refused

KIND_OF_TYPE = {
    "positive integer": dict(integer=True, positive=True),
    "integer": dict(integer=True),
    "real": dict(real=True),
    "positive real": dict(real=True, positive=True),
    "nonnegative real": dict(real=True, nonnegative=True),
}

CONSTANTS = {"pi": sympy.pi, "π": sympy.pi, "oo": sympy.oo, "∞": sympy.oo}

# the operators and the functions of fixed arity (terms/functions.py), with their number of arguments
ARITY = {"E": 1, "Var": 1, "SD": 1, "Cov": 2,
         **{f.name: f.arity for f in FUNCTIONS.values() if f.fixed_arity is not None}}
NOT_YET: dict = {}  # function -> what it is, for functions not supported yet


@dataclass
class Family:
    base: IndexedBase
    var: str  # the index name used in the declaration
    lo: sympy.Expr
    hi: sympy.Expr
    random: bool
    span: Span


@dataclass
class Definition:
    name: str
    params: tuple  # index symbols (for p_i) or ()
    body: sympy.Expr
    span: Span
    conditions: tuple = ()  # where the body is defined ((expr, rel) as in Elaborator.need): a use inherits them
    signs: tuple = ()  # declared symbols whose sign sympy used to build the body (uses.built_signs)


@dataclass
class Scope:
    symbols: dict = field(default_factory=dict)  # name -> Symbol
    kinds: dict = field(default_factory=dict)  # name -> "dimension", "index", "random", "real"
    spans: dict = field(default_factory=dict)
    families: dict = field(default_factory=dict)  # name -> Family
    index_ranges: dict = field(default_factory=dict)  # Symbol -> (lo, hi)
    defines: dict = field(default_factory=dict)  # name -> Definition
    random_symbols: set = field(default_factory=set)
    distributions: dict = field(default_factory=dict)  # name -> (Call AST, Span)
    law_conditions: dict = field(default_factory=dict)  # name -> where its law exists (Bernoulli(p): 0 <= p <= 1)
    heavy_aliases: dict = field(default_factory=dict)  # random name -> why its means rest on a heavy-tailed law
    law_aliases: dict = field(default_factory=dict)  # lawless random Symbol -> [(what an equation ties it to, label)]
    matrices: dict = field(default_factory=dict)  # name -> matrices.MatrixDecl
    laws: dict = field(default_factory=dict)  # random variable or family name -> its declared distributions.Dist

    def all_names(self):
        names = set(self.symbols) | set(self.defines) | set(self.matrices)
        for f in self.families.values():
            names.add(f"{f.base.label}_{f.var}")
            names.add(str(f.base.label))
        return names


class Elaborator(DomainConditions):
    def __init__(self, scope: Scope):
        self.scope = scope
        self.bound: list[dict] = []  # stack of {name: Dummy}
        self.used_defs: set[str] = set()
        self.vector_index = None  # set while reading softmax's argument elementwise
        #: where the expressions read so far are defined: (expr, rel) with rel "!=", ">" or ">=" (against 0),
        #: e.g. (y - 2, "!=") for a division by y - 2 (see :meth:`need`)
        self.conditions: list[tuple] = []
        self.random_needs: list[tuple] = []  # (expr, rel) of the guards on random quantities, as written
        self.watched: dict = {}  # the variable of a limit or an extremum being read -> the conditions on it
        self.bound_ranges: dict = {}  # summation index (a Dummy) -> (lo, hi, span of the sum)
        self.range_guards: set = set()  # the guards of free indices' ranges (:meth:`free_index`): never shown
        self.reasons: dict = {}  # (x, rel) -> why, where the condition is not a function's domain (s_2: n ≥ 2)
        self.unproved_means: list = []  # means on a heavy-tailed law not shown to exist (finite_moments): texts

    def use_definition(self, d: Definition, indices):
        """A definition's body at ``indices``, with the side conditions of the body (`define r = sqrt(x)`:
        a link using r holds only where x ≥ 0, as if sqrt(x) were written there)."""
        sub = dict(zip(d.params, indices))
        for x, rel in d.conditions:
            x = x.xreplace(sub) if sub else x
            if rel == DEFINED:
                if (x, rel) not in self.conditions:
                    self.conditions.append((x, rel))
            else:
                self.need(x, rel)
        return d.body.xreplace(sub) if sub else d.body

    # ------------------------------------------------------------ names
    def lookup_bound(self, name):
        for frame in reversed(self.bound):
            if name in frame:
                return frame[name]
        return None

    def index_value(self, text: str, span: Span):
        """The index named ``text`` (a bound or declared index, or a literal)."""
        if text.isdigit():
            return Integer(int(text))
        b = self.lookup_bound(text)
        if b is not None:
            return b
        if self.scope.kinds.get(text) == "index":
            return self.free_index(self.scope.symbols[text])
        return None

    def name(self, node: S.Name) -> sympy.Expr:
        n = node.name
        direct = self.lookup_bound(n)
        if direct is None and n in self.scope.symbols:
            direct = self.scope.symbols[n]
        if direct is None and n in CONSTANTS:
            direct = CONSTANTS[n]
        if direct is None and n in self.scope.defines and not self.scope.defines[n].params:
            self.used_defs.add(n)
            direct = self.use_definition(self.scope.defines[n], ())
        if direct is None and n in self.scope.matrices and self.lookup_bound(n) is None:
            return M.matrix_symbol(self.scope.matrices[n])
        split = None
        if "_" in n:
            prefix, suffix = n.rsplit("_", 1)
            d = self.scope.defines.get(prefix)
            if prefix in self.scope.families or (d is not None and (d.params or isinstance(d.body, M.Mat))):
                iv = self.index_value(suffix, node.span)
                if iv is not None:
                    split = self.apply_family(prefix, [iv], node.span)
            elif prefix in ("δ", "delta") and len(suffix) == 2:
                a, b = self.index_value(suffix[0], node.span), self.index_value(suffix[1], node.span)
                if a is not None and b is not None:
                    split = KroneckerDelta(a, b)
        if direct is not None and split is not None and direct != split:
            raise error(f"`{n}` is ambiguous", node.span, "could mean two things",
                        notes=[f"`{n}` is declared as a name, and `{n.rsplit('_', 1)[0]}` is a family indexed by `{n.rsplit('_', 1)[1]}`"],
                        help="rename one of them", code="E-ambiguous")
        if direct is not None:
            if n in self.scope.law_conditions and self.lookup_bound(n) is None:
                self.need_law(n)
            return self.free_index(direct) if self.lookup_bound(n) is None and self.scope.kinds.get(n) == "index" \
                else direct
        if split is not None:
            return split
        if n in self.scope.families and self.vector_index is not None:
            return self.apply_family(n, [self.vector_index], node.span)
        if n in self.scope.families:  # a family on its own is a column vector (a number only with an index)
            fam = self.scope.families[n]
            return M.family_vector(fam.base, fam.lo, fam.hi)
        cands = self.scope.all_names() | {k for fr in self.bound for k in fr}
        guess = closest(n, cands)
        hint = f"did you mean `{guess}`?" if guess else "declare it with `let`, `random` or `real`"
        if guess == n or n in self.scope.defines:  # `y` of an indexed `define y_i`: a name, but not a value
            hint = f"`{n}` is the name of the members `{n}_i` of an indexed `define`: write a member, `{n}_i`"
        head, _, tail = n.rpartition("_")
        if n == "e":
            hint = "Euler's number is `exp(1)`: write `exp(x)` for e^x (or declare `e` with `let`)"
        elif head in self.scope.families and (tail in self.scope.symbols or self.lookup_bound(tail) is not None):
            hint = f"member `{tail}` of the family `{head}` is written `{head}_{{{tail}}}` or `{head}[{tail}]`"
        raise error(f"unknown name `{n}`", node.span, "not declared", help=hint, code="E-unknown-name")

    def apply_family(self, name: str, indices: list, span: Span):
        if name in self.scope.defines:
            d = self.scope.defines[name]
            if isinstance(d.body, M.Mat):  # p_i of `define p = softmax(s)`
                self.used_defs.add(name)
                self.matrix_indices(d.body, indices, [span] * len(indices), name)
                return M.entry(d.body, indices, span, [span] * len(indices))
            if len(indices) != len(d.params):
                raise error(f"`{name}` takes {len(d.params)} index(es)", span, code="E-arity")
            self.used_defs.add(name)
            return self.use_definition(d, indices)
        fam = self.scope.families[name]
        if len(indices) != 1:
            raise error(f"`{name}` takes one index, not {len(indices)}", span, code="E-arity")
        iv = indices[0]
        self.check_range(name, fam, iv, span)
        if name in self.scope.law_conditions:
            self.need_law(name)
        return fam.base[iv]

    # ------------------------------------------------------------ expressions
    def expr(self, node) -> sympy.Expr:
        """A number-valued expression (a matrix or vector here is an error)."""
        out = self.mexpr(node)
        if isinstance(out, M.Mat):
            raise M.not_a_number(node, out, self.scope.families)
        return out

    def mexpr(self, node):
        """An expression that may also be a matrix or vector (a :class:`~stepcheck.matrices.Mat`)."""
        m = getattr(self, "e_" + type(node).__name__, None)
        if m is None:
            raise error("this kind of expression is not supported here", node.span, code="E-unsupported")
        try:
            out = m(node)
        except NoRealValue as e:
            raise error("this expression has no real value", node.span,
                        f"needs {show(e.x)} {RELATION_SHOWN[e.rel]} 0, which holds for no admissible value",
                        notes=["the language's expressions are real-valued: a square root of a negative number, "
                               "the logarithm of a number ≤ 0, and what is built from them, have no value"],
                        code="E-undefined") from None
        if not isinstance(out, M.Mat) and out.has(sympy.zoo, sympy.nan):
            if out.has(sympy.nan) and not out.has(sympy.zoo):  # 0 * oo, oo - oo
                raise error("this expression has no value", node.span, "∞·0 or ∞ − ∞", code="E-undefined")
            raise error("division by zero", node.span, "undefined", code="E-undefined")
        return out

    def e_Num(self, node: S.Num):
        return number(node.text, node.span)

    def e_Name(self, node: S.Name):
        return self.name(node)

    def e_Subscript(self, node: S.Subscript):
        if isinstance(node.base, S.Call) and node.base.func == "softmax":
            return self.indexed_call(node)
        idx = [self.expr(i) for i in node.indices]
        for i, n in zip(idx, node.indices):
            if not (i.is_Integer or i.is_Symbol):
                raise error("an index must be an index name or a whole number", n.span, code="E-index")
        if not isinstance(node.base, S.Name):  # (Q K^T)_{i, j}
            m = self.mexpr(node.base)
            if not isinstance(m, M.Mat):
                raise error("only a matrix or a vector can be indexed", node.base.span, "a number", code="E-index")
            self.matrix_indices(m, idx, [n.span for n in node.indices])
            return M.entry(m, idx, node.span, [n.span for n in node.indices])
        name = node.base.name
        if name in self.scope.matrices:
            m = M.matrix_symbol(self.scope.matrices[name])
            self.matrix_indices(m, idx, [n.span for n in node.indices], name)
            return M.entry(m, idx, node.span, [n.span for n in node.indices])
        if name in ("δ", "delta") and len(idx) == 2:
            return KroneckerDelta(*idx)
        if name in self.scope.families or name in self.scope.defines:
            return self.apply_family(name, idx, node.span)
        raise error(f"`{name}` is not an indexed family", node.base.span, "not a family",
                    help="declare it with `random NAME_i for i in LO..HI` or `real NAME_i for i in LO..HI`",
                    code="E-unknown-name")

    def e_Neg(self, node: S.Neg):
        x = self.mexpr(node.operand)
        return x.scaled(-1) if isinstance(x, M.Mat) else -x

    def e_BinOp(self, node: S.BinOp):
        a = self.mexpr(node.left)
        if node.op == "^" and isinstance(a, M.Mat) and isinstance(node.right, S.Name) and node.right.name == "T":
            return a.transpose()
        b = self.mexpr(node.right)
        out = self._binop(node, a, b)
        if not isinstance(out, (M.Mat, sympy.MatrixBase)):
            _no_lost_limit(node, (a, b), out)
        return out

    def _binop(self, node: S.BinOp, a, b):
        op = node.op
        if isinstance(a, M.Mat) or isinstance(b, M.Mat):
            if op == "/" and not isinstance(b, M.Mat):
                self.need(b, "!=")
            return M.binop(op, a, b, node, node.right.span)
        if isinstance(a, sympy.MatrixBase) or isinstance(b, sympy.MatrixBase):
            return self.literal_binop(op, a, b, node)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            if b == 0:
                raise error("division by zero", node.right.span, "this is 0", code="E-undefined")
            self.need(b, "!=")
            return a / b
        if op == "^":
            if b.is_number and (abs(b) > MAX_EXPONENT) and not (a == 0 or a == 1 or a == -1):
                raise error("exponent too large", node.right.span, f"more than {MAX_EXPONENT}",
                            notes=[f"numeric exponents are limited to {MAX_EXPONENT} so that checking stays fast"],
                            code="E-limit")
            if b.is_number and a.is_number and a.is_Integer and b.is_Integer and b > 0:
                if abs(a) > 1 and float(b) * len(str(abs(a))) > 20000:
                    raise error("number too large", node.span, "more than 20,000 digits", code="E-limit")
            if b.is_number and b.is_negative:
                self.need(a, "!=")
            if b.is_number and not b.is_integer:
                self.need(a, ">=" if b.is_positive else ">")
            elif not b.is_number:  # a symbolic exponent
                if a.is_number and a.is_zero:
                    self.need(b, ">")  # 0^x = 0 where x > 0
                elif b.is_integer:  # (-1)^m for an integer m: real; a negative m divides by a
                    if not b.is_nonnegative:
                        self.need(a, "!=")
                elif not (a.is_number and a.is_positive):
                    self.need(a, ">=" if b.is_positive else ">")  # 0^x = 0 for a positive x
            return a**b
        raise error(f"unknown operator `{op}`", node.span, code="E-unsupported")

    def e_Call(self, node: S.Call):
        f = node.func
        if f in NOT_YET:
            raise error(f"{NOT_YET[f]} (`{f}`) are not supported by this version of stepcheck", node.func_span,
                        "not supported yet", code="E-unsupported")
        want = ARITY.get(f)
        n = len(node.args)
        if want is not None and n != want:
            raise error(f"`{f}` takes {want} argument{'s' if want > 1 else ''}, not {n}", node.span,
                        f"{n} given", help=_arity_help(f), code="E-arity")
        if f in ("diff", "limit", "argmax", "argmin") or (f in ("max", "min") and n == 2 and
                                                            isinstance(node.args[1], S.Compare)):
            return self.calculus_call(node)
        if f in ("max", "min") and n == 1 and isinstance(node.args[0], S.Name) \
                and node.args[0].name in self.scope.families:
            # the largest (smallest) entry of a family: a value that depends on every member
            from .terms.objects import FamilyExtremum

            fam = self.scope.families[node.args[0].name]
            return FamilyExtremum(fam.base, fam.lo, fam.hi, sympy.core.symbol.Str(f))
        if f == "softmax" and n == 1 and not _has_vector_literal(node.args[0]):
            return self.softmax_vector(node)
        if f in ("diag", "ones"):
            return self.matrix_call(node)
        if f == "P":
            return self.probability(node)
        args = [self.expr(a) for a in node.args]
        if f in ("E", "Var", "SD", "Cov"):
            self.finite_moments(f, args, node)
        if f == "E":
            return E(args[0])
        if f == "Var":
            return Var(args[0])
        if f == "Cov":
            return Cov(args[0], args[1])
        if f == "SD":
            return SD(args[0])
        row = FUNCTIONS.get(f)
        if row is not None:  # an elementary function: one row of the function table
            if not row.takes(n):
                raise error(row.arity_message(n), node.span, code="E-arity")
            if row.domain:
                self.need(args[0], row.domain)
            if f == "log" and n == 2:  # log(x, b) = log(x) / log(b): a positive base other than 1
                self.need(args[1], ">")
                self.need(sympy.log(args[1]), "!=")
            try:
                return row.build(*args)
            except (TypeError, ValueError) as e:  # sympy's max of values it cannot order
                raise error(f"`{f}` cannot be taken of these arguments", node.span, "no value",
                            notes=[f"sympy: {e}"], code="E-undefined") from None
        if f == "softmax":
            if n == 1 and isinstance(args[0], sympy.MatrixBase):
                ex = [sympy.exp(x) for x in args[0]]
                tot = sympy.Add(*ex)
                return sympy.ImmutableMatrix([x / tot for x in ex])
            raise error("`softmax` of a family needs an index: write `softmax(s)_i`", node.span, code="E-softmax")
        raise error(f"unknown function `{f}`", node.func_span, code="E-unsupported")

    # ------------------------------------------------------------ calculus
    def bind_real(self, name: S.Name, signed: bool = True):
        """A fresh variable for `x -> a` / `x in [a, b]` (with the declared sign if ``signed``)."""
        decl = self.scope.symbols.get(name.name)
        if decl is not None and self.scope.kinds.get(name.name) in ("index",):
            raise error(f"`{name.name}` is an index, not a real variable", name.span, code="E-calculus")
        opts = dict(real=True)
        if decl is not None and signed:
            opts.update({k: v for k, v in decl.assumptions0.items() if k in ("positive", "nonnegative", "negative")
                         and v})
        return Dummy(name.name, **opts)

    def _side(self, cmp: S.Compare, pt) -> str:
        """The direction of `x -> a`: as written (`a+`, `a-`); else from inside a declared sign at its end
        point (`T -> 0` for a positive T is `T -> 0+`); else two-sided.

        The limit variable itself carries no sign: at a point outside the
        declared domain (a positive x, x -> -1) the function's own values
        near that point decide, not the declaration.
        """
        if cmp.op != "->":
            return cmp.op[-1]
        decl = self.scope.symbols.get(cmp.left.name)
        if decl is not None and pt == 0:
            if decl.is_nonnegative:
                return "+"
            if decl.is_nonpositive:
                return "-"
        return "+-"

    def calculus_call(self, node: S.Call):
        from .terms.objects import Extremum

        f, args = node.func, node.args
        if f == "diff":
            if len(args) != 2:
                raise error("`diff` takes a function and a variable: `diff(f, x)`", node.span, code="E-arity")
            body, var = self.mexpr(args[0]), self.mexpr(args[1])
            if isinstance(var, M.Mat):  # diff(p, s): the Jacobian (or the gradient) with respect to a vector
                self._not_random(var.entry(Integer(1), Integer(1)), args[1].span)
                return M.jacobian(body, var, node.span)
            if isinstance(body, M.Mat):
                raise error("differentiate a vector with respect to a vector (a Jacobian), or take an entry",
                            args[0].span, f"this is {body.shape_text}", code="E-calculus")
            if not (var.is_Symbol or isinstance(var, sympy.Indexed)):
                raise error("differentiate with respect to a variable", args[1].span, code="E-calculus")
            self._not_random(var, args[1].span)
            if body.has(sympy.Limit):  # d/dx of an infinite limit is ∞ − ∞ over h; sympy would write 0
                raise error("the derivative of an expression with a limit is not supported", args[0].span,
                            "contains a limit", help="prove the limit's value in a step of its own, then "
                            "differentiate the expression with that value", code="E-unsupported")
            return sympy.Derivative(body, var)
        if len(args) != 2 or not isinstance(args[1], S.Compare):
            form = "limit(f, x -> a)" if f == "limit" else f"{f}(f, x in [a, b])"
            raise error(f"write `{form}`", node.span, code="E-arity")
        cmp = args[1]
        if not isinstance(cmp.left, S.Name):
            raise error("expected a variable name", cmp.left.span, code="E-calculus")
        if f == "limit":
            if cmp.op not in ("->", "->+", "->-"):
                raise error("write `limit(f, x -> a)`", cmp.span, code="E-calculus")
            x = self.bind_real(cmp.left, signed=False)
            self.bound.append({cmp.left.name: x})
            self.watched[x] = []
            try:
                body = self.expr(args[0])
            finally:
                self.bound.pop()
                conds = self.watched.pop(x)
            pt = self.expr(cmp.right)
            if not pt.is_finite:
                if cmp.op != "->":
                    raise error("a limit at infinity has one side only: write `x -> oo`", cmp.span, code="E-calculus")
                self.defined_near(conds, x, pt, "-" if pt == sympy.oo else "+", args[0].span)
                return sympy.Limit(body, x, pt)
            side = self._side(cmp, pt)
            self.defined_near(conds, x, pt, side, args[0].span)
            return sympy.Limit(body, x, pt, dir=side)
        if cmp.op != "in" or not isinstance(cmp.right, S.Vector) or len(cmp.right.items) != 2:
            raise error(f"write `{f}(f, x in [a, b])`", cmp.span, code="E-calculus")
        a, b = (self.expr(v) for v in cmp.right.items)
        x = Dummy(cmp.left.name, real=True)
        self.bound.append({cmp.left.name: x})
        self.watched[x] = []
        try:
            body = self.expr(args[0])
        finally:
            self.bound.pop()
            conds = self.watched.pop(x)
        self.defined_on(conds, x, a, b, f, args[0].span)
        return Extremum(body, x, a, b, Symbol(f))

    def _not_random(self, var, span):
        fam = self.scope.families.get(str(var.base.label)) if isinstance(var, sympy.Indexed) else None
        if var in self.scope.random_symbols or (fam is not None and fam.random):
            raise error("cannot differentiate with respect to a random variable", span, code="E-calculus")

    # ------------------------------------------------------------ vectors
    def softmax_vector(self, call: S.Call):
        """``softmax(s)`` of a family: the column vector of its entries."""
        fams = self.family_of(call.args[0])
        if len(fams) != 1:
            raise error("`softmax` needs a vector: a list `[a, b, ...]` or an indexed family such as `s`",
                        call.args[0].span, code="E-softmax")
        fam = self.scope.families[next(iter(fams))]
        u = Dummy("u", integer=True)
        body = self.softmax_entry(call, u + fam.lo - 1, call.span)  # read once, at a symbolic index
        return M.column(fam.hi - fam.lo + 1, lambda i: body.xreplace({u: i}))

    def matrix_call(self, node: S.Call):
        """``diag(v)`` (the diagonal matrix of a vector) and ``ones(n)`` (the column of n ones)."""
        if len(node.args) != 1:
            raise error(f"`{node.func}` takes one argument", node.span, code="E-arity")
        if node.func == "ones":
            n = self.expr(node.args[0])
            if not (n.is_integer and n.is_positive):
                raise error("`ones(n)` needs a positive whole number", node.args[0].span, code="E-index")
            return M.column(n, lambda i: Integer(1))
        v = self.mexpr(node.args[0])
        if not isinstance(v, M.Mat):
            raise error("`diag` takes a vector", node.args[0].span, "a number", code="E-shape")
        return M.diag(v, node.args[0].span)

    def family_of(self, node):
        """The family a vector-valued argument ranges over (softmax(s), softmax(s / T))."""
        return {n.name for n in S.walk(node) if isinstance(n, S.Name) and n.name in self.scope.families
                and self.lookup_bound(n.name) is None}

    def literal_vector(self, node):
        """The entries of a vector-valued argument built from a literal (`[a, b] / 8`), or None."""
        if not _has_vector_literal(node):
            return None
        v = self.expr(node)
        if not isinstance(v, sympy.MatrixBase):
            raise error("`softmax` needs a vector", node.span, "a number", code="E-softmax")
        return list(v)

    def elementwise(self, node, idx):
        """Elaborate ``node`` with every bare family name read at index ``idx``."""
        saved = self.vector_index
        self.vector_index = idx
        try:
            return self.expr(node)
        finally:
            self.vector_index = saved

    def softmax_entry(self, call: S.Call, idx_value, span):
        if len(call.args) != 1:
            raise error("`softmax` takes one vector", call.span, code="E-arity")
        arg = call.args[0]
        v = self.literal_vector(arg)
        if v is not None:
            if not idx_value.is_Integer:
                raise error("an entry of a vector literal needs a whole-number index", span,
                            help="write `softmax([a, b, c])_2`, or declare a family for a symbolic index",
                            code="E-index")
            if not 1 <= int(idx_value) <= len(v):
                raise error(f"index {idx_value} is outside 1..{len(v)}", span, code="E-range")
            return sympy.exp(v[idx_value - 1]) / sympy.Add(*[sympy.exp(x) for x in v])
        fams = self.family_of(arg)
        if len(fams) != 1:
            raise error("`softmax` needs a vector: a list `[a, b, ...]` or an indexed family such as `s`",
                        arg.span, code="E-softmax")
        fam = self.scope.families[fams.pop()]
        m = Dummy("m", integer=True)
        num = sympy.exp(self.elementwise(arg, idx_value))
        den = sympy.Sum(sympy.exp(self.elementwise(arg, m)), (m, fam.lo, fam.hi))
        return num / den

    def indexed_call(self, node: S.Subscript):
        call = node.base  # a softmax call (other calls are indexed as matrices: diff(p, s)_{i, j})
        if len(node.indices) != 1:
            raise error("`softmax(...)` takes one index", node.span, code="E-arity")
        ix = node.indices[0]
        iv = Integer(int(ix.name)) if isinstance(ix, S.Name) and ix.name.isdigit() else self.expr(ix)
        return self.softmax_entry(call, iv, node.indices[0].span)

    def e_BigOp(self, node: S.BigOp):
        lo, hi = self.expr(node.lo), self.expr(node.hi)
        for v, n in ((lo, node.lo), (hi, node.hi)):
            if v.has(E, Var, Cov, SD) or not (v.is_integer or v.is_Integer):
                if not (v.is_integer):
                    raise error("summation bounds must be whole numbers or integer symbols", n.span,
                                code="E-index")
        d = Dummy(node.var.name, integer=True)
        self.bound.append({node.var.name: d})
        self.bound_ranges[d] = (lo, hi, node.span)
        try:
            body = self.expr(node.body)
        finally:
            self.bound.pop()
        if node.op == "sum":
            return sympy.Sum(body, (d, lo, hi))
        return sympy.Product(body, (d, lo, hi))

    def literal_binop(self, op, a, b, node):
        """``[a, b] + [c, d]``, ``[a, b] / 8``, ``2 [a, b]``: entrywise, with a number broadcast by * and /."""
        av, bv = isinstance(a, sympy.MatrixBase), isinstance(b, sympy.MatrixBase)
        if op in ("+", "-") and av and bv and a.shape == b.shape:
            return a + b if op == "+" else a - b
        if op == "*" and av != bv:
            return a * b
        if op == "/" and av and not bv:
            if b == 0:
                raise error("division by zero", node.right.span, "this is 0", code="E-undefined")
            self.need(b, "!=")
            return a / b
        shapes = " and ".join(f"a vector of {len(x)}" if isinstance(x, sympy.MatrixBase) else "a number"
                              for x in (a, b))
        raise error(f"`{op}` is not defined between {shapes}", node.span, shapes, code="E-shape",
                    help="vectors add and subtract entrywise when their lengths agree; a number multiplies "
                         "or divides every entry")

    def e_Vector(self, node: S.Vector):
        items = [self.expr(x) for x in node.items]
        for x, n in zip(items, node.items):
            if isinstance(x, sympy.MatrixBase):
                raise error("vectors cannot be nested", n.span, code="E-unsupported")
        return sympy.ImmutableMatrix(items)

    def probability(self, node: S.Call):
        """``P(event)``: an unevaluated :class:`~stepcheck.terms.probability.Prob` of a sympy relational."""
        from .terms.probability import Prob

        if len(node.args) != 1 or not isinstance(node.args[0], S.Compare):
            raise error("`P` takes an event: a relation such as `P(S = 0)` or `P(-1 <= Z <= 1)`", node.span,
                        code="E-arity")
        saved = getattr(self, "in_event", False)
        self.in_event = True
        try:
            return Prob(self.expr(node.args[0]))
        finally:
            self.in_event = saved

    def e_Compare(self, node: S.Compare):
        from .terms.probability import RELATIONS, relation

        if not getattr(self, "in_event", False) or node.op not in RELATIONS:
            raise error("a relation cannot be used as a value here", node.span, code="E-unsupported")
        if isinstance(node.left, S.Compare):  # a <= Z <= b: (a <= Z) and (Z <= b)
            first = self.expr(node.left)
            middle = self.expr(node.left.right)
            last = relation(node.op, middle, self.expr(node.right))
            return sympy.And(first, last)
        a, b = self.expr(node.left), self.expr(node.right)
        if isinstance(a, sympy.MatrixBase) or isinstance(b, sympy.MatrixBase):
            raise error("an event compares numbers, not vectors", node.span, code="E-unsupported")
        return relation(node.op, a, b)


def _no_lost_limit(node: S.BinOp, operands, out) -> None:
    """sympy simplifies ``0 * L`` and ``L - L`` to 0 as it builds them, also when the limit ``L`` is infinite
    (∞·0 and ∞ − ∞ have no value): a limit that an operation made disappear is an error, never a 0."""
    before = set()
    for x in operands:
        if isinstance(x, sympy.Basic) and not isinstance(x, sympy.MatrixBase):
            before |= x.atoms(sympy.Limit)
    lost = before - out.atoms(sympy.Limit) if before else set()
    if lost:
        raise error("a limit cancels out here before its value is known", node.span,
                    "0 times a limit, or a limit minus itself",
                    notes=["if the limit is infinite, ∞·0 and ∞ − ∞ have no value; sympy would write 0"],
                    help="prove the limit's value in a step of its own, then compute with that value",
                    code="E-undefined")


def _has_vector_literal(node) -> bool:
    """Whether ``node`` is built from a vector literal (`[a, b] / 8`), not from a family."""
    return any(isinstance(n, S.Vector) for n in S.walk(node))


def _arity_help(f):
    return {
        "Cov": "write `Cov(X, Y)` with two random variables",
        "E": "write `E[X]`",
        "Var": "write `Var(X)`",
        "SD": "write `SD(X)`",
    }.get(f)


# ------------------------------------------------------------------ facts
