"""A busy host is said (issue 36 item 2): ResNet-50 read 6.4 images/s beside another job and 55-56 alone on the same
machine, and nothing said so. The sampler records the cores other processes used; a run whose samples show more than
half a core of them on average, or another process on its card, records a warning the log, report and compare read."""
from __future__ import annotations

import pytest

from collections import namedtuple

from tui.telemetry.other_cpu import OtherCpu
from tui.telemetry.sharing import OTHER_CPU_CORES_MAX, SHARED, Sharing, SharingWatch
from workloads import protocol


@pytest.fixture(autouse=True)
def _threshold_of_a_quiet_host(monkeypatch):
    """These tests judge sharing: the threshold a real host has, not the one the suite sets for every other test."""
    monkeypatch.delenv("CARDBENCH_SHARED_CORES", raising=False)


CpuTimes = namedtuple("CpuTimes", "user nice system idle iowait irq softirq steal guest guest_nice")
ProcTimes = namedtuple("ProcTimes", "user system children_user children_system")


class FakePsutil:
    """The host's busy seconds and our processes' seconds, moved by the test."""

    class Error(Exception):
        pass

    def __init__(self):
        self.host_busy, self.own = 0.0, {1: 0.0, 2: 0.0}

    def cpu_times(self):
        return CpuTimes(self.host_busy, 0.0, 0.0, 1000.0, 5.0, 0.0, 0.0, 3.0, 0.0, 0.0)

    def Process(self, pid):
        ps = self

        class P:
            def __init__(self, pid):
                self.pid = pid

            def children(self, recursive):
                return [P(p) for p in ps.own if p != self.pid]

            def cpu_times(self):
                return ProcTimes(ps.own[self.pid], 0.0, 0.0, 0.0)
        return P(pid)


def test_other_cpu_is_the_host_s_busy_time_less_cardbench_s_own_tree(monkeypatch):
    ps, clock = FakePsutil(), [100.0]
    monkeypatch.setattr("tui.telemetry.other_cpu.time.monotonic", lambda: clock[0])
    other = OtherCpu(root=1, psutil=ps)
    assert other.read() is None                       # the first read has nothing to compare with
    clock[0] += 1.0
    ps.host_busy += 2.0                               # two cores busy for a second...
    ps.own[1] += 0.2
    ps.own[2] += 0.9                                  # ...1.1 of them ours (cardbench and its workload child)
    assert other.read() == 0.9
    clock[0] += 2.0
    ps.host_busy += 1.0                               # only our child worked: nobody else
    ps.own[2] += 1.0
    assert other.read() == 0.0


def _timed_watch() -> SharingWatch:
    """A watch over a run that timed a step: sharing can spoil its figures."""
    watch = SharingWatch()
    watch.see_event(protocol.Step(step=1, throughput=1.0))
    return watch


def test_a_run_beside_another_job_is_shared_and_says_the_threshold():
    watch = _timed_watch()
    for cores in (1.6, 1.8, 2.0):
        watch.see({"host": {"other_cpu_cores": cores, "load1": 3.2, "cpu_count": 2}}, None)
    found = watch.verdict()
    assert found is not None and found.host_shared and found.other_cpu_cores == 1.8
    said = found.words()
    assert "1.8 CPU cores on average" in said and f"above {OTHER_CPU_CORES_MAX:g}" in said and "load average 3.2" in said
    assert "共享" in found.words("zh")
    event = found.warning()
    assert event.code == SHARED and "its figures read as noise" in event.message
    assert Sharing.of_event(event.to_dict()) == found


@pytest.mark.parametrize("metrics, timed", [({"model_size": "tiny", "fit_batch": 1, "largest_batch": 14}, False),
                                            ({"model_size": "tiny", "tg_tokens_per_s": 41.0}, True),
                                            ({"model_size": "tiny", "ttft_s": 0.2}, True),
                                            ({"tg_tokens_per_s": None}, False)])
def test_a_run_that_timed_nothing_has_no_figure_to_call_noise(metrics, timed):
    """`cardbench fit` / --fit-only on a busy host: a plan, nothing timed, so no sharing warning (a user saw one)."""
    watch = SharingWatch()
    watch.start("llm")
    for cores in (1.6, 1.8):
        watch.see({"host": {"other_cpu_cores": cores, "load1": 7.0, "cpu_count": 2}}, None)
    watch.see_event(protocol.Start(workload="llm"))
    watch.see_event(protocol.Result(metrics=metrics))
    assert (watch.verdict() is not None) == timed


def test_a_quiet_host_and_a_card_of_its_own_are_not_shared():
    watch = _timed_watch()
    for cores in (0.1, 0.9, 0.2):                       # a moment's burst: 0.4 on average
        watch.see({"host": {"other_cpu_cores": cores, "cpu_count": 8},
                   "devices": [{"index": 0, "processes": [[77, "python", 2**30, "cardbench resnet50"]]}]}, 0)
    assert watch.verdict() is None


def test_another_process_on_the_run_s_card_is_shared_and_named_once():
    watch = _timed_watch()
    for used in (2**30, 2 * 2**30):
        watch.see({"host": {"other_cpu_cores": 0.0},
                   "devices": [{"index": 1, "processes": [[4242, "python", used, "another container's process"]]},
                               {"index": 0, "processes": [[5, "other-card", 2**30]]}]}, 1)
    found = watch.verdict()
    assert found is not None and not found.host_shared
    assert found.card_processes == ("pid 4242 python (another container's process), 2.0 GiB",)
    assert "its card also ran pid 4242 python" in found.words()


def test_a_damaged_event_is_read_without_trusting_it():
    assert Sharing.of_event({"code": "other"}) is None
    odd = Sharing.of_event({"code": SHARED, "other_cpu_cores": "lots", "cpu_count": True, "processes": "x"})
    assert odd == Sharing()


def test_the_sampler_puts_other_processes_cpu_beside_the_host_s_reading(monkeypatch):
    from tui.telemetry import sampler as sampler_module
    from tui.telemetry.sample import HostSample, Sample

    class Collector:
        host = HostSample(cpu_count=2, load1=3.0)

        def collect(self):
            return Sample(t=1.0, host=self.host)

        def close(self):
            pass

    monkeypatch.setattr(sampler_module.OtherCpu, "read", lambda self: 1.25)
    collector = Collector()
    seen = []
    s = sampler_module.Sampler(collector=collector)
    s.set_sink(seen.append)
    s.poll()
    assert seen[-1]["host"]["other_cpu_cores"] == 1.25 and seen[-1]["host"]["load1"] == 3.0
    collector.host = HostSample()              # the host was not read: nothing is made up beside it
    s.poll()
    assert "other_cpu_cores" not in seen[-1]["host"]
