"""Declared signs a link rests on are reported as uses (`c > 0`, from its declaration), and only those.

sympy reads the signs of the symbols it meets without saying so: while the
elaborator builds an expression (``sqrt(c^2)`` is ``c``), inside the kernel
(``SD(c X)`` is ``c SD(X)``, ``log(c^2)`` is ``2 log(c)``), inside ``limit``
(``exp(-c t) -> 0``), and where a declared sign discharges a condition of
where the sides are defined (``sqrt(c)``).  Each case has a link that needs
the sign and a near miss that does not.
"""
from __future__ import annotations

import pytest
import sympy

from stepcheck.checker import check_text
from stepcheck.kernel import limits

HEAD = ("let c: positive real\nlet b: real\nlet t: real\nlet T: positive real\nlet u: positive real\n"
        "let n: positive integer\nlet i: index 1..n\nreal s_i for i in 1..n\nrandom X\n")


def _uses(step: str) -> tuple[str, list[str]]:
    return _uses_after("", step)


@pytest.mark.parametrize("step, signs", [
    # kernel: sympy's limit reads c's sign
    ("limit(exp(-c t), t -> oo) = 0", ["c > 0"]),
    ("limit(exp(c t), t -> -oo) = 0", ["c > 0"]),
    ("limit(b / t, t -> oo) = 0", []),
    ("limit(c / t, t -> oo) = 0", []),                     # holds for every c: no sign
    # kernel: normal forms built with the sign
    ("SD(c X) = c SD(X)", ["c > 0"]),
    ("log(c^2) = 2 log(c)", ["c > 0"]),
    ("Var(c X) = c^2 Var(X)", []),
    ("E[c X] = c E[X]", []),
    # inequalities: the interval bounds read every sign they meet; only the needed ones stay
    ("c + 1 > 0", ["c > 0"]),
    ("c^2 + 1 > 0", []),
    # construction: sympy evaluates as it builds
    ("sqrt(c^2) = c", ["c > 0"]),
    ("abs(c) = c", ["c > 0"]),
    ("limit(abs(T) / T, T -> 0) = 1", ["T > 0"]),          # T -> 0 is T -> 0+ for a positive T
    ("sum(i=1..n, c s_i) = c sum(i=1..n, s_i)", []),        # bound indices are no difference
    ("c (X + 1) = c X + c", []),
    # a condition of where the sides are defined, discharged by the declaration
    ("sqrt(c) sqrt(c) = c", ["c > 0"]),
    ("diff(exp(u) / (1 + exp(u))^2, u) = exp(u) (1 - exp(u)) / (1 + exp(u))^3", []),  # 1 + e^u > 0 anyway
])
def test_declared_signs_a_link_rests_on(step, signs):
    status, got = _uses(step)
    assert status == "holds", step
    assert got == signs, step


@pytest.mark.parametrize("defs, step, signs", [
    ("define r = sqrt(c^2)\n", "r = c", ["c > 0"]),                      # built when declared
    ("define r = sqrt(c^2)\ndefine h = r + 1\n", "h = c + 1", ["c > 0"]),  # through another definition
    ("define r = c + 1\n", "r + c = 2 c + 1", []),                       # c in a body built without its sign
])
def test_signs_used_to_build_a_definition(defs, step, signs):
    status, got = _uses_after(defs, step)
    assert status == "holds", step
    assert got == signs, step


def _uses_after(defs: str, step: str) -> tuple[str, list[str]]:
    st = check_text(HEAD + defs + f"step s: {step}\n", "t.step").steps[0]
    lk = st.links[0]
    return lk.status, sorted(u.label for u in lk.uses if u.kind == "sign")


def test_a_sign_given_by_an_assumption_is_the_assumption():
    """An assumed sign is a fact with a label: it is cited as such, not as a declaration."""
    st = check_text("let w: real\nlet t: real\nassume wneg: w < 0\nstep s: limit(exp(w t), t -> oo) = 0\n",
                    "t.step").steps[0]
    lk = st.links[0]
    assert lk.status == "holds"
    assert [u.label for u in lk.uses] == ["wneg"]


def test_take_limit_reports_the_signs_it_rests_on():
    c = sympy.Symbol("c", positive=True)
    b = sympy.Symbol("b", real=True)
    t = sympy.Dummy("t", real=True)
    used: set = set()
    assert limits.take_limit(sympy.exp(-c * t), t, sympy.oo, signs=used) == 0
    assert used == {c}
    used = set()
    assert limits.take_limit(c * b / t, t, sympy.oo, signs=used) == 0
    assert used == set()
    # a cached answer reports the same signs
    used = set()
    assert limits.take_limit(sympy.exp(-c * t), t, sympy.oo, signs=used) == 0
    assert used == {c}


def test_an_unminimised_proof_lists_every_declared_sign():
    """When attribution runs out of time, the proof stands with every candidate listed: signs included."""
    from stepcheck.judge.attribution import _unminimised
    from stepcheck.kernel import Proof

    c = sympy.Symbol("c", positive=True)
    b = sympy.Symbol("b", real=True)
    p = _unminimised(Proof(True, rules=["calculus"]), ["a"], [], c * b, sympy.Integer(0))
    assert p.signs == [c] and p.limited


def _link(text: str):
    return check_text(text, "t.step").steps[-1].links[0]


@pytest.mark.parametrize("assumes, step, uses", [
    # an assumed sign that discharges where the sides are defined is that assumption, by its label
    ("assume pos: c > 0\n", "sqrt(c) sqrt(c) = c", ["pos"]),
    ("assume nn: c >= 0\n", "sqrt(c)^2 = c", ["nn"]),
    ("assume pos: c > 0\n", "c / c = 1", ["pos"]),                                # c ≠ 0
    ("assume a1: c > 0\nassume a2: b > 0\n", "sqrt(c)^2 = c", ["a1"]),           # only the one it needs
    ("assume a1: c > 0\nassume a2: c >= 1\n", "sqrt(c)^2 = c", ["a2"]),          # one suffices: deletion order
    ("assume pos: c > 0\n", "c + 1 = 1 + c", []),                              # no condition to discharge
    ("assume pos: b > 0\n", "sqrt(c)^2 = c", []),                              # another symbol: `where` stays
])
def test_an_assumed_sign_discharging_a_condition_is_named(assumes, step, uses):
    lk = _link("let c: real\nlet b: real\n" + assumes + f"step s: {step}\n")
    assert lk.status == "holds", step
    assert sorted(u.label for u in lk.uses if not u.implicit) == uses, step
    assert any(u.kind == "domain" for u in lk.uses) == (not uses and "sqrt" in step), step  # `where: c ≥ 0`


def test_citing_the_assumption_that_discharges_a_condition_is_not_unneeded():
    lk = _link("let c: real\nassume pos: c > 0\nstep s: sqrt(c)^2 = c   by pos\n")
    assert lk.status == "holds" and lk.unneeded == [] and [u.label for u in lk.uses] == ["pos"]
    lk = _link("let c: real\nassume pos: c > 0\nstep s: c + 1 = 1 + c   by pos\n")
    assert lk.unneeded == ["pos"]


@pytest.mark.parametrize("fact, kind", [
    ("c > 0", "sign"), ("1 >= c", "sign"), ("s_1 > s_2", "inequality"), ("c < b", "inequality"),
    ("Var(X) <= 1", "inequality"),
])
def test_the_kind_of_an_assumed_inequality(fact, kind):
    """A bound on one value is a sign; an order between two values (the gap s_1 > s_2) is an inequality."""
    rep = check_text(HEAD + f"let b: real\nassume a: {fact}\n", "t.step")
    assert rep.assumptions[0].kind == kind, fact


@pytest.mark.parametrize("assumes, step, status, uses", [
    # an assumed sign is read as a declared one, and the link rests on the assumption
    ("assume pos: c > 0\n", "log(c^2) = 2 log(c)   by pos", "holds", ["pos"]),
    ("assume pos: c > 0\n", "sqrt(c^2) = c", "holds", ["pos"]),
    ("assume nn: c >= 0\n", "sqrt(c^2) = c   by nn", "holds", ["nn"]),
    ("assume one: c >= 1\n", "abs(c) = c   by one", "holds", ["one"]),
    ("assume neg: c < 0\n", "sqrt(c^2) = -c   by neg", "holds", ["neg"]),
    # near misses: the wrong sign, a bound that gives none, another symbol
    ("assume neg: c < 0\n", "sqrt(c^2) = c   by neg", "fails", []),
    ("assume pos: c > 0\n", "sqrt(c^2) = -c   by pos", "fails", []),
    ("assume weak: c > -1\n", "sqrt(c^2) = c   by weak", "fails", []),          # gives no sign: c = -1/2
    ("assume pos: b > 0\n", "sqrt(c^2) = c", "fails", []),
    # a bound by another number: the symbol is read as the bound shifted by a positive (nonnegative) offset
    ("assume weak: b > -1\n", "sqrt((b + 1)^2) = b + 1   by weak", "holds", ["weak"]),
    ("assume ge3: c >= 3\n", "sqrt((c - 3)^2) = c - 3   by ge3", "holds", ["ge3"]),
    ("assume up: c < 2\n", "abs(c - 2) = 2 - c   by up", "holds", ["up"]),
    ("assume gt2: b > -2\n", "log((b + 2)^2) = 2 log(b + 2)   by gt2", "holds", ["gt2"]),
    ("assume one: c >= 1\n", "sqrt(c^2) = c   by one", "holds", ["one"]),            # the sign, as before
    # near misses: a bound one short of what the step needs is refuted between the two numbers
    ("assume gt2: c > 2\n", "sqrt((c - 3)^2) = c - 3   by gt2", "fails", []),
    ("assume weak: b > -2\n", "sqrt((b + 1)^2) = b + 1   by weak", "fails", []),
    ("assume up: c < 3\n", "abs(c - 2) = 2 - c   by up", "fails", []),
    ("assume gt2: b > -2\n", "sqrt(c^2) = c", "fails", []),                            # another symbol
])
def test_an_assumed_sign_is_read_like_a_declared_one(assumes, step, status, uses):
    """A bound at 0 gives the symbol a sign; a bound by another number shifts it (c > -1: c = -1 + t)."""
    lk = _link("let c: real\nlet b: real\n" + assumes + f"step s: {step}\n")
    assert lk.status == status, step
    assert sorted(u.label for u in lk.uses) == uses, step


def test_the_residual_is_in_the_links_own_symbols():
    """The signed twin never leaves the kernel: a failed proof's residual, and its witness, name c itself."""
    lk = _link("let c: real\nassume pos: c > 0\nstep s: sqrt(c^2) = 2 c   by pos\n")
    assert lk.status == "fails" and "c" in lk.counterexample and lk.residual == "-c"


def test_a_bound_that_leaves_no_small_negative_integer_still_gets_a_witness():
    """Under `b > -1` the trial values 0, 1, -1, 2 give no negative b; -1/2 refutes sqrt(b^2) = b."""
    lk = _link("let b: real\nassume weak: b > -1\nstep s: sqrt(b^2) = b   by weak\n")
    assert lk.status == "fails" and "b = -1/2" in lk.counterexample
    lk = _link("let b: real\nassume weak: b > -1\nstep s: sqrt((b + 1)^2) = b + 1   by weak\n")
    assert lk.status != "fails"  # true where b > -1: never refuted


def test_a_shifted_bound_reads_its_witness_and_residual_in_the_symbol():
    lk = _link("let b: real\nassume weak: b > -2\nstep s: sqrt((b + 1)^2) = b + 1   by weak\n")
    assert "b = -3/2" in lk.counterexample and "gap" not in lk.residual and "b" in lk.residual
    lk = _link("let c: real\nassume lt: c < 2\nstep s: sqrt((c - 1)^2) = c - 1   by lt\n")
    assert lk.status == "fails" and lk.counterexample.startswith("c = ") and "gap" not in lk.residual


def test_a_limits_variable_is_not_shifted():
    """`b -> oo` binds b: a shifted twin would make the limit's variable an expression."""
    lk = _link("let b: real\nassume gt2: b > -2\nstep s: limit((b + 2) / b, b -> oo) = 1\n")
    assert lk.status == "holds"
    lk = _link("let b: real\nlet x: real\nassume gt2: b > -2\nstep s: diff(b^2 x, b) = 2 b x   by gt2\n")
    assert lk.status == "holds" and lk.unneeded == ["gt2"]


def test_a_trial_that_cannot_take_the_limit_keeps_the_sign_and_minimises_the_rest():
    """Dropping `pos` leaves exp(-c t) -> 0 undecided (a limit, not the time): pos stays, `big` is dropped,
    instead of every candidate being listed as if the link's time had run out."""
    text = ("let c, d: real\nassume pos: c > 0\nassume big: d >= 1\n"
            "step a: log(c d) = log(c) + log(d)\nstep b: limit(exp(-c t), t -> oo) = 0\n")
    lk = check_text(text, "t.step").steps[-1].links[0]
    assert lk.status == "holds" and [u.label for u in lk.uses] == ["pos"]
    assert "not minimised" not in (lk.message or "")


@pytest.mark.parametrize("text, status", [
    # a bound on a random variable holds almost surely: it makes no constant of it (no twin)
    ("random X\nrandom Z ~ Normal(0, 1)\nassume a: X > 0\nstep s: E[X Z] = 0\n", "unknown"),
    ("random X\nassume a: X > -1\nstep s: E[X^2] = E[X]^2\n", "fails"),
    ("random X\nassume a: X > 0\nstep s: Var(X) = 0\n", "fails"),
    ("random U ~ Uniform(0, 1)\nassume a: U <= 1\nstep s: E[U] = 1/2\n", "holds"),
    ("random X\nassume a: X > 0\nassume b: Var(X) = 1\nstep s: Var(X) = 1\n", "holds"),
])
def test_a_bound_on_a_random_variable_gives_it_no_twin(text, status):
    rep = check_text(text, "t.step")
    lk = rep.steps[-1].links[0]
    assert lk.status == status, text
    assert not any(d.code in ("E-inconsistent", "E-internal-soundness") for d in rep.diagnostics), text


@pytest.mark.parametrize("assumes, status, uses", [
    ("assume a: c > -1\nassume b: c > 2\n", "holds", ["b"]),   # the tightest lower bound, in either order
    ("assume b: c > 2\nassume a: c > -1\n", "holds", ["b"]),
    ("assume a: c > -1\nassume b: c > 1\n", "fails", []),        # c = 3/2: both bounds hold, the step does not
])
def test_of_several_bounds_the_tightest_is_read(assumes, status, uses):
    lk = _link("let c: real\n" + assumes + "step s: sqrt((c - 2)^2) = c - 2\n")
    assert lk.status == status and sorted(u.label for u in lk.uses) == uses


@pytest.mark.parametrize("step, status", [
    ("n >= 1", "holds"), ("2 n - 1 > 0", "holds"), ("n - 1 >= 0", "holds"),   # a positive whole number is >= 1
    ("n > 1", "fails"), ("c >= 1", "fails"),                                      # n = 1; a positive real c = 1/2
])
def test_a_positive_integer_is_at_least_one(step, status):
    lk = _link(f"let n: positive integer\nlet c: positive real\nstep s: {step}\n")
    assert lk.status == status, step


@pytest.mark.parametrize("assumes, step, status, uses", [
    # one bound on each side, one open: one twin for both, lo + (hi - lo) t/(1 + t)
    ("assume lo: c > -1\nassume hi: c < 1\n", "sqrt((c - 1)^2) + sqrt((c + 1)^2) = 2", "holds", ["hi", "lo"]),
    ("assume lo: c >= 0\nassume hi: c < 1\n", "sqrt(c^2) + sqrt((c - 1)^2) = 1", "holds", ["hi", "lo"]),
    ("assume lo: c > 0\nassume hi: c <= 1\n", "sqrt(c^2) + sqrt((c - 1)^2) = 1", "holds", ["hi", "lo"]),
    ("assume lo: c > -1\nassume hi: c < 1\n", "1 - c^2 > 0", "holds", ["hi", "lo"]),
    # near misses: an end one short of what the step needs
    ("assume lo: c > -1\nassume hi: c < 2\n", "sqrt((c - 1)^2) + sqrt((c + 1)^2) = 2", "fails", []),
    ("assume lo: c > -2\nassume hi: c < 1\n", "sqrt((c - 1)^2) + sqrt((c + 1)^2) = 2", "fails", []),
    # two closed ends: no one twin reaches both; the lower one is read, then the upper one, then the cases
    # [lo, hi) and c = hi
    ("assume lo: c >= 0\nassume hi: c <= 1\n", "sqrt((c - 1)^2) = 1 - c", "holds", ["hi"]),
    ("assume lo: c >= 0\nassume hi: c <= 1\n", "sqrt(c^2) = c", "holds", ["lo"]),
    ("assume lo: c >= 0\nassume hi: c <= 1\n", "sqrt(c^2) + sqrt((c - 1)^2) = 1", "holds", ["hi", "lo"]),
    ("assume lo: c >= -1\nassume hi: c <= 1\n", "sqrt((c - 1)^2) + sqrt((c + 1)^2) = 2", "holds", ["hi", "lo"]),
    ("assume lo: c >= 0\nassume hi: c <= 2\n", "sqrt(c^2) + sqrt((c - 1)^2) = 1", "fails", []),
    ("assume lo: c >= 0\nassume hi: c <= 1\n", "sqrt(c^2) + sqrt((c - 1)^2) = 1 + c", "fails", []),
])
def test_a_symbol_bounded_on_both_sides_is_read_in_its_interval(assumes, step, status, uses):
    lk = _link("let c: real\n" + assumes + f"step s: {step}\n")
    assert lk.status == status, (assumes, step)
    assert sorted(u.label for u in lk.uses if u.kind != "domain") == uses, (assumes, step)


def test_an_interval_twin_is_read_back_in_the_symbol():
    lk = _link("let c: real\nassume lo: c > -1\nassume hi: c < 1\nstep s: sqrt((c - 1)^2) = c - 1\n")
    assert lk.status == "fails" and lk.counterexample.startswith("c = ")
    assert "_in" not in lk.residual and lk.residual.replace(" ", "") in ("2-2c", "-2c+2")


@pytest.mark.parametrize("step, why", [
    ("s_2 = s_2", "`s_2` is a member of `s` (declared for i in 1..n) only there"),      # a member written
    ("sqrt(n - 2)^2 = n - 2", "the argument of sqrt (or of a fractional power) must not be negative"),  # a domain
])
def test_a_condition_shown_says_why_it_is_one(step, why):
    """`where: n ≥ 2` for s_2 is the member's existence, not a square root's domain (it said the latter)."""
    (lk,) = check_text(HEAD + f"step t: {step}\n", "t.step").steps[-1].links
    assert lk.status == "holds"
    (u,) = [u for u in lk.uses if u.kind == "domain"]
    assert u.label == "n ≥ 2" and u.detail == why, u
