"""A telemetry sample's field names are spelled once (workloads.rundir.sample_fields, issue 35 item 1): the typed
sample (tui.telemetry.sample) has an attribute of each name, and no module of workloads/ or tui/store/ spells a
reading's name itself (they were spelt in eight modules)."""

import ast
import dataclasses

from paths import REPO

from tui.telemetry.sample import DeviceSample, HostSample, Sample
from workloads.rundir import sample_fields as f

HOME = "workloads/rundir/sample_fields.py"
# the modules that read a run's samples as dicts; the report's and the workbench's readers are still to come
CONVERTED = ("workloads", "tui/store")


def _names(cls):
    return {field.name for field in dataclasses.fields(cls)}


def test_the_typed_sample_has_every_name():
    device, host, line = _names(DeviceSample), _names(HostSample), _names(Sample)
    assert set(f.READ_DEVICE) | set(f.COUNTERS) <= device
    assert set(f.READ_HOST) <= host
    assert {f.T, f.DEVICES, f.HOST, f.ERRORS, f.SOURCES} <= line
    sample = Sample(t=1.0, devices=(DeviceSample(index=0, power_w=80.0),), host=HostSample(cpu_pct=3.0)).to_dict()
    assert sample[f.T] == 1.0 and sample[f.DEVICES][0][f.POWER_W] == 80.0 and sample[f.HOST][f.CPU_PCT] == 3.0


def test_no_converted_module_spells_a_reading():
    readings = set(f.FLOAT_FIELDS) | set(f.INT_FIELDS) | set(f.COUNTERS) | {f.THROTTLE_REASONS}
    spelt = []
    for package in CONVERTED:
        for path in sorted((REPO / package).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            if rel == HOME:
                continue
            spelt += [f"{rel}:{node.lineno} {node.value}" for node in ast.walk(ast.parse(path.read_text()))
                      if isinstance(node, ast.Constant) and node.value in readings]
    assert not spelt, f"a telemetry field spelt outside workloads.rundir.sample_fields: {spelt}"
