"""The probe's schema (workloads/probe_report.py): what the child writes is what the readers get back."""

from workloads.probe_report import DeviceCheck, DeviceChecks, ProbeDevice, ProbeReport

GPU = {"python": "3.11.7", "torch": "2.5.1+rocm6.2", "import_s": 1.9, "cuda": None, "hip": "6.2.41133",
       "extensions": {}, "device_types": {"cuda": {"available": True, "count": 1, "error": None}},
       "devices": [{"type": "cuda", "index": 0, "name": "AMD Instinct MI210", "total_memory": 68702699520,
                    "capability": "9.0", "arch": "gfx90a", "multi_processor_count": 104, "bus_id": "0000:83:00.0"}],
       "arch_list": {"cuda": ["gfx908", "gfx90a"]},
       "checks": {"init": {"ok": True, "seconds": 2.5}, "memory": {"free": 60, "total": 64},
                  "kernel": {"ok": True, "max_abs_err": 1e-6}, "autocast_fp16": {"ok": True, "dtype": "torch.float16"},
                  "autocast_bf16": {"ok": False, "error": "RuntimeError: no kernel image is available"}}}


def test_a_gpu_answer_reads_as_typed_fields_and_writes_back_the_same():
    report = ProbeReport.from_dict(GPU)
    (d,) = report.devices
    assert isinstance(d, ProbeDevice) and d.target == "gfx90a" and d.label == "cuda:0"
    assert report.device_types["cuda"].count == 1 and report.archs("cuda") == ["gfx908", "gfx90a"]
    assert isinstance(report.checks, DeviceChecks) and report.checks.init.seconds == 2.5
    assert report.checks.memory.free == 60
    assert report.checks.autocast("bf16") == DeviceCheck(ok=False, error="RuntimeError: no kernel image is available")
    again = report.to_dict()  # every field is written, null where the child had nothing to say
    assert {k: again[k] for k in GPU if k not in ("devices", "checks")} == {k: v for k, v in GPU.items()
                                                                            if k not in ("devices", "checks")}
    assert again["devices"] == [{**GPU["devices"][0], "error": None}]
    assert again["checks"]["init"] == {"ok": True, "error": None, "seconds": 2.5, "max_abs_err": None, "dtype": None}
    assert ProbeReport.from_dict(again) == report


def test_missing_keys_are_defaults_and_unknown_keys_are_kept():
    report = ProbeReport.from_dict({"torch_error": "ModuleNotFoundError: No module named 'torch'", "npu_driver": "23.0"})
    assert report.torch is None and report.devices == [] and report.checks is None
    assert report.extra == {"npu_driver": "23.0"} and report.to_dict()["npu_driver"] == "23.0"


def test_values_of_the_wrong_shape_are_dropped_not_raised():
    report = ProbeReport.from_dict({"devices": "none", "device_types": {"cuda": "broken"}, "arch_list": ["sm_90"],
                                    "checks": {"init": "yes", "kernel": {"ok": 1, "max_abs_err": "big"}},
                                    "import_s": "slow", "tensorflow_gpus": None})
    assert report.devices == [] and report.device_types["cuda"].available is False and report.arch_list == {}
    assert report.checks.init is None and report.checks.kernel == DeviceCheck(ok=True)
    assert report.import_s is None and report.tensorflow_gpus == []
    assert report.archs("cuda") == []


def test_an_arch_list_that_failed_is_kept_as_its_error_but_is_no_list():
    report = ProbeReport.from_dict({"arch_list": {"npu": "AttributeError: no get_arch_list"}})
    assert report.arch_list == {"npu": "AttributeError: no get_arch_list"} and report.archs("npu") == []
