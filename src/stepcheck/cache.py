"""A content-addressed cache of checked files: ``verify`` re-run on unchanged files answers at once.

The key of a file is the SHA-256 of everything its report depends on:

* the text of the file and the name it is reported under;
* the options that change results (``strict``, ``timeout``, ``why``, ``cross_check``);
* the versions of stepcheck, sympy, lark and Python;
* the **rule set**: a digest of every source file of the installed package and of the
  grammar, so that any change to the kernel, the checker or the printers starts afresh.

A ``.step`` file has no imports, so its text and the options are its whole scope: a
changed assumption changes the key of the file. A file whose key misses is checked with a
:class:`stepcheck.link_cache.LinkStore` under the same directory: each link has its own key
(its text, its elaborated sides, everything before it that is not a step, the steps it cites),
so an edit re-checks only the links it affects.

An entry is JSON, never pickle: a cache directory may be shared (copied between CI
machines), so an entry is data that is parsed and validated, never code that runs.  It is
decoded into the result classes of :mod:`stepcheck.results` only (a whitelist); an entry
that is corrupt, foreign, of another format, or whose recorded key is not the key asked
for is ignored and the file is checked.  Entries are not signed: whoever can write the
directory can forge a report under the right key, so a cache is as trusted as the
directory (``--no-cache`` for a release check).  Entries are written to a temporary file in the
same directory and renamed into place (atomic on POSIX and Windows), so concurrent
writers (xdist workers, several ``verify`` processes) never leave a torn entry; the
last writer wins, and both wrote the same report.  :func:`prune` keeps the directory
under a size bound, oldest entries first.

Reports read from the cache carry no sympy expressions and no syntax tree (``lhs_expr``,
``rhs_expr``, ``program``): the PDF and the notebook need those, so ``verify --pdf`` and
the Python API do not use the cache.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .cache_codec import (BAD_ENTRY, FORMAT, _classes, base_parts, decode, encode, load_entry,  # noqa: F401
                          rule_set, store_entry)

DEFAULT_MAX_BYTES = 200 * 1024 * 1024


def default_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "stepcheck"


def key(text: str, path: str, options) -> str:
    parts = dict(base_parts(options), path=path)
    h = hashlib.sha256(json.dumps(parts, sort_keys=True).encode())
    h.update(b"\0")
    h.update(text.encode("utf-8", errors="surrogatepass"))
    return h.hexdigest()



class Cache:
    """The cache in ``directory``: :meth:`get` a report by key, :meth:`put` one."""

    def __init__(self, directory, max_bytes: int = DEFAULT_MAX_BYTES):
        self.dir = Path(directory)
        self.max_bytes = max_bytes
        self.hits = self.misses = self.ignored = 0
        self.links = None  # the link-level store (link_cache.LinkStore) under the same directory

    def _path(self, k: str) -> Path:
        return self.dir / k[:2] / f"{k}.json"

    def get(self, k: str):
        """The cached report for key ``k``, or None (absent, unreadable, corrupt or foreign: ignored)."""
        from .results import FileReport

        try:
            data = load_entry(self._path(k), k, "report")
            if data is None:
                self.misses += 1
                return None
            rep = decode(data, _classes())
            if not isinstance(rep, FileReport):
                raise ValueError("not a report")
        except BAD_ENTRY:
            self.ignored += 1
            return None
        self.hits += 1
        return rep

    def put(self, k: str, report) -> None:
        """Store ``report`` under ``k`` atomically; a cache that cannot be written is skipped silently."""
        try:
            store_entry(self._path(k), k, "report", encode(report))
        except (OSError, TypeError, ValueError):
            return

    def prune(self) -> int:
        """Delete the oldest entries until the directory is under ``max_bytes``; returns how many went."""
        try:
            entries = [(e.stat().st_mtime, e.stat().st_size, e)
                       for pattern in ("*/*.json", "links/*/*.json") for e in self.dir.glob(pattern)]
        except OSError:
            return 0
        total = sum(s for _, s, _ in entries)
        gone = 0
        for _, size, e in sorted(entries, key=lambda t: t[0]):
            if total <= self.max_bytes:
                break
            try:
                e.unlink()
                total -= size
                gone += 1
            except OSError:
                pass
        return gone


def check_file(path: str, options, cache: Cache | None):
    """``checker.check_file`` through the cache: a hit is returned as stored; a miss is checked and stored."""
    from .markdown import read_any

    def check(p, o):
        from .checker import check_file  # sympy and lark: only when something is checked

        return check_file(p, o)

    if cache is None:
        return check(path, options)
    try:
        text = read_any(path)
    except Exception:  # noqa: BLE001 - unreadable: the checker reports why
        return check(path, options)
    k = key(text, path, options)
    rep = cache.get(k)
    if rep is not None:
        return rep
    from .link_cache import LinkStore, using  # a changed file: its unchanged links are read

    if cache.links is None:
        cache.links = LinkStore(cache.dir)
    with using(cache.links):
        rep = check(path, options)
    if not rep.fatal:
        cache.put(k, rep)
    return rep


def _check_one(path: str, options, directory):
    """One file in a worker process (module level, so a process pool can pickle it)."""
    return check_file(path, options, Cache(directory) if directory is not None else None)


def stored(path: str, options, cache: Cache):
    """The cached report of ``path`` under ``options``, or None (nothing is checked; sympy is not imported)."""
    from .markdown import read_any

    try:
        return cache.get(key(read_any(path), path, options))
    except Exception:  # noqa: BLE001 - unreadable: checking it reports why
        return None


def check_files(files: list[str], options, *, directory=None, jobs: int | None = 1, progress=None) -> dict:
    """``{path: report}`` for ``files``, through the cache in ``directory`` (None: no cache).

    Cache hits are read here; the files left are checked on ``jobs`` processes (None: one per CPU, as many
    as there are files to check).  ``progress(done, path)`` is called as files finish."""
    out: dict = {}
    cache = Cache(directory) if directory is not None else None
    if cache is not None:
        for f in files:
            if (rep := stored(f, options, cache)) is not None:
                out[f] = rep
    left = [f for f in files if f not in out]
    workers = min(jobs if jobs is not None else (os.cpu_count() or 1), len(left))
    if workers <= 1:
        for i, f in enumerate(left):
            if progress:
                progress(len(out), f)
            out[f] = check_file(f, options, cache)
    else:
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_check_one, f, options, directory): f for f in left}
            for fut in as_completed(futures):
                out[futures[fut]] = fut.result()
                if progress:
                    progress(len(out), futures[fut])
    if directory is not None:
        Cache(directory).prune()
    return out
