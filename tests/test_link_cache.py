"""The link-level cache (stepcheck.link_cache): unchanged links in an unchanged scope are read, not checked."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

from stepcheck import cache as C
from stepcheck.checker import check_text
from stepcheck.link_cache import LinkStore, using
from stepcheck.options import Options

TEXT = """random X, Y
let a, b: real
assume v: Var(X) = 1
assume w: E[Y] = 0
step s: Var(a X) = a^2 Var(X) by def Var
    = a^2 by v
step t: E[b Y + 1] = b E[Y] + 1
    = 1 by w
step u: E[(X + a)^2] = E[X^2] + 2 a E[X] + a^2
"""


def fields(rep):
    """Everything a report says about its links and diagnostics (not the time it took)."""
    links = [{f.name: getattr(lk, f.name) for f in dataclasses.fields(lk) if f.compare and f.name != "seconds"}
             for st in rep.steps for lk in st.links]
    return links, rep.diagnostics, [(st.name, st.status, st.rests_on) for st in rep.steps]


def through(store, text):
    h, m = store.hits, store.misses
    with using(store):
        rep = check_text(text, "t.step")
    return rep, store.hits - h, store.misses - m


def statuses(rep):
    return [lk.status for st in rep.steps for lk in st.links]


def test_a_moved_file_is_read_whole_with_its_spans_moved():
    store = LinkStore()
    first, hits, misses = through(store, TEXT)
    # five links, and the assumptions' consistency: v (about X) and w (about Y) share no name, two checks
    assert (hits, misses) == (0, 5 + 2) and store.stored == 5 + 2
    moved = "# a comment\n\n" + TEXT
    rep, hits, misses = through(store, moved)
    assert (hits, misses) == (5 + 2, 0)
    assert fields(rep) == fields(check_text(moved, "t.step"))  # identical to a fresh check, spans included
    assert [lk.span.line for st in rep.steps for lk in st.links] == [
        lk.span.line + 2 for st in first.steps for lk in st.links]


def test_an_edited_link_alone_is_checked_again():
    """Where the cache must not apply: a near miss (`+ 2` for `+ 1`) is judged afresh and fails."""
    store = LinkStore()
    assert statuses(through(store, TEXT)[0]) == ["holds"] * 5
    edited = TEXT.replace("    = 1 by w", "    = 2 by w")
    rep, hits, misses = through(store, edited)
    assert (hits, misses) == (4 + 2, 1)
    assert statuses(rep) == ["holds", "holds", "holds", "fails", "holds"]
    assert fields(rep) == fields(check_text(edited, "t.step"))


def test_a_changed_assumption_rechecks_every_later_link():
    """Mutation: one assumption changed, every link after it is judged again (a stale holds is never read)."""
    store = LinkStore()
    through(store, TEXT)
    mutated = TEXT.replace("Var(X) = 1", "Var(X) = 2")
    rep, hits, misses = through(store, mutated)
    assert (hits, misses) == (0, 5 + 2)
    assert statuses(rep)[:2] == ["holds", "fails"]
    assert fields(rep) == fields(check_text(mutated, "t.step"))


def test_a_link_citing_a_changed_step_is_checked_again():
    text = TEXT + "step z: Var(a X) + 1 = a^2 + 1 by s\n"
    store = LinkStore()
    assert statuses(through(store, text)[0])[-1] == "holds"
    # step s now ends on a false value: z rests on an unverified step, and must say so
    broken = text.replace("    = a^2 by v", "    = a^3 by v")
    rep, hits, misses = through(store, broken)
    assert statuses(rep)[1] == "fails" and statuses(rep)[-1] != "holds"
    # read: s's first link and t's two (t shares no name with s); judged again: s's edited link, u (which
    # had s among its candidates: it shares X with it) and z (which cites s)
    assert (hits, misses) == (3 + 2, 3)
    assert fields(rep) == fields(check_text(broken, "t.step"))


def test_options_are_part_of_the_key():
    store = LinkStore()
    through(store, TEXT)
    with using(store):
        rep = check_text(TEXT.replace("by def Var", "by def Var, w"), "t.step",
                         Options(strict=True))
    assert rep.steps[0].links[0].status == "holds" and rep.steps[0].links[0].unneeded == ["w"]
    assert any(d.code == "E-unneeded" for d in rep.steps[0].links[0].diagnostics)


def test_a_corrupt_or_forged_entry_is_ignored(tmp_path):
    store = LinkStore(tmp_path)
    good = fields(through(store, TEXT)[0])
    files = sorted((tmp_path / "links").glob("*/*.json"))
    entries = [e for e in files if "fields" in json.loads(e.read_text(encoding="utf-8"))["entry"]]
    other, intact = sorted(set(files) - set(entries))  # the assumptions' consistency: two groups, two checks
    assert len(entries) == 5
    entries[0].write_text("{not json", encoding="utf-8")
    data = json.loads(entries[1].read_text(encoding="utf-8"))
    data["entry"]["fields"]["status"] = "maybe"
    entries[1].write_text(json.dumps(data), encoding="utf-8")
    data = json.loads(entries[2].read_text(encoding="utf-8"))
    data["key"] = "0" * 64  # an entry stored under another key
    entries[2].write_text(json.dumps(data), encoding="utf-8")
    data = json.loads(entries[3].read_text(encoding="utf-8"))
    data["entry"]["fields"]["uses"] = [{"__t": "FileReport"}]  # not a class a link entry may hold
    entries[3].write_text(json.dumps(data), encoding="utf-8")
    data = json.loads(other.read_text(encoding="utf-8"))
    data["entry"] = json.loads(entries[4].read_text(encoding="utf-8"))["entry"]  # a link's entry in its place
    other.write_text(json.dumps(data), encoding="utf-8")
    fresh = LinkStore(tmp_path)
    rep, hits, misses = through(fresh, TEXT)
    assert fresh.ignored == 5 and hits == 2
    assert fields(rep) == good


def test_keys_agree_across_processes(tmp_path):
    """Dummies print a process-wide counter; the key renumbers them, so another process reads the entries."""
    text = "let n: positive integer\nlet i: index 1..n\nlet c: real\nstep s: sum(i=1..n, c) = n c\n"
    # a generous time limit: a judgement that takes half of it is not stored, and a cold process on a loaded
    # machine (xdist workers beside it) can take seconds for its first link
    code = ("import sys; from stepcheck.checker import check_text; from stepcheck.link_cache import LinkStore, using\n"
            "with using(LinkStore(sys.argv[1])): check_text(sys.argv[2], 't.step', timeout=120)\n")
    subprocess.run([sys.executable, "-c", code, str(tmp_path), text], check=True, timeout=120)
    store = LinkStore(tmp_path)
    with using(store):
        rep = check_text(text, "t.step", timeout=120)
    assert (store.hits, store.misses) == (1, 0) and statuses(rep) == ["holds"]


def test_verify_re_reads_the_unchanged_links_of_an_edited_file(tmp_path):
    f = tmp_path / "a.step"
    f.write_text(TEXT, encoding="utf-8")
    c = C.Cache(tmp_path / "cache")
    C.check_file(str(f), Options(), c)
    f.write_text(TEXT + "step y: E[Y + 2] = 2 by w\n", encoding="utf-8")
    rep = C.check_file(str(f), Options(), c)
    # first run: 5 links and the consistency missed; second: both read back, step y checked
    assert c.hits == 0 and (c.links.hits, c.links.misses) == (5 + 2, 6 + 2)
    assert statuses(rep) == ["holds"] * 6
    assert C.Cache(tmp_path / "cache").prune() == 0  # link entries are counted under the size bound
    small = C.Cache(tmp_path / "cache", max_bytes=1)
    assert small.prune() > 0 and not list((tmp_path / "cache" / "links").glob("*/*.json"))


CONTRADICTORY = """random X
let a: real
assume v: Var(X) = 1
assume w: Var(2 X) = 3
step s: Var(a X) = a^2 Var(X) by def Var
"""


def test_the_consistency_of_unchanged_assumptions_is_read_back(monkeypatch):
    """Where it applies: an edited step re-reads the check of the assumptions (contradiction and all);
    where it must not: an edited assumption is checked again, and the contradiction goes with it."""
    import stepcheck.assumptions as A

    calls = []
    real = A.check_consistency
    monkeypatch.setattr(A, "check_consistency", lambda *a, **k: calls.append(1) or real(*a, **k))
    store = LinkStore()
    first = through(store, CONTRADICTORY)[0]
    assert [d.code for d in first.diagnostics] == ["E-inconsistent"] and len(calls) == 1
    edited = CONTRADICTORY.replace("a^2 Var(X)", "a^2 * Var(X)") + "step t: Var(X) = 1 by v\n"
    rep = through(store, edited)[0]
    assert len(calls) == 1 and fields(rep) == fields(check_text(edited, "t.step"))
    assert rep.diagnostics == first.diagnostics and "`w`" in rep.diagnostics[0].title
    fixed = edited.replace("Var(2 X) = 3", "Var(2 X) = 4")
    rep = through(store, fixed)[0]
    assert len(calls) == 3  # checked again (and once more by the fresh check above)
    assert not rep.diagnostics and statuses(rep) == ["holds", "holds"]


def test_a_late_assumption_is_keyed_with_what_precedes_it():
    """An assumption after a step is checked with its group; changing it alone re-checks it."""
    text = "random X\nassume v: Var(X) = 1\nstep s: Var(X) = 1 by v\nassume w: Var(2 X) = 4\n"
    store = LinkStore()
    assert not through(store, text)[0].diagnostics
    bad = text.replace("= 4", "= 5")
    rep = through(store, bad)[0]
    assert [d.code for d in rep.diagnostics] == ["E-inconsistent"]
    assert fields(rep) == fields(check_text(bad, "t.step"))


def test_a_judgement_near_the_time_limit_is_not_stored():
    """What a time budget decided is not a property of the link: with a budget every check exceeds
    half of, nothing is stored (and nothing is read back on the next run)."""
    store = LinkStore()
    with using(store):
        check_text(TEXT, "t.step", Options(timeout=1e-6))
    assert store.stored == 0
    rep, hits, misses = through(store, TEXT)
    assert hits == 0 and statuses(rep) == ["holds"] * 5
