"""The structure the design states, enforced: layers, the one judge, the rule registry, the contract.

docs/architecture.md draws the stages; these tests read the source (with
``ast``, never by importing what they check) and fail when a module imports
across the rules, when anything but the judge writes a verdict, when a rule
name is used without being registered, or when the kernel's contract in
docs/kernel.md drifts from the one quoted here.
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PKG = REPO / "src" / "stepcheck"

FRONT_ENDS = {"stepcheck.cli", "stepcheck.api", "stepcheck.pytest_plugin", "stepcheck.ipython", "stepcheck.__main__"}
STDLIB = set(sys.stdlib_module_names)


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PKG.rglob("*.py")) if "__pycache__" not in p.parts}


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports (at any depth: lazy imports count), as absolute names."""
    me = _module_name(path)
    pkg = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            # `from . import numeric` imports the submodule
            for a in node.names:
                cand = f"{mod}.{a.name}"
                if (PKG.parent / (cand.replace(".", "/") + ".py")).exists() or \
                        (PKG.parent / cand.replace(".", "/")).is_dir():
                    out.add(cand)
    return out


def _ours(imports) -> set[str]:
    return {m for m in imports if m == "stepcheck" or m.startswith("stepcheck.")}


def _third_party(imports) -> set[str]:
    return {m.split(".")[0] for m in imports if m and not m.startswith("stepcheck")} - STDLIB - {"__future__"}


MODULES = _modules()
IMPORTS = {m: _imports(p) for m, p in MODULES.items()}


def _in(pkg: str, mod: str) -> bool:
    return mod == pkg or mod.startswith(pkg + ".")


def test_the_package_was_found():
    assert len(MODULES) > 20 and "stepcheck.kernel.prove" in MODULES


@pytest.mark.parametrize("mod", sorted(m for m in MODULES if _in("stepcheck.terms", m)))
def test_terms_import_only_sympy(mod):
    assert _third_party(IMPORTS[mod]) <= {"sympy"}
    assert all(_in("stepcheck.terms", m) or m == "stepcheck.options" for m in _ours(IMPORTS[mod])), mod


@pytest.mark.parametrize("mod", sorted(m for m in MODULES if _in("stepcheck.kernel", m)))
def test_kernel_imports_only_terms_and_sympy(mod):
    assert _third_party(IMPORTS[mod]) <= {"sympy"}, mod
    bad = [m for m in _ours(IMPORTS[mod]) if not (_in("stepcheck.kernel", m) or _in("stepcheck.terms", m))]
    assert not bad, f"{mod} imports {bad}"


@pytest.mark.parametrize("mod", sorted(m for m in MODULES if _in("stepcheck.models", m)))
def test_models_import_no_kernel(mod):
    """The model finder re-checks the kernel: it must not share its code."""
    bad = [m for m in _ours(IMPORTS[mod]) if not (_in("stepcheck.models", m) or _in("stepcheck.terms", m)
                                                    or m in ("stepcheck.errors", "stepcheck.options"))]
    assert not bad, f"{mod} imports {bad}"


def test_models_load_no_kernel_at_run_time():
    code = "import stepcheck.models, sys; print(sorted(m for m in sys.modules if 'stepcheck.kernel' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


BELOW_KERNEL = ("stepcheck.errors", "stepcheck.codes", "stepcheck.syntax", "stepcheck.parser", "stepcheck.parse_",
                "stepcheck.elaborate", "stepcheck.matrices", "stepcheck.written", "stepcheck.distributions", "stepcheck.results", "stepcheck.options")


@pytest.mark.parametrize("mod", sorted(m for m in MODULES if m.startswith(BELOW_KERNEL)))
def test_syntax_and_elaboration_import_no_kernel(mod):
    """Parsing and elaboration build the vocabulary; they sit below the kernel."""
    bad = [m for m in _ours(IMPORTS[mod]) if any(_in(a, m) for a in
                                                  ("stepcheck.kernel", "stepcheck.judge", "stepcheck.models",
                                                   "stepcheck.checker", "stepcheck.state"))]
    assert not bad, f"{mod} imports {bad}"


def test_nothing_imports_the_front_ends():
    for mod, imps in IMPORTS.items():
        if mod in FRONT_ENDS or mod == "stepcheck":
            continue
        assert not (_ours(imps) & FRONT_ENDS), f"{mod} imports a front end: {_ours(imps) & FRONT_ENDS}"


def test_the_judge_and_the_checker_are_outside_the_kernel_and_no_lower_layer_imports_them():
    above = ("stepcheck.judge", "stepcheck.checker", "stepcheck.state", "stepcheck.numeric", "stepcheck.simulate",
             "stepcheck.counterexamples", "stepcheck.report", "stepcheck.pdf", "stepcheck.typst_printer")
    for mod, imps in IMPORTS.items():
        if _in("stepcheck.kernel", mod) or _in("stepcheck.terms", mod) or _in("stepcheck.models", mod):
            bad = [m for m in _ours(imps) if any(_in(a, m) for a in above)]
            assert not bad, f"{mod} imports {bad}"


def test_no_import_cycles():
    """Between modules (a package's __init__ counts as its own node), lazy imports included."""
    graph = {m: {i for i in _ours(imps) if i in MODULES and i != m} for m, imps in IMPORTS.items()}
    # a package importing its own submodules (re-exports) is not a cycle through the package
    for m in graph:
        if MODULES[m].name == "__init__.py":
            graph[m] = {i for i in graph[m] if not _in(m, i)}
    for m in graph:  # a submodule importing its package's __init__ means the package's re-exports
        graph[m] = {i for i in graph[m] if not (MODULES[i].name == "__init__.py" and _in(i, m))}
    state, stack = {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cyc = stack[stack.index(n):] + [n]
                pytest.fail("import cycle: " + " -> ".join(cyc))
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


# ------------------------------------------------------------------ only the judge writes verdicts

STATUS_WRITERS = {"stepcheck.judge"}  # judge/__init__.py: settle, settle_step


def _status_writes(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for t in targets:
            for sub in (t.elts if isinstance(t, ast.Tuple) else [t]):
                if isinstance(sub, ast.Attribute) and sub.attr == "status":
                    yield node.lineno


@pytest.mark.parametrize("mod", sorted(m for m in MODULES if m not in STATUS_WRITERS))
def test_only_the_judge_writes_a_status(mod):
    lines = list(_status_writes(MODULES[mod]))
    assert not lines, f"{mod} assigns .status at lines {lines}: use stepcheck.judge.settle"


@pytest.mark.parametrize("mod", sorted(m for m in MODULES if m not in STATUS_WRITERS))
def test_results_are_created_undecided(mod):
    """LinkResult / StepResult are built `unknown` and get their verdict from the judge."""
    for node in ast.walk(ast.parse(MODULES[mod].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("LinkResult", "StepResult"):
            consts = [a.id for a in node.args if isinstance(a, ast.Name)]
            consts += [k.value.id for k in node.keywords if k.arg == "status" and isinstance(k.value, ast.Name)]
            assert not ({"HOLDS", "FAILS", "SIMULATED"} & set(consts)), f"{mod}:{node.lineno}"


def test_the_checker_outcomes_of_the_kernel_are_only_holds_or_not():
    from stepcheck.kernel.prove import Proof

    assert Proof(True).status == "holds" and Proof(False).status == "unknown"
    src = (PKG / "kernel" / "prove.py").read_text(encoding="utf-8")
    assert '"fails"' not in src and "FAILS" not in src


def test_a_verdict_names_what_decided_it():
    from stepcheck.judge import EXACT, KERNEL, SIMULATION, WITNESS, Verdict

    for by in (KERNEL, EXACT, WITNESS):
        assert Verdict("holds", by).by == by and Verdict("fails", by).by == by
    assert Verdict("simulated", SIMULATION)
    for bad in [("holds", None), ("fails", None), ("holds", SIMULATION), ("unknown", KERNEL), ("simulated", KERNEL)]:
        with pytest.raises(ValueError):
            Verdict(*bad)


def test_verdicts_of_a_real_file_are_tagged():
    from stepcheck.checker import check_text

    rep = check_text("random X, Y\nassume ind: independent(X, Y)\n"
                     "step a: E[X Y] = E[X] E[Y]   by ind\n"
                     "step b: E[X + 1] = E[X] + 2\n"
                     "check c: 1/3 ≈ 0.33\n")
    by = [lk.decided_by for s in rep.steps for lk in s.links]
    assert by == ["kernel proof", "re-checked witness", "exact numeric"]  # a model comes before the residual
    assert [s.status for s in rep.steps] == ["holds", "fails", "holds"]


# ------------------------------------------------------------------ rules have one home


def test_every_rule_the_kernel_names_is_registered():
    from stepcheck.kernel.rules import RULES

    used = set()
    for p in (PKG / "kernel").glob("*.py"):
        used |= set(re.findall(r"rules\.add\(\"([^\"]+)\"\)", p.read_text(encoding="utf-8")))
    assert used and used <= set(RULES), used - set(RULES)
    # every registered, non-implicit rule is emitted somewhere
    assert {n for n, r in RULES.items() if not r.implicit} <= used


def test_an_unregistered_rule_is_refused():
    from stepcheck.kernel.normal import Trace

    t = Trace()
    t.rules.add("sums")
    with pytest.raises(KeyError):
        t.rules.add("magic")


def test_docs_rule_table_matches_the_registry():
    from stepcheck.kernel.rules import RULES

    doc = (REPO / "docs" / "kernel.md").read_text(encoding="utf-8")
    table = doc.split("### Rules and their side conditions", 1)[1].split("\n## ", 1)[0]
    names = set()
    for row in table.splitlines():
        if row.startswith("| `"):
            names |= set(re.findall(r"`([^`]+)`", row.split("|")[1]))
    assert names == set(RULES)


@pytest.mark.parametrize("name", ["calculus", "inequality", "algebra", "sums"])
def test_every_citable_rule_can_be_cited(name):
    from stepcheck.checker import check_text

    rep = check_text(f"let x: real\nstep s: (x + 1)^2 = x^2 + 2 x + 1   by {name}\n")
    assert not [d for d in rep.diagnostics if d.code == "E-unknown-ref"], name


def test_an_unknown_rule_is_an_unknown_reference():
    from stepcheck.checker import check_text

    rep = check_text("let x: real\nstep s: (x + 1)^2 = x^2 + 2 x + 1   by algebraa\n")
    d = [d for d in rep.diagnostics if d.code == "E-unknown-ref"]
    assert d and "algebra" in (d[0].help or "")


def test_citing_algebra_is_never_unneeded_but_citing_an_unused_rule_is():
    from stepcheck.checker import check_text

    rep = check_text("let x: real\nstep s: (x + 1)^2 = x^2 + 2 x + 1   by algebra\n")
    assert rep.steps[0].status == "holds" and not rep.steps[0].links[0].unneeded
    rep = check_text("let x: real\nstep s: (x + 1)^2 = x^2 + 2 x + 1   by factorization\n")
    assert rep.steps[0].links[0].unneeded == ["factorization"]


# ------------------------------------------------------------------ the contract, stated once

CONTRACT = """\
> `LinkProver(decls, facts, limits).prove_link(lhs, rhs, candidates, rel, deadline, ranges, unroll)`
> returns a `Proof`. `proof.holds` is true only when, for every equality
> pattern of the free indices, `lhs - rhs` normalises and reduces modulo the
> facts of the candidates to exactly 0 (for `<`, `<=`, `>`, `>=`: the
> difference is proved to have the required sign), using the declared range
> of a free index only if it is in `ranges`; the proof then lists the index
> ranges, declared signs and forms of independence it used and its rules.
> Otherwise the proof is *not proved*, with the residual. The kernel never
> says "fails" and never chooses which facts to cite: refutation and
> attribution are the judge's work. A resource limit (time, size,
> exponents) always gives *not proved*. `unroll` only chooses how concrete
> sums are read (written out up to that many terms; omitted, the kernel
> tries both readings); every reading is sound.
"""


def test_the_contract_is_stated_once_in_docs_kernel_md():
    doc = (REPO / "docs" / "kernel.md").read_text(encoding="utf-8")
    assert CONTRACT in doc
    # the code points at it instead of restating it
    for p in (PKG / "kernel" / "__init__.py", PKG / "kernel" / "prove.py"):
        assert "docs/kernel.md" in p.read_text(encoding="utf-8")


def test_the_contracts_entry_point_exists_with_that_signature():
    import inspect

    from stepcheck.kernel import LinkProver

    params = list(inspect.signature(LinkProver.prove_link).parameters)
    assert params == ["self", "lhs", "rhs", "candidates", "rel", "deadline", "ranges", "unroll"]
    assert not hasattr(LinkProver, "prove")  # one entry point


# ------------------------------------------------------------------ options and limits have one home


def test_the_default_time_limit_is_written_once():
    hits = []
    for mod, p in MODULES.items():
        for k, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"(timeout|seconds)\s*(:\s*float\s*)?=\s*5(\.0)?\b", line):
                hits.append(f"{mod}:{k}")
    assert hits == ["stepcheck.options:" + str(_line_of(PKG / "options.py", "DEFAULT_TIMEOUT = 5.0"))] or not hits, hits


def _line_of(path: Path, text: str) -> int:
    return next(k for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line)


def test_no_option_passing_by_signature_inspection():
    for mod in ("stepcheck.cli", "stepcheck.pytest_plugin", "stepcheck.api"):
        assert "inspect.signature" not in MODULES[mod].read_text(encoding="utf-8"), mod


# ------------------------------------------------------------------ module sizes

# modules allowed past ~600 lines, with the reason
LONG_OK = {
    "stepcheck.codes": "one table of diagnostic codes with their explanations (data, not logic)",
}


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_modules_stay_small(mod):
    n = len(MODULES[mod].read_text(encoding="utf-8").splitlines())
    assert n <= 660 or mod in LONG_OK, f"{mod} has {n} lines"
