"""The importer's expression trees printed as ``.step`` text, and the free names they use.

See :mod:`stepcheck.importer_latex` for the tree's node kinds.
"""
from __future__ import annotations

PREC = {"add": 1, "subt": 1, "mul": 2, "div": 2, "neg": 3, "pow": 4, "T": 4}


def prec(node) -> int:
    return PREC.get(node[0], 5)


def to_step(node) -> str:
    """``.step`` text of a tree, with the parentheses its precedence needs (see docs/language.md)."""
    k = node[0]
    if k == "num":
        return "0" + node[1] if node[1].startswith(".") else node[1]
    if k == "name":
        return node[1]
    if k == "word":
        return node[1]
    if k == "sub":
        base, idx = node[1], node[2]
        b = to_step(base)
        if base[0] == "name" and len(idx) == 1 and idx[0][0] == "word":
            return f"{b}_{idx[0][1]}"
        if len(idx) == 1 and idx[0][0] in ("name", "num") and len(idx[0][1]) == 1:
            return f"{b}_{idx[0][1]}"
        return f"{b}_{{{', '.join(to_step(i) for i in idx)}}}"
    if k == "neg":
        inner = node[1]
        s = to_step(inner)
        return f"-{s}" if prec(inner) > 3 else f"-({s})"
    if k in ("add", "subt"):
        left = to_step(node[1])
        r = node[2]
        rs = to_step(r)
        if prec(r) <= 1 or (r[0] == "neg"):
            rs = f"({rs})"
        return f"{left} {'+' if k == 'add' else '-'} {rs}"
    if k in ("mul", "div"):
        a, b = node[1], node[2]
        ls = to_step(a)
        if prec(a) < 2 or (a[0] == "neg"):
            ls = f"({ls})"
        rs = to_step(b)
        if prec(b) <= 3:
            rs = f"({rs})"
        if k == "div":
            return f"{ls} / {rs}"
        explicit = node[3] or b[0] in ("vec", "num", "abs") or rs.startswith(("(", "-")) or rs[:1].isdigit()
        return f"{ls} * {rs}" if explicit else f"{ls} {rs}"
    if k == "pow":
        a, b = node[1], node[2]
        ls = to_step(a)
        if prec(a) < 5 or a[0] == "sub" and not ls.replace("_", "").isalnum():
            ls = f"({ls})"
        rs = to_step(b)
        if not (b[0] in ("num", "name") and (b[1].isdigit() or b[1].isalnum())):
            rs = f"({rs})"
        return f"{ls}^{rs}"
    if k == "T":
        a = node[1]
        s = to_step(a)
        return f"{s}^T" if prec(a) >= 5 else f"({s})^T"
    if k == "call":
        return f"{node[1]}({', '.join(to_step(x) for x in node[2])})"
    if k == "E":
        return f"E[{to_step(node[1])}]"
    if k == "sum":
        _, kind, var, lo, hi, body = node
        return f"{kind}({var}={to_step(lo)}..{to_step(hi)}, {to_step(body)})"
    if k == "diff":
        return f"diff({to_step(node[1])}, {to_step(node[2])})"
    if k == "delta":
        return f"delta({to_step(node[1])}, {to_step(node[2])})"
    if k == "abs":
        return f"abs({to_step(node[1])})"
    if k == "vec":
        return f"[{', '.join(to_step(x) for x in node[1])}]"
    raise ValueError(f"unknown node {k!r}")  # a bug, not bad input


def free_names(node, bound: frozenset = frozenset(), out: dict | None = None) -> dict:
    """The names a tree uses, as they are to be declared: ``{"d_k": "name", "q_i": "family", ...}``."""
    out = {} if out is None else out
    k = node[0]
    if k == "name":
        if node[1] not in bound and node[1] not in ("pi", "oo"):
            out.setdefault(node[1], "name")
    elif k == "sub" and node[1][0] == "name":
        idx = node[2]
        simple = all(i[0] in ("name", "num", "word") for i in idx)
        if simple:  # as written: d_k, q_i, X_1, d_model
            out.setdefault(to_step(node), "indexed")
        else:
            out.setdefault(node[1][1], "indexed")
            for i in idx:
                free_names(i, bound, out)
    elif k == "sum":
        _, _kind, var, lo, hi, body = node
        free_names(lo, bound, out)
        free_names(hi, bound, out)
        free_names(body, bound | {var}, out)
    else:
        for part in node[1:]:
            if isinstance(part, tuple):
                free_names(part, bound, out)
            elif isinstance(part, list):
                for x in part:
                    if isinstance(x, tuple):
                        free_names(x, bound, out)
    return out
