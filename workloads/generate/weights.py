"""Loading GPT-2 weights from a local Hugging Face-format directory.

The directory holds ``model.safetensors`` (or a sharded index of them) or
``pytorch_model.bin``, and usually ``config.json``, which picks the shape. HF
GPT-2 stores its projections as "Conv1D" (``in x out``), the layout
:mod:`workloads.generate.gpt2` keeps, so most parameters copy straight across; only the
token embedding is transposed, and ``lm_head.weight`` is the same tensor as
``wte.weight`` (tied). Every shape is checked; the first missing, mismatched
or unexpected parameter ends the load with a one-line :class:`WorkloadError`.

``safetensors`` files are read with the ``safetensors`` package when it is
installed, otherwise with the small reader below (the format is a JSON header
and raw little-endian tensors), so no dependency is needed for real weights.
"""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path
from typing import Any

import torch

from workloads.generate.gpt2 import GPT2
from workloads.generate.config import GPT2Config
from workloads.child.harness import WorkloadError
from workloads.errors import first_line

SAFETENSORS = "model.safetensors"
SAFETENSORS_INDEX = "model.safetensors.index.json"
TORCH_BIN = "pytorch_model.bin"

# buffers that old checkpoints carry beside the parameters: the causal mask, recomputed here
_IGNORED = re.compile(r"^h\.\d+\.attn\.(bias|masked_bias)$")

_SAFETENSORS_DTYPES = {
    "F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
    "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
    "BOOL": torch.bool,
}


def weights_files(directory: Path) -> list[Path]:
    """The checkpoint file(s) in ``directory``, safetensors first."""
    if not directory.is_dir():
        why = "is not a directory" if directory.exists() else "does not exist"
        raise WorkloadError(f"weights directory {str(directory)!r} {why}",
                            hint="--weights takes a local Hugging Face GPT-2 directory")
    index = directory / SAFETENSORS_INDEX
    if index.is_file():
        try:
            shards = sorted(set(json.loads(index.read_text())["weight_map"].values()))
        except (OSError, ValueError, KeyError, AttributeError) as exc:
            raise WorkloadError(f"cannot read {index}: {exc}") from None
        return [directory / shard for shard in shards]
    for name in (SAFETENSORS, TORCH_BIN):
        if (directory / name).is_file():
            return [directory / name]
    raise WorkloadError(f"no {SAFETENSORS} or {TORCH_BIN} in {directory}",
                        hint="--weights takes a local Hugging Face GPT-2 directory")


def read_safetensors(path: Path) -> dict[str, torch.Tensor]:
    """Tensors of a safetensors file, with the package when installed, else with this reader."""
    try:
        from safetensors.torch import load_file
    except ImportError:
        return _read_safetensors_plain(path)
    return load_file(str(path), device="cpu")


def _read_safetensors_plain(path: Path) -> dict[str, torch.Tensor]:
    out: dict[str, torch.Tensor] = {}
    with open(path, "rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        header: dict[str, Any] = json.loads(f.read(header_len))
        base = 8 + header_len
        for name, info in header.items():
            if name == "__metadata__":
                continue
            dtype = _SAFETENSORS_DTYPES.get(info["dtype"])
            if dtype is None:
                raise ValueError(f"tensor {name!r} has unsupported dtype {info['dtype']}")
            start, end = info["data_offsets"]
            f.seek(base + start)
            data = bytearray(f.read(end - start))
            shape = tuple(info["shape"])
            tensor = torch.frombuffer(data, dtype=dtype) if data else torch.empty(0, dtype=dtype)
            out[name] = tensor.reshape(shape)
    return out


def read_state_dict(directory: Path) -> dict[str, torch.Tensor]:
    state: dict[str, torch.Tensor] = {}
    for path in weights_files(directory):
        try:
            if path.suffix == ".safetensors":
                part = read_safetensors(path)
            else:
                part = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as exc:  # noqa: BLE001 - any unreadable checkpoint is the same user error
            raise WorkloadError(f"cannot read {path}: {_why_unreadable(exc)}",
                                hint="the file is damaged or not a PyTorch/safetensors checkpoint") from None
        if not isinstance(part, dict):
            raise WorkloadError(f"{path} does not hold a state dict")
        state.update(part)
    return state


def _why_unreadable(exc: BaseException) -> str:
    """torch.load's failure in a few words; never its advice to load with weights_only=False (that runs the
    file's code), which even its first line opens with."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # it carries terminal colours too
    if "weights_only" not in text and "Weights only" not in text:
        return first_line(exc).split(". ")[0].rstrip(".")[:200]  # the first sentence: what failed, not why
    found = re.search(r"Unsupported global: GLOBAL (\S+)", text)
    return f"it holds {found.group(1)}, not tensors alone" if found else "it is not tensors and plain containers"


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
