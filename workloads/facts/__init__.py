"""The floor every layer stands on, children included: facts that must read the same everywhere.

- ``missing``: what a missing figure is (``finite_or_none``, ``is_finite``) and the one text it prints (``NA``).
- ``formatting``: how a number, bytes, a duration, a rate, a time and a device label print.
- ``warmup``: which steps are warm-up, left out of every "median after warm-up".
- ``percentile``: the one percentile (linear interpolation), for p50/p90/p99 alike.
- ``rated`` (with ``rated.csv``): the rated figures makers publish, and ``rated_peak``, the one rule for which peak
  a precision reads against.

Torch-free and UI-free: a workload child, the workbench and the report all import it. A second definition of any
of these fails tests/workloads/facts/test_one_definition.py.
"""
