"""The inference dtype: the one asked for if a tiny GPT-2 runs in it, else one line; 'auto' steps down."""

import pytest
import torch

from workloads.child.harness import WorkloadError
from workloads.models import inference_dtype


def test_a_dtype_runs_where_a_tiny_gpt2_prefills_and_decodes_in_it():
    cpu = torch.device("cpu")
    assert inference_dtype.probe(cpu, "fp32") is None
    assert inference_dtype.pick("fp32", cpu) == ("fp32", [])


def test_auto_dtype_steps_down_to_the_first_that_runs(monkeypatch):
    monkeypatch.setattr(inference_dtype, "probe", lambda device, name: "no bf16 kernels" if name == "bf16" else None)
    assert inference_dtype.pick("auto", torch.device("cuda")) == ("fp16", [("bf16", "no bf16 kernels")])
    assert inference_dtype.pick("auto", torch.device("cpu")) == ("fp32", [])
    with pytest.raises(WorkloadError, match="--dtype bf16 does not run on cuda: no bf16 kernels"):
        inference_dtype.pick("bf16", torch.device("cuda"))
