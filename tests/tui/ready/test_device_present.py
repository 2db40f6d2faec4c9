"""`cardbench ready --device`: a device this machine's torch has not is refused before anything runs, from what the
probe child says; auto and cpu never ask it, and a probe that cannot answer lets the runs say why."""

from __future__ import annotations

import pytest

from tui.ready import device_present
from tui.ready.device_present import absent, absent_from
from workloads.probe_report import DeviceType, ProbeReport

NO_DRIVER = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
             "installed a driver from http://www.nvidia.com/Download/index.aspx")


def _cpu_only() -> ProbeReport:
    """This project's machine: a CUDA build of torch without a driver."""
    return ProbeReport(torch="2.14.1+cu130", device_types={"cuda": DeviceType(available=False, error=NO_DRIVER),
                                                           "xpu": DeviceType(), "mps": DeviceType()})


def _two_cards() -> ProbeReport:
    return ProbeReport(torch="2.14.1+cu130", device_types={"cuda": DeviceType(available=True, count=2), "xpu": DeviceType()})


def test_a_cuda_device_on_a_machine_without_a_driver_is_refused_with_torchs_reason_in_one_line():
    said = absent_from("cuda:0", _cpu_only())
    assert said == ("--device 'cuda:0' is not available on this machine (RuntimeError: Found no NVIDIA driver on "
                    "your system); torch here has: cpu")
    assert absent_from("cuda", _cpu_only()) is not None


def test_a_type_torch_has_no_module_for_is_refused_naming_what_it_has():
    assert absent_from("npu:0", _two_cards()) == "--device 'npu:0' is not available on this machine; torch here " \
                                                 "has: cuda, cpu"


@pytest.mark.parametrize("device, refused", [("cuda:1", False), ("cuda", False), ("CUDA:0", False),
                                             ("cuda:2", True), ("cuda:9", True)])
def test_an_index_past_the_count_is_refused_and_one_within_it_is_not(device, refused):
    said = absent_from(device, _two_cards())
    assert (said is not None) == refused
    if refused:
        assert said == f"--device {device!r} does not exist: this machine has 2 cuda device(s), numbered from 0"


def test_a_probe_where_torch_does_not_import_refuses_nothing():
    assert absent_from("cuda:0", ProbeReport(torch_error="ModuleNotFoundError: No module named 'torch'")) is None


@pytest.mark.parametrize("device", [None, "auto", "cpu", "CPU", "cpu:0"])
def test_auto_and_the_cpu_never_ask_torch(monkeypatch, device):
    def probe(*args, **kw):
        raise AssertionError("the probe ran")

    monkeypatch.setattr("tui.telemetry.torch_probe.run_probe", probe)
    assert absent(device) is None


def test_an_accelerator_named_is_asked_of_the_probe_child_and_a_probe_that_fails_lets_it_through(monkeypatch):
    asked = []

    def probe(*args, **kw):
        asked.append(args)
        return _cpu_only(), None

    monkeypatch.setattr("tui.telemetry.torch_probe.run_probe", probe)
    assert "not available on this machine" in absent("cuda:0") and len(asked) == 1
    monkeypatch.setattr("tui.telemetry.torch_probe.run_probe", lambda *a, **kw: (None, "torch probe: timed out"))
    assert absent("cuda:0") is None
    assert device_present.absent_from("mps", _cpu_only()).startswith("--device 'mps' is not available")
