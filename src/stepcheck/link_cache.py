"""A cache of checked links: a link whose claim and scope did not change is not checked again.

The file-level cache (:mod:`stepcheck.cache`) answers for a file whose text did not change at
all.  This one answers for a *link* of a file that did change: an editor re-checking on every
keystroke, or a CI run after one step was edited, re-checks the links the edit can affect and
reads the others.

The key of a link is the SHA-256 of everything its judgement depends on:

* what :func:`stepcheck.cache_codec.base_parts` covers: the stepcheck, sympy, lark and Python
  versions, the rule set (a digest of the package's sources and grammar), the options;
* the link itself: its source text (with its column and its left-hand side as written), its
  position in the chain, its relation and its ``by`` list, and its two sides as elaborated
  (``srepr``, definitions unfolded, a ``for i != j`` guard applied);
* its scope: the source text of every statement before it that is not a step (declarations,
  assumptions, definitions, numeric statements), in order -- so a changed assumption re-checks
  every later link, whether or not it is cited;
* the steps it may use: for each earlier step connected to it (``FileState.relevant``) or
  cited, its name, statement, status and statement as a fact, and their order.

Dummy symbols are renumbered by first appearance in the key, so that the same link has the
same key in every process (``srepr`` prints a Dummy's process-wide counter).  The
renumbering is a bijection on the Dummies of one key, so two keys are equal only when the
two links are the same up to the names of their Dummies.

The value is what checking the link wrote into its :class:`~stepcheck.results.LinkResult`
(status, rules, uses, message, counterexample, diagnostics ...) and the file-level
diagnostics it added (a cross-check warning).  Spans are stored relative to the link's first
line, so a link moved by an edit above it is answered with its spans where it now is; an
entry with a span outside its link is not stored.  A judgement that hit a resource limit of
the kernel, or took half the time budget or more, is not stored (a faster machine may prove it).

The check of the assumptions for contradictions (:func:`consistent`) goes through the same
store, keyed by the same versions and the text of every statement that is not a step up to the
assumption checked; it is stored only when it finished within half the time budget.

Entries live in memory (bounded, least recently used first) and, with a directory, as JSON
files under ``DIR/links/`` (written atomically, read as data through a whitelist of classes,
ignored when corrupt or foreign): the trust model of :mod:`stepcheck.cache`.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import re
import threading
import time
from collections import OrderedDict
from pathlib import Path

from .cache_codec import BAD_ENTRY

FORMAT = 1
# the fields of a LinkResult that checking the link fills (the others are set before, from the source)
FIELDS = ("status", "rules", "uses", "missing", "unneeded", "residual", "message", "counterexample",
          "diagnostics", "show_message", "decided_by", "cross_checked")
_DUMMY = re.compile(r"dummy_index=(\d+)")
_active = threading.local()  # .store: the LinkStore of the check running in this thread


class Uncacheable(Exception):
    """This link cannot be keyed or stored (it is checked, and nothing is cached)."""


class LinkStore:
    """Link entries: in memory (``memory`` of them), and under ``directory/links`` when given."""

    def __init__(self, directory=None, memory: int = 4096):
        self.dir = Path(directory) / "links" if directory is not None else None
        self.memory = memory
        self._mem: OrderedDict = OrderedDict()
        self.hits = self.misses = self.ignored = self.stored = 0

    def _path(self, k: str) -> Path:
        return self.dir / k[:2] / f"{k}.json"

    def get(self, k: str, validate=None):
        """The entry for ``k`` (a dict of encoded fields), or None.  ``validate(entry)`` raises for an entry
        read from disk that is not of the kind asked for (default: a link's entry)."""
        entry = self._mem.get(k)
        if entry is not None:
            self._mem.move_to_end(k)
            self.hits += 1
            return entry
        if self.dir is None:
            self.misses += 1
            return None
        from .cache_codec import load_entry

        try:
            entry = load_entry(self._path(k), k, "entry")
            if entry is None:
                self.misses += 1
                return None
            # validated now: a bad entry is a miss, never an error later
            (validate or (lambda e: _decode_entry(e, "<check>", 1)))(entry)
        except BAD_ENTRY:
            self.ignored += 1
            return None
        self._remember(k, entry)
        self.hits += 1
        return entry

    def put(self, k: str, entry: dict) -> None:
        self._remember(k, entry)
        self.stored += 1
        if self.dir is None:
            return
        from .cache_codec import store_entry

        try:
            store_entry(self._path(k), k, "entry", entry)
        except (OSError, TypeError, ValueError):
            return

    def _remember(self, k, entry) -> None:
        self._mem[k] = entry
        self._mem.move_to_end(k)
        while len(self._mem) > self.memory:
            self._mem.popitem(last=False)


@contextlib.contextmanager
def using(store: LinkStore | None):
    """Check links through ``store`` inside the block, in this thread (None: no link cache)."""
    old = getattr(_active, "store", None)
    _active.store = store
    try:
        yield store
    finally:
        _active.store = old


# ---------------------------------------------------------------- the key


def link_key(ck, lr, lk, lhs, rhs, cited) -> str:
    import sympy

    from . import syntax as S
    from .cache_codec import base_parts

    state = ck.state
    labels = state.relevant(lhs, rhs)
    labels += [c for c in cited if c not in labels]
    steps = []
    for lab in labels:
        if lab in state.steps:
            r = state.steps[lab]
            facts = [[sympy.srepr(f.lhs), sympy.srepr(f.rhs), [str(x) for x in f.free], [list(map(str, d))
                      for d in f.distinct]] for f in state.step_facts.get(lab, [])]
            steps.append([lab, r.status, r.statement, facts])
    prog = ck.rep.program
    if prog is None:
        raise Uncacheable("no program")
    context = [type(st).__name__ + ":" + state.src(st.span) for st in prog.statements
               if not isinstance(st, S.Step) and st.span.line < lk.span.line]
    src = _source(state, lk.span)
    parts = {
        "format": FORMAT, "base": base_parts(ck.options), "context": context,
        "link": [src, lk.span.col, lr.index, lr.lhs, lr.rhs, lr.cited, lk.rel, lk.has_by],
        "sides": [sympy.srepr(lhs), sympy.srepr(rhs)], "defs": sorted(ck._link_defs),
        "labels": labels, "steps": steps, "contradiction": sorted(state.contradiction),
        "unchecked": sorted(state.unchecked),
    }
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    order: dict = {}
    text = _DUMMY.sub(lambda m: f"dummy_index={order.setdefault(m.group(1), len(order))}", text)
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def _source(state, span) -> str:
    """The exact source lines of ``span`` (the text from its column to its end)."""
    lines = state.lines[span.line - 1:span.end_line]
    if not lines:
        raise Uncacheable("no source")
    return "\n".join(lines)


# ---------------------------------------------------------------- values


def _classes() -> dict:
    from .errors import Diagnostic, Span
    from .results import Use

    return {c.__name__: c for c in (Span, Diagnostic, Use)}


def _relative(diags, base: int, first: int, last: int) -> list:
    from .cache_codec import encode

    out = []
    for d in diags:
        e = encode(d)
        sp = e.get("span")
        if sp is not None:
            if not (first <= sp["line"] and sp["end_line"] <= last):
                raise Uncacheable("a span outside the link")
            sp.update(file="", line=sp["line"] - base, end_line=sp["end_line"] - base)
        out.append(e)
    return out


def snapshot(lr, lk, added) -> dict:
    """The entry for a checked link: its result's fields, and the file diagnostics it added."""
    from .cache_codec import encode

    first, last = lk.span.line, lk.span.end_line
    fields = {f: encode(getattr(lr, f)) for f in FIELDS if f != "diagnostics"}
    fields["diagnostics"] = _relative(lr.diagnostics, first, first, last)
    return {"fields": fields, "file": _relative(added, first, first, last)}


def _decode_entry(entry, file: str, base: int):
    from .cache_codec import decode
    from .errors import Diagnostic
    from .results import FAILS, HOLDS, SIMULATED, UNKNOWN, Use

    classes = _classes()

    def diags(xs):
        out = []
        for x in xs:
            sp = x.get("span")
            if sp is not None:
                x = dict(x, span=dict(sp, file=file, line=sp["line"] + base, end_line=sp["end_line"] + base))
            d = decode(x, classes)
            if not isinstance(d, Diagnostic):
                raise ValueError("not a diagnostic")
            out.append(d)
        return out

    fields = entry["fields"]
    if set(fields) != set(FIELDS) or fields["status"] not in (HOLDS, FAILS, UNKNOWN, SIMULATED):
        raise ValueError("not a link entry")
    out = {f: decode(v, classes) for f, v in fields.items() if f != "diagnostics"}
    for f in ("rules", "missing", "unneeded"):
        if not (isinstance(out[f], list) and all(isinstance(x, str) for x in out[f])):
            raise ValueError(f"bad {f}")
    if not (isinstance(out["uses"], list) and all(isinstance(u, Use) for u in out["uses"])):
        raise ValueError("bad uses")
    for f in ("residual", "message", "counterexample", "decided_by"):
        if out[f] is not None and not isinstance(out[f], str):
            raise ValueError(f"bad {f}")
    out["diagnostics"] = diags(fields["diagnostics"])
    return out, diags(entry["file"])


# ---------------------------------------------------------------- the checker's entry point


def judged(ck, lr, lk, lhs, rhs, cited, judge) -> None:
    """Check one link through the active store: ``judge()`` checks it (filling ``lr``) and returns the
    judgement; on a hit ``lr`` is filled from the entry instead."""
    store = getattr(_active, "store", None)
    if store is None:
        judge()
        return
    try:
        k = link_key(ck, lr, lk, lhs, rhs, cited)
    except Uncacheable:
        judge()
        return
    entry = store.get(k)
    if entry is not None:
        try:
            fields, added = _decode_entry(entry, lk.span.file, lk.span.line)
        except BAD_ENTRY:
            store.ignored += 1
        else:
            for f, v in fields.items():
                setattr(lr, f, v)
            ck.rep.diagnostics.extend(added)
            return
    n0, t0 = len(ck.rep.diagnostics), time.monotonic()
    j = judge()
    if getattr(j.proof, "limited", False) or time.monotonic() - t0 >= ck.limits.seconds / 2:
        return  # a resource limit, or close to the time limit: not a property of the link alone
    try:
        store.put(k, snapshot(lr, lk, ck.rep.diagnostics[n0:]))
    except (Uncacheable, TypeError):
        return


# ---------------------------------------------------------------- the assumptions' consistency


def consistency_key(ck, new_label, part=None) -> str:
    """The key of a consistency check: the versions, rule set and options, the text of every statement that
    is not a step up to the assumption checked (up to the first step when ``new_label`` is None)."""
    from . import syntax as S
    from .cache_codec import base_parts

    state, prog = ck.state, ck.rep.program
    if prog is None:
        raise Uncacheable("no program")
    if new_label is None:
        upto = min((st.span.line - 1 for st in prog.statements if isinstance(st, S.Step)), default=None)
    else:
        upto = state.labels_span[new_label].line if new_label in state.labels_span else None
    if upto is None:
        raise Uncacheable("no position")
    context = [type(st).__name__ + ":" + state.src(st.span) for st in prog.statements
               if not isinstance(st, S.Step) and st.span.line <= upto]
    parts = {"format": FORMAT, "base": base_parts(ck.options), "consistency": new_label, "context": context,
             "part": part}
    return hashlib.sha256(json.dumps(parts, sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()


def _consistency_value(entry):
    """The contradiction (or None) an entry holds; raises for anything else."""
    from .kernel import Contradiction

    v = entry["consistency"]
    if v is None:
        return None
    labels, reason = v["labels"], v["reason"]
    if not (isinstance(labels, list) and labels and all(isinstance(x, str) for x in labels) and isinstance(reason, str)):
        raise ValueError("not a consistency entry")
    return Contradiction(labels, reason)


def consistent(ck, new_label, compute, part=None):
    """``compute()`` (the kernel's ``check_consistency`` of the file's facts, or of ``part``, the labels of
    one group of them that shares no name with the others) through the active store.

    The facts are elaborated from the statements in the key, so equal keys give equal facts.  A result
    is stored only when the check took less than half the time budget: a contradiction not found for
    lack of time is not a property of the facts (a KernelLimit or an error is not stored either).
    """
    store = getattr(_active, "store", None)
    if store is None:
        return compute()
    try:
        k = consistency_key(ck, new_label, part)
    except Uncacheable:
        return compute()
    entry = store.get(k, _consistency_value)
    if entry is not None:
        try:
            return _consistency_value(entry)
        except BAD_ENTRY:
            store.ignored += 1
    t0 = time.monotonic()
    out = compute()
    if time.monotonic() - t0 < ck.limits.seconds / 2:
        store.put(k, {"consistency": None if out is None else {"labels": list(out), "reason": out.reason}})
    return out
