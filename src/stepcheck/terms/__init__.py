"""The shared vocabulary: what the elaborator builds and every later stage reads.

* :mod:`.objects` -- the sympy objects of the language (``E``, ``Var``,
  ``Cov``, ``SD``, the canonical sum ``DSum``);
* :mod:`.probability` -- ``P(event)`` for numeric claims;
* :mod:`.facts` -- declarations, facts, resource limits and the per-link
  :class:`~.facts.Deadline`;
* :mod:`.printer` -- the base printer the other printers extend.

This package imports only sympy: the kernel, the model finder and the
printers all sit above it, none below.
"""
from . import indexed_facts
from .facts import Deadline, Decls, EqFact, IndepFact, IneqFact, KernelLimit, Limits
from .objects import SD, Cov, DSum, E, Var

indexed_facts.install()

__all__ = ["Deadline", "Decls", "EqFact", "IndepFact", "IneqFact", "KernelLimit", "Limits",
           "SD", "Cov", "DSum", "E", "Var"]
