"""Whose processes hold a card: cardbench's own children, matched by pid or by memory, and other containers'."""

import os

from tui.telemetry.processes import NOT_SHOWN, OTHER_CONTAINER, OwnWorkload, attribute, attribute_device, card_index
from tui.telemetry.sample import DeviceProcess, DeviceSample, Sample

GIB = 2 ** 30
MIB = 2 ** 20


def proc_root(tmp_path, **pids):
    """A /proc with these pids and their comm names."""
    for pid, comm in pids.items():
        (tmp_path / pid.lstrip("p")).mkdir()
        (tmp_path / pid.lstrip("p") / "comm").write_text(comm + "\n")
    return str(tmp_path)


def card(index, *processes, **more):
    return DeviceSample(index=index, name="910B3", processes=tuple(DeviceProcess(*p) for p in processes), **more)


def test_in_a_container_the_own_child_is_found_by_memory_and_the_rest_is_another_containers(tmp_path):
    # npu-smi lists host pids with empty names; our resnet50 child is pid 42 here and reports 20 GiB reserved
    root = proc_root(tmp_path, p42="python")
    d = card(0, (913377, None, 20 * GIB + 600 * MIB), (913400, None, 30 * GIB), (913500, "", 3 * GIB))
    out = attribute_device(d, [OwnWorkload(42, "resnet50", 0, 20 * GIB)], proc_root=root, container=True)
    assert [p.owner for p in out.processes] == ["cardbench resnet50", OTHER_CONTAINER, OTHER_CONTAINER]
    assert [p[:3] for p in out.processes] == [p[:3] for p in d.processes]   # the tool's pids, names, memory


def test_on_a_bare_machine_the_child_is_named_by_its_pid_and_an_empty_name_read_from_proc(tmp_path):
    root = proc_root(tmp_path, p42="python", p77="Xorg")
    d = card(1, (42, "python", 5 * GIB), (77, None, 134 * MIB))
    out = attribute_device(d, [OwnWorkload(42, "generate", 1, 5 * GIB)], proc_root=root, container=False)
    assert [(p.pid, p.name, p.owner) for p in out.processes] == [(42, "python", "cardbench generate"),
                                                                  (77, "Xorg", None)]


def test_a_child_the_tool_does_not_list_is_added_with_what_it_reports_holding(tmp_path):
    # nvidia-smi inside a container: "No running processes found", though our child holds 12 GiB
    out = attribute_device(card(0), [OwnWorkload(42, "llm", 0, 12 * GIB)], proc_root=str(tmp_path), container=True)
    assert out.processes == (DeviceProcess(42, None, 12 * GIB, "cardbench llm"),)
    # an entry far above what the child holds is not the child's: both are said
    d = card(0, (913377, None, 40 * GIB))
    out = attribute_device(d, [OwnWorkload(42, "llm", 0, 12 * GIB)], proc_root=str(tmp_path), container=True)
    assert [p.owner for p in out.processes] == [OTHER_CONTAINER, "cardbench llm"]


def test_a_card_with_no_process_table_and_no_child_is_left_as_read(tmp_path):
    d = DeviceSample(index=0, processes=None)
    assert attribute_device(d, [OwnWorkload(42, "llm", 1, GIB)], proc_root=str(tmp_path)) is d
    s = Sample(t=1.0, devices=(d,))
    assert attribute(s, (), proc_root=str(tmp_path)) is s


def test_a_named_foreign_process_keeps_its_name_and_says_whose_it_is(tmp_path):
    d = card(0, (37656, "hlt_host_devmm_", 686 * MIB))
    (p,) = attribute_device(d, (), proc_root=str(tmp_path), container=True).processes
    assert (p.name, p.owner) == ("hlt_host_devmm_", OTHER_CONTAINER)
    # the owner travels with the sample (telemetry.jsonl) and back; a process without one stays three items
    again = DeviceSample.from_dict(attribute_device(d, (), proc_root=str(tmp_path), container=True).to_dict())
    assert again.processes == (p,) and d.to_dict()["processes"] == [[37656, "hlt_host_devmm_", 686 * MIB]]


def test_the_card_a_torch_device_is_follows_the_visible_devices_variable():
    # the device as a start event says it (workloads.child.device.describe)
    assert card_index("cuda:1 (NVIDIA H100 80GB HBM3)", {"CUDA_VISIBLE_DEVICES": "2,3"}) == 3
    assert card_index("cuda:1 (NVIDIA H100 80GB HBM3)", {}) == 1
    assert card_index("npu:0 (Ascend910B3)", {"ASCEND_RT_VISIBLE_DEVICES": "5"}) == 5
    assert card_index("cuda:0", {}) == 0 and card_index("cuda", {}) == 0
    assert card_index("cuda:0", {"CUDA_VISIBLE_DEVICES": "GPU-8f3c"}) is None   # a UUID: not guessed
    assert card_index("cpu (x86_64, 2 threads)", {}) is None and card_index("cpu", {}) is None
    assert card_index("", {}) is None and card_index("mps", {}) is None


def test_this_process_is_seen_in_the_real_proc():
    from tui.telemetry.processes import pid_here

    assert pid_here(os.getpid()) and not pid_here(None) and not pid_here(0)


def test_outside_a_container_a_pid_proc_does_not_show_is_not_called_another_containers(tmp_path):
    d = card(0, (37656, "python", 686 * MIB))
    (p,) = attribute_device(d, (), proc_root=str(tmp_path), container=False).processes
    assert p.owner == NOT_SHOWN


def test_a_container_is_told_by_its_runtimes_marks(tmp_path):
    from tui.telemetry.processes import in_container

    (tmp_path / "proc/1").mkdir(parents=True)
    (tmp_path / "proc/1/cgroup").write_text("0::/init.scope\n")
    assert not in_container(str(tmp_path))
    (tmp_path / "proc/1/cgroup").write_text("0::/kubepods/burstable/pod1/abc\n")
    in_container.cache_clear()
    assert in_container(str(tmp_path))
    (tmp_path / "proc/1/cgroup").write_text("0::/\n")
    (tmp_path / ".dockerenv").touch()
    in_container.cache_clear()
    assert in_container(str(tmp_path))
    in_container.cache_clear()
