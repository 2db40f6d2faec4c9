"""The floor every layer stands on, children included: facts that must read the same everywhere.

- ``missing``: what a missing figure is (``finite_or_none``, ``is_finite``) and the one text it prints (``NA``).
- ``formatting``: how a number, bytes, a duration, a rate, a time and a device label print.

Torch-free and UI-free: a workload child, the workbench and the report all import it.
"""
