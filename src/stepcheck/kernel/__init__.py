"""The trusted kernel of stepcheck.

Contract: given sympy expressions built from a parse tree (never from user
text), declarations (:class:`Decls`) and facts (:class:`IndepFact`,
:class:`EqFact`) grouped by label, :meth:`LinkProver.prove` returns an
:class:`Outcome` whose status is ``holds`` only when the difference of the two
sides normalises and reduces to exactly 0 using the facts it lists.  The
kernel does no I/O and imports neither lark, typst nor pytest.
"""
from ..terms.facts import Decls, EqFact, IndepFact, IneqFact, KernelLimit, Limits
from ..terms.objects import SD, Cov, DSum, E, Var
from .prove import LinkProver, Outcome, check_consistency, free_indices
from .reduce import clear_caches

__all__ = ["Decls", "EqFact", "IndepFact", "IneqFact", "KernelLimit", "Limits", "E", "Var", "Cov", "SD", "DSum",
           "LinkProver", "Outcome", "check_consistency", "free_indices", "clear_caches"]
