"""Code that only a workload child imports: the harness, device selection, data-parallel launch, probes, and
``train/``, what the training workloads share (precision and AMP fallback, out of memory, memory readings).

The UI process never imports this package (a test walks the imports to hold it so).
"""
