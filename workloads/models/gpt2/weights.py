"""Loading GPT-2 weights from a local Hugging Face-format directory.

The directory holds ``model.safetensors`` (or a sharded index of them) or
``pytorch_model.bin``, read by :mod:`workloads.models.state_dict`, and usually
``config.json``, which picks the shape. HF GPT-2 stores its projections as
"Conv1D" (``in x out``), the layout :mod:`workloads.models.gpt2.model` keeps,
so most parameters copy straight across; only the token embedding is
transposed, and ``lm_head.weight`` is the same tensor as ``wte.weight`` (tied).
Every shape is checked; the first missing, mismatched or unexpected parameter
ends the load with a one-line :class:`WorkloadError`.
"""

from __future__ import annotations

import re
from pathlib import Path

import torch

from workloads.child.harness import WorkloadError
from workloads.models.gpt2.config import GPT2Config
from workloads.models.gpt2.model import GPT2
from workloads.models.state_dict import read_state_dict

# buffers that old checkpoints carry beside the parameters: the causal mask, recomputed here
_IGNORED = re.compile(r"^h\.\d+\.attn\.(bias|masked_bias)$")


def expected_shapes(config: GPT2Config) -> dict[str, tuple[int, ...]]:
    """HF parameter name -> HF shape, in model order."""
    c, v = config.n_embd, config.vocab_size
    out: dict[str, tuple[int, ...]] = {"wte.weight": (v, c), "wpe.weight": (config.n_ctx, c)}
    for i in range(config.n_layer):
        p = f"h.{i}."
        out.update({
            p + "ln_1.weight": (c,), p + "ln_1.bias": (c,),
            p + "attn.c_attn.weight": (c, 3 * c), p + "attn.c_attn.bias": (3 * c,),
            p + "attn.c_proj.weight": (c, c), p + "attn.c_proj.bias": (c,),
            p + "ln_2.weight": (c,), p + "ln_2.bias": (c,),
            p + "mlp.c_fc.weight": (c, 4 * c), p + "mlp.c_fc.bias": (4 * c,),
            p + "mlp.c_proj.weight": (4 * c, c), p + "mlp.c_proj.bias": (c,),
        })
    out.update({"ln_f.weight": (c,), "ln_f.bias": (c,)})
    return out


def _strip(name: str) -> str:
    return name[len("transformer."):] if name.startswith("transformer.") else name


def _shape(shape: tuple[int, ...]) -> str:
    return str(tuple(shape))


def load_state_dict(model: GPT2, state: dict[str, torch.Tensor], source: str = "the checkpoint") -> None:
    """Copy an HF GPT-2 state dict into ``model``; raise WorkloadError at the first misfit."""
    config = model.config
    hint = "the checkpoint and the model shape differ: pass the matching --model-size or keep its config.json"
    found = {_strip(k): t for k, t in state.items()}
    expected = expected_shapes(config)
    head = found.pop("lm_head.weight", None)  # tied to wte.weight: checked, not copied
    for name, shape in expected.items():
        tensor = found.get(name)
        if tensor is None:
            raise WorkloadError(f"{source}: missing parameter {name!r} (shape {_shape(shape)})", hint=hint)
        if tuple(tensor.shape) != shape:
            raise WorkloadError(f"{source}: parameter {name!r} has shape {_shape(tuple(tensor.shape))}, "
                                f"expected {_shape(shape)}", hint=hint)
    if head is not None and tuple(head.shape) != expected["wte.weight"]:
        raise WorkloadError(f"{source}: parameter 'lm_head.weight' has shape {_shape(tuple(head.shape))}, "
                            f"expected {_shape(expected['wte.weight'])}", hint=hint)
    for name in found:
        if name not in expected and not _IGNORED.match(name):
            raise WorkloadError(f"{source}: unexpected parameter {name!r}", hint=hint)
    own = dict(model.named_parameters())
    with torch.no_grad():
        for name in expected:
            tensor = found[name]
            if not tensor.is_floating_point():
                raise WorkloadError(f"{source}: parameter {name!r} is {tensor.dtype}, not floating point")
            if name == "wte.weight":
                own["wte_t"].copy_(tensor.t())
            elif name == "wpe.weight":
                own["wpe"].copy_(tensor)
            else:
                own[name].copy_(tensor)


def load_dir(model: GPT2, directory: Path) -> None:
    load_state_dict(model, read_state_dict(directory), source=str(directory))
