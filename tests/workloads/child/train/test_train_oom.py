"""Out of memory in a training step: recognised, and injected by CARDBENCH_INJECT_OOM_BATCH for the tests."""
import pytest
import torch

from workloads.child.train import amp_diagnosis, oom


def test_out_of_memory_is_recognised_by_type_or_by_its_words_and_is_no_autocast_failure():
    assert oom.is_out_of_memory(torch.OutOfMemoryError("anything"))
    assert oom.is_out_of_memory(RuntimeError("HIP out of memory. Tried to allocate 2 GiB"))
    assert not oom.is_out_of_memory(RuntimeError("CUDA error: device kernel image is invalid"))
    assert not amp_diagnosis.is_amp_device_error(RuntimeError("XPU out of memory"))   # autocast off cures none


@pytest.mark.parametrize("value, limit", [("5", 5), (" 12 ", 12), ("", None), ("many", None), ("-3", None)])
def test_the_injected_limit_is_a_whole_number_or_none(monkeypatch, value, limit):
    monkeypatch.setenv(oom.OOM_INJECT_ENV, value)
    assert oom.injected_limit() == limit


def test_a_batch_above_the_injected_limit_runs_out_of_memory_in_the_allocators_words():
    oom.raise_if_injected(5, 5, "images")
    oom.raise_if_injected(10**6, None, "images")
    with pytest.raises(torch.OutOfMemoryError, match=r"a batch of 6 sequences \(injected by "
                                                     r"CARDBENCH_INJECT_OOM_BATCH=5\)") as raised:
        oom.raise_if_injected(6, 5, "sequences")
    assert oom.is_out_of_memory(raised.value)
