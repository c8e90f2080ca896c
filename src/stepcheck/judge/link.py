"""Judging one link of a chain: the kernel's proof, the witness search, the model finder.

:func:`judge_link` is pure with respect to the file: it reads the
:class:`~stepcheck.state.FileState` and returns a :class:`LinkJudgement`; the
checker turns that into the link's result and diagnostics.  Every stage spends
from the link's one :class:`~stepcheck.terms.facts.Deadline`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from sympy import Integer

from ..results import FAILS, HOLDS, UNKNOWN
from ..terms.facts import EqFact, IneqFact
from ..terms.objects import E
from ..terms.printer import show
from . import EXACT, KERNEL, UNDECIDED, WITNESS, Verdict, proved
from . import heavy
from . import refuters as cx
from .attribution import attribute
from .recheck import Point, confirms
from .witness import WitnessSearch

DOMAIN = "the link's side conditions"  # the label of the facts that keep a witness where the link is defined


@dataclass
class LinkJudgement:
    verdict: Verdict
    # how it was reached: "proved", "contradiction", "cites-too-little", "unverified-citation",
    # "not-proved", "unsound" (the cross-check refuted a kernel proof)
    outcome: str
    proof: object = None  # the kernel Proof whose uses are reported
    missing: list = field(default_factory=list)  # cites-too-little: labels needed but not cited
    shaky: list = field(default_factory=list)  # unverified-citation: unverified steps the proof used
    counterexample: str | None = None  # a finite model (text), or the residual witness's assignment
    witness: tuple | None = None  # (assignment text or None, exact value) refuting the residual
    search_notes: list = field(default_factory=list)  # why no counterexample was found / searched
    cross_check: object = None  # refuters.CrossCheck of a proved link (None: not cross-checked by request)
    message: str | None = None
    uncited: list = field(default_factory=list)  # not-proved with `by`: facts in scope a refutation did not meet


BY_HELP = ("the counterexample satisfies what `by` cites; if the step follows from other facts in scope, cite "
           "them too, or leave `by` out to check it against everything in scope")


def judge_link(state, prover, lhs, rhs, rel: str, cited: list, has_by: bool, deadline, *,
               cross_check: bool = True, seed_parts=(), where=frozenset(), domain=(), unproved=()) -> LinkJudgement:
    """``where``: the link's own side conditions (texts); a step proved under conditions it lacks is no fact
    here (``sqrt(x^2) = sqrt(x)^2`` holds where x ≥ 0; as ``sqrt(x^2) = x`` it would prove |x| = x).
    ``domain``: the same conditions as (expression, relation to 0); a witness outside them refutes nothing
    (``|s_i| = sqrt(s_i)^2`` at s_i = -1), so every witness must satisfy them too.  ``unproved``: means on a
    heavy-tailed law the sides hold as written that are not shown to exist (the link is not checked)."""
    defined = domain_facts(domain, prover.decls)
    conditional = {lab: sorted(c - where) for lab, c in state.step_conditions.items() if not c <= where}
    all_labels = [lab for lab in state.relevant(lhs, rhs) if lab not in conditional]
    unusable = [lab for lab in cited if lab in conditional]
    cited = [lab for lab in cited if lab not in conditional]
    candidates = cited if has_by else all_labels
    if has_by:
        # declared distributions are part of the declarations: usable without citing them
        candidates = candidates + [c for c in all_labels
                                   if state.fact_kinds.get(c) == "distribution" and c not in candidates]
    if state.contradiction & set(candidates):
        return LinkJudgement(UNDECIDED, "contradiction",
                             message="rests on contradictory assumptions: " + ", ".join(sorted(state.contradiction)))
    # E[C T] of a Cauchy C: the kernel would factor it (``unproved``: as written, before sympy cancelled any)
    unproved = list(unproved) or heavy.unproved_means(state, lhs, rhs)
    if unproved:
        return LinkJudgement(UNDECIDED, "mean-unchecked", message="not checked: " + "; ".join(unproved))
    # a fact such as Y = C T would put a mean that may not exist into E[Y]: not a candidate
    raw = set(heavy.raw_heavy_facts(state, candidates))
    candidates = [c for c in candidates if c not in raw]
    proof = attribute(prover, lhs, rhs, candidates, rel, deadline)
    higher, coarse = _with_higher_moments(state, prover, proof), frozenset()
    if higher is not None:  # E[Z^6] for Z ~ Normal(0, 1): the law's own moment, given when the residual has it
        again = attribute(higher[0], lhs, rhs, candidates, rel, deadline)
        if again.holds or (again.residual is not None and not again.limited):
            (prover, coarse), proof = higher, again
    refuting = [(proof, candidates)]  # residuals to look for a witness in (checked against these facts), in order
    if not has_by and not proof.holds and proof.limited:
        # everything in scope was too much for the prover: try the assumptions alone (the verified steps
        # add the largest facts); a proof from fewer of the facts in scope is a proof of the link, and
        # the residual of one is still refuted only by a witness of every fact in scope
        fewer = [c for c in candidates if c in state.facts]
        if len(fewer) < len(candidates):
            narrow = attribute(prover, lhs, rhs, fewer, rel, deadline)
            if narrow.holds:
                proof = narrow
                refuting = [(proof, candidates)]
            else:
                refuting.append((narrow, candidates))
    if not proof.holds and has_by:
        wider = [c for c in all_labels if not (state.contradiction and c in state.contradiction)]
        proof_all = attribute(prover, lhs, rhs, wider, rel, deadline)
        fewer = [c for c in wider if c in state.facts]
        if not proof_all.holds and proof_all.limited and len(fewer) < len(wider):
            # everything in scope was too much (a verified step's large fact): the assumptions alone
            narrow = attribute(prover, lhs, rhs, fewer, rel, deadline)
            proof_all = narrow if narrow.holds else proof_all
        # "cites too little" only when both proofs ran to completion (a limit proves nothing)
        if proof_all.holds and not proof.limited and not proof_all.limited:
            missing = [u for u in proof_all.used if u not in cited]
            j = LinkJudgement(Verdict(FAILS, KERNEL), "cites-too-little", proof_all, missing=missing)
            # show why: a model of the cited facts alone in which the link is false
            j.counterexample, note = cx.search_link_model(state, prover.decls, lhs, rhs, cited, rel,
                                                          seed_parts, deadline, defined)
            j.search_notes += [note] if note else []
            if j.counterexample is None:  # the kernel is incomplete: not proved from the citation is not false
                j.verdict = UNDECIDED
            return j
        refuting.append((proof_all, wider))
    if proof.holds and state.unchecked & set(proof.used):
        return LinkJudgement(UNDECIDED, "unchecked-assumptions", proof, message=(
            "rests on " + ", ".join(f"`{u}`" for u in sorted(state.unchecked & set(proof.used))) + ", whose check "
            "for contradictions ran out of time (a contradiction would prove anything): raise `--timeout`"))
    if proof.holds:
        shaky = [u for u in proof.used if u in state.steps and state.steps[u].status != HOLDS]
        if shaky:
            return LinkJudgement(UNDECIDED, "unverified-citation", proof, shaky=shaky,
                                 message="follows only from " + ", ".join(f"`{u}`" for u in shaky)
                                 + ", which is not verified")
        j = LinkJudgement(proved(proof), "proved", proof, message=proof.message)
        if cross_check and coarse & set(proof.used):
            j.cross_check = cx.CrossCheck(False, None, [])  # (coarse: see _with_higher_moments)
        elif cross_check:
            cc = j.cross_check = cx.cross_check(state, prover.decls, lhs, rhs, proof.used, rel, seed_parts, deadline,
                                                defined)
            if cc.disagrees:
                j.verdict, j.outcome, j.message, j.counterexample = UNDECIDED, "unsound", cc.message, cc.model
        return j
    # not proved: a witness on the residual (re-checked on the link), then a finite model of the candidates
    # the link's side conditions too: a witness outside them refutes nothing (n ≥ d for K_{t, j}, t in 1..d)
    search = WitnessSearch(prover.decls, {**prover.facts, **defined})
    witness, dropped, hint = None, None, {}
    for pr, labels in refuting:
        if pr.residual is not None:
            plain = [lab for lab in labels if not cx.verified_identity(state, lab)]  # (as the re-check below)
            found = search.search(pr.residual, pr.case, plain + list(defined), rel)
            if found is None:
                continue
            witness, why = _confirm_residual_witness(found, state, prover.decls, lhs, rhs, rel, labels, defined)
            if witness is not None:
                proof = pr
                break
            dropped, hint = dropped or why, hint or found[2]  # its values, tried first by the model search
    j = LinkJudgement(UNDECIDED, "not-proved", proof, message=proof.message, witness=witness,
                      uncited=[c for c in all_labels if c not in candidates] if has_by else [])
    for lab in unusable:
        j.search_notes.append(f"`{lab}` holds only where {', '.join(conditional[lab])}, and this link does not "
                              "have that condition: it is not used here")
    j.counterexample, note = cx.search_link_model(state, prover.decls, lhs, rhs, candidates, rel, seed_parts,
                                                  deadline, defined, hint)
    if j.counterexample is None and witness is None:  # a limit or extremum neither reached: concrete points
        witness = j.witness = cx.search_point(state, prover.decls, lhs, rhs, candidates, rel, deadline, defined)
    if j.counterexample is not None:
        j.verdict = Verdict(FAILS, WITNESS)
        j.message = ("the two sides differ" if rel == "=" else "the relation is false") + \
            " on a finite model of the facts (the counterexample), re-evaluated exactly" + \
            (f"; the kernel's proof: {j.message}" if j.message else "")
    elif witness is not None:
        j.verdict = Verdict(FAILS, EXACT)
        j.counterexample = witness[0]
    if note and j.counterexample is None and witness is None:  # (a residual that is a number needs no model)
        j.search_notes.append(note)
    if dropped and j.counterexample is None:
        j.search_notes.append(f"a witness from the residual was dropped: {dropped}")
    if witness is not None:
        text, v = witness
        j.message = _witness_message(text, v, rel)
    return j


def _with_higher_moments(state, prover, proof):
    """(a prover that also knows the declared laws' moments E[X^k] (k above those every law gives) that the
    residual of ``proof`` mentions, the labels of continuous laws among them), or None (proved, no residual,
    or no such moment)."""
    if proof.holds or proof.residual is None or not proof.residual.has(E):
        return None
    from collections import ChainMap

    from ..law_facts import higher_moment_facts
    from ..kernel import LinkProver

    extra = higher_moment_facts(state, {"": [EqFact("", proof.residual, Integer(0))]})
    if not extra:
        return None
    merged = {lab: list(prover.facts.get(lab, ())) + fs for lab, fs in extra.items()}
    # the cross-check's finite stand-in for a continuous law has its moments up to the 5th only
    coarse = frozenset(d.label for d in state.laws.values() if d.label in extra and d.dist.continuous)
    return LinkProver(prover.decls, ChainMap(merged, dict(prover.facts)), prover.limits), coarse


def domain_facts(domain, decls) -> dict:
    """The link's side conditions as facts a witness must satisfy (none: an empty dict).

    A guard (relation ``defined``: an expression that must have a real value, see
    ``Elaborator._guard``) becomes the equation ``g = g``: it holds exactly where ``g`` has a real value,
    and both re-checks refuse a point where it has none."""
    facts = []
    for x, rel in domain:
        free = tuple(sorted((s for s in x.free_symbols if s in decls.index_ranges), key=str))
        facts.append(EqFact(DOMAIN, x, x, free=free) if rel == "defined"
                     else IneqFact(DOMAIN, x, Integer(0), rel, free=free))
    return {DOMAIN: facts} if facts else {}


def _confirm_residual_witness(found, state, decls, lhs, rhs, rel, labels, defined):
    """(text, value) when the residual's witness also refutes the original link exactly, else (None, why)."""
    text, value, values, pattern = found
    # a verified step resting on no fact holds wherever its link is defined: no point need be checked
    # against it (and a matrix identity would stop a scalar witness from being re-evaluated at all)
    facts = {**state.facts_of([lab for lab in labels if not cx.verified_identity(state, lab)]), **defined}
    laws = {name: d.dist for name, d in state.laws.items()}  # E[G^4] for G ~ Normal(0, 1): from its moments
    values, sized = _dimensions_for(values, decls)
    point = Point(values=dict(values), indexed={}, pattern=pattern, laws=laws)
    ok, why, defaulted = confirms(point, decls, lhs, rhs, rel, facts, complete=True)
    defaulted = {**sized, **defaulted}
    if not ok:
        # the values the witness leaves out were given defaults that miss a fact or a side condition (α > β
        # at α = β = 0; n ≥ 2 at n = 1): the same witness at other values of those, re-checked all the same
        from .pointwise import MAX_POINTS, points

        from sympy import Tuple  # (the names only the side conditions mention, n in n ≥ 2, vary too)

        from sympy import Indexed, Symbol

        # the names only the facts mention vary too (u, v of an earlier step about u > v, cited by default)
        conds = Tuple(rhs, *[x for fs in (*defined.values(), *facts.values()) for f in fs
                             if isinstance(f, (EqFact, IneqFact)) for x in (f.lhs, f.rhs)])
        labels_ = {ix.base.label for x in (lhs, conds) for ix in x.atoms(Indexed)}  # Q of Q_{i, j}: not a value
        for k, p in enumerate(points(lhs, conds, decls)):
            if k >= MAX_POINTS:
                break
            others = {s_: v for s_, v in p.values.items()
                      if s_ not in values and isinstance(s_, Symbol) and s_ not in labels_}
            ok, _, defaulted = confirms(Point({**dict(values), **others}, {},
                                              pattern=p.pattern if pattern is None else pattern, laws=laws),
                                        decls, lhs, rhs, rel, facts, complete=True)
            if ok:
                defaulted = {**others, **defaulted}
                break
    if not ok:
        return None, why
    if defaulted:  # symbols the residual no longer mentions: the values the re-check gave them
        extra = ", ".join(f"{show(s)} = {v}" for s, v in sorted(defaulted.items(), key=lambda kv: str(kv[0])))
        text = f"{text}, {extra}" if text else extra
    return (text, value), None


def _dimensions_for(values: dict, decls) -> tuple[dict, dict]:
    """``values`` with each dimension that bounds a valued index (j in 1..n at j = 2) given the least value
    that keeps those indices in range, when the witness leaves it out (the link may not mention n: ∂/∂s_j);
    and those added values, to show with the witness.  The re-check decides the point all the same."""
    sized: dict = {}
    for ix, v in values.items():
        rng = decls.index_ranges.get(ix)
        if rng is None or not getattr(v, "is_Integer", False):
            continue
        lo, hi = (Integer(b) if isinstance(b, int) else b for b in rng)
        if hi.is_Symbol and hi not in values and lo.is_Integer and v >= lo:
            sized[hi] = max(sized.get(hi, v), v)
    return {**values, **sized}, sized


def _witness_message(text, v, rel: str) -> str:
    v = show(v)  # long integers as decimals (Python refuses to print more than 4,300 digits)
    if text is None:
        return f"the two sides differ by {v}" if rel == "=" else f"the claimed inequality is false: the margin is {v}"
    return f"at {text} the two sides differ by {v}" if rel == "=" else f"at {text} the inequality is false (margin {v})"


__all__ = ["LinkJudgement", "judge_link", "UNKNOWN"]
