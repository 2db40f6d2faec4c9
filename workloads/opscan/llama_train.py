"""opscan's ``llama-train`` source: one step of the finetune workload on a small Llama-family model.

What ``cardbench run finetune --mode full`` dispatches, at a size that records in well under a second:
the llm workload's model (:class:`workloads.models.llama.model.Llama`: rotate-half rotary, RMSNorm, grouped-query
SDPA, SwiGLU) with the shape kinds of the tiny preset (GQA with 2 query heads per key head, Llama 3's
rotary scaling) made small; the forward and the loss under bf16 autocast as the workload's default
``--amp bf16`` runs them (so the recording holds the casts autocast inserts and the ops it keeps in fp32,
the loss's log-softmax among them), the backward of that graph, and AdamW's update of the fp32 master
weights. Module paths read ``llama-train:layers.0.mlp (MLP)``.
"""

from __future__ import annotations

from typing import Any

import torch

from workloads.opscan.record import Recorder

SOURCE = "llama-train"
BATCH, SEQ_LEN = 2, 16


def small_config() -> Any:
    """The tiny preset's kinds of shape (workloads/models/llama/presets.py: GQA 4:1 there, 2:1 here, Llama 3 rotary
    scaling, untied embedding) at widths that record fast; the ops and their layouts are the same kinds."""
    from dataclasses import replace

    from workloads.models.llama.presets import preset

    return replace(preset("tiny"), vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)


def record(recorder: Recorder, device: torch.device) -> None:
    from workloads.models.loss import lm_loss
    from workloads.models.llama.model import Llama

    config = small_config()
    with torch.device(device):
        model = Llama(config)
    model.init_random(0)
    model.train()
    # the rotary table is built once, in fp32, at the run's first step and kept (Llama._training_rope): built here
    # before the recording, as in every later step, so the scan does not replay Llama 3's theta ** (i / d) in
    # fp16: it reaches theta = 500000, past fp16's 65504, though the model never computes it in 16 bits
    model._training_rope(SEQ_LEN)
    tokens = torch.randint(0, config.vocab_size, (BATCH, SEQ_LEN + 1), device=device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)  # the workload's full fine-tune: AdamW, fp32 master

    def loss() -> Any:
        with torch.autocast(device.type, dtype=torch.bfloat16):  # the backward and AdamW run outside it
            return lm_loss(model, tokens)

    recorder.watch(model, SOURCE)
    recorder.train_step(loss, optimizer)  # each phase as sources.py's training steps record theirs
