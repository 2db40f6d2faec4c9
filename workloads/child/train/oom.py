"""Out of memory in a training step: recognised among the errors a step raises, and injected for tests.

``CARDBENCH_INJECT_OOM_BATCH=N`` makes any step with more than N samples raise out-of-memory, so the
paths that handle it (the batch search, the one-line failure) run on a machine with memory to spare.
"""

from __future__ import annotations

import os

import torch

OOM_INJECT_ENV = "CARDBENCH_INJECT_OOM_BATCH"


def is_out_of_memory(exc: BaseException) -> bool:
    return isinstance(exc, torch.OutOfMemoryError) or "out of memory" in str(exc).lower()


def injected_limit() -> int | None:
    """The batch above which a step is made to run out of memory (``CARDBENCH_INJECT_OOM_BATCH``), or None."""
    oom = os.environ.get(OOM_INJECT_ENV)
    return int(oom) if oom and oom.strip().isdigit() else None


def raise_if_injected(batch: int, limit: int | None, samples: str) -> None:
    """Raise out-of-memory as the allocator would for a batch of ``batch`` ``samples`` above ``limit``."""
    if limit is not None and batch > limit:
        raise torch.OutOfMemoryError(f"CUDA out of memory. Tried to allocate a batch of {batch} {samples} "
                                     f"(injected by {OOM_INJECT_ENV}={limit})")
