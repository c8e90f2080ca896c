"""The options of one check, shared by the CLI, the Python API and the pytest plugin.

Plain stdlib: importing it is instant (``verify --help`` reads the default).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

DEFAULT_TIMEOUT = 5.0  # seconds per link: the one place the default is written


@dataclass(frozen=True)
class Options:
    strict: bool = False  # cited-but-unneeded facts are errors
    timeout: float = DEFAULT_TIMEOUT  # seconds per link: proof, witness search and cross-check together
    why: bool = False  # for every assumption a step rests on, is it needed? (counterexample search)
    cross_check: bool = True  # evaluate accepted links on random finite models of their assumptions

    def __post_init__(self):
        if not (isinstance(self.timeout, (int, float)) and self.timeout > 0):
            raise ValueError(f"the time limit must be a positive number of seconds, not {self.timeout!r}")

    def but(self, **changes) -> "Options":
        """A copy with some options changed (``None`` values are ignored)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})
