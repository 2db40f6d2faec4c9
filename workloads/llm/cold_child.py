"""`python -m workloads.llm.cold_child REQUEST`: llm's cold start in a fresh process (`workloads.llm.cold_start`
starts it; the shared half is `workloads.cold_start.child`).

As ``role: prepare`` (untimed) it resolves the device, picks the dtype and writes a preset's weights. As
``role: measure`` it stamps, in order: its first line, its imports (torch first), the device's first context, the
weights read into host memory, the model built on the device with the weights copied in, the decode step compiled or
captured (--compile / --cuda-graphs), and the first token of a prefill. The interpreter's start is not in the
module's hands: the parent's clock before the start is the first stamp.
"""

import time

STARTED = time.time()   # the module's first line: the wall clock, which the parent's stamps share

import sys  # noqa: E402 - after the first stamp, as every import here

import torch  # noqa: E402

from workloads.child import device as dev  # noqa: E402
from workloads.cold_start.child import (Stamper, child_main, config_of, first_context, load_into, prepare,  # noqa: E402
                                        read_weights)
from workloads.errors import first_line  # noqa: E402
from workloads.models import inference_dtype  # noqa: E402
from workloads.models.decoding import CompiledDecoder, GraphDecoder  # noqa: E402
from workloads.models.llama.model import Llama  # noqa: E402

IMPORTED = time.time()


def _built(request: dict, stamper: Stamper, device: torch.device) -> Llama:
    state, hugging_face = read_weights(request)
    stamper.phase("read")
    with torch.device(device):
        model = Llama(config_of(request))
    model = model.to(inference_dtype.DTYPES[request["dtype"]])
    load_into(model, state, hugging_face, request.get("weights_dir") or "the preset's weights")
    del state
    model.eval().requires_grad_(False)
    dev.synchronize(device)
    stamper.phase("built")
    return model


def _compiled(request: dict, model: Llama, cache, device: torch.device, stamper: Stamper) -> str:
    """The decode step compiled or captured, as the run's decoder would be (its first call); how the phase went (the
    catalogue's ``workload.cold_start.compile.<how>``), said in a note with the failure's words where it failed."""
    if not (request.get("cuda_graphs") or request.get("compile")):
        return "off"
    if request.get("cuda_graphs") and device.type != "cuda":
        return "not_cuda"
    batch, at = cache.data.shape[2], int(request["input_len"])
    try:
        with torch.inference_mode():
            if request.get("cuda_graphs"):
                GraphDecoder(model, cache, batch, device)
                how = "graph_captured"
            else:
                decoder = CompiledDecoder(model, cache, device)
                decoder(torch.zeros(batch, 1, dtype=torch.long, device=device), at)   # compiles on its first call
                how = "decode_compiled"
            dev.synchronize(device)
    except Exception as exc:  # noqa: BLE001 - a run would fall back to eager decoding: the time spent is said
        how = "failed"
        stamper.note(compile_error=first_line(exc, typed=True))
    stamper.phase("compiled")
    return how


def _first_token(request: dict, model: Llama, cache, device: torch.device) -> int:
    batch, length = cache.data.shape[2], int(request["input_len"])
    ids = request.get("prompt_ids")
    if ids:
        prompt = torch.tensor([list(ids)] * batch, dtype=torch.long, device=device)
    else:
        gen = torch.Generator().manual_seed(int(request.get("seed", 0)))
        prompt = torch.randint(model.config.vocab_size, (batch, length), generator=gen).to(device)
    with torch.inference_mode():
        token = model(prompt, cache, 0, last_only=True)[:, -1].argmax(-1)
        return int(token[0].item())   # read back: the device has finished


def measure(request: dict, stamper: Stamper) -> None:
    device = torch.device(request["device"])
    first_context(device)
    stamper.phase("device")
    model = _built(request, stamper, device)
    cache = model.new_cache(int(request["batch"]), int(request["input_len"]) + 2)  # the prompt, a decode step
    stamper.note(compile_how=_compiled(request, model, cache, device, stamper))
    token = _first_token(request, model, cache, device)
    stamper.phase("first")
    stamper.note(first_token=token)


def body(request: dict, stamper: Stamper) -> None:
    if request["role"] == "prepare":
        prepare(request, stamper, lambda device: _picked(request, device, stamper))
    else:
        measure(request, stamper)


def _picked(request: dict, device: torch.device, stamper: Stamper) -> str:
    name, skipped = inference_dtype.pick(request["dtype"], device)
    stamper.note(skipped=[list(pair) for pair in skipped])
    return name


if __name__ == "__main__":
    sys.exit(child_main(body, STARTED, IMPORTED))
