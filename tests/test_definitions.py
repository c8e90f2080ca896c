"""Random variables an equation defines (terms/definitions.py): the model search and the witness re-check
extend a model of the other variables by the definition, and the witness search tries first the parameter
values where the residual is not 0 (a wrong power of a positive parameter was unknown: the search spent its
time at α = β = 1, where n α β = n α² β²)."""
import pytest
import sympy

from stepcheck.checker import check_text
from stepcheck.terms.definitions import definitions, put_in, with_definitions
from stepcheck.terms.facts import Decls, EqFact

FAMILY = """let n: positive integer
let i: index 1..n
random q_i, u_i for i in 1..n
assume ind: independent(q)
assume qv: Var(q_i) = 1
assume eq: u_i = 2 q_i + 3
"""

SCALED = """let n: positive integer
let i: index 1..n
let α, β: positive real
random u_i, w_i for i in 1..n
assume ind: independent(u, w)
assume m0: E[u_i] = 0, E[w_i] = 0
assume v1: Var(u_i) = 1, Var(w_i) = 1
"""


@pytest.mark.parametrize("head, claim, status", [
    (FAMILY, "Var(sum(i=1..n, u_i)) = 2 n", "fails"),           # 4 n: u_1 = 2 q_1 + 3 on a model of q
    (FAMILY, "Var(sum(i=1..n, u_i)) = 4 n", "holds"),
    (FAMILY, "E[u_i] = 3 + 2 E[q_i]", "holds"),
    (SCALED, "Var(sum(i=1..n, α u_i β w_i)) = n α β", "fails"),  # n α² β²: α = 1, β = 2 refutes it
    (SCALED, "Var(sum(i=1..n, α u_i β w_i)) = n α^2 β^2", "holds"),
    ("random X, Y\nassume d: Y = 2 X + 1\nassume v: Var(X) = 1\n", "Var(Y) = 2", "fails"),
    ("random X, Y\nassume d: Y = 2 X + 1\nassume v: Var(X) = 1\n", "Var(Y) = 4", "holds"),
])
def test_a_defined_variable_is_its_definition_on_a_model(head, claim, status):
    (lk,) = check_text(head + f"step s: {claim}\n", "t.step").steps[0].links
    assert lk.status == status, (claim, lk.message)


def _decls():
    n, i = sympy.Symbol("n", integer=True, positive=True), sympy.Symbol("i", integer=True)
    X, Y = sympy.Symbol("X", real=True), sympy.Symbol("Y", real=True)
    rng = (sympy.Integer(1), n)
    d = Decls(random_symbols={X, Y}, random_families={"q", "u", "v"}, index_ranges={i: rng},
              family_ranges={"q": rng, "u": rng, "v": (sympy.Integer(1), n + 1)})
    return d, i, X, Y, *(sympy.IndexedBase(k) for k in "quv")


def test_what_an_equation_defines_and_what_it_does_not():
    d, i, X, Y, q, u, v = _decls()
    fact = lambda lhs, rhs, **kw: EqFact("f", lhs, rhs, **kw)
    assert definitions({"a": [fact(Y, 2 * X + 1)]}, d) == {Y: 2 * X + 1}
    assert definitions({"a": [fact(u[i], 2 * q[i], free=(i,))]}, d) == {"u": (i, 2 * q[i])}
    for f in (fact(v[i], 2 * q[i], free=(i,)),      # v's range is 1..n+1: v_(n+1) is not defined by it
              fact(Y, Y ** 2 - 1),                   # not a definition: Y on both sides
              fact(u[i], u[i] + q[i], free=(i,)),
              fact(u[2], q[2])):                     # one member, not the family
        assert definitions({"a": [f]}, d) == {}, f
    assert definitions({"a": [fact(Y, 2 * X)]}, d, taken=frozenset({Y})) == {}   # Y has a law or is in the model
    assert put_in(u[2] + u[i], {"u": (i, 2 * q[i])}) == 2 * q[2] + 2 * q[i]
    lhs, rhs, facts = with_definitions(Y, X, {"a": [fact(Y, 2 * X + 1)]}, d)
    assert (lhs, rhs) == (2 * X + 1, X) and facts["a"][0].lhs == facts["a"][0].rhs


def test_a_name_declared_by_an_indexed_define_says_so():
    """`define y_i` declares `y`: declaring `y` again points at it, and a bare `y` asks for a member, never
    'did you mean `y`?'."""
    text = ("let n: positive integer\nlet i: index 1..n\nreal z_i for i in 1..n\ndefine y_i = exp(z_i)\n"
            "define y = softmax(z)\nstep s: sum(i=1..n, y) = 1\n")
    errs = [d for d in check_text(text, "t.step").diagnostics if d.severity == "error"]
    again = next(d for d in errs if "declared twice" in d.title)
    assert again.span.line == 5 and any("t.step:4:8" in n for n in again.notes)
    assert any("`y_...` there declares `y`" in n for n in again.notes)
    bare = next(d for d in errs if "unknown name" in d.title)
    assert "did you mean `y`" not in (bare.help or "") and "`y_i`" in bare.help
