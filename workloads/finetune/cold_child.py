"""`python -m workloads.finetune.cold_child REQUEST`: finetune's cold start in a fresh process
(`workloads.finetune.cold_start` starts it; the shared half is `workloads.cold_start.child`).

As ``role: prepare`` (untimed) it resolves the device and writes a preset's weights in fp32 (the master weights a run
trains). As ``role: measure`` it stamps, in order: its first line, its imports (torch first), the device's first
context, the weights read into host memory, the model built on the device with the weights copied in, its adapters
(--mode lora) and its AdamW, the first compiled forward and backward (--compile: where torch.compile compiles, each
decoder block in place or the whole model as the run compiles; those gradients are dropped), and the first optimizer
step of a synthetic batch, its loss read back.
"""

import time

STARTED = time.time()   # the module's first line: the wall clock, which the parent's stamps share

import contextlib  # noqa: E402 - after the first stamp, as every import here
import sys  # noqa: E402
from types import SimpleNamespace  # noqa: E402

import torch  # noqa: E402

from workloads.child import device as dev  # noqa: E402
from workloads.child.train.precision import compile_in_place, uncompile_in_place  # noqa: E402
from workloads.cold_start.child import (Stamper, child_main, config_of, first_context, load_into, prepare,  # noqa: E402
                                        read_weights)
from workloads.errors import first_line  # noqa: E402
from workloads.finetune import lora  # noqa: E402
from workloads.models.llama.model import Llama  # noqa: E402
from workloads.models.loss import lm_loss  # noqa: E402

IMPORTED = time.time()


def _built(request: dict, stamper: Stamper, device: torch.device) -> tuple[Llama, torch.optim.Optimizer]:
    state, hugging_face = read_weights(request)
    stamper.phase("read")
    with torch.device(device):
        model = Llama(config_of(request))
    load_into(model, state, hugging_face, request.get("weights_dir") or "the preset's weights")
    del state
    torch.manual_seed(int(request.get("seed", 0)))   # the adapters drawn as a run draws them
    lora.adapt(model, SimpleNamespace(**request["lora"]))
    model.train()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=float(request["lr"]))
    dev.synchronize(device)
    stamper.phase("built")
    return model, optimizer


def _autocast(request: dict, device: torch.device) -> contextlib.AbstractContextManager:
    dtype = dev.autocast_dtype(request["lora"]["amp"])
    return torch.autocast(device.type, dtype=dtype) if dtype is not None else contextlib.nullcontext()


def _compiled(request: dict, model: Llama, tokens: torch.Tensor, device: torch.device, stamper: Stamper) -> tuple:
    """The model compiled as the run compiles it (``--compile block``: each decoder block in place; ``model``: the
    whole model) and its first forward and backward run (where it compiles), as a run's first step would; the model
    to step and how the phase went (the catalogue's ``workload.cold_start.compile.<how>``)."""
    scope = request.get("compile")
    if not scope:
        return model, "off"
    try:
        if scope == "block":
            compile_in_place(model.layers)
            compiled, how = model, "block_compiled"
        else:
            compiled, how = torch.compile(model), "model_compiled"
        with _autocast(request, device):
            loss = lm_loss(compiled, tokens)
        loss.backward()
        model.zero_grad(set_to_none=True)
        dev.synchronize(device)
        stepped = compiled
    except Exception as exc:  # noqa: BLE001 - a run would fall back to eager: the time spent is said
        uncompile_in_place(model.layers)
        stepped, how = model, "failed"
        stamper.note(compile_error=first_line(exc, typed=True))
    stamper.phase("compiled")
    return stepped, how


def measure(request: dict, stamper: Stamper) -> None:
    device = torch.device(request["device"])
    first_context(device)
    stamper.phase("device")
    model, optimizer = _built(request, stamper, device)
    gen = torch.Generator().manual_seed(int(request.get("seed", 0)))
    tokens = torch.randint(model.config.vocab_size, (int(request["batch"]), int(request["seq_len"])),
                           generator=gen).to(device)
    stepped, how = _compiled(request, model, tokens, device, stamper)
    stamper.note(compile_how=how)
    scaler = torch.amp.GradScaler(device.type, enabled=request["lora"]["amp"] == "fp16")
    with _autocast(request, device):
        loss = lm_loss(stepped, tokens)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    value = float(loss.item())   # read back: the device has finished
    stamper.phase("first")
    stamper.note(first_loss=value)


def body(request: dict, stamper: Stamper) -> None:
    if request["role"] == "prepare":
        prepare(request, stamper, lambda device: "fp32")   # fp32 master weights; autocast runs the products
    else:
        measure(request, stamper)


if __name__ == "__main__":
    sys.exit(child_main(body, STARTED, IMPORTED))
