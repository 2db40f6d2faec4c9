"""GPT-2-class token generation (`python -m workloads.generate`); `spec` says what the workbench shows of it.

Importing the package is light: torch is imported by the modules a child runs.
"""
