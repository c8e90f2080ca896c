"""Finite models: exact evaluation and the counterexample finder.

A *model* gives every dimension symbol a small positive integer (so every
index range is concrete), every deterministic real a rational value, and the
random variables (families unrolled over their concrete ranges) a finite
joint distribution: independent *groups* of variables, each group a list of
outcomes with rational probabilities summing to 1.

This package evaluates expressions on a model with its own code (enumerate
outcomes, sum probability times value); it never calls the kernel's
normaliser or prover, so that checking a kernel verdict on models is an
independent second route (LANGUAGE.md, section 8).  Only the vocabulary of
:mod:`stepcheck.terms` is shared: the sympy classes ``E``/``Var``/``Cov``/``SD``,
the plain fact records, the function table and the base printer.

Entry points:

* :func:`evaluate` and :func:`satisfies` (exact, on one model);
* :func:`find_counterexample` (a model of the kept facts in which the two
  sides differ; deterministic for a given seed, bounded in time and size);
* :func:`random_models` (models of a set of facts, for the soundness
  cross-check).

Layout (each module imports only the ones above it, :mod:`stepcheck.terms`
and sympy; never :mod:`stepcheck.kernel`):

* :mod:`.numbers` -- exact arithmetic (``n_add``, ``n_eq``, ``holds_rel``...);
* :mod:`.render` -- printing expressions and models (``show``, ``render_model``);
* :mod:`.evaluate` -- ``Model``, ``Evaluator``, ``evaluate``, ``satisfies``, ``violates``;
* :mod:`.marginals` -- small exact laws and couplings;
* :mod:`.search` -- ``find_counterexample``, ``random_models``, ``Witness``, ``NotFound``.
"""
from __future__ import annotations

from .evaluate import (
    MAX_OUTCOMES,
    Evaluator,
    Group,
    Model,
    _apply,
    _fold,
    _function_value,
    _indep_sets,
    _index_syms,
    _range_of,
    assignments,
    evaluate,
    fact_free,
    satisfies,
    violates,
)
from .marginals import (
    _functional_pair,
    _moments,
    _options,
    _options_cached,
    _perturbed_pair,
    _product_group,
    _quantile_coupling,
    _solve3,
    _symmetric3,
    marginal_options,
)
from .numbers import (
    ModelError,
    _isqrt_exact,
    _marg,
    holds_rel,
    n_add,
    n_cmp,
    n_eq,
    n_mul,
    n_pow,
    n_sqrt,
    num,
    sym,
)
from .render import _PLAIN, _alternatives, _law, _Printer, key_name, render_model, show, show_value
from .search import (
    MAX_CANDIDATES,
    MAX_DIM_ASSIGNMENTS,
    MAX_VARIABLES,
    REL_TEXT,
    NotFound,
    Witness,
    _Ctx,
    _dim_assignments,
    _dim_syms,
    _dim_values,
    _flatten,
    _literal_indices_in_range,
    _param_values,
    _rv_atom_key,
    _try,
    _witness,
    find_counterexample,
    mentions,
    random_models,
    related,
)

__all__ = [
    "MAX_CANDIDATES", "MAX_DIM_ASSIGNMENTS", "MAX_OUTCOMES", "MAX_VARIABLES", "REL_TEXT",
    "Evaluator", "Group", "Model", "ModelError", "NotFound", "Witness",
    "assignments", "evaluate", "fact_free", "find_counterexample", "holds_rel", "key_name", "marginal_options",
    "mentions", "n_add", "n_cmp", "n_eq", "n_mul", "n_pow", "n_sqrt", "num", "random_models", "related",
    "render_model", "satisfies", "show", "show_value", "sym", "violates",
]
