"""The CPU trap (UI-free): work on the CPU while accelerators are listed, its words, the report's headline and filter."""

from __future__ import annotations

import types
from pathlib import Path

import pytest

from app_fakes import fake_sample
from catalogue_words import english_leaks
from tui.cpu_trap import (CODE, CpuTrap, asked_for_cpu, device_runs, headline, is_cpu, listed_in, requested_device,
                          view_of_checks, view_of_probe)
from tui.report.device_telemetry import stability
from tui.report.summary import summarize
from tui.store import RunRecord
from tui.telemetry.sample import DeviceSample, Sample
from workloads import protocol
from workloads.probe_report import ProbeDevice, ProbeReport
from zh_words import english_words

BLIND = [{"id": "cli.answers", "status": "PASS", "value": 2.0},
         {"id": "torch.sees_device", "status": "FAIL", "evidence": "management CLI/NVML/PCI see 2 accelerator(s), "
          "torch sees none", "hint": "this PyTorch does not match the driver: use the image's PyTorch"}]


def record(workload: str, device: str | None, args: list[str] = (), warned: int | None = None) -> RunRecord:
    events: list[protocol.Event] = []
    if device is not None:
        events.append(protocol.Start(t=1.0, workload=workload, device=device))
    if warned is not None:
        events.append(protocol.WorkloadWarning(t=1.5, message="runs on the CPU", code=CODE,
                                               extra={"accelerators": warned, "hint": "use the image's PyTorch"}))
    events += [protocol.Step(t=2.0, step=1, loss=1.0, throughput=10.0, unit="images/s"),
               protocol.End(t=3.0, status="ok")]
    return RunRecord(path=Path(f"runs/20260101-000000-{workload}-0001"), config={"workload": workload,
                     "args": list(args)}, events=events,
                     telemetry=[fake_sample(i, devices=2).to_dict() for i in range(3)])


def test_where_a_run_is_and_what_it_asked_for():
    assert is_cpu("cpu") and is_cpu("cpu (x86_64, 16 threads)") and not is_cpu("cuda:0 (NVIDIA H100)")
    assert not is_cpu(None) and not is_cpu("")
    assert requested_device(["--batch-size", "8"]) == "" and requested_device(["--device", "auto"]) == ""
    assert requested_device(["--device=CUDA:1"]) == "cuda:1"
    # after `--` the options are a user's command's own (`cardbench run command -- python train.py --device cpu`)
    assert requested_device(["--", "python", "train.py", "--device", "cpu"]) == ""
    assert asked_for_cpu(["--device", "cpu"]) and not asked_for_cpu(["--device", "cuda"]) and not asked_for_cpu(None)


def test_what_is_listed_apart_from_what_only_torch_reports():
    sample = Sample(t=0.0, devices=(
        DeviceSample(index=0, name="NVIDIA H100", source="nvml+nvidia-smi+torch"),
        DeviceSample(index=1, name="NVIDIA H100", source="nvidia-smi"),
        DeviceSample(index=2, name="Mystery", source="torch")))
    listed = listed_in(sample)
    assert (listed.count, listed.seen_by_torch) == (2, 2)
    assert listed.describe() == "the 2 accelerators NVML/nvidia-smi list (2x NVIDIA H100)"
    assert listed_in(sample.to_dict()) == listed and listed_in(sample.devices) == listed
    assert listed_in(None).count == 0 and listed_in({"devices": None}).count == 0
    assert listed_in([{"bus_id": "0000:3b:00.0", "source": "pci"}]).describe() == \
        "the 1 accelerator the PCI bus lists"


def test_what_torch_sees_from_the_probe_and_the_doctor():
    assert view_of_probe(None).sees is None
    assert view_of_probe(types.SimpleNamespace(done=False, result=None)).sees is None
    broken = ProbeReport(torch_error="No module named 'torch'")
    assert view_of_probe(broken).sees is None  # no torch: the run fails, it does not land on the CPU
    cpu_build = view_of_probe(types.SimpleNamespace(done=True, result=ProbeReport(torch="2.5.1")))
    assert cpu_build.sees is False and "CPU-only build" in cpu_build.evidence and "PyPI" in cpu_build.hint
    mismatch = view_of_probe(ProbeReport(torch="2.5.1", cuda="12.4"))
    assert mismatch.sees is False and "image's PyTorch" in mismatch.hint
    assert view_of_probe(ProbeReport(torch="2.5.1", cuda="12.4", devices=[ProbeDevice()])).sees is True
    assert view_of_checks(BLIND).sees is False and view_of_checks(BLIND).hint.startswith("this PyTorch")
    assert view_of_checks([{"id": "torch.sees_device", "status": "PASS"}]).sees is True
    assert view_of_checks([]).sees is None


def test_the_trap_warns_before_the_run_and_records_one_warning_in_it():
    trap = CpuTrap()
    assert trap.before_run("resnet50", []) is None  # nothing known yet
    trap.see_sample(fake_sample(0, devices=2))
    assert trap.before_run("resnet50", []) is None  # the probe has not answered: not known
    trap.see_probe(types.SimpleNamespace(done=True, result=ProbeReport(torch="2.5.1", cuda="12.4")))
    before = trap.before_run("resnet50", [])
    assert before.startswith("torch sees none of the 2 accelerators listed (2x NVIDIA H100 80GB HBM3): "
                             "resnet50 (device auto) would run on the CPU. Hint: ")
    assert "will fail" in trap.before_run("resnet50", ["--device", "cuda"])
    assert trap.before_run("resnet50", ["--device", "cpu"]) is None
    what, hint = trap.before_run_lines("resnet50", [])
    assert what == "torch sees NONE of the 2 listed cards: resnet50 would run on the CPU" and len(what) < 78
    assert hint.startswith("hint: this PyTorch does not match the driver") and "cardbench doctor" not in hint
    trap.start_run("resnet50", ["--batch-size", "64"])
    warning = trap.see_event(protocol.Start(workload="resnet50", device="cpu (x86_64, 16 threads)"))
    assert warning.code == CODE and warning.extra == {
        "workload": "resnet50", "device": "cpu (x86_64, 16 threads)", "accelerators": 2, "hint": warning.extra["hint"]}
    assert warning.message.startswith("resnet50 runs on the CPU (cpu (x86_64, 16 threads)), not on the 2 "
                                      "accelerators listed")
    assert trap.see_event(protocol.Step(step=1)) is None  # once per run
    assert trap.verdict().startswith("WARNING: resnet50 ran on the CPU")


def test_a_run_on_the_card_tells_torch_sees_it():
    trap = CpuTrap()
    trap.see_checks(BLIND)
    trap.start_run("generate", [])
    assert trap.see_event(protocol.Start(workload="generate", device="cuda:0 (NVIDIA H100)")) is None
    assert trap.view.sees is True and trap.before_run("resnet50", []) is None and trap.verdict() is None


def test_the_reports_headline_from_summaries_or_records():
    blind = [record("resnet50", "cpu (x86_64, 16 threads)", ["--batch-size", "8"], warned=2),
             record("generate", "cpu (x86_64, 16 threads)")]
    env_devices = fake_sample(0, devices=2).to_dict()
    for runs in (blind, [summarize(r) for r in blind]):
        line = headline(runs, env_devices, BLIND)
        assert line.startswith("WARNING: the workloads ran on the CPU, not on the 2 accelerators listed "
                               "(2x NVIDIA H100 80GB HBM3): torch sees none of them")
        assert "The doctor: management CLI/NVML/PCI see 2 accelerator(s), torch sees none." in line
        assert "Hint: this PyTorch does not match the driver" in line
    # the count and the hint from the runs' own warnings when the export saw no device
    assert "the 2 accelerators listed" in headline(blind[:1], None, None)
    assert "use the image's PyTorch" in headline(blind[:1], None, None)
    # one run on the card, one on the CPU
    mixed = headline([record("resnet50", "cpu"), record("generate", "cuda:0")], env_devices)
    assert mixed.startswith("WARNING: resnet50 ran on the CPU") and "(generate ran on cuda:0)" in mixed
    asked = headline([record("resnet50", "cpu", ["--device", "cpu"])], env_devices)
    assert asked.startswith("Note: the workloads ran on the CPU as asked")
    assert headline([record("resnet50", "cuda:0")], env_devices, BLIND) is None
    assert headline([record("resnet50", "cpu")], {"devices": []}, []) is None  # no card here: nothing to say


def test_the_reports_headline_in_chinese():
    blind = [record("resnet50", "cpu (x86_64, 16 threads)", ["--batch-size", "8"], warned=2),
             record("generate", "cpu (x86_64, 16 threads)")]
    env_devices = fake_sample(0, devices=2).to_dict()
    # the doctor's check without Chinese of its own: its evidence quoted, its hint translated by the report
    line = headline(blind, env_devices, BLIND, lang="zh", hint=lambda english: "请使用镜像自带的 PyTorch")
    assert line.startswith("警告：全部负载在 CPU 上运行，而不是在所列的 2 张加速卡（`2x NVIDIA H100 80GB HBM3`）上：")
    assert "环境检查：`management CLI/NVML/PCI see 2 accelerator(s), torch sees none`。" in line
    assert line.endswith("建议：请使用镜像自带的 PyTorch；`cardbench doctor` 会说明 torch 看到了什么以及原因。")
    assert english_words(line) == set()
    # with its own Chinese, the doctor's words; no translation of the hint at hand: the English, quoted
    own = [BLIND[0], {**BLIND[1], "zh": {"evidence": "管理工具看到 2 张加速卡，torch 一张也看不到", "hint": "换回镜像的 PyTorch"}}]
    line = headline(blind, env_devices, own, lang="zh")
    assert "环境检查：管理工具看到 2 张加速卡，torch 一张也看不到。" in line and "建议：换回镜像的 PyTorch；" in line
    assert "建议：`use the image's PyTorch`；" in headline(blind[:1], None, None, lang="zh")  # the run's own hint
    mixed = headline([record("resnet50", "cpu"), record("generate", "cuda:0")], env_devices, lang="zh")
    assert mixed.startswith("警告：ResNet-50 训练在 CPU 上运行") and "（GPT-2 token 生成在 `cuda:0` 上运行）" in mixed
    asked = headline([record("resnet50", "cpu", ["--device", "cpu"])], env_devices, lang="zh")
    assert asked.startswith("注意：负载按要求在 CPU 上运行（`--device cpu`）") and english_words(asked) == set()
    # no sentence of the catalogue in English, not even quoted: each part was said in Chinese (the doctor's check with
    # Chinese of its own; one from before checks carried it is quoted as it was, above), the hint by the catalogue
    for said in (line, mixed, asked, headline(blind[:1], env_devices, None, lang="zh")):
        assert english_leaks(said) == [], said
    assert headline([record("resnet50", "cuda:0")], env_devices, BLIND, lang="zh") is None


def test_stability_rows_only_from_runs_on_a_device():
    cpu, card, unknown = record("resnet50", "cpu"), record("generate", "cuda:0"), record("generate", None)
    assert device_runs([cpu, card, unknown]) == [card, unknown]
    assert stability(device_runs([cpu])) == []  # every run on the CPU: no card trained
    assert [d.samples for d in stability(device_runs([cpu, card]))] == [3, 3]
    assert device_runs([summarize(cpu), summarize(card)])[0].workload == "generate"


@pytest.mark.parametrize("device", ["cpu", "cpu (aarch64, 72 threads)"])
def test_alarm_lines_fit_a_banner(device):
    from tui.cpu_trap import alarm_lines

    trap = CpuTrap()
    trap.see_sample(fake_sample(0, devices=1))
    trap.start_run("resnet50", [])
    what, hint = alarm_lines(trap.see_event(protocol.Start(workload="resnet50", device=device)))
    assert what == "CPU ONLY: resnet50 runs on the CPU; the 1 listed card is NOT used" and len(what) < 78
    assert hint.startswith("torch sees none of them. hint: this PyTorch") and "cardbench doctor" not in hint


class _Collector:
    def __init__(self, sample, probe):
        self.sample, self.torch, self.closed = sample, probe, False

    def collect(self):
        return self.sample

    def close(self):
        self.closed = True


def test_check_before_run_asks_torch_only_when_a_card_is_listed():
    from tui.cpu_trap import check_before_run

    waited = []
    probe = types.SimpleNamespace(done=True, result=ProbeReport(torch="2.5.1", cuda="12.4"),
                                  wait=lambda timeout: waited.append(timeout) or True)
    blind = _Collector(fake_sample(0, devices=2), probe)
    trap = CpuTrap()
    line = check_before_run("resnet50", [], collector=blind, timeout=5, trap=trap)
    assert line.startswith("torch sees none of the 2 accelerators listed") and waited == [5]
    assert not blind.closed  # the caller's collector goes on into the run's sampler, its torch answer with it
    assert trap.listed.count == 2  # and the session's trap knows what the check saw
    bare = _Collector(fake_sample(0, devices=0), probe)
    assert check_before_run("resnet50", [], collector=bare) is None and waited == [5]  # no card: no torch import
    assert check_before_run("resnet50", ["--device", "cpu"], collector=blind) is None
    slow = types.SimpleNamespace(done=False, result=None, wait=lambda timeout: False)
    assert check_before_run("resnet50", [], collector=_Collector(fake_sample(0, devices=2), slow)) is None
