"""stepcheck: a verifier for step-by-step maths derivations in ``.step`` files.

Nothing heavy is imported here: ``import stepcheck`` (and ``verify --help``)
must stay fast, so sympy and lark are loaded only when a file is checked.
The Python API (``check``, ``verify_file``, ``verify_text``,
``assert_holds``; see :mod:`stepcheck.api`) is loaded on first access.
"""
from __future__ import annotations

__version__ = "0.1.0"

_LAZY = {
    "check": "stepcheck.api",
    "verify_file": "stepcheck.api",
    "verify_text": "stepcheck.api",
    "check_many": "stepcheck.api",
    "assert_holds": "stepcheck.api",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'stepcheck' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(mod), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def load_ipython_extension(ip):
    """``%load_ext stepcheck``: registers the ``%%stepcheck`` cell magic."""
    from .ipython import load_ipython_extension as load

    load(ip)
