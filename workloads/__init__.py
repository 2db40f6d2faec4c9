"""Workloads run on the accelerator, each in a child process (`python -m workloads.<name>`).

This package imports nothing heavy: torch is imported by the workload modules
themselves, inside the child.
"""

# name -> (title shown to the user, throughput unit)
WORKLOADS: dict[str, tuple[str, str]] = {
    "resnet50": ("ResNet-50 training", "images/s"),
    "generate": ("GPT-2 token generation", "tokens/s"),
}
