"""The layer that fails under autocast, found on a small network on the CPU and kept in fp32."""
import pytest
import torch
from torch import nn

from workloads.child.train import amp_diagnosis

CPU = torch.device("cpu")


class NoBFloat16(nn.Module):
    """Stands in for an op a device lacks in bfloat16, with the message PyTorch uses."""

    def forward(self, x):
        if x.dtype == torch.bfloat16:
            raise NotImplementedError("\"gelu_kernel\" not implemented for 'BFloat16'")
        return x * 2


class AlwaysBroken(nn.Module):
    def forward(self, x):
        raise RuntimeError("broken with or without autocast")


def _small_net(middle=None):
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(inplace=True),
                         middle or nn.Identity(), nn.Flatten(), nn.Linear(4 * 6 * 6, 3))


def _step_under_autocast(model):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = model(torch.randn(2, 3, 8, 8)).float().sum()
    loss.backward()
    return loss


def test_diagnosis_names_the_first_failing_layer_and_its_op_type():
    model = _small_net(NoBFloat16())
    with pytest.raises(NotImplementedError):
        _step_under_autocast(model)
    running_mean = model[1].running_mean.clone()
    found = amp_diagnosis.diagnose(model, torch.randn(2, 3, 8, 8), CPU, torch.bfloat16)
    assert found.fp32_error is None and found.layers_tested == 6
    assert [(f.layer, f.module_type) for f in found.failures] == [("3", "NoBFloat16")]
    assert found.first.aten_op == "gelu_kernel"  # taken from the error text
    assert torch.equal(model[1].running_mean, running_mean)  # the replays left batch norm as it was
    assert all(p.grad is None for p in model.parameters())
    # keeping the failing type out of autocast lets the step run; the rest stays in bfloat16
    assert amp_diagnosis.keep_in_fp32(model, found.failing_types, "cpu") == ["3"]
    assert torch.isfinite(_step_under_autocast(model))


def test_injected_failure_raises_only_under_autocast_and_is_found():
    model = _small_net()
    assert amp_diagnosis.inject_failures(model, "Conv2d", "cpu") == ["0"]
    model(torch.randn(2, 3, 8, 8))  # FP32 runs
    with pytest.raises(RuntimeError, match="device kernel image is invalid"):
        _step_under_autocast(model)
    found = amp_diagnosis.diagnose(model, torch.randn(2, 3, 8, 8), CPU, torch.bfloat16)
    assert found.first.layer == "0" and found.failing_types == ["Conv2d"]
    assert amp_diagnosis.is_amp_device_error(RuntimeError("CUDA error: device kernel image is invalid"))
    assert not amp_diagnosis.is_amp_device_error(torch.OutOfMemoryError("CUDA out of memory"))
    assert not amp_diagnosis.is_amp_device_error(ValueError("a bug"))


def test_a_layer_broken_without_autocast_too_is_not_blamed_on_autocast():
    model = nn.Sequential(nn.Linear(4, 4), AlwaysBroken())
    found = amp_diagnosis.diagnose(model, torch.randn(2, 4), CPU, torch.bfloat16)
    assert found.failures == [] and "broken with or without autocast" in found.fp32_error
