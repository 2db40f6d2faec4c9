"""The matrix product every decoder weight goes through: ``x @ W`` with ``W`` stored ``in x out``.

Batch-1 decoding is a matrix-vector product bound by memory bandwidth, and ``x @ W`` over a row-major
``in x out`` matrix streamed faster than ``F.linear`` over ``out x in`` on the CPU here (17-20 against 9-11
GB/s for the wide matrices), so GPT-2 (:mod:`workloads.models.gpt2.model`) and the Llama family
(:mod:`workloads.models.llama.model`) keep their weights that way and multiply through :func:`matvec`.

On the CPU the matrix-vector product of MKL runs on one core (1 or 2 threads gave the same 14-17 GB/s here,
where a 2-thread sum reads 28-45 GB/s), so with ``split`` set a product of a few rows is cut along its inner
dimension into ``split`` slices, one ``bmm`` batch entry each, which torch spreads over the cores; the partial
results are summed. The products stay exact up to float summation order. A core busy with another process
makes every split product wait for it, so a workload keeps the split only when it decodes faster (timed in
warm-up, :func:`workloads.models.decoding.fastest_split`).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Optional

import torch

# products of at most this many rows are split across cores; more rows make a GEMM MKL already threads
SPLIT_MAX_ROWS = 8
# below this many weights (1 MB in fp32) waking the other cores costs more than it saves
SPLIT_MIN_WEIGHTS = 2**18


# while a CPU decode step is compiled: the threads its products run on (see all_threads_in_compiled)
_COMPILED_THREADS: list[int] = []


@contextmanager
def all_threads_in_compiled(threads: int) -> Iterator[None]:
    """Products traced inside make a call of their own (:func:`matvec_on_threads`) that runs on ``threads``.

    The compiled CPU decode step runs on one thread (its generated kernels open an OpenMP region each, which wait
    for the scheduler on a shared machine: `workloads.models.decoding.CompiledDecoder`), but a product streams its
    weights faster on every core when they are free, as the eager step's do. Read while tracing only: eager calls
    never see it."""
    _COMPILED_THREADS.append(threads)
    try:
        yield
    finally:
        _COMPILED_THREADS.pop()


@torch.library.custom_op("cardbench::matvec_on_threads", mutates_args=())
def matvec_on_threads(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor], split: int,
                      threads: int) -> torch.Tensor:
    """:func:`matvec` on ``threads`` intra-op threads, set back after (an opaque call to the compiler)."""
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return _product(x, weight, bias, split)   # a new tensor: a custom op's output may not alias an input
    finally:
        torch.set_num_threads(before)


@matvec_on_threads.register_fake
def _(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor], split: int, threads: int) -> torch.Tensor:
    return x.new_empty(x.shape[:-1] + (weight.shape[1],))


def matvec(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, split: int) -> torch.Tensor:
    """x @ weight (+ bias) over the last dimension of x, ``weight`` being ``in x out``."""
    if _COMPILED_THREADS and torch.compiler.is_compiling():
        return matvec_on_threads(x, weight, bias, split, _COMPILED_THREADS[-1])
    return _product(x, weight, bias, split)


def _product(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, split: int) -> torch.Tensor:
    n_in, n_out = weight.shape
    shape = x.shape[:-1] + (n_out,)
    rows = x.reshape(-1, n_in)
    if split > 1 and rows.shape[0] <= SPLIT_MAX_ROWS and n_in % split == 0 and weight.numel() >= SPLIT_MIN_WEIGHTS:
        parts = rows.reshape(rows.shape[0], split, n_in // split).transpose(0, 1)
        partial = torch.bmm(parts, weight.view(split, n_in // split, n_out))
        # two halves add in one small kernel; a sum over the batch costs several times more per call
        y = torch.add(partial[0], partial[1]) if split == 2 else partial.sum(0)
        return (y if bias is None else y.add_(bias)).view(shape)
    if bias is None:
        return torch.mm(rows, weight).view(shape)
    return torch.addmm(bias, rows, weight).view(shape)
