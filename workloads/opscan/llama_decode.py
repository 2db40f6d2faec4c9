"""opscan's ``llama-decode`` source: what ``cardbench run llm`` dispatches, on a small Llama-family model.

The llm workload's model (:class:`workloads.models.llama.model.Llama`) with the tiny preset's kinds of shape made small
(the tiny preset's grouped-query attention, Llama 3 rotary scaling and untied embedding at llama-train's widths,
GQA 2:1), without gradients, as the workload generates: the prompt's prefill through the KV cache
(causal ``scaled_dot_product_attention`` with ``enable_gqa``, rotary from the cache's table, RMSNorm, SwiGLU's
SiLU), eager decode steps (one query over the cache: on the CPU three plain ops, elsewhere SDPA), and one step of
the fixed-shape path that ``--cuda-graphs`` and ``--compile`` run (``index_copy_`` into the cache, SDPA under a
position mask). Recorded in fp32; the scan replays each op in the dtypes it checks. Module paths read
``llama-decode:layers.0.self_attn (Attention)``.
"""

from __future__ import annotations

import torch

from workloads.opscan import greedy
from workloads.opscan.record import Recorder

SOURCE = "llama-decode"
PROMPT, DECODE = 8, 2


def record(recorder: Recorder, device: torch.device) -> None:
    from workloads.models.llama.model import Llama
    from workloads.opscan.llama_train import small_config   # the training source's model: one small shape

    config = small_config()
    with torch.device(device):
        model = Llama(config)
    model.init_random(0)
    model.eval().requires_grad_(False)
    cache = model.new_cache(1, PROMPT + DECODE + 1)
    prompt = torch.randint(0, config.vocab_size, (1, PROMPT), device=device)
    recorder.watch(model, SOURCE)
    with recorder, torch.no_grad():
        token = greedy.decode(model, cache, prompt, DECODE)
        model.forward_static(token, cache, torch.tensor([PROMPT + DECODE], device=device))
    recorder.unwatch()
