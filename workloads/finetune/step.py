"""One process's model, optimiser and training step, built from the checked options.

The step is the training workloads' :class:`~workloads.child.train.precision.Precision` (autocast, the gradient
scaler, compile, and the fallback that names the failing module on a device error) with the forward and backward
of a causal LM: ``--grad-accum`` micro-batches, each a cross-entropy over next tokens, their gradients
added before one AdamW step. Weights stay fp32 (the master copy); autocast runs the products in 16 bits.

``--gpus N``: every rank builds the same model from the same seed, then FSDP2 (``fully_shard``) shards
each block and the root; the gradients are averaged over the ranks, so N ranks on 1/N of the global
batch each take the same step as one process on all of it. The model is built on the meta device and each
rank materialises only its shards (:mod:`~workloads.finetune.meta_init`); ``--weights DIR`` is read by rank 0
and broadcast, each rank keeping its shards.

LoRA under ``--amp bf16`` holds its frozen base in bf16 (:func:`~workloads.finetune.lora.hold_frozen_in`);
the adapters, which train, stay fp32.
"""

from __future__ import annotations

import os
import time
from typing import Any

import torch

from workloads.child import data_parallel
from workloads.child import device as devices
from workloads.child.harness import Emitter, WorkloadError
from workloads.child.train import amp_diagnosis, oom
from workloads.child.train.memory import total_memory
from workloads.child.train.precision import Precision
from workloads.finetune import budget, flops, lora, meta_init
from workloads.finetune.options import check_batch
from workloads.models.llama.model import Llama
from workloads.models.llama.presets import LlamaConfig
from workloads.models.loss import lm_loss


class Setup:
    """What :class:`Precision` reads (model, trained, optimizer, scaler, criterion...) and the run's shape."""

    def __init__(self, args: Any, config: LlamaConfig, emitter: Emitter):
        self.args, self.config, self.emitter = args, config, emitter
        self.t_begin = time.perf_counter()
        self.rank = data_parallel.rank() if data_parallel.in_worker() else 0
        self.world = data_parallel.world_size() if data_parallel.in_worker() else 1
        self.distributed = self.world > 1
        self.is_main = self.rank == 0
        self.device = devices.resolve(args.device)
        if self.distributed and self.device.type != "cpu":
            self.device = devices.resolve(f"{self.device.type}:{data_parallel.local_rank()}")
            devices.set_device(self.device)
        # what the process holds before the model: the peak's growth over it is what the fit estimate counts (on the
        # CPU the peak is the RSS, torch's own libraries in it: 942 MiB read beside an estimate of 141 MiB)
        self.memory_base = devices.memory_in_use(self.device)
        if args.threads:
            torch.set_num_threads(args.threads)
        if self.distributed:
            data_parallel.init_process_group(self.device)
        self.micro = check_batch(args.batch_size, self.world, args.grad_accum)
        # the device's memory is known now: a step it cannot hold is refused before the model is built
        budget.check_device(args, config, self.micro, self.world, self.device, total_memory(self.device))
        self.accum = args.grad_accum
        self.lr = args.lr or (1e-4 if args.mode == "full" else 1e-3)
        self.oom_above = oom.injected_limit()
        self.device_name = devices.name(self.device)
        self.criterion = None  # the LM's loss is in Step._forward_backward
        self.initial_state: dict[str, torch.Tensor] | None = None
        self.model = self.trained = self._model()
        params = [p for p in self.model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(params, lr=self.lr)
        self.scaler = torch.amp.GradScaler(devices.autocast_type(self.device), enabled=args.amp == "fp16")

    def _model(self) -> Llama:
        args = self.args
        # --gpus N: built on the meta device, each rank materialises only its shards (a checkpoint read by rank 0)
        meta = self.distributed
        if meta:
            model, self.adapted = meta_init.build(self.config, args)
        else:
            model = self._built_whole()
        self.trainable = lora.trainable(model)
        self.parameters = sum(p.numel() for p in model.parameters())
        model.checkpointing = bool(args.activation_checkpointing)
        self.amp_failure_spec = os.environ.get(amp_diagnosis.INJECT_ENV, "").strip()
        if self.amp_failure_spec and not amp_diagnosis.inject_failures(model, self.amp_failure_spec, self.device.type):
            raise WorkloadError(f"{amp_diagnosis.INJECT_ENV}={self.amp_failure_spec} names no module of the model")
        model.train()
        if self.distributed:
            from torch.distributed.fsdp import fully_shard

            for block in model.layers:
                fully_shard(block)
            fully_shard(model)
        self.largest_full_tensor_bytes = None
        if meta:
            drawn = meta_init.materialise(model, self.device, args.seed, draw_base=args.weights is None)
            if args.weights is None:
                self.largest_full_tensor_bytes = drawn
            else:
                meta_init.load_from_rank0(model, self.config, args.weights, self.adapted, self.rank)
        self.parameter_bytes = meta_init.local_parameter_bytes(model)
        return model

    def _built_whole(self) -> Llama:
        """The whole model on this process's device (or the CPU first, for the float64 replay's copy)."""
        args = self.args
        # a CPU copy is the start the float64 replay needs (the CPU's generator draws other numbers)
        build_on = torch.device("cpu") if args.check_against_cpu else self.device
        model, self.adapted = built_whole(self.config, args, build_on)
        if args.check_against_cpu:
            self.initial_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        return model.to(self.device)

    def start(self, precision: str, **resolved: Any) -> None:
        config = {k: (str(v) if hasattr(v, "__fspath__") else v) for k, v in vars(self.args).items()
                  if not k.startswith("_")}
        config.update(lr=self.lr, world_size=self.world, micro_batch_size=self.micro, threads=torch.get_num_threads(),
                      parameters=self.parameters, trainable_parameters=self.trainable,
                      total_steps=self.args.steps, layers=self.config.num_hidden_layers,
                      hidden=self.config.hidden_size, vocab_size=self.config.vocab_size,
                      parameter_bytes_per_rank=self.parameter_bytes,
                      largest_full_tensor_bytes=self.largest_full_tensor_bytes, **resolved)
        config["lora_target_names"] = list(config.get("lora_target_names") or ())
        self.emitter.start("finetune", config, self.device_name, devices.versions())


def built_whole(config: LlamaConfig, args: Any, device: torch.device) -> tuple[Llama, list[str]]:
    """One process's model on ``device``: the checkpoint's weights or :meth:`Llama.init_random`'s, then the adapters
    drawn from the reseeded global generator (:func:`lora.adapt`); the names wrapped."""
    with torch.device(device):
        model = Llama(config)
    if args.weights is not None:
        from workloads.models.llama.checkpoint import load_dir

        load_dir(model, args.weights)
    else:
        model.init_random(args.seed)
    torch.manual_seed(args.seed)  # meta_init.materialise draws the adapters after this same reseed
    return model, lora.adapt(model, args)


class Step(Precision):
    """A training step of the LM, with the training workloads' precision handling and fallbacks."""

    samples = "sequences"

    def compile_asked(self) -> str:
        """``--compile``'s value: "block" (each decoder block compiled in place, the bare flag's), "model", or
        "off"."""
        return self.setup.args.compile or "off"

    def regions(self) -> list[Any]:
        """The decoder blocks (the model's layer list; FSDP2's sharded blocks where sharded). Their compiled code is
        one graph for all; under LoRA two, since the first block's input (the frozen embedding's) needs no gradient
        and the others' do, a guard dynamo compiles again for."""
        return list(self.setup.model.layers)

    def _forward_backward(self, tokens: torch.Tensor, _labels: Any) -> torch.Tensor:
        s = self.setup
        oom.raise_if_injected(int(tokens.shape[0]), s.oom_above, self.samples)
        s.optimizer.zero_grad(set_to_none=True)
        total = torch.zeros((), device=tokens.device)
        for micro in tokens.chunk(s.accum):
            with self._autocast():
                loss = lm_loss(self.stepped, micro) / s.accum
            (s.scaler.scale(loss) if self.scaler_on else loss).backward()
            total += loss.detach()
        if self.scaler_on:
            s.scaler.step(s.optimizer)
            s.scaler.update()
        else:
            s.optimizer.step()
        return total

    def _fall_back(self, error: str, tokens: Any, labels: Any, step: int) -> Any:
        s = self.setup
        if flops.frozen_in_bf16(s.args.mode, s.args.amp) and not s.distributed:
            # a module run without autocast takes fp32 inputs: the frozen base goes back to fp32 (its values stay the
            # bf16-rounded ones it trained from); sharded, FSDP's parameters keep the dtype they were sharded in
            lora.hold_frozen_in(s.model, torch.float32)
        return super()._fall_back(error, tokens, labels, step)
