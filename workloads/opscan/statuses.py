"""The scan's statuses and thresholds, torch-free: the worker, the supervisor and the report's table share them.

Error metric: normalised mean squared error, NMSE = sum((out - ref)^2) / sum(ref^2),
over the elements finite in both, against the same call in float64 on the CPU
fed the same (already rounded) inputs, so it measures the op and not the
rounding of its inputs; NaN/inf in one and not the other are counted apart (any
is a mismatch). Integer and boolean outputs must be equal.

Thresholds are per dtype and per op family, each with why. The unit roundoff u
(half an ulp at 1) of the dtype sets the floor: an op whose only error is
rounding its output to the dtype gets NMSE about u^2/3 (fp32 2e-15, fp16 8e-8,
bf16 5e-6). The thresholds leave room over that floor for what correct kernels
legitimately do, and no more:

- elementwise: a few roundings of intermediates in the dtype (a fused
  multiply-add done as two, a transcendental through a float32 approximation):
  about 10x the floor.
- matmul (mm, addmm, bmm, convolution and their backward, attention): sums of
  K products in an order the device chooses (split-K, tiles), partial sums
  rounded to the output dtype in some backward kernels; and on NVIDIA GPUs from
  Ampere on, cuDNN runs fp32 convolutions in TF32 by default
  (torch.backends.cudnn.allow_tf32), 10 bits of mantissa: about 1e-6 NMSE, so
  fp32's matmul threshold is 1e-5, not 1e-12.
- reduction (sums, means, norms, softmax, losses, scatter-adds such as
  embedding and max-pool backward): the same summation-order freedom, plus the
  cancellation of batch and layer norm backward (means subtracted from values
  of the same size), which lifts the relative error of a small result.
"""

from __future__ import annotations

from workloads.catalogue import Message
from workloads.rundir.ops_csv import OK   # ops.csv's format, which other workloads read

MISMATCH, NOT_IMPLEMENTED, CPU_FALLBACK, ERROR, CRASH, HANG = (
    "mismatch", "not_implemented", "cpu_fallback", "error", "crash", "hang")
# worst first: the order of the report's table and of an op's status over its recorded calls
SEVERITY = (CRASH, HANG, NOT_IMPLEMENTED, ERROR, CPU_FALLBACK, MISMATCH, OK)
STATUSES = SEVERITY
FAILED = tuple(s for s in SEVERITY if s != OK)
# each status as the log (its English) and the report (either language) say it
LABELS = {
    OK: Message("workload.opscan.status.ok"),
    MISMATCH: Message("workload.opscan.status.mismatch"),
    NOT_IMPLEMENTED: Message("workload.opscan.status.not_implemented"),
    CPU_FALLBACK: Message("workload.opscan.status.cpu_fallback"),
    ERROR: Message("workload.opscan.status.error"),
    CRASH: Message("workload.opscan.status.crash"),
    HANG: Message("workload.opscan.status.hang"),
}

DTYPES = ("fp32", "fp16", "bf16", "tf32")
DEFAULT_DTYPES = ("fp32", "fp16", "bf16")

ELEMENTWISE, MATMUL, REDUCTION = "elementwise", "matmul", "reduction"
_MATMUL = ("mm", "bmm", "addmm", "addmv", "mv", "matmul", "baddbmm", "addbmm", "linear", "dot", "vdot",
           "convolution", "_convolution", "cudnn_convolution", "conv2d", "_flash_attention",
           "_efficient_attention", "_int_mm")
_ATTENTION = ("_scaled_dot_product", "scaled_dot_product")  # every attention kernel's name starts so
_REDUCTION = ("sum", "mean", "var", "std", "norm", "prod", "cumsum", "cumprod", "logsumexp", "_softmax",
              "_log_softmax", "softmax", "log_softmax", "native_batch_norm", "_native_batch_norm",
              "native_layer_norm", "native_group_norm", "_fused_rms_norm", "rms_norm", "nll_loss", "cross_entropy",
              "mse_loss", "binary_cross_entropy", "embedding_dense_backward", "embedding_backward",
              "max_pool2d_with_indices_backward", "avg_pool2d", "avg_pool2d_backward", "_adaptive_avg_pool2d",
              "_adaptive_avg_pool2d_backward", "index_add", "scatter_add", "index_put", "_foreach_norm",
              "linalg_vector_norm", "_fused_adam", "_fused_adamw")

THRESHOLDS: dict[str, dict[str, float]] = {
    "fp32": {ELEMENTWISE: 1e-10, MATMUL: 1e-5, REDUCTION: 1e-8},
    "tf32": {ELEMENTWISE: 1e-10, MATMUL: 1e-5, REDUCTION: 1e-8},
    "fp16": {ELEMENTWISE: 1e-6, MATMUL: 1e-5, REDUCTION: 1e-5},
    "bf16": {ELEMENTWISE: 5e-5, MATMUL: 5e-4, REDUCTION: 5e-4},
}


def family(op: str) -> str:
    """The op family of an overload name (aten.native_layer_norm.default -> reduction)."""
    name = op.split(".")[1] if op.count(".") >= 1 else op
    name = name.rstrip("_")
    if name.startswith(_ATTENTION) or any(name == f or name.startswith(f + "_") for f in _MATMUL):
        return MATMUL
    if any(name == f or name.startswith(f + "_") for f in _REDUCTION):
        return REDUCTION
    return ELEMENTWISE


def threshold(op: str, dtype: str) -> float:
    return THRESHOLDS[dtype][family(op)]


def worst(statuses: list[str]) -> str:
    return min(statuses, key=SEVERITY.index) if statuses else OK
