"""Grouping items: those that share a key, transitively (union-find); every partition of a list."""
from __future__ import annotations


def linked_groups(keys: list) -> list[list[int]]:
    """Indices of ``keys`` (a list of sets) grouped so that items sharing any key,
    directly or through other items, are in the same group; in first-seen order."""
    parent = list(range(len(keys)))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    owner: dict = {}
    for k, ks in enumerate(keys):
        for key in ks:
            if key in owner:
                parent[find(k)] = find(owner[key])
            else:
                owner[key] = k
    groups: dict = {}
    for k in range(len(keys)):
        groups.setdefault(find(k), []).append(k)
    return list(groups.values())


def set_partitions(items):
    """Every partition of the list ``items`` into blocks (each a list), the finest first."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in set_partitions(rest):
        yield [[first]] + part
        for k in range(len(part)):
            yield part[:k] + [[first] + part[k]] + part[k + 1:]
