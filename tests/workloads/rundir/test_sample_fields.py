"""A telemetry sample's field names are spelled once (workloads.rundir.sample_fields, issue 35 item 1): the typed
sample (tui.telemetry.sample) has an attribute of each name, and no module of workloads/ or tui/ spells a field's
name itself (they were spelt in eight modules, then in the report's and the workbench's readers)."""

import ast
import dataclasses

from paths import REPO

from tui.telemetry.sample import DeviceSample, HostSample, Sample
from workloads.rundir import sample_fields as f

HOME = "workloads/rundir/sample_fields.py"
PACKAGES = ("tui", "workloads")
# names that mean other things across the tree (an event's "t", a soak interval's "devices", a rated peak's
# "source", a doctor check's "name"...): a scan cannot tell those from a sample's key, so they are left out of it
# (the modules that read a sample by them take the constants all the same)
GENERIC = {f.T, f.DEVICES, f.HOST, f.ERRORS, f.SOURCES, f.INDEX, f.NAME, f.SOURCE, f.PROCESSES}
# module-level (or class-level) assignments whose strings may spell a field's word, and why
ASSIGNMENTS = {
    # nvidia-smi's own --query-gpu fields ("pstate", "driver_version"), each beside the DeviceSample attribute
    # it fills (a Python attribute of the typed sample, as sample.py's own are; the first test holds them together)
    ("tui/telemetry/smi_csv.py", "QUERY_FIELDS"),
    ("tui/telemetry/readers/hl_smi.py", "QUERY_FIELDS"),   # hl-smi's own -Q fields ("driver_version")
    ("tui/store/telemetry.py", "__slots__"),               # DeviceColumns' attributes, not a sample's keys
}
# (module, word) -> how many times it may spell the word elsewhere, with another meaning
COUNTED = {
    ("tui/telemetry/readers/hl_smi.py", "driver_version"): 1,   # hl-smi's column, read from its parsed row
    ("workloads/soak/verdict.py", "health"): 1,                 # a soak finding's kind
    ("tui/report/device_telemetry.py", "power_limit_w"): 1,     # DeviceStability's attribute (the report's key)
}


def _names(cls):
    return {field.name for field in dataclasses.fields(cls)}


def _words():
    return {value for key, value in vars(f).items() if key.isupper() and isinstance(value, str)}


def test_the_typed_sample_has_every_name():
    device, host, line = _names(DeviceSample), _names(HostSample), _names(Sample)
    assert set(f.READ_DEVICE) | set(f.COUNTERS) <= device
    assert set(f.READ_HOST) <= host
    assert {f.T, f.DEVICES, f.HOST, f.ERRORS, f.SOURCES} <= line
    assert _words() <= device | host | line, "a name in sample_fields that no typed sample has"
    sample = Sample(t=1.0, devices=(DeviceSample(index=0, power_w=80.0),), host=HostSample(cpu_pct=3.0)).to_dict()
    assert sample[f.T] == 1.0 and sample[f.DEVICES][0][f.POWER_W] == 80.0 and sample[f.HOST][f.CPU_PCT] == 3.0


def _exempt(tree: ast.Module, rel: str) -> set[int]:
    """The ids of the string constants inside the module's exempt assignments."""
    out: set[int] = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) \
            else []
        if any(isinstance(t, ast.Name) and (rel, t.id) in ASSIGNMENTS for t in targets):
            out |= {id(c) for c in ast.walk(node) if isinstance(c, ast.Constant)}
    return out


def _spelt(words: set[str]) -> list[str]:
    spelt, counts = [], {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            if rel == HOME:
                continue
            tree = ast.parse(path.read_text())
            exempt = _exempt(tree, rel)
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and node.value in words and id(node) not in exempt:
                    key = (rel, node.value)
                    counts[key] = counts.get(key, 0) + 1
                    if counts[key] > COUNTED.get(key, 0):
                        spelt.append(f"{rel}:{node.lineno} {node.value!r}")
    return spelt


def test_no_module_spells_a_field():
    spelt = _spelt(_words() - GENERIC)
    assert not spelt, f"a telemetry field spelt outside workloads.rundir.sample_fields (import its constant): {spelt}"


def test_the_exemptions_are_still_needed():
    """An exemption nothing uses any more goes (so it cannot hide a new spelling)."""
    words = _words() - GENERIC
    for rel, target in ASSIGNMENTS:
        tree = ast.parse((REPO / rel).read_text())
        assert any(isinstance(n, ast.Constant) and n.value in words and id(n) in _exempt(tree, rel)
                   for n in ast.walk(tree)), (rel, target)
    for (rel, word), n in COUNTED.items():
        tree = ast.parse((REPO / rel).read_text())
        assert sum(isinstance(c, ast.Constant) and c.value == word for c in ast.walk(tree)) >= n, (rel, word)
