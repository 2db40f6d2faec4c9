"""The one table of device types (workloads/child/device_types.py) and the calls workloads.child.device makes from
it: a fake ``torch.npu`` that records each call and runs on the CPU shows that synchronise, the peak's reset, the
memory readings, graph capture, events, the backend and autocast reach the vendor's functions (and
``torch.accelerator``'s where torch says npu is its accelerator); the real CPU row runs; an unknown type and an
extension that is absent or fails to import are one line and exit 2."""

from __future__ import annotations

import contextlib
import types as pytypes
from typing import Any

import pytest
import torch

from workloads import exit_codes
from workloads.child import data_parallel
from workloads.child import device as dev
from workloads.child import device_types as table
from workloads.child.harness import WorkloadError
from workloads.child.train.precision import Precision

GiB = 2**30


class FakeDevice:
    """What a vendor's ``torch.device("npu", 0)`` is to the calls: its type and index (torch itself knows no 'npu'
    until torch_npu renames its private backend, which a test process must not do)."""

    type = "npu"
    index = 0

    def __str__(self) -> str:
        return "npu:0"


class Recorder:
    """A ``torch.npu``-shaped module: each call recorded by name, answered with a figure, run on the CPU."""

    def __init__(self, amp: tuple[torch.dtype, ...] = (torch.float16, torch.bfloat16)):
        self.calls: list[str] = []
        self.amp = amp
        self.NPUGraph = self._graph_class()

    def _called(self, name: str, value: Any = None) -> Any:
        self.calls.append(name)
        return value

    def is_available(self) -> bool:
        return True

    def device_count(self) -> int:
        return 2

    def synchronize(self, device: Any = None) -> None:
        self._called("synchronize")

    def memory_allocated(self, device: Any = None) -> int:
        return self._called("memory_allocated", 1 * GiB)

    def memory_reserved(self, device: Any = None) -> int:
        return self._called("memory_reserved", 2 * GiB)

    def max_memory_allocated(self, device: Any = None) -> int:
        return self._called("max_memory_allocated", 3 * GiB)

    def max_memory_reserved(self, device: Any = None) -> int:
        return self._called("max_memory_reserved", 4 * GiB)

    def reset_peak_memory_stats(self, device: Any = None) -> None:
        self._called("reset_peak_memory_stats")

    def mem_get_info(self, device: Any = None) -> tuple[int, int]:
        return self._called("mem_get_info", (5 * GiB, 64 * GiB))

    def empty_cache(self) -> None:
        self._called("empty_cache")

    def set_device(self, device: Any) -> None:
        self._called("set_device")

    def get_device_properties(self, device: Any) -> Any:
        return self._called("get_device_properties", pytypes.SimpleNamespace(total_memory=64 * GiB,
                                                                             L2_cache_size=96 * 2**20))

    def get_device_name(self, device: Any) -> str:
        return "Ascend910B"

    def get_amp_supported_dtype(self) -> list[torch.dtype]:
        return list(self.amp)

    def Event(self, enable_timing: bool = False) -> Any:   # noqa: N802 - the vendor's name
        self._called("Event")
        return pytypes.SimpleNamespace(enable_timing=enable_timing)

    def Stream(self, device: Any) -> Any:   # noqa: N802
        self._called("Stream")
        return pytypes.SimpleNamespace(wait_stream=lambda other: self._called("wait_stream"))

    def current_stream(self, device: Any = None) -> Any:
        return pytypes.SimpleNamespace(wait_stream=lambda other: self._called("wait_stream"))

    @contextlib.contextmanager
    def stream(self, side: Any):
        self._called("stream")
        yield

    @contextlib.contextmanager
    def graph(self, graph: Any):
        self._called("graph")
        graph.capturing = True
        yield
        graph.capturing = False

    def _graph_class(self) -> type:
        recorder = self

        class NPUGraph:
            capturing = False

            def replay(self) -> None:
                recorder._called("replay")

        return NPUGraph


@pytest.fixture
def npu(monkeypatch):
    fake = Recorder()
    monkeypatch.setattr(torch, "npu", fake, raising=False)
    return fake


def test_the_table_holds_each_type_once_with_its_extension_backend_and_graph():
    assert table.KNOWN == ("cuda", "npu", "mlu", "musa", "xpu", "hpu", "mps", "cpu")
    assert {t.name: t.backend for t in table.TABLE} == {
        "cuda": "nccl", "npu": "hccl", "mlu": "cncl", "musa": "mccl", "xpu": "xccl", "hpu": "hccl", "mps": "gloo",
        "cpu": "gloo"}
    assert {t.name: t.extension for t in table.TABLE if t.extension} == {
        "npu": "torch_npu", "mlu": "torch_mlu", "musa": "torch_musa", "xpu": "intel_extension_for_pytorch",
        "hpu": "habana_frameworks.torch.core"}
    assert {t.name: t.graph for t in table.TABLE if t.graph} == {
        "cuda": "CUDAGraph", "npu": "NPUGraph", "mlu": "MLUGraph", "musa": "MUSAGraph", "xpu": "XPUGraph"}
    assert table.row("NPU:1") is table.BY_NAME["npu"]


def test_an_npu_run_synchronises_and_reads_its_memory_through_the_vendor_s_module(npu):
    device = FakeDevice()
    dev.synchronize(device)
    assert dev.now(device) > 0
    assert dev.reset_peak_memory(device) is True
    assert dev.peak_memory(device) == (3 * GiB, 4 * GiB)
    assert dev.memory_in_use(device) == 1 * GiB
    assert dev.free_bytes(device) == 5 * GiB
    dev.empty_cache(device)
    dev.set_device(device)
    assert dev.properties(device).total_memory == 64 * GiB
    assert npu.calls == ["synchronize", "synchronize", "reset_peak_memory_stats", "max_memory_allocated",
                         "max_memory_reserved", "memory_allocated", "mem_get_info", "empty_cache", "set_device",
                         "get_device_properties"]
    assert dev.name(device) == "npu:0 (Ascend910B)" and dev.model_name(device) == "Ascend910B"
    assert dev.available_types() == ["npu", "cpu"] and dev.device_count("npu") == 2


def test_an_npu_has_no_cuda_capability_so_no_tf32_and_its_l2_comes_from_its_properties(npu):
    from workloads.child.bandwidth import last_level_cache_bytes

    device = FakeDevice()
    assert dev.capability(device) is None and dev.has_tf32(device) is False
    assert last_level_cache_bytes(device) == 96 * 2**20


def test_where_torch_says_npu_is_its_accelerator_torch_accelerator_answers_and_the_module_the_rest(npu, monkeypatch):
    said = []
    accelerator = pytypes.SimpleNamespace(
        current_accelerator=lambda check_available=False: pytypes.SimpleNamespace(type="npu"),
        synchronize=lambda device=None: said.append("accelerator.synchronize"),
        max_memory_allocated=lambda device=None: said.append("accelerator.max_memory_allocated") or 7,
        get_memory_info=lambda device=None: said.append("accelerator.get_memory_info") or (8, 9),
        get_device_capability=lambda device=None: {"supported_dtypes": set()})   # another meaning: never used
    monkeypatch.setattr(torch, "accelerator", accelerator)
    device = FakeDevice()
    dev.synchronize(device)
    assert dev.peak_memory(device) == (7, 4 * GiB)      # no max_memory_reserved there: the module's
    assert dev.free_bytes(device) == 8
    assert said == ["accelerator.synchronize", "accelerator.max_memory_allocated", "accelerator.get_memory_info"]
    assert npu.calls == ["max_memory_reserved"]


def test_an_npu_captures_its_own_graph_and_times_on_its_own_events(npu):
    device = FakeDevice()
    assert dev.can_capture(device)
    graph, captured = dev.capture_graph(device, lambda: npu._called("body", "logits"), warmups=2)
    assert isinstance(graph, npu.NPUGraph) and captured == "logits"
    # warmed up on a side stream, then captured once under the vendor's own graph context
    assert npu.calls == ["Stream", "wait_stream", "stream", "body", "body", "wait_stream", "graph", "body"]
    start, end = dev.timing_events(device)
    assert start.enable_timing and end.enable_timing


def test_an_npu_s_process_group_is_hccl(npu, monkeypatch):
    import torch.distributed as dist

    joined = []
    monkeypatch.setattr(dist, "init_process_group", lambda backend, timeout: joined.append(backend))
    monkeypatch.setattr(data_parallel, "die_with_parent", lambda: None)
    data_parallel.init_process_group(FakeDevice())
    assert joined == ["hccl"] and dev.backend(FakeDevice()) == "hccl"


def test_autocast_takes_the_vendor_s_dtypes_and_a_training_step_asked_for_another_runs_fp32_said(monkeypatch):
    npu = Recorder(amp=(torch.float16,))
    monkeypatch.setattr(torch, "npu", npu, raising=False)
    device = FakeDevice()
    assert dev.autocast_type(device) == "npu" and dev.autocast_dtypes(device) == (torch.float16,)
    assert dev.autocast_refusal(device, torch.float16) is None
    assert dev.autocast_refusal(device, torch.bfloat16) == "npu has no bfloat16 autocast (it takes float16)"
    fallbacks = []
    model = torch.nn.Linear(2, 1)
    setup = pytypes.SimpleNamespace(
        args=pytypes.SimpleNamespace(amp="bf16", compile=False), device=device, model=model, trained=model,
        criterion=None, optimizer=None, scaler=pytypes.SimpleNamespace(is_enabled=lambda: False), oom_above=None,
        is_main=False, emitter=pytypes.SimpleNamespace(fallback=lambda error, action, **kw: fallbacks.append(error)))
    precision = Precision(setup)
    assert precision.amp_dtype is None and precision.label == "fp32"
    assert fallbacks == ["npu has no bfloat16 autocast (it takes float16)"]


def test_the_cpu_row_runs_for_real():
    cpu = torch.device("cpu")
    assert dev.backend(cpu) == "gloo" and dev.autocast_type(cpu) == "cpu"
    assert torch.bfloat16 in dev.autocast_dtypes(cpu) and dev.autocast_refusal(cpu, torch.bfloat16) is None
    with torch.autocast(dev.autocast_type(cpu), dtype=torch.bfloat16):
        out = torch.nn.Linear(4, 2)(torch.ones(3, 4))
    assert out.dtype == torch.bfloat16
    dev.synchronize(cpu)
    dev.empty_cache(cpu)
    assert not dev.can_capture(cpu) and dev.timing_events(cpu) is None and dev.capability(cpu) is None
    assert dev.free_bytes(cpu) > 0 and dev.memory_in_use(cpu) > 0 and dev.properties(cpu) is None
    with pytest.raises(RuntimeError, match="cpu has no graph capture"):
        dev.capture_graph(cpu, lambda: None)
    assert dev.resolve("cpu") == cpu and dev.available_types()[-1] == "cpu"


def test_an_unknown_device_type_is_one_line_naming_the_known_ones_and_exit_2():
    with pytest.raises(WorkloadError) as raised:
        dev.resolve("tpu")
    assert raised.value.exit_code == exit_codes.BAD_INPUT
    assert raised.value.message == ("unknown device type 'tpu'; the known types are cuda, npu, mlu, musa, xpu, hpu, "
                                    "mps, cpu")


def test_a_type_whose_extension_is_not_installed_names_it_and_exits_2(monkeypatch):
    monkeypatch.delattr(torch, "mlu", raising=False)
    with pytest.raises(WorkloadError) as raised:
        dev.resolve("mlu:0")
    assert raised.value.exit_code == exit_codes.BAD_INPUT
    assert raised.value.message == "device type mlu needs torch_mlu, which is not installed"


def test_an_extension_that_fails_to_import_is_one_line_with_its_reason_and_exit_2(tmp_path, monkeypatch):
    (tmp_path / "torch_musa.py").write_text(
        'raise ImportError("libmusa.so.2: cannot open shared object file: No such file or directory")\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delattr(torch, "musa", raising=False)
    with pytest.raises(WorkloadError) as raised:
        dev.resolve("musa")
    assert raised.value.exit_code == exit_codes.BAD_INPUT
    assert raised.value.message == ("torch_musa failed to import: ImportError: libmusa.so.2: cannot open shared "
                                    "object file: No such file or directory")
    assert "musa" in str(raised.value.hint) and "\n" not in raised.value.message
    assert raised.value.reason.startswith("ImportError: libmusa.so.2")


def test_an_extension_whose_parent_package_fails_is_named_with_the_parent_s_reason(tmp_path, monkeypatch):
    parent = tmp_path / "habana_frameworks"
    parent.mkdir()
    (parent / "__init__.py").write_text('raise ImportError("libSynapse.so: cannot open shared object file")\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delattr(torch, "hpu", raising=False)
    with pytest.raises(WorkloadError) as raised:
        dev.resolve("hpu")
    assert raised.value.exit_code == exit_codes.BAD_INPUT
    assert raised.value.message == ("habana_frameworks.torch.core failed to import: ImportError: libSynapse.so: "
                                    "cannot open shared object file")


@pytest.fixture
def fresh_extension_scan():
    dev._load_installed_extensions.cache_clear()   # 'auto' imports the installed extensions once a process
    yield
    dev._load_installed_extensions.cache_clear()


def test_auto_says_an_installed_extension_that_fails_and_goes_on_without_it(tmp_path, monkeypatch, capsys,
                                                                            fresh_extension_scan):
    (tmp_path / "torch_mlu.py").write_text('raise ImportError("libcndrv.so: cannot open shared object file")\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delattr(torch, "mlu", raising=False)
    assert dev.resolve("auto") == torch.device("cpu")
    assert capsys.readouterr().err.splitlines() == [
        "torch_mlu failed to import: ImportError: libcndrv.so: cannot open shared object file (mlu left out)"]


def test_auto_imports_an_installed_extension_that_works_and_finds_its_type(tmp_path, monkeypatch, fresh_extension_scan):
    import sys

    # a stand-in torch_npu: importing it registers torch.npu, as torch_npu's own import does
    (tmp_path / "torch_npu.py").write_text(
        "import types\nimport torch\n"
        "torch.npu = types.SimpleNamespace(is_available=lambda: True, device_count=lambda: 1)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(torch, "npu", None, raising=False)   # undone after: torch has no npu again
    try:
        assert dev.available_types() == ["npu", "cpu"]
        assert "torch_npu" in sys.modules and dev.backend(FakeDevice()) == "hccl"
    finally:
        sys.modules.pop("torch_npu", None)


def test_gpus_all_counts_the_vendor_s_devices_and_a_missing_extension_is_said(npu, monkeypatch):
    assert data_parallel.process_count("all", "npu") == 2
    monkeypatch.delattr(torch, "mlu", raising=False)
    with pytest.raises(WorkloadError, match="^device type mlu needs torch_mlu, which is not installed$"):
        data_parallel.process_count("all", "mlu:0")
