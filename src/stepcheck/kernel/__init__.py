"""The trusted kernel of stepcheck: normal forms, reduction modulo facts, one prover.

Its contract is stated once, in docs/kernel.md ("The contract"), and quoted by
tests/test_architecture.py: :meth:`LinkProver.prove_link` answers *holds*
only when the difference of the two sides normalises and reduces to exactly 0
using the facts it lists, and *not proved* otherwise; it never says "fails"
(that is the judge's, from re-checked evidence).  The kernel imports only
sympy and :mod:`stepcheck.terms`; it does no I/O.
"""
from ..terms.facts import Deadline, Decls, EqFact, IndepFact, IneqFact, KernelLimit, Limits
from ..terms.objects import SD, Cov, DSum, E, Var
from .consistency import Contradiction, check_consistency
from .prove import LinkProver, Proof, free_indices, number_bound
from .reduce import clear_caches
from .rules import RULES, Rule

__all__ = ["Deadline", "Decls", "EqFact", "IndepFact", "IneqFact", "KernelLimit", "Limits", "E", "Var", "Cov", "SD",
           "DSum", "LinkProver", "Proof", "check_consistency", "Contradiction", "free_indices", "number_bound", "clear_caches", "RULES", "Rule"]
