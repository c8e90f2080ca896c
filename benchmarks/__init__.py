"""stepcheck's performance benchmarks (issue 9): ``python -m benchmarks [--quick]``.

Every figure is a ratio or a time measured in one run on one machine;
``benchmarks/run.py`` writes ``docs/performance.md`` and ``docs/performance.png``.

The other development tools live here too, outside the wheel: ``mutate.py``
(mutation testing of the kernel, ``python -m benchmarks.mutate``),
``mutants.py`` (the full mutation corpus, which writes docs/soundness.json)
and ``fuzz_long.py`` (the long fuzzing run).
"""
