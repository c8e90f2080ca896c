"""What a cache key is made of, and how cached results are written and read back.

Shared by the file cache (:mod:`stepcheck.cache`) and the link cache
(:mod:`stepcheck.link_cache`). An entry is JSON, never pickle, decoded into a whitelist of
result classes only (see :func:`decode`).
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import sys
from pathlib import Path

FORMAT = 1
_fingerprint: str | None = None


def rule_set() -> str:
    """A digest of the package's own source files and grammar (computed once per process)."""
    global _fingerprint
    if _fingerprint is None:
        from .parser import _grammar_text

        root = Path(__file__).resolve().parent
        h = hashlib.sha256(_grammar_text().encode())
        for f in sorted(root.rglob("*.py")):
            h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes())
        _fingerprint = h.hexdigest()
    return _fingerprint


def _version(dist: str) -> str:
    """A distribution's version from its metadata: a cache hit never imports sympy or lark."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:  # not installed as a distribution: import it to ask
        import importlib

        return getattr(importlib.import_module(dist), "__version__", "?")


@functools.lru_cache(maxsize=16)
def base_parts(options) -> dict:
    """What every key depends on besides the input: versions, the rule set, the options (do not modify)."""
    from . import __version__

    return {
        "format": FORMAT, "stepcheck": __version__, "sympy": _version("sympy"), "lark": _version("lark"),
        "python": sys.version, "rules": rule_set(),
        "options": {f: getattr(options, f) for f in ("strict", "timeout", "why", "cross_check")},
    }


# ---------------------------------------------------------------- encoding (a whitelist of classes)


def _classes() -> dict:
    from .errors import Diagnostic, Span
    from .results import AssumptionInfo, FileReport, LinkResult, StepResult, Use

    return {c.__name__: c for c in (Span, Diagnostic, AssumptionInfo, Use, LinkResult, StepResult, FileReport)}


def encode(x):
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        out = {"__t": type(x).__name__}
        for f in dataclasses.fields(x):
            if f.compare:  # lhs_expr, rhs_expr, program: sympy objects and the syntax tree are not kept
                out[f.name] = encode(getattr(x, f.name))
        return out
    if isinstance(x, (list, tuple)):
        return [encode(v) for v in x]
    if isinstance(x, dict):
        return {"__d": [[encode(k), encode(v)] for k, v in x.items()]}
    if x is None or isinstance(x, (str, int, float, bool)):
        return x
    raise TypeError(f"cannot cache a {type(x).__name__}")


def decode(x, classes: dict):
    if isinstance(x, list):
        return [decode(v, classes) for v in x]
    if isinstance(x, dict):
        if set(x) == {"__d"}:
            return {decode(k, classes): decode(v, classes) for k, v in x["__d"]}
        cls = classes[x["__t"]]  # KeyError: not a class of ours
        names = {f.name for f in dataclasses.fields(cls) if f.compare}
        fields = {k: decode(v, classes) for k, v in x.items() if k != "__t"}
        if not set(fields) <= names:
            raise ValueError("unknown field")
        return cls(**fields)
    if x is None or isinstance(x, (str, int, float, bool)):
        return x
    raise ValueError("not an entry")


# ---------------------------------------------------------------- the store


#: what reading a corrupt or foreign entry raises: the entry is ignored
BAD_ENTRY = (ValueError, KeyError, TypeError, RecursionError, AttributeError)


def load_entry(path: Path, k: str, field: str):
    """The ``field`` of the entry at ``path`` written under key ``k``, still encoded; None when the file
    cannot be read; one of :data:`BAD_ENTRY` when it is not JSON, of another format or of another key."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    data = json.loads(raw)
    if not (isinstance(data, dict) and data.get("format") == FORMAT and data.get("key") == k):
        raise ValueError("foreign entry")
    return data[field]


def store_entry(path: Path, k: str, field: str, value) -> None:
    """Write ``value`` (encoded) at ``path`` under key ``k``, atomically; OSError when it cannot."""
    from .atomic import atomic_write

    blob = json.dumps({"format": FORMAT, "key": k, field: value}, ensure_ascii=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(str(path), blob)
