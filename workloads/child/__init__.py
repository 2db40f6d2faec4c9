"""Code that only a workload child imports: the harness, device selection, data-parallel launch, probes.

The UI process never imports this package (a test walks the imports to hold it so).
"""
