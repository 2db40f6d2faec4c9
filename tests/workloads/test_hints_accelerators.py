"""The hint table on the failures the domestic accelerator stacks print: real logs of CANN / torch_npu and HCCL,
torch_musa, Cambricon and HIP (tests/fixtures/logs/accelerator, each with a .source), each led to its advice;
the specific advice comes before the generic Ascend and out-of-memory ones, and a CUDA failure keeps its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workloads import hints
from workloads.catalogue import CATALOGUE
from workloads.hints import RULES, first_device_fault

# each piece of advice's English, by its id (the catalogue's hint.<id>)
ADVICE = {key.removeprefix("hint."): en for key, (en, _zh) in CATALOGUE.items() if key.startswith("hint.")}
CHINESE = {key.removeprefix("hint."): zh for key, (_en, zh) in CATALOGUE.items() if key.startswith("hint.")}


def hint_for(text):
    """The advice for a failure text as a run carries it, in English (its id is the catalogue's)."""
    hint = hints.hint_for(text)
    return hint.en if hint else None


def fault_hint(lines):
    hint = hints.fault_hint(lines)
    return hint.en if hint else None

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
ACCELERATOR = LOGS / "accelerator"

# real log -> the id of the advice it must get
EXPECTED = [
    ("accelerator/ascend-ei9999-hccl-task-timeout.txt", "hccl_exec_timeout"),
    ("accelerator/ascend-ei0006-socket-timeout.txt", "hccl_connect_timeout"),
    ("accelerator/ascend-hccl-wait-socket-timeout.txt", "hccl_connect_timeout"),
    ("accelerator/ascend-ej0001-hccp-busy.txt", "npu_held"),
    ("accelerator/ascend-npu-oom-torch-oom-error.txt", "npu_out_of_memory"),
    ("accelerator/ascend-npu-oom-runtime-error.txt", "npu_out_of_memory"),
    ("accelerator/ascend-el0004-memory-allocation.txt", "npu_out_of_memory"),
    ("accelerator/ascend-aclnn-not-in-libopapi.txt", "cann_torch_npu_mismatch"),
    ("accelerator/ascend-ez9999-infershape.txt", "ascend_op_error"),
    ("accelerator/musa-guilty-lockup.txt", "musa_gpu_hang"),
    ("accelerator/musa-unknown-error.txt", "musa_gpu_hang"),
    ("accelerator/mlu-cnrt-error.txt", "mlu_runtime"),
    ("accelerator/hip-no-binary-for-gpu.txt", "arch_missing"),
    ("device_error-3.txt", "arch_missing"),         # HIP invalid device function (verl-project/verl#3163)
    ("device_error-2.txt", "ascend_runtime"),       # EH9999 rtDeviceSynchronize task timeout: the generic one
    ("accelerator/cuda-oom.txt", "out_of_memory"),  # the control: a CUDA OOM keeps its old advice
]

# the logs whose first device-fault line (what `cardbench run command` hints on) names the failure itself
FIRST_FAULT = [
    ("accelerator/ascend-ei0006-socket-timeout.txt", "[rank1]: EI0006:", "hccl_connect_timeout"),
    ("accelerator/ascend-hccl-wait-socket-timeout.txt", "[ERROR] HCCL(2717288,python3):2025-07-23-03:49:57.177.194",
     "hccl_connect_timeout"),
    ("accelerator/ascend-ej0001-hccp-busy.txt", "EJ0001:", "npu_held"),
    ("accelerator/ascend-npu-oom-torch-oom-error.txt", "torch.OutOfMemoryError: NPU out of memory",
     "npu_out_of_memory"),
    ("accelerator/ascend-npu-oom-runtime-error.txt", "RuntimeError: NPU out of memory", "npu_out_of_memory"),
    ("accelerator/ascend-el0004-memory-allocation.txt", "[ERROR] RecentErrMsg:", "npu_out_of_memory"),
    ("accelerator/ascend-aclnn-not-in-libopapi.txt", "RuntimeError: aclnnGeGluV3", "cann_torch_npu_mismatch"),
    ("accelerator/ascend-ez9999-infershape.txt", "EZ9999: Inner Error!", "ascend_op_error"),
    ("accelerator/musa-guilty-lockup.txt", "[24078.925037] MTGPU:(Error)", "musa_gpu_hang"),
    ("accelerator/musa-unknown-error.txt", "RuntimeError: MUSA error: unknown error", "musa_gpu_hang"),
    ("accelerator/mlu-cnrt-error.txt", "[2022-6-17 15:5:8] [MLUOP] [Error]", "mlu_runtime"),
    ("accelerator/hip-no-binary-for-gpu.txt", "/work/HIP/rocclr/hip_code_object.cpp:92", "arch_missing"),
]


def _log(name: str) -> str:
    return (LOGS / name).read_text(encoding="utf-8")


def _pattern(advice: str) -> re.Pattern[str]:
    (pattern,) = [p for p, a in RULES if a == advice]
    return re.compile(pattern, re.IGNORECASE)


def test_every_accelerator_log_has_its_source():
    logs = sorted(ACCELERATOR.glob("*.txt"))
    assert logs, ACCELERATOR
    missing = [log.name for log in logs if not log.with_suffix(".source").is_file()]
    assert missing == []
    for log in logs:
        assert "https://github.com/" in log.with_suffix(".source").read_text(encoding="utf-8"), log.name
    used = {name.split("/", 1)[1] for name, _advice in EXPECTED if name.startswith("accelerator/")}
    assert used == {log.name for log in logs}, "a fixture no test reads, or a test of a missing fixture"


@pytest.mark.parametrize("name, advice", EXPECTED)
def test_each_real_log_gets_its_advice(name, advice):
    assert hint_for(_log(name)) == ADVICE[advice], name


@pytest.mark.parametrize("name, starts, advice", FIRST_FAULT)
def test_the_first_device_fault_line_names_it_and_gets_the_same_advice(name, starts, advice):
    # `cardbench run command` hints on the first line a device runtime failed on: that line alone must do
    line = first_device_fault(_log(name).splitlines())
    assert line is not None and line.startswith(starts), line
    assert hint_for(line) == ADVICE[advice]


def test_an_ei9999_header_names_no_cause_the_lines_after_it_do():
    # CANN prints "EI9999: Inner Error!" before the line with the cause: the first fault line alone gets the
    # generic advice; the fault line with the lines that follow it gets the HCCL timeout's
    lines = _log("accelerator/ascend-ei9999-hccl-task-timeout.txt").splitlines()
    line = first_device_fault(lines)
    assert line == "EI9999: Inner Error!" and hint_for(line) == ADVICE["ascend_runtime"]
    assert fault_hint(lines) == ADVICE["hccl_exec_timeout"]   # what `cardbench run command` says
    assert fault_hint(["all fine"]) is None


@pytest.mark.parametrize("name", ["accelerator/ascend-ei9999-hccl-task-timeout.txt",
                                  "accelerator/ascend-ei0006-socket-timeout.txt",
                                  "accelerator/ascend-ej0001-hccp-busy.txt",
                                  "accelerator/ascend-ez9999-infershape.txt"])
def test_an_hccl_or_op_failure_is_not_left_to_the_generic_ascend_advice(name):
    # the generic rule matches these logs too (their EI/EJ/EZ codes): only the order keeps the specific advice
    text = _log(name)
    assert _pattern("ascend_runtime").search(text) or _pattern("ascend_op_error").search(text)
    assert hint_for(text) != ADVICE["ascend_runtime"]


@pytest.mark.parametrize("name", ["accelerator/ascend-npu-oom-torch-oom-error.txt",
                                  "accelerator/ascend-npu-oom-runtime-error.txt"])
def test_an_npu_oom_in_either_torch_npu_format_gets_the_npu_advice_not_the_generic(name):
    text = _log(name)
    assert _pattern("out_of_memory").search(text), "the generic rule matches it too"
    assert hint_for(text) == ADVICE["npu_out_of_memory"]
    assert "npu-smi info" in hint_for(text) and "--batch-size" in hint_for(text)


def test_a_cuda_oom_keeps_its_old_advice():
    for text in (_log("accelerator/cuda-oom.txt"), "RuntimeError: CUDA error: out of memory"):
        assert hint_for(text) == ADVICE["out_of_memory"]
        assert hint_for(text).startswith("the device ran out of memory: lower --batch-size")


def test_the_specific_rules_come_before_the_generic_ones():
    order = [advice for _pattern, advice in RULES]
    specific = ["hccl_exec_timeout", "hccl_connect_timeout", "npu_held", "npu_out_of_memory",
                "cann_torch_npu_mismatch", "musa_gpu_hang", "mlu_runtime", "ascend_op_error"]
    for advice in specific:
        assert order.index(advice) < order.index("out_of_memory"), advice
        assert order.index(advice) < order.index("ascend_runtime"), advice
        assert order.index(advice) < order.index("device_error"), advice
    assert order.index("hccl_exec_timeout") < order.index("ascend_op_error")
    assert order.index("npu_out_of_memory") < order.index("cann_torch_npu_mismatch")  # an OOM may print ERR codes


def test_the_advice_says_what_to_try():
    assert "export HCCL_EXEC_TIMEOUT=3600" in ADVICE["hccl_exec_timeout"]
    assert "1836 s" in ADVICE["hccl_exec_timeout"]
    assert "export HCCL_CONNECT_TIMEOUT=1200" in ADVICE["hccl_connect_timeout"]
    assert "120 s" in ADVICE["hccl_connect_timeout"]
    held = hint_for(_log("accelerator/ascend-ej0001-hccp-busy.txt"))
    assert all(said in held for said in ("npu-smi info", "ps -ef", "fuser -v /dev/davinci<N>", "wait 10 s"))
    pair = hint_for(_log("accelerator/ascend-aclnn-not-in-libopapi.txt"))
    assert "ascend_toolkit_install.info" in pair and "pip show torch-npu" in pair
    assert "dmesg | grep MTGPU" in ADVICE["musa_gpu_hang"] and "cnmon" in ADVICE["mlu_runtime"]
    assert "DTK" in ADVICE["arch_missing"] and "rocminfo | grep gfx" in ADVICE["arch_missing"]


def test_each_new_advice_has_its_chinese_with_the_same_commands():
    new = ["hccl_exec_timeout", "hccl_connect_timeout", "npu_held", "npu_out_of_memory", "cann_torch_npu_mismatch",
           "musa_gpu_hang", "mlu_runtime", "ascend_op_error", "arch_missing"]
    for advice in new:
        chinese = CHINESE[advice]
        assert chinese, advice
        commands = re.findall(r"`([^`]+)`", ADVICE[advice])
        assert commands, advice
        assert [c for c in commands if c not in chinese] == [], advice
