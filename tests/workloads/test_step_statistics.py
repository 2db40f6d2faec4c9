"""One warm-up rule and one percentile for every "median after warm-up" and every p90 (issue 22.5): the report had
its own rule (the first tenth) beside the workloads' flags and the command workload's copy, and a percentile lived in
two places."""
import ast
import re

from paths import REPO
from workloads.step_statistics import default_warmup, percentile, split_warmup

HOME = "workloads/step_statistics.py"
# a copy another owner still has to switch to step_statistics.default_warmup: (file, function)
PENDING = {("workloads/command/progress.py", "warmup_of")}
_RULE_NAMES = re.compile(r"percentile|warmup_(of|steps|count)$|default_warmup")


def _flagged(step):
    return step[1]


def test_flagged_steps_are_warmup_wherever_they_fall_then_the_told_count_then_the_first_tenth():
    steps = [(i, i % 5 != 0) for i in range(1, 16)]          # a soak: three inner runs, four warm-up steps each
    assert split_warmup(steps, _flagged, told=1) == (12, [(5, False), (10, False), (15, False)])
    plain = [(i, False) for i in range(1, 31)]
    assert split_warmup(plain, _flagged, told=4)[0] == 4
    assert split_warmup(plain, _flagged, emits_warmup=False) == (0, plain)
    assert split_warmup(plain, _flagged) == (3, plain[3:])
    assert [default_warmup(n) for n in (0, 2, 3, 19, 20, 500)] == [0, 0, 1, 1, 2, 10]


def test_percentile_interpolates_and_missing_data_is_none():
    assert percentile([], 50) is None
    assert percentile([3.0], 99) == 3.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile(list(range(101)), 90) == 90
    assert percentile([4.0, None, float("nan"), 1.0], 50) == 2.5


def test_the_rule_and_the_percentile_are_defined_once():
    found = set()
    for package in ("tui", "workloads"):
        for path in sorted((REPO / package).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef) and _RULE_NAMES.search(node.name.lstrip("_")) and rel != HOME:
                    found.add((rel, node.name))
    assert found <= PENDING, f"a second copy of the warm-up rule or the percentile: {sorted(found - PENDING)}"
