"""ResNet-50 training (`python -m workloads.resnet50`); `spec` says what the workbench shows of it.

Importing the package is light: torch is imported by the modules a child runs.
"""
