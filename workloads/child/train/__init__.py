"""What every training workload's child shares (ResNet-50 and fine-tuning alike), so no workload imports another's.

- :mod:`~workloads.child.train.precision`: how a step runs (autocast, the gradient scaler, torch.compile) and
  what it falls back to when it cannot;
- :mod:`~workloads.child.train.amp_diagnosis`: the layer that fails under autocast, found and kept in fp32;
- :mod:`~workloads.child.train.oom`: out-of-memory recognised, and injected for tests;
- :mod:`~workloads.child.train.memory`: the device's memory, its total and its peak read at a bounded rate;
- :mod:`~workloads.child.train.batch_search`: the largest batch that fits (pure logic).
"""
