"""bench/house_counts.py on a tiny planted tree: each of issue 35's counts sees what was planted, and only that."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from paths import REPO

SCRIPT = REPO / "bench" / "house_counts.py"

LONG_BODY = "".join(f"    x{i} = {i}\n" for i in range(61))          # 62 code lines with the def
TREE = {
    "workloads/__init__.py": ("from workloads.alpha.spec import SPEC as A\nfrom workloads.beta.spec import SPEC as B\n"
                              "from workloads.spec import WorkloadSpec\n"),
    "workloads/spec.py": "class WorkloadSpec:\n    pass\n",
    "workloads/models/__init__.py": "",
    "workloads/models/gpt2.py": "import torch\n",
    "workloads/alpha/__init__.py": "",
    "workloads/alpha/spec.py": 'TITLE = ("Alpha", "阿尔法")\n',
    "workloads/alpha/helper.py": "",
    # alpha's loop leans on beta's train, beta's train on alpha's helper: 2 imports between workloads and a
    # package cycle that is no module cycle
    "workloads/alpha/loop.py": "from workloads.models import gpt2\nfrom workloads.beta import train\n",
    "workloads/beta/__init__.py": "",
    "workloads/beta/spec.py": "",
    "workloads/beta/train.py": ("def run():\n    import torch\n    import json\n    from workloads.alpha import helper\n"
                                f"    return helper\n\n\ndef long():\n{LONG_BODY}"),
    "tui/__init__.py": "",
    "tui/i18n/__init__.py": 'WORDS = {"ok": "好"}\n',
    # a module cycle, and tui reaching into a workload past the registry
    "tui/a.py": "from tui import b\nfrom workloads.alpha.loop import x\n",
    "tui/b.py": ('from tui import a\n\n\ndef gib(n: int) -> str:\n    return f"{n / 2**30:.1f} GiB"\n\n\n'
                 'def shown(v):\n    return "N/A" if v is None else str(v)\n\n\n'
                 'def cell(v):\n    return v or "-"\n\n\nHINT = f"看 {a} 日志"\n'),
}


@pytest.fixture(scope="module")
def house_counts():
    spec = importlib.util.spec_from_file_location("house_counts", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def tree(tmp_path):
    for rel, text in TREE.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_each_count_sees_what_was_planted(house_counts, tree):
    figures = house_counts.counts(tree)
    assert figures["module_cycles"] == [["tui.a", "tui.b"]]
    assert figures["package_cycles"] == [["workloads.alpha", "workloads.beta"]]
    assert figures["workload_packages"] == ["workloads.alpha", "workloads.beta"]
    assert figures["imports_between_workloads"] == 2          # the models layer is no workload
    assert figures["imports_between_workloads_by_pair"] == {"workloads.alpha -> workloads.beta": 1,
                                                            "workloads.beta -> workloads.alpha": 1}
    assert figures["tui_imports_of_workloads"] == ["tui.a:2 imports workloads.alpha.loop"]
    assert figures["chinese_literals_outside_catalogue"] == 2   # the catalogue's own is not counted
    assert figures["chinese_literal_modules"] == {"tui.b": 1, "workloads.alpha.spec": 1}
    assert figures["functions_over_60_code_lines"] == {"workloads.beta.train:long": 62}
    assert "workloads.beta.train" not in figures["modules_under_30_code_lines"]
    assert "tui.a" in figures["modules_under_30_code_lines"] and "tui" not in figures["modules_under_30_code_lines"]
    assert figures["imports_inside_functions"] == 3
    assert figures["inside_functions_not_torch_textual_plotext"] == 2   # json and the other workload's helper
    assert figures["byte_formatters"] == ["tui.b:gib"]
    assert figures["missing_spellings"] == {"N/A": 1, "-": 1}


def test_the_script_prints_the_figures_as_text_and_as_json(tree):
    text = subprocess.run([sys.executable, str(SCRIPT), str(tree)], capture_output=True, text=True, check=True).stdout
    assert "module cycles: 1\n    tui.a <-> tui.b\n" in text
    assert "functions over 60 code lines: 1\n    workloads.beta.train:long: 62\n" in text
    out = subprocess.run([sys.executable, str(SCRIPT), str(tree), "--json"], capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out)["imports_between_workloads"] == 2


def test_the_before_and_after_table_puts_each_count_beside_its_own(tree, tmp_path_factory):
    before = tmp_path_factory.mktemp("before")
    for rel, text in TREE.items():
        if rel != "tui/a.py":                   # before, there was no cycle and no reach past the registry
            (before / rel).parent.mkdir(parents=True, exist_ok=True)
            (before / rel).write_text(text, encoding="utf-8")
    out = subprocess.run([sys.executable, str(SCRIPT), str(tree), "--before", str(before)], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert out[:2] == ["| count | before | after |", "|---|---:|---:|"]
    assert "| module cycles | 0 | 1 |" in out and "| tui/ imports of workload packages | 0 | 1 |" in out
    assert "| functions over 60 code lines | 1 | 1 |" in out
