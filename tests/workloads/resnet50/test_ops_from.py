"""`resnet50 --amp bf16 --ops-from RUN_DIR`: the module types whose ops an opscan found failing in bf16 start in
fp32."""

from __future__ import annotations

import subprocess
import sys

from workloads import protocol
from workloads.opscan import table
from workloads.rundir import ops_csv


def scan_dir(tmp_path):
    """An opscan run directory whose ops.csv says: batch norm's op fails in bf16 (in ResNet-50 and in a model of
    the user's), layer norm's fails in bf16 only in GPT-2, convolution fails only in fp16."""
    calls = [{"modules": ["resnet50:bn1 (BatchNorm2d)", "resnet50:layer1.0.bn1 (BatchNorm2d)", "mine:norm (GroupNorm)"],
              "phases": ["forward"]},
             {"modules": ["gpt2-train:h.0.ln_1 (LayerNorm)"], "phases": ["forward"]},
             {"modules": ["resnet50:conv1 (Conv2d)"], "phases": ["forward"]},
             {"modules": ["resnet50:(optimizer)"], "phases": ["optimizer"]}]
    cases = [{"op": "aten.native_batch_norm.default", "dtype": "bf16", "call": 0, "status": "not_implemented"},
             {"op": "aten.native_layer_norm.default", "dtype": "bf16", "call": 1, "status": "crash"},
             {"op": "aten.convolution.default", "dtype": "bf16", "call": 2, "status": "ok", "nmse": 1e-6},
             {"op": "aten.convolution.default", "dtype": "fp16", "call": 2, "status": "mismatch", "nmse": 0.1},
             {"op": "aten.add_.Tensor", "dtype": "bf16", "call": 3, "status": "error"}]
    ops_csv.write_csv(tmp_path / ops_csv.OPS_CSV, table.fold(cases, calls, device_is_cpu=True))
    return tmp_path


def test_the_failing_module_types_of_resnet50_in_the_dtype_are_read_from_the_scan(tmp_path):
    run = scan_dir(tmp_path)
    assert ops_csv.failing_module_types(run, "bf16", "resnet50") == ["BatchNorm2d"]
    assert ops_csv.failing_module_types(run, "fp16", "resnet50") == ["Conv2d"]


def test_resnet50_starts_with_exactly_those_types_in_fp32(tmp_path):
    (tmp_path / "scan").mkdir()
    run = scan_dir(tmp_path / "scan")
    proc = subprocess.run([sys.executable, "-m", "workloads.resnet50", "--device", "cpu", "--amp", "bf16",
                           "--ops-from", str(run), "--steps", "1", "--batch-size", "2", "--image-size", "32",
                           "--epoch-size", "2", "--warmup", "0", "--num-classes", "10"],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    events = [protocol.parse_line(line) for line in proc.stdout.splitlines() if line.strip()]
    assert proc.returncode == 0, proc.stderr[-2000:]
    start = next(e for e in events if isinstance(e, protocol.Start))
    assert start.config["fp32_from_scan"] == ["BatchNorm2d"]
    result = next(e for e in events if isinstance(e, protocol.Result))
    assert result.metrics["precision"] == "bf16 (fp32: BatchNorm2d)"
    assert not [e for e in events if isinstance(e, protocol.Fallback)]  # kept from the start: nothing fell back
    assert "BatchNorm2d kept in fp32 from the start (53 modules" in proc.stderr


def test_ops_from_without_amp_or_with_no_scan_is_one_line_and_exit_2(tmp_path):
    for args, said in ((["--ops-from", str(tmp_path)], "--ops-from keeps in fp32"),
                       (["--amp", "bf16", "--ops-from", str(tmp_path / "nothing")],
                        "not the run directory of an opscan")):
        proc = subprocess.run([sys.executable, "-m", "workloads.resnet50", "--device", "cpu", *args],
                              capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        errors = [e for e in map(protocol.parse_line, proc.stdout.splitlines()) if isinstance(e, protocol.Error)]
        assert proc.returncode == 2 and said in errors[0].message and "Traceback" not in proc.stderr
