"""The consistency check's answers are kept per process by what they depend on (kernel/answers.py): the same
facts under the same declarations are answered again without a check; a changed fact, declaration or limit is
checked; a check that met its deadline, or raised, is not kept."""
import pytest

import stepcheck.kernel.consistency as kc
from stepcheck.checker import check_text
from stepcheck.kernel import KernelLimit, clear_caches


@pytest.fixture
def counted(monkeypatch):
    clear_caches()
    calls = []
    real = kc._check_consistency

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(kc, "_check_consistency", counting)
    yield calls
    clear_caches()


LAWS = "let m: real\nrandom Z ~ Normal(m, 1)\n"
BAD = "random X\nassume a: E[X] = 1, E[X^2] = 0\n"


def _codes(text):
    return [d.code for d in check_text(text, "t.step").diagnostics]


def test_the_same_facts_are_answered_again(counted):
    assert _codes(LAWS + "step s: E[Z] = m\n") == []
    first = len(counted)
    assert _codes(LAWS + "step other: E[Z^2] = m^2 + 1\n") == []  # steps are not facts: the same check
    assert len(counted) == first
    bad = check_text(BAD + "step s: E[X] = 1\n", "t.step").diagnostics
    again = check_text(BAD + "step s: E[X] = 1\n", "t.step").diagnostics
    assert [d.code for d in again] == ["E-inconsistent"] and again[0].title == bad[0].title
    assert again[0].notes == bad[0].notes


@pytest.mark.parametrize("changed", [
    "let m: real\nrandom Z ~ Normal(m, 2)\n",               # another law
    "let m: positive real\nrandom Z ~ Normal(m, 1)\n",      # another declaration of a name
    "let m: real\nrandom Z ~ Normal(m, 1)\nassume b: E[Z] = 0\n",  # another fact
])
def test_a_changed_fact_or_declaration_is_checked(counted, changed):
    _codes(LAWS + "step s: E[Z] = m\n")
    first = len(counted)
    _codes(changed + "step s: E[Z] = m\n")
    assert len(counted) > first


def test_a_contradiction_is_not_kept_for_a_consistent_variant(counted):
    assert _codes(BAD + "step s: E[X] = 1\n") == ["E-inconsistent"]
    assert _codes(BAD.replace("E[X^2] = 0", "E[X^2] = 2") + "step s: E[X] = 1\n") == []


def test_a_slow_or_failed_check_is_not_kept(monkeypatch):
    import time

    from stepcheck.kernel import Limits
    from stepcheck.terms.facts import Decls

    clear_caches()
    calls = []

    def slow(*a, **k):  # a contradiction found after the deadline: some sub-check may have given up before it
        calls.append(1)
        time.sleep(0.3)
        return kc.Contradiction(["a"], "found late")

    monkeypatch.setattr(kc, "_check_consistency", slow)
    decls = Decls()
    for _ in range(2):
        assert list(kc.check_consistency(decls, {"a": []}, Limits(seconds=0.2))) == ["a"]
    assert len(calls) == 2
    monkeypatch.setattr(kc, "_check_consistency", lambda *a, **k: calls.append(1) or None)
    for _ in range(2):  # in time: kept
        assert kc.check_consistency(decls, {"a": []}, Limits(seconds=5)) is None
    assert len(calls) == 3

    def failing(*a, **k):
        calls.append(1)
        raise KernelLimit("too large")

    monkeypatch.setattr(kc, "_check_consistency", failing)
    for _ in range(2):
        with pytest.raises(KernelLimit):
            kc.check_consistency(decls, {"b": []}, Limits(seconds=5))
    assert len(calls) == 5
    clear_caches()
