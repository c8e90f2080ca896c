"""What a link's diagnostics say beside its verdict: the residual shown in the link's own names, the
margin of an inequality, the notes of the witness search, and help that fits what stayed unknown."""
from __future__ import annotations

from . import syntax as S
from .errors import Diagnostic


def _unknown_help(lk, proof, message) -> str | None:
    """What a newcomer can do about a link that stays unknown."""
    from .terms.probability import Prob

    if proof.residual is not None and proof.residual.has(Prob):
        return "a probability is computed from the declared laws by `check` (`check NAME: P(...) = VALUE`)"
    if message and "limit does not exist" in message:
        return "the limit has no value there: a one-sided limit (`t -> 0+`) may be what is meant"
    return None if lk.has_by else "cite the facts it needs with `by`, or split it into smaller steps"


def _search_note(text: str) -> Diagnostic:
    return Diagnostic("note", text, None, code="N-no-counterexample")


#: what the residual of an inequality is: its margin, which must be positive (or nonnegative)
_MARGIN = {"<": "right side − left side (must be > 0)", "<=": "right side − left side (must be ≥ 0)",
           ">": "left side − right side (must be > 0)", ">=": "left side − right side (must be ≥ 0)"}


def _show_expr(x, lk: S.Link | None = None, declared=()) -> str:
    """Kernel text; bound indices take the index names written in ``lk`` where free, never a ``declared`` one."""
    from .terms.printer import show

    return show(x, [n.var.name for n in S.walk(lk) if isinstance(n, S.BigOp)] if lk is not None else (), declared)
