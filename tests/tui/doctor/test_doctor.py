"""The doctor: verdicts and hints from facts (no GPU needed), fake CLIs, and a real run on this machine."""

import io
import json
import time

import pytest

from fake_cli import only_on_path, write_cli
from fake_nvml import FakeNvml, NVMLError_LibraryNotFound, h100
from tui import doctor
from tui.doctor import FAIL, PASS, SKIP, TITLES, WARN, DoctorCheck, Facts, checks_from
from tui.cli import doctor as command
from tui.doctor import run as doctor_run
from tui.doctor.checks import _arch_ok
from tui.report.envinfo import cuda_init_from, normalize_checks
from workloads.hints import hint_for
from tui.telemetry.sample import DeviceSample
from workloads.probe_report import ProbeReport

CPU_ONLY_PROBE = {"torch": "2.14.1+cu130", "cuda": "13.0", "hip": None, "import_s": 1.7, "extensions": {},
                  "device_types": {"cuda": {"available": False,
                                            "error": "RuntimeError: Found no NVIDIA driver on your system."}},
                  "devices": [], "checks": {}}


def gpu_probe(**checks):
    base = {"init": {"ok": True, "seconds": 1.25}, "kernel": {"ok": True, "max_abs_err": 1e-6},
            "autocast_fp16": {"ok": True, "dtype": "torch.float16"},
            "autocast_bf16": {"ok": True, "dtype": "torch.bfloat16"}}
    base.update(checks)
    return {"torch": "2.5.1+cu124", "cuda": "12.4", "import_s": 1.9, "extensions": {},
            "device_types": {"cuda": {"available": True, "count": 1}},
            "devices": [{"type": "cuda", "index": 0, "name": "NVIDIA H100 80GB HBM3", "capability": "9.0"}],
            "arch_list": {"cuda": ["sm_80", "sm_86", "sm_90"]}, "checks": base}


def healthy(**changes):
    """A one-H100 machine where everything works; probe answers may be given as the child's JSON dicts."""
    facts = Facts(cli_name="nvidia-smi", cli_ok=True, cli_output="GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)",
                  cli_gpu_count=1, nvml_ok=True, nvml_count=1, nvml_driver="550.90.07", pci_vendors=["NVIDIA"],
                  probe=ProbeReport.from_dict(gpu_probe()), disk_free_bytes=100 * 2**30, disk_total_bytes=500 * 2**30,
                  devices=[DeviceSample(index=0, name="NVIDIA H100 80GB HBM3", util_gpu_pct=0.0,
                                        mem_used_bytes=2**29, mem_total_bytes=80 * 2**30)])
    for k, v in changes.items():
        setattr(facts, k, ProbeReport.from_dict(v) if k in ("probe", "tf") and isinstance(v, dict) else v)
    return facts


def by_id(checks):
    return {c.id: c for c in checks}


def test_a_healthy_gpu_machine_passes_everything_but_optional_tensorflow():
    checks = checks_from(healthy())
    assert all(isinstance(c, DoctorCheck) for c in checks)
    assert [(c.id, c.name) for c in checks] == list(TITLES.items())  # every check, in order, under its stable id
    statuses = {c.id: c.status for c in checks}
    assert statuses.pop("tensorflow.sees_device") == SKIP
    assert statuses.pop("device.health") == SKIP   # NVML's cards have no health word of their tool's
    assert set(statuses.values()) == {PASS}, statuses
    c = by_id(checks)
    assert "1.25 s" in c["device.init"].evidence
    assert (c["device.init"].value, c["device.init"].unit) == (1.25, "s")
    assert (c["torch.imports"].value, c["torch.sees_device"].value, c["disk.free"].value) == (1.9, 1.0, 100.0)
    assert c["device.autocast.bf16"].value is None  # a pass/fail check has no number
    assert "sm_90" in c["torch.arch_list"].evidence
    assert "NVIDIA H100" in c["torch.sees_device"].evidence


def test_cpu_only_machine_skips_and_warns_where_a_gpu_would_be():
    facts = Facts(cli_name=None, nvml_ok=False, nvml_error="NVMLError_LibraryNotFound: NVML Shared Library Not Found",
                  probe=ProbeReport.from_dict(CPU_ONLY_PROBE), disk_free_bytes=50 * 2**30, disk_total_bytes=100 * 2**30)
    c = by_id(checks_from(facts))
    assert c["cli.answers"].status == SKIP
    assert c["nvml.loads"].status == SKIP
    assert c["pci.accelerators"].status == WARN
    assert c["torch.imports"].status == PASS and "CUDA 13.0" in c["torch.imports"].evidence
    assert c["torch.sees_device"].status == SKIP
    for cid in ("device.init", "device.kernel", "device.autocast.fp16"):
        assert c[cid].status == SKIP and c[cid].value is None
    assert c["torch.sees_device"].value == 0  # torch answered and saw none: a real zero
    assert not any(x.status == FAIL for x in c.values())


def test_cli_lists_gpus_but_torch_sees_none_means_a_mismatched_pytorch():
    c = by_id(checks_from(healthy(probe=CPU_ONLY_PROBE)))["torch.sees_device"]
    assert c.status == FAIL
    assert "torch sees none" in c.evidence and "Found no NVIDIA driver" in c.evidence
    assert c.hint == ("this PyTorch does not match the driver: was it reinstalled over the image's build? "
                      "use the image's PyTorch")


def test_a_cpu_only_torch_build_on_a_gpu_machine():
    probe = dict(CPU_ONLY_PROBE, cuda=None, torch="2.5.1+cpu", device_types={"cuda": {"available": False}})
    c = by_id(checks_from(healthy(probe=probe)))["torch.sees_device"]
    assert c.status == FAIL and "CPU-only build" in c.evidence
    assert c.hint == hint_for("Torch not compiled with CUDA enabled").en and "CPU-only build" in c.hint


def test_kernel_image_error_maps_to_the_build_hint():
    err = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
    c = by_id(checks_from(healthy(probe=gpu_probe(kernel={"ok": False, "error": err}))))
    check = c["device.kernel"]
    assert check.status == FAIL and check.evidence == err
    assert check.hint.startswith("the PyTorch build lacks code for this device") and "--amp off" in check.hint


def test_device_kernel_image_invalid_under_autocast():
    err = "RuntimeError: CUDA error: device kernel image is invalid"
    check = by_id(checks_from(healthy(probe=gpu_probe(autocast_bf16={"ok": False, "error": err}))))[
        "device.autocast.bf16"]
    assert check.status == FAIL and "--amp off" in check.hint


def test_not_implemented_for_a_dtype_maps_to_the_dtype_hint():
    err = "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'"
    check = by_id(checks_from(healthy(probe=gpu_probe(autocast_fp16={"ok": False, "error": err}))))[
        "device.autocast.fp16"]
    assert check.status == FAIL
    assert check.hint.startswith("an op is missing for that dtype")


def test_wrong_numbers_from_the_kernel():
    check = by_id(checks_from(healthy(probe=gpu_probe(kernel={"ok": False, "max_abs_err": 3.0}))))[
        "device.kernel"]
    assert check.status == FAIL and "wrong numbers" in check.hint


def test_arch_list_without_the_device_capability():
    probe = gpu_probe()
    probe["arch_list"] = {"cuda": ["sm_50", "sm_60", "sm_70"]}
    check = by_id(checks_from(healthy(probe=probe)))["torch.arch_list"]
    assert check.status == FAIL and "9.0" in check.evidence and "sm_70" in check.evidence
    assert "lacks code for this device" in check.hint


@pytest.mark.parametrize("cap, archs, ok", [
    ("9.0", ["sm_80", "sm_90"], True),
    ("8.9", ["sm_80", "sm_86"], True),        # same major: sm_86 code runs on 8.9
    ("9.0", ["sm_80", "compute_80"], True),   # PTX JIT-compiles forward
    ("12.0", ["sm_80", "sm_90"], False),      # Blackwell on an old build
    ("9.0", ["sm_90a"], True),
    ("8.0", ["sm_86"], False),
    ("gfx90a", ["gfx908", "gfx90a"], True),
    ("gfx942", ["gfx908", "gfx90a"], False),
])
def test_arch_coverage(cap, archs, ok):
    assert _arch_ok(cap, archs) is ok


def test_slow_cuda_init_warns():
    check = by_id(checks_from(healthy(probe=gpu_probe(init={"ok": True, "seconds": 45.0}))))[
        "device.init"]
    assert check.status == WARN and "persistence mode" in check.hint and "45 s to the first tensor" in check.evidence
    assert check.value == 45.0


def test_failed_init_fails_and_skips_the_device_checks():
    err = "RuntimeError: CUDA error: out of memory"
    c = by_id(checks_from(healthy(probe=gpu_probe(init={"ok": False, "seconds": 0.4, "error": err}))))
    assert c["device.init"].status == FAIL
    assert c["device.init"].hint == hint_for(err).en
    assert c["device.init"].value is None  # 0.4 s to an error is not an initialisation time
    assert c["device.kernel"].status == SKIP


def test_hidden_devices_warn():
    check = by_id(checks_from(healthy(env={"CUDA_VISIBLE_DEVICES": ""})))["env.visible_devices"]
    assert check.status == WARN and "CUDA_VISIBLE_DEVICES=''" in check.evidence
    assert check.hint.startswith("no device is visible to this process")
    ok = by_id(checks_from(healthy(env={"CUDA_VISIBLE_DEVICES": "0,1"})))["env.visible_devices"]
    assert ok.status == PASS and "'0,1'" in ok.evidence


def test_nvml_missing_on_an_nvidia_machine():
    check = by_id(checks_from(healthy(nvml_ok=False, nvml_error="NVMLError_LibraryNotFound: NVML Shared Library Not Found")))[
        "nvml.loads"]
    assert check.status == FAIL and "libnvidia-ml.so is missing" in check.hint


def test_nvml_version_mismatch_hint():
    check = by_id(checks_from(healthy(nvml_ok=False, nvml_error="NVMLError_LibRmVersionMismatch: Driver/library version mismatch")))[
        "nvml.loads"]
    assert check.status == FAIL and "reboot" in check.hint


def test_nvml_absent_on_an_amd_machine_is_expected():
    check = by_id(checks_from(healthy(cli_name="rocm-smi", pci_vendors=["AMD"], nvml_ok=False,
                                        nvml_error="NVMLError_LibraryNotFound: x")))["nvml.loads"]
    assert check.status == SKIP and "AMD" in check.evidence


def test_hung_and_failing_cli_hints():
    hung = by_id(checks_from(healthy(cli_ok=False, cli_error="nvidia-smi did not answer within 5 s (timed out, killed)")))
    assert hung["cli.answers"].status == FAIL and "wedged" in hung["cli.answers"].hint
    msg = "nvidia-smi exit 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    failing = by_id(checks_from(healthy(cli_ok=False, cli_error=msg)))["cli.answers"]
    assert failing.status == FAIL and "kernel driver is not loaded" in failing.hint


def test_no_cli_but_a_card_on_the_bus_warns():
    check = by_id(checks_from(healthy(cli_name=None, pci_vendors=["Moore Threads"])))["cli.answers"]
    assert check.status == WARN and "Moore Threads" in check.evidence


def test_torch_missing():
    check = by_id(checks_from(healthy(probe={"torch_error": "ModuleNotFoundError: No module named 'torch'"})))[
        "torch.imports"]
    assert check.status == FAIL and "PyTorch is not installed" in check.hint


def test_broken_vendor_extension_warns():
    probe = gpu_probe()
    probe["extensions"] = {"torch_musa": "ImportError: undefined symbol: _ZN3c104impl"}
    check = by_id(checks_from(healthy(probe=probe)))["torch.imports"]
    assert check.status == WARN and "does not match this torch build" in check.hint


def test_probe_timeout_fails_torch_import_with_a_hint():
    check = by_id(checks_from(healthy(probe=None, probe_error="torch probe: python did not answer within 120 s (timed out, killed)")))[
        "torch.imports"]
    assert check.status == FAIL and "wedged" in check.hint


def test_disk_space_bounds():
    low = by_id(checks_from(healthy(disk_free_bytes=5 * 2**30)))["disk.free"]
    assert low.status == WARN and "warn below 20 GiB" in low.evidence
    full = by_id(checks_from(healthy(disk_free_bytes=2**29)))["disk.free"]
    assert full.status == FAIL and full.hint


def test_tensorflow_outcomes():
    c = lambda **kw: by_id(checks_from(healthy(tf_installed=True, **kw)))["tensorflow.sees_device"]
    assert c(tf={"tensorflow": "2.17.0", "tensorflow_gpus": ["/physical_device:GPU:0"]}).status == PASS
    assert c(tf={"tensorflow": "2.17.0", "tensorflow_gpus": []}).status == WARN
    assert c(tf={"tensorflow_error": "ImportError: libcudart.so.12: cannot open"}).status == WARN


def test_gather_cli_counts_gpus_from_a_fake_nvidia_smi(tmp_path, monkeypatch):
    write_cli(tmp_path, "nvidia-smi", {"gpus": [{"name": "NVIDIA H100"}, {"name": "NVIDIA H100"}]})
    only_on_path(monkeypatch, tmp_path)
    facts = Facts()
    doctor.gather_cli(facts)
    assert facts.cli_ok and facts.cli_gpu_count == 2
    assert by_id(checks_from(facts))["cli.answers"].status == PASS


def test_gather_cli_times_out_a_hung_cli(tmp_path, monkeypatch):
    write_cli(tmp_path, "nvidia-smi", {"hang": True, "gpus": []})
    only_on_path(monkeypatch, tmp_path)
    facts = Facts()
    start = time.monotonic()
    doctor.gather_cli(facts, timeout=0.5)
    assert time.monotonic() - start < 5
    assert facts.cli_ok is False and "timed out" in facts.cli_error


def test_gather_nvml_with_a_fake_library():
    facts = Facts()
    doctor.gather_nvml(facts, module=FakeNvml([h100(0), h100(1)]))
    assert facts.nvml_ok and facts.nvml_count == 2 and facts.nvml_driver == "550.90.07"
    assert facts.nvml_errors == []
    facts = Facts()
    doctor.gather_nvml(facts, module=FakeNvml([], init_error=NVMLError_LibraryNotFound))
    assert facts.nvml_ok is False and "Library Not Found" in facts.nvml_error


def test_doctor_on_this_machine_prints_every_check_as_json():
    out = io.StringIO()
    code = command.main(as_json=True, out=out)
    rows = json.loads(out.getvalue())
    assert [(r["id"], r["name"]) for r in rows] == list(TITLES.items())
    assert all(set(r) == {"id", "name", "status", "evidence", "hint", "hint_id", "value", "unit", "said", "zh"} for r in rows)
    assert all(r["status"] in (PASS, WARN, FAIL, SKIP) for r in rows)
    by = {r["id"]: r for r in rows}
    if by["torch.imports"]["status"] == PASS:  # the child's own import time, carried as a number
        assert by["torch.imports"]["value"] > 0 and by["torch.imports"]["unit"] == "s"
    assert by["disk.free"]["value"] is not None and by["disk.free"]["unit"] == "GiB"
    assert code in (0, 1)  # which one is the machine's business; the rule itself is tested on fake facts


@pytest.mark.parametrize("facts, code", [
    (healthy(), 0),
    (healthy(probe=gpu_probe(init={"ok": True, "seconds": 45.0})), 0),             # a WARN is not a failure
    (healthy(cli_name=None, cli_ok=None, pci_vendors=[], nvml_ok=False, nvml_error="x", nvml_count=None,
             cli_gpu_count=None, probe=CPU_ONLY_PROBE), 0),                        # a CPU machine: SKIPs
    (healthy(probe=gpu_probe(autocast_bf16={"ok": False, "error": "no kernel image is available"})), 1),
    (healthy(probe=None, probe_error="torch probe: exit 139: Segmentation fault"), 1),
])
def test_main_exits_1_exactly_when_a_check_fails(monkeypatch, facts, code):
    monkeypatch.setattr(doctor_run, "gather", lambda **_kw: facts)
    text, as_json = io.StringIO(), io.StringIO()
    assert command.main(out=text) == code
    assert command.main(as_json=True, out=as_json) == code
    statuses = [r["status"] for r in json.loads(as_json.getvalue())]
    assert (FAIL in statuses) == (code == 1)
    assert text.getvalue().splitlines()[-1] == ", ".join(f"{statuses.count(s)} {s}" for s in (PASS, WARN, FAIL, SKIP))


def test_main_exits_130_when_interrupted(monkeypatch, capsys):
    def interrupted(**_kw):
        raise KeyboardInterrupt
    monkeypatch.setattr(doctor_run, "gather", interrupted)
    out = io.StringIO()
    assert command.main(out=out) == 130
    assert out.getvalue() == "" and "interrupted" in capsys.readouterr().err


def test_lookups_read_checks_their_dicts_and_a_doctor_json_from_before_ids():
    checks = checks_from(healthy(probe=gpu_probe(autocast_bf16={"ok": False, "error": "no kernel image"})))
    new = [c.to_dict() for c in checks]
    old = [{k: c[k] for k in ("name", "status", "evidence", "hint")} for c in new]  # a doctor.json written before ids
    for form in (checks, new, old, normalize_checks(old)):
        assert doctor.accelerator_seen(form) and doctor.best_autocast(form) == "fp16"
        assert doctor.check_value(form, "device.init") == 1.25
    assert doctor.check_value(old, "disk.free") is None  # only the init time was ever read out of the evidence
    assert cuda_init_from(normalize_checks(old))["seconds"] == 1.25 == cuda_init_from(normalize_checks(checks))["seconds"]
    assert [c["id"] for c in normalize_checks(old)] == list(TITLES)
    assert not doctor.accelerator_seen([]) and doctor.best_autocast([]) == "off"
    assert cuda_init_from([])["seconds"] is None


def test_render_puts_hints_under_their_check():
    text = command.render([DoctorCheck("a", PASS, "fine"), DoctorCheck("bb", FAIL, "broken", "do this")])
    assert "FAIL  bb  broken" in text and "hint: do this" in text and "1 PASS, 0 WARN, 1 FAIL, 0 SKIP" in text


def test_a_lost_gpu_fails_the_nvml_check_with_its_hint():
    facts = healthy()
    doctor.gather_nvml(facts, module=FakeNvml([h100(0), h100(1)], lost={1}))
    check = by_id(checks_from(facts))["nvml.loads"]
    assert check.status == FAIL and "GPU 1: GPU is lost" in check.evidence
    assert "fell off the bus" in check.hint


# every failure text the doctor can meet, and the start of the hint it must give
MAPPED = [
    ("management CLI lists GPUs but torch sees none", "this PyTorch does not match the driver"),
    ("RuntimeError: Found no NVIDIA driver on your system.", "this PyTorch does not match the driver"),
    ("RuntimeError: No CUDA GPUs are available", "this PyTorch does not match the driver"),
    ("AssertionError: Torch not compiled with CUDA enabled", "this PyTorch is a CPU-only build"),
    ("ModuleNotFoundError: No module named 'torch'", "PyTorch is not installed"),
    ("CUDA error: no kernel image is available for execution on the device", "the PyTorch build lacks code"),
    ("CUDA error: device kernel image is invalid", "the PyTorch build lacks code"),
    ("\"addmm_impl_cpu_\" not implemented for 'Half'", "an op is missing for that dtype"),
    ("\"upsample\" not implemented for 'BFloat16'", "an op is missing for that dtype"),
    ("CUDA error: no CUDA-capable device is detected", "no device is visible to this process"),
    ("CUDA_VISIBLE_DEVICES hides every device", "no device is visible to this process"),
    ("NVMLError_LibRmVersionMismatch: Driver/library version mismatch", "the kernel driver and its user-space library"),
    ("NVMLError_LibraryNotFound: NVML Shared Library Not Found", "libnvidia-ml.so is missing"),
    ("NVMLError_DriverNotLoaded: Driver Not Loaded", "the NVIDIA kernel driver is not loaded"),
    ("nvml: GPU 3: GPU is lost", "the GPU fell off the bus"),
    ("nvidia-smi did not answer within 5 s (timed out, killed)", "the tool hangs"),
    ("ImportError: torch_musa/_C.so: undefined symbol: _ZN3c10", "the vendor torch extension does not match"),
    ("OSError: [Errno 28] No space left on device", "the disk is full"),
    ("torch.OutOfMemoryError: CUDA out of memory.", "the device ran out of memory"),
]


@pytest.mark.parametrize("text, hint_start", MAPPED)
def test_each_mapped_failure_text_gets_its_hint(text, hint_start):
    hint = hint_for(text)
    assert hint is not None and hint.en.startswith(hint_start), (text, hint)
