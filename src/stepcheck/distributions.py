"""Concrete distributions: ``random X ~ Normal(0, 1)``, ``random X_i ~ Rademacher for i in 1..4``.

A declared distribution does two things:

* it gives the symbolic kernel facts about the moments of its variables
  (kind ``distribution``): E[X] = mean, Var(X) = variance, and the raw
  moments E[X^2], E[X^3], E[X^4] (all finite for the supported laws), so
  that a claim about many variables is proved symbolically;
* it gives :mod:`stepcheck.numeric` exact values: the support and
  probabilities of a finite law (for enumeration), the CDF of a continuous
  one (for events), exact moments, and a numpy sampler (for ``simulate``).

Supported (parameters may be numbers or declared symbols; checks that need
numbers say so):

=====================  =========================================  =================
law                    meaning                                    support
=====================  =========================================  =================
``Normal(μ, σ²)``      mean μ, VARIANCE σ² (not the SD)           continuous
``Uniform(a, b)``      continuous uniform on [a, b]               continuous
``Bernoulli(p)``       1 with probability p, else 0               {0, 1}
``Rademacher``         ±1 with probability 1/2 each               {-1, 1}
``DiscreteUniform(a, b)`` each integer a..b equally likely        {a, ..., b}
``Binomial(n, p)``     number of successes in n Bernoulli(p)      {0, ..., n}
``Cauchy(x₀, γ)``      location x₀, scale γ: no finite mean       continuous
``StudentT(ν)``        Student's t, ν a number: E|X|^k < ∞ iff    continuous
                       k < ν
=====================  =========================================  =================

The two heavy-tailed laws (Cauchy, Student's t) have moments only below their
tail index (1 for Cauchy, ν for t): the kernel is given only those, and
:mod:`stepcheck.integrability` reports a mean that needs a higher one as one
that does not exist.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy
from sympy import Integer, Rational

from . import syntax as S
from .errors import error

MAX_SUPPORT = 10_000  # points in one variable's finite support
FACT_MOMENTS = 4  # raw moments given to the kernel
HEAVY = ("Cauchy", "StudentT")  # laws with a finite tail index: E|X|^k < ∞ only for k below it


class NoMoment(ValueError):
    """E[X^k] of a law whose moment of that order is infinite or undefined (Cauchy's mean)."""


@dataclass
class Dist:
    name: str  # "Normal", ...
    params: tuple  # sympy expressions
    text: str  # as written, "Normal(0, 1)"

    # ---------------------------------------------------------- facts
    @property
    def finite(self) -> bool:
        return self.name in ("Bernoulli", "Rademacher", "DiscreteUniform", "Binomial")

    @property
    def continuous(self) -> bool:
        return self.name in ("Normal", "Uniform") + HEAVY

    @property
    def tail_index(self):
        """The order from which E|X|^k is infinite (1 for Cauchy, ν for Student's t), or None: every moment
        is finite."""
        if self.name == "Cauchy":
            return Integer(1)
        if self.name == "StudentT":
            return self.params[0]
        return None

    def has_moment(self, k) -> bool:
        """Is E|X|^k finite?  (The tail index is a number: ``_validate`` requires it.)"""
        a = self.tail_index
        return a is None or bool(k < a)

    def conditions_at(self) -> list:
        """Every condition for the law to exist ((expr, rel) against 0), numbers included (the re-check
        decides them at a point)."""
        p = self.params
        if self.name == "Normal":
            return [(p[1], ">")]
        if self.name in ("Uniform", "DiscreteUniform"):
            return [(p[1] - p[0], ">" if self.name == "Uniform" else ">=")]
        if self.name in ("Bernoulli", "Binomial"):
            return [(p[-1], ">="), (1 - p[-1], ">=")]
        if self.name in HEAVY:
            return [(p[-1], ">")]
        return []

    def conditions(self) -> tuple:
        """Where the law exists, for parameters that are names ((expr, rel) against 0, as
        ``Elaborator.need``): a numeric parameter is validated when declared, and a condition the
        declared signs already give (σ² with σ positive) is left out."""
        want = self.conditions_at()
        return tuple((x, rel) for x, rel in want if not x.is_number
                     and not (x.is_positive if rel == ">" else x.is_nonnegative))

    def moment(self, k: int) -> sympy.Expr:
        """E[X^k], exactly (symbolic parameters allowed)."""
        k = int(k)
        if k == 0:
            return Integer(1)
        if not self.has_moment(k):
            raise NoMoment(f"E[X^{k}] does not exist for {self.text} (E|X|^k is finite only for k < "
                           f"{self.tail_index})")
        n = self.name
        if n == "StudentT":
            nu = self.params[0]
            # E[X^k] = 0 for an odd k; ν^(k/2) Π_{j=1..k/2} (2j - 1)/(ν - 2j) for an even k < ν
            if k % 2:
                return Integer(0)
            return sympy.Mul(nu ** (k // 2), *[Integer(2 * j - 1) / (nu - 2 * j) for j in range(1, k // 2 + 1)])
        if n == "Normal":
            mu, v = self.params
            # E[(mu + sigma Z)^k] = sum_j C(k, j) mu^(k-j) sigma^j E[Z^j], E[Z^j] = (j-1)!! for even j
            tot = Integer(0)
            for j in range(0, k + 1, 2):
                tot += sympy.binomial(k, j) * mu ** (k - j) * v ** (j // 2) * sympy.factorial2(j - 1)
            return sympy.expand(tot)
        if n == "Uniform":
            a, b = self.params
            return sympy.factor(sympy.cancel((b ** (k + 1) - a ** (k + 1)) / ((k + 1) * (b - a))))
        if n == "Bernoulli":
            return self.params[0]
        if n == "Rademacher":
            return Integer(1) if k % 2 == 0 else Integer(0)
        if n == "DiscreteUniform":
            a, b = self.params
            # Σ_{m=a}^{b} m^k = (B_{k+1}(b + 1) - B_{k+1}(a)) / (k + 1) with the Bernoulli polynomials: the
            # ordinary sum for a <= b (a law's support is never empty), with no sympy summation (whose
            # reversed ranges follow Karr's convention, not the language's: see models/ranges.py)
            top = (sympy.bernoulli(k + 1, b + 1) - sympy.bernoulli(k + 1, a)) / (k + 1)
            return sympy.factor(sympy.expand(top) / (b - a + 1))
        if n == "Binomial":
            nn, p = self.params
            # E[X^k] = sum_j S(k, j) n^(j falling) p^j
            return sympy.expand(sum(sympy.functions.combinatorial.numbers.stirling(k, j) * sympy.ff(nn, j) * p**j
                                    for j in range(0, k + 1)))
        raise ValueError(n)

    @property
    def mean(self):
        return self.moment(1)

    @property
    def variance(self):
        if self.name == "Normal":
            return self.params[1]
        if self.name == "Uniform":
            a, b = self.params
            return (b - a) ** 2 / 12
        if self.name == "Bernoulli":
            p = self.params[0]
            return p * (1 - p)
        if self.name == "Binomial":
            nn, p = self.params
            return nn * p * (1 - p)
        if self.name == "DiscreteUniform":
            a, b = self.params
            return ((b - a + 1) ** 2 - 1) / Integer(12)
        return sympy.factor(sympy.expand(self.moment(2) - self.moment(1) ** 2))

    # ---------------------------------------------------------- exact values
    def numeric_params(self) -> bool:
        return all(p.is_number for p in self.params)

    def exp_moment(self, a):
        """E[exp(a X)] exactly for a continuous law (its moment generating function at a real a), or None:
        a Normal(μ, σ²) gives exp(a μ + a² σ²/2); a Uniform(α, β) gives (exp(a β) - exp(a α))/(a (β - α))
        for an a known to be nonzero (a = 0 gives 1)."""
        if self.name == "Normal":
            mu, v = self.params
            return sympy.exp(a * mu + a**2 * v / 2)
        if self.name == "Uniform":
            lo, hi = self.params
            if a.is_zero:
                return Integer(1)
            if a.is_zero is False:
                return (sympy.exp(a * hi) - sympy.exp(a * lo)) / (a * (hi - lo))
        return None

    def abs_moment(self, j: int, k: int):
        """E[X^j |X|^k] exactly (integers j >= 0, k >= 1), or None: a Normal(0, σ²) gives 0 for an odd j, else
        E|X|^m = σ^m 2^(m/2) Γ((m + 1)/2)/√π with m = j + k; a Uniform(α, β) with number ends the integral
        of x^j |x|^k over [α, β] over β - α (split at 0)."""
        m = j + k
        if self.name == "Normal" and self.params[0].is_zero:
            v = self.params[1]
            return Integer(0) if j % 2 else v ** sympy.Rational(m, 2) * 2 ** sympy.Rational(m, 2) * \
                sympy.gamma(sympy.Rational(m + 1, 2)) / sympy.sqrt(sympy.pi)
        if self.name == "Uniform" and self.numeric_params():
            lo, hi = self.params
            part = lambda a, b: (b ** (m + 1) - a ** (m + 1)) / (m + 1)
            up, down = part(sympy.Max(lo, 0), sympy.Max(hi, 0)), part(sympy.Min(lo, 0), sympy.Min(hi, 0))
            return sympy.nsimplify(up + (-1) ** k * down) / (hi - lo) if hi > lo else None
        return None

    def sure_points(self) -> list:
        """[(value, w, continuous)]: values the law gives positive probability (continuous: every
        neighbourhood of the value positive probability) for all of its admissible parameters where
        ``w > 0`` (``w`` None: always), symbolic parameters included.  Bernoulli(p) puts mass on 1
        where p > 0; a Normal has every real in its support, its mean among them."""
        p = self.params
        if self.name == "Rademacher":
            return [(Integer(-1), None, False), (Integer(1), None, False)]
        if self.name == "Bernoulli":
            return [(Integer(0), 1 - p[0], False), (Integer(1), p[0], False)]
        if self.name == "Binomial":
            return [(Integer(0), 1 - p[1], False), (p[0], p[1], False)]
        if self.name == "DiscreteUniform":
            return [(p[0], None, False), (p[1], None, False)]
        if self.name == "Normal":
            return [(p[0], None, True)]
        if self.name == "Uniform":
            return [((p[0] + p[1]) / 2, None, True)]
        if self.name in HEAVY:  # a density positive on the whole line
            return [(p[0] if self.name == "Cauchy" else Integer(0), None, True)]
        return []

    def support(self):
        """[(value, probability)] of a finite law with numeric parameters, or None."""
        if not self.finite or not self.numeric_params():
            return None
        n = self.name
        if n == "Rademacher":
            return [(Integer(-1), Rational(1, 2)), (Integer(1), Rational(1, 2))]
        if n == "Bernoulli":
            p = self.params[0]
            return [(Integer(0), 1 - p), (Integer(1), p)]
        if n == "DiscreteUniform":
            a, b = (int(x) for x in self.params)
            if b - a + 1 > MAX_SUPPORT:
                return None
            return [(Integer(v), Rational(1, b - a + 1)) for v in range(a, b + 1)]
        if n == "Binomial":
            nn, p = int(self.params[0]), self.params[1]
            if nn + 1 > MAX_SUPPORT:
                return None
            return [(Integer(k), sympy.binomial(nn, k) * p**k * (1 - p) ** (nn - k)) for k in range(nn + 1)]
        return None

    def moment_surrogate(self):
        """A finite law with the same raw moments E[X^k], k <= FACT_MOMENTS, or None.

        The kernel only ever learns those moments from a declaration, so a
        link it proves from them holds on any law that shares them: the
        soundness cross-check evaluates such links on this law.  For Normal
        and Uniform it is the 3-point Gauss quadrature (exact up to degree 5):
        Normal(μ, σ²): μ ± σ·√3 with probability 1/6 each, μ with 2/3;
        Uniform(a, b): c ± h·√(3/5) with probability 5/18 each, c with 8/18.
        """
        sup = self.support()
        if sup is not None:
            return sup
        if not self.numeric_params():
            return None
        if self.name == "StudentT":
            return self._t_surrogate()
        if self.name == "Normal":
            mu, v = self.params
            if not v.is_positive:
                return None
            d = sympy.sqrt(3 * v)
            return [(mu - d, Rational(1, 6)), (mu, Rational(2, 3)), (mu + d, Rational(1, 6))]
        if self.name == "Uniform":
            a, b = self.params
            if not (b - a).is_positive:
                return None
            c, d = (a + b) / 2, (b - a) / 2 * sympy.sqrt(Rational(3, 5))
            return [(c - d, Rational(5, 18)), (c, Rational(8, 18)), (c + d, Rational(5, 18))]
        return None

    def _t_surrogate(self):
        """A finite law with the moments of Student's t the kernel is given (those of order < ν, at most
        FACT_MOMENTS): 0 and ±√(m4/m2) with m2²/m4 for both when ν > 4 (m2 = ν/(ν - 2), m4 = 3ν²/((ν - 2)(ν - 4)));
        ±√m2 when 2 < ν ≤ 4 (odd moments 0); ±1 when 1 < ν ≤ 2 (the mean alone); None for ν ≤ 1 (none)."""
        nu = self.params[0]
        half = Rational(1, 2)
        if nu > 4:
            m2, m4 = self.moment(2), self.moment(4)
            a, w = sympy.sqrt(m4 / m2), m2**2 / m4
            return [(-a, w / 2), (Integer(0), 1 - w), (a, w / 2)]
        if nu > 2:
            a = sympy.sqrt(self.moment(2))
            return [(-a, half), (a, half)]
        if nu > 1:
            return [(Integer(-1), half), (Integer(1), half)]
        return None

    def cdf(self, x):
        """P(X <= x) for a continuous law (exact sympy expression); Student's t has none here (ValueError)."""
        if self.name == "Cauchy":
            x0, g = self.params
            return sympy.Rational(1, 2) + sympy.atan((x - x0) / g) / sympy.pi
        if self.name == "Normal":
            mu, v = self.params
            return (1 + sympy.erf((x - mu) / sympy.sqrt(2 * v))) / 2
        if self.name == "Uniform":
            a, b = self.params
            if x is sympy.oo:
                return Integer(1)
            if x is -sympy.oo:
                return Integer(0)
            return sympy.Min(sympy.Max((x - a) / (b - a), 0), 1)
        raise ValueError(self.name)

    # ---------------------------------------------------------- sampling
    def sampling_problem(self) -> str | None:
        """Why numpy cannot draw this law faithfully (parameters past what float64 / int64 hold), or None.

        Samples are float64, which holds every integer exactly only up to 2^53, so a finite law whose
        values or count go past that (``DiscreteUniform(1, 10^30)``, ``Binomial(10^25, p)``) is not
        simulated; a parameter that is not a finite float64 (``Normal(10^400, 1)``), or a positive one
        that underflows to 0, neither."""
        import math

        for p in self.params:
            try:
                f = float(p)
            except (TypeError, ValueError, OverflowError):
                return f"the parameter {_param_text(p)} is not a number numpy can use"
            if not math.isfinite(f) or abs(f) > 1e150:
                return f"the parameter {_param_text(p)} is too large for a float64 simulation (at most 1e150)"
            if f == 0 and p != 0:
                return f"the parameter {_param_text(p)} is too small for a float64 simulation (it rounds to 0)"
        if self.name in ("DiscreteUniform", "Binomial"):
            if any(abs(p) > 2**53 for p in self.params[:2 if self.name == "DiscreteUniform" else 1]):
                return ("its values exceed 2^53, the largest range of integers float64 samples hold exactly: "
                        "compute E and Var exactly with `check` instead")
        return None

    def sampler(self, params=None):
        """A function (rng, shape) -> numpy array drawing from this law."""
        ps = [float(p) for p in (params if params is not None else self.params)]
        n = self.name
        if n == "Normal":
            mu, sd = ps[0], ps[1] ** 0.5
            return lambda rng, shape: rng.normal(mu, sd, shape)
        if n == "Uniform":
            a, b = ps
            return lambda rng, shape: rng.uniform(a, b, shape)
        if n == "Bernoulli":
            p = ps[0]
            return lambda rng, shape: (rng.random(shape) < p).astype(float)
        if n == "Rademacher":
            return lambda rng, shape: rng.integers(0, 2, shape).astype(float) * 2 - 1
        if n == "DiscreteUniform":
            a, b = int(ps[0]), int(ps[1])
            return lambda rng, shape: rng.integers(a, b + 1, shape).astype(float)
        if n == "Binomial":
            nn, p = int(ps[0]), ps[1]
            return lambda rng, shape: rng.binomial(nn, p, shape).astype(float)
        if n == "Cauchy":
            x0, g = ps
            return lambda rng, shape: x0 + g * rng.standard_cauchy(shape)
        if n == "StudentT":
            nu = ps[0]
            return lambda rng, shape: rng.standard_t(nu, shape)
        raise ValueError(n)


ARITY = {"Normal": 2, "Uniform": 2, "Bernoulli": 1, "Rademacher": 0, "DiscreteUniform": 2, "Binomial": 2,
         "Cauchy": 2, "StudentT": 1}
PARAM_TEXT = {
    "Normal": "Normal(μ, σ²) (mean and VARIANCE)",
    "Uniform": "Uniform(a, b)",
    "Bernoulli": "Bernoulli(p)",
    "Rademacher": "Rademacher",
    "DiscreteUniform": "DiscreteUniform(a, b)",
    "Binomial": "Binomial(n, p)",
    "Cauchy": "Cauchy(x₀, γ) (location and scale)",
    "StudentT": "StudentT(ν) (ν degrees of freedom, a number)",
}


def _validate(name, args, node):
    """Reject parameters that are certainly invalid (numbers known to be out of range)."""

    def bad(msg):
        raise error(f"invalid parameters for `{name}`: {msg}", node.span, "invalid",
                    help=f"write {PARAM_TEXT[name]}", code="E-distribution")

    def is_false(cond):
        return cond == sympy.false

    if name == "Normal" and (args[1].is_positive is False):
        bad("the variance σ² must be positive")
    if name == "Uniform" and all(a.is_number for a in args) and is_false(sympy.Lt(args[0], args[1])):
        bad("it needs a < b")
    if name in ("Bernoulli", "Binomial"):
        p = args[-1]
        if p.is_number and not (0 <= p <= 1):
            bad("the probability p must lie in [0, 1]")
    if name == "Binomial":
        n = args[0]
        if not (n.is_integer and n.is_positive):
            bad("n must be a positive whole number (a name: declare it `positive integer`)")
    if name == "Cauchy" and args[1].is_positive is False:
        bad("the scale γ must be positive")
    if name == "StudentT" and not (args[0].is_Rational and args[0] > 0):
        # a number: which moments exist (k < ν) must be decided when a mean is read
        bad("the degrees of freedom ν must be a positive number (a whole number or a fraction)")
    if name == "DiscreteUniform":
        a, b = args
        if not (a.is_integer and b.is_integer):  # a real bound a = 1/2 would make E[D] = (a + b)/2 false
            bad("the bounds must be whole numbers (a name: declare it `integer`)")
        if a.is_number and b.is_number and a > b:
            bad("it needs a <= b")


def make(d, args) -> Dist:
    """A :class:`Dist` from the declaration's AST (``Call`` or ``Name``) and elaborated parameters."""
    name = d.func if isinstance(d, S.Call) else d.name
    if name not in ARITY:
        raise error(f"the distribution `{name}` is not supported by this version", d.span,
                    help="supported: " + ", ".join(PARAM_TEXT.values()), code="E-unsupported")
    want = ARITY[name]
    if len(args) != want:
        raise error(f"`{name}` takes {want} parameter{'s' if want != 1 else ''}, not {len(args)}", d.span,
                    help=f"write {PARAM_TEXT[name]}", code="E-arity")
    for a, node in zip(args, d.args if isinstance(d, S.Call) else []):
        if a.has(sympy.Indexed) or isinstance(a, sympy.MatrixBase):
            raise error("a distribution's parameters must be numbers or declared constants", node.span,
                        code="E-distribution")
    _validate(name, args, d)
    dist = Dist(name, tuple(args), name if not args else f"{name}({', '.join(_param_text(a) for a in args)})")
    for x, rel in dist.conditions_at():  # Uniform(a + 1, a): b - a = -1 whatever a is
        if x.is_number and not {">": x > 0, ">=": x >= 0}[rel]:
            raise error(f"invalid parameters for `{name}`: the law exists for no value of its parameters "
                        f"({_param_text(x)} {'>' if rel == '>' else '≥'} 0 is false)", d.span, "invalid",
                        help=f"write {PARAM_TEXT[name]}", code="E-distribution")
    return dist


def _param_text(a) -> str:
    """A parameter as text: exact when short, else a decimal (``1.0e+300``; never a 300-digit integer,
    and never an integer past Python's 4,300-digit limit on printing)."""
    big = any(isinstance(r, sympy.Rational) and max(int(r.p).bit_length(), int(r.q).bit_length()) > 64
              for r in sympy.preorder_traversal(a))
    if not big:
        return str(a)
    try:
        return str(sympy.N(a, 3)) if a.is_number else "(a large expression)"
    except (TypeError, ValueError):
        return "(a large number)"


# ------------------------------------------------------------------ registry


@dataclass
class Declared:
    """A declared distribution: the variable (a Symbol) or the family (its name)."""

    dist: Dist
    label: str  # the fact label, "X_i ~ Rademacher"
    family: str | None  # the family's base name, or None for a single variable
    symbol: object = None  # the sympy Symbol of a single variable


def lookup(state, var):
    """The :class:`Declared` law of a random variable (a Symbol or an Indexed), or None."""
    if isinstance(var, sympy.Indexed):
        return state.laws.get(str(var.base.label))
    return state.laws.get(str(var))


@dataclass
class LawDecl:
    """What one `random X ~ Law(...)` declares; the checker records it in its state."""

    name: str  # the variable (or family base) name the law is registered under
    written: str  # the declared name as written (`x_i`)
    declared: "Declared"
    label: str
    facts: list  # kernel facts: E, Var and the first moments
    span: object
    info: object  # results.AssumptionInfo
    index: tuple | None = None  # (bound index symbol, (lo, hi)) for a family


def declare(state, st: S.Random) -> list[LawDecl]:
    """The laws a `random ... ~ LAW` statement declares, with the moment facts they give the kernel."""
    from .elaborate import Elaborator
    from .results import AssumptionInfo
    from .terms.facts import EqFact, SurelyFact
    from .terms.objects import E, Var

    d = st.distribution
    el = Elaborator(state.scope)
    args = [el.expr(a) for a in d.args] if isinstance(d, S.Call) else []
    dist = make(d, args)
    # a heavy-tailed law gives only the moments below its tail index (none for Cauchy)
    mean = dist.mean if dist.has_moment(1) else None
    var = dist.variance if dist.has_moment(2) else None
    moments = {k: dist.moment(k) for k in range(2, FACT_MOMENTS + 1) if dist.has_moment(k)}
    out = []
    for nm in st.names:
        label = f"{nm.name} ~ {state.src(d.span).lstrip('~ ') or dist.name}"
        index = None
        if st.family is not None:
            base = nm.name[: -len(st.family.var.name) - 1]
            fam = state.scope.families[base]
            idx = sympy.Dummy(st.family.var.name, integer=True)
            index = (idx, (fam.lo, fam.hi))
            x, free = fam.base[idx], (idx,)
            name, declared = base, Declared(dist, label, base)
        else:
            x, free = state.scope.symbols[nm.name], ()
            name, declared = nm.name, Declared(dist, label, None, x)
        facts = [EqFact(label, E(x), mean, free=free, text=f"E[{nm.name}] = {_param_text(mean)}")] * (mean is not None)
        facts += [EqFact(label, Var(x), var, free=free, text=f"Var({nm.name}) = {_param_text(var)}")] * (var is not None)
        for k, m in moments.items():
            facts.append(EqFact(label, E(x**k), m, free=free, text=f"E[{nm.name}^{k}] = {_param_text(m)}"))
        # on every outcome: R^2 = 1 for a Rademacher R, B^2 = B for a Bernoulli B (kernel/surely.py applies
        # them inside E: E[R^2 A] = E[A])
        surely = {"Rademacher": Integer(1), "Bernoulli": x}.get(dist.name)
        if surely is not None:
            facts.append(SurelyFact(label, x**2, surely, free=free,
                                text=f"{nm.name}^2 = {nm.name if surely == x else 1} on every outcome"))
        # the law exists: its parameters are where it is defined (Bernoulli(p): 0 <= p <= 1), a fact of the
        # declaration for every link, those about p alone too (p - p^2 >= 0)
        where = [_bound_fact(label, c, rel) for c, rel in dist.conditions()]
        facts += where
        shown = [f"E = {_param_text(mean)}"] * (mean is not None) + [f"Var = {_param_text(var)}"] * (var is not None) + \
            [f"E[X^{k}] = {_param_text(m)}" for k, m in moments.items()] + \
            [f"E|X|^k = ∞ for k ≥ {_param_text(dist.tail_index)}"] * (dist.tail_index is not None) + \
            [f.text for f in where] + \
            ([f"{nm.name}^2 = {nm.name if surely == x else 1}"] if surely is not None else [])  # on every outcome
        out.append(LawDecl(name, nm.name, declared, label, facts, d.span,
                           AssumptionInfo(label, "distribution", shown, ["distribution"], d.span), index))
    return out


def _bound_fact(label, c, rel):
    """The condition ``c REL 0`` as a fact, a bound on the one name it is linear in where there is one
    (``1 - p >= 0`` as ``p <= 1``), as the kernel reads a symbol's bounds."""
    from .terms.facts import IneqFact

    flip = {">": "<", ">=": "<="}
    shown = {">": ">", ">=": "≥", "<": "<", "<=": "≤"}
    names = sorted(c.free_symbols, key=str)
    if len(names) == 1 and c.is_polynomial(names[0]) and sympy.degree(c, names[0]) == 1:
        (s,) = names
        a = c.coeff(s)
        if a.is_number and a != 0:
            b = sympy.expand(-(c - a * s) / a)
            r = rel if a > 0 else flip[rel]
            return IneqFact(label, s, b, r, text=f"{s} {shown[r]} {_param_text(b)}")
    return IneqFact(label, c, Integer(0), rel, text=f"{_param_text(c)} {shown[rel]} 0")


def record(state, st: S.Random, rep) -> None:
    """Put the laws of a `random ... ~ LAW` statement into the file's state: the moment facts, the index
    ranges, and where each law exists (its conditions, which every link about the variable inherits)."""
    for law in declare(state, st):
        if law.index is not None:
            state.scope.index_ranges[law.index[0]] = law.index[1]
        state.laws[law.name] = law.declared
        state.scope.laws[law.name] = law.declared.dist
        conditions = law.declared.dist.conditions()
        if conditions:
            state.scope.law_conditions[law.name] = conditions
        state.scope.distributions[law.written] = (st.distribution, st.distribution.span)
        state.facts[law.label] = law.facts
        state.fact_kinds[law.label] = "distribution"
        state.labels_span[law.label] = law.span
        rep.assumptions.append(law.info)
