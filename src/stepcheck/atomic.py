"""Writing files whole: a reader (or a concurrent writer) never sees half a file."""
from __future__ import annotations

import os
import tempfile


def _umask() -> int:
    """The process's umask: from /proc on Linux, else read by setting it and putting it back."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: str, data: bytes | str) -> None:
    """Write ``path`` through a temporary file in the same directory and ``os.replace``, with the mode
    ``open()`` would give it (``0o666`` less the umask).  Refuses to overwrite a ``.step`` file."""
    if path.endswith(".step"):
        raise ValueError(f"refusing to overwrite the input file {path}")
    if isinstance(data, str):
        data = data.encode("utf-8")
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise OSError(f"no such directory: {d}")
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600: give the file the mode open() would
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
