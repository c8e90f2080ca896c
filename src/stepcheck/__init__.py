"""stepcheck: a verifier for step-by-step maths derivations in ``.step`` files.

Nothing heavy is imported here: ``import stepcheck`` (and ``verify --help``)
must stay fast, so sympy and lark are loaded only when a file is checked.
"""
from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
