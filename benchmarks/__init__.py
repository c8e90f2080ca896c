"""stepcheck's performance benchmarks (issue 9): ``python -m benchmarks [--quick]``.

Every figure is a ratio or a time measured in one run on one machine;
``benchmarks/run.py`` writes ``docs/performance.md`` and ``docs/performance.png``.
"""
