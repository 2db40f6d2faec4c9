"""What the scan records: the built-in workloads at small sizes, the user's own model, or PyTorch's OpInfo samples.

The built-ins are the suite's workloads shrunk until a step takes well under a
second (ResNet-50 at 64 px, batch 2; GPT-2 with its "tiny" shape): the *ops* and
their argument layouts are the ones the full sizes dispatch, only the shapes are
smaller, so the scan stays a matter of minutes on any device.

``--model MODULE:FUNC`` names a function that returns ``(model, example_inputs)``:
a ``torch.nn.Module`` and a tensor or a tuple of tensors it takes. One forward,
a backward of the sum of its floating outputs and one SGD step are recorded.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import torch

from workloads.child.harness import WorkloadError
from workloads.opscan import greedy
from workloads.opscan.record import Recorder

# 64 px, not 32: at 32 px the last stage is 1x1, its batch norms see 2 values a channel and the backward's
# gradients reach 1e7 (64 px: 8 values, gradients below 15), an overflow no real training step meets
RESNET_PX, RESNET_BATCH = 64, 2
GPT2_PROMPT, GPT2_DECODE, GPT2_TRAIN_LEN = 8, 2, 16


def record_builtin(name: str, recorder: Recorder, device: torch.device, seed: int) -> None:
    torch.manual_seed(seed)
    if name == "llama-train":  # the finetune workload's step, in a module of its own (llama_train.py)
        from workloads.opscan import llama_train

        return llama_train.record(recorder, device)
    if name == "llama-decode":  # the llm workload's prefill and decode steps (llama_decode.py)
        from workloads.opscan import llama_decode

        return llama_decode.record(recorder, device)
    {"resnet50": _resnet50, "gpt2-decode": _gpt2_decode, "gpt2-train": _gpt2_train}[name](recorder, device)


def _resnet50(recorder: Recorder, device: torch.device) -> None:
    import torchvision

    model = torchvision.models.resnet50(weights=None).to(device).train()
    images = torch.randn(RESNET_BATCH, 3, RESNET_PX, RESNET_PX, device=device)
    labels = torch.randint(0, 1000, (RESNET_BATCH,), device=device)
    # what workloads/resnet50 trains with: cross-entropy, SGD with momentum and weight decay
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    criterion = torch.nn.CrossEntropyLoss()
    recorder.watch(model, "resnet50")
    recorder.train_step(lambda: criterion(model(images), labels), optimizer)


def _gpt2(device: torch.device) -> tuple[Any, Any]:
    from workloads.models.gpt2 import model as gpt2
    from workloads.models.gpt2.config import SIZES

    config = SIZES["tiny"]
    with torch.device(device):
        model = gpt2.GPT2(config)
    model.init_random(0)
    return model, config


def _gpt2_decode(recorder: Recorder, device: torch.device) -> None:
    """Prefill and a few decode steps, as workloads/generate's eager path runs them."""
    from workloads.models.gpt2 import model as gpt2

    model, config = _gpt2(device)
    model.eval().requires_grad_(False)
    cache = gpt2.KVCache(config, 1, GPT2_PROMPT + GPT2_DECODE, torch.float32, device)
    prompt = torch.randint(0, config.vocab_size, (1, GPT2_PROMPT), device=device)
    recorder.watch(model, "gpt2-decode")
    with recorder, torch.no_grad():
        greedy.decode(model, cache, prompt, GPT2_DECODE)
    recorder.unwatch()


def _gpt2_train(recorder: Recorder, device: torch.device) -> None:
    """One language-model training step (next-token cross-entropy, AdamW)."""
    model, config = _gpt2(device)
    model.train()
    tokens = torch.randint(0, config.vocab_size, (2, GPT2_TRAIN_LEN + 1), device=device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def loss() -> Any:
        # the model's own forward with a cache per layer: one shared cache buffer would join every layer's
        # keys into one autograd graph through in-place writes, which training through it refuses
        idx = tokens[:, :-1]
        b, t = idx.shape
        x = model._embed(idx) + model.wpe[:t]
        for block in model.h:
            shape = (b, config.n_head, t, config.head_dim)
            x = block(x, torch.zeros(shape, device=device), torch.zeros(shape, device=device), 0)
        logits = model._logits(x, last_only=False)
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))

    recorder.watch(model, "gpt2-train")
    recorder.train_step(loss, optimizer)


# --- the user's model -------------------------------------------------------------------------

def load_user_model(spec: str) -> tuple[torch.nn.Module, tuple[Any, ...]]:
    """Call ``MODULE:FUNC``; one clear error (bad input) for every way it can be wrong."""
    module_name, _, func_name = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - whatever the import raised, the user's module is the cause
        raise WorkloadError(f"--model {spec}: cannot import {module_name}: {type(exc).__name__}: {exc}",
                            hint="run from the directory that holds it, or add it to PYTHONPATH") from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise WorkloadError(f"--model {spec}: {module_name} has no function {func_name}",
                            hint="--model MODULE:FUNC names a function returning (model, example_inputs)")
    try:
        made = func()
    except Exception as exc:  # noqa: BLE001
        raise WorkloadError(f"--model {spec}: {func_name}() raised {type(exc).__name__}: {exc}") from None
    if not (isinstance(made, tuple) and len(made) == 2 and isinstance(made[0], torch.nn.Module)):
        raise WorkloadError(f"--model {spec}: {func_name}() returned {_kind(made)}, not (model, example_inputs)",
                            hint="return a torch.nn.Module and a tensor or a tuple of tensors")
    model, inputs = made
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    if not inputs or not all(isinstance(t, torch.Tensor) for t in inputs):
        raise WorkloadError(f"--model {spec}: the example inputs are {_kind(made[1])}, not tensors",
                            hint="return a tensor or a tuple of tensors the model takes")
    return model, inputs


def _kind(value: Any) -> str:
    if isinstance(value, tuple):
        return f"a tuple of {len(value)} ({', '.join(type(v).__name__ for v in value[:4])})"
    return f"{value!r:.40} ({type(value).__name__})"


def record_user_model(spec: str, recorder: Recorder, device: torch.device, seed: int) -> None:
    torch.manual_seed(seed)
    model, inputs = load_user_model(spec)
    model = model.to(device)
    inputs = tuple(t.to(device) for t in inputs)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params or [torch.zeros(1, requires_grad=True)], lr=1e-3)
    name = spec.rsplit(":", 1)[-1]

    def loss() -> Any:
        try:
            out = model(*inputs)
        except Exception as exc:  # noqa: BLE001 - the user's model refused the user's inputs
            raise WorkloadError(f"--model {spec}: the model failed on its example inputs: "
                                f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
        floats = [t for t in _flat(out) if t.is_floating_point() and t.requires_grad]
        if not floats:
            return None
        return sum(t.sum() for t in floats)

    recorder.watch(model, name)
    with recorder:
        recorder.phase = "forward"
        total = loss()
        if total is not None and params:
            recorder.phase = "backward"
            total.backward()
            recorder.phase = "optimizer"
            optimizer.step()
    recorder.unwatch()


def _flat(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _flat(v)]
    return []


# --- PyTorch's OpInfo database --------------------------------------------------------------------

def record_opinfo(pattern: str | None, recorder: Recorder, device: torch.device, seed: int) -> None:
    """Every sample input of every OpInfo whose name matches ``pattern`` (all of them without one), in fp32."""
    from torch.testing._internal.common_methods_invocations import op_db

    wanted = re.compile(pattern) if pattern else None
    ops = [op for op in op_db if wanted is None or wanted.search(op.name)]
    if not ops:
        raise WorkloadError(f"--opinfo {pattern}: no OpInfo name matches",
                            hint="names look like add, nn.functional.conv2d, linalg.svd")
    torch.manual_seed(seed)
    for op in ops:
        recorder.source = f"opinfo:{op.name}"
        try:
            samples = list(op.sample_inputs(device, torch.float32, requires_grad=False))
        except Exception:  # noqa: BLE001 - an OpInfo with no fp32 samples on this device has nothing to record
            continue
        recorder.phase = "forward"
        for sample in samples:
            try:
                with recorder:
                    op(sample.input, *sample.args, **sample.kwargs)
            except Exception:  # noqa: BLE001 - a sample the op itself refuses (an error input) records nothing new
                continue
