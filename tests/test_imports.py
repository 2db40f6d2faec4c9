"""The house rules that the tree's shape must hold, read from tests/source_tree.py's one `ast` walk (nothing is
executed, so an import inside a function counts as much as one at the top: a lazy import still ties two modules):

- no import cycle between modules, and none between packages (sibling packages whose modules import each other);
- `workloads/` never imports `tui/`; only the workloads import torch; only the workbench imports Textual;
  `tui/` never imports `workloads/child/`;
- no workload package imports another's, and `tui/` imports none (it reads specs through the registry);
- no function over 60 code lines; no Chinese literal outside the catalogue.

Where today's tree still breaks a rule, an entry of a KNOWN_... list names the break and who removes it: a
new break fails, and an entry whose break is gone warns, to be deleted. What `ast` cannot see (what a module
really loads when imported) the subprocess tests at the end check.
"""
from __future__ import annotations

import functools
import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path
from typing import Iterable, Mapping

import pytest

from paths import REPO
from source_tree import (CATALOGUE, DEVICE_TABLE, Module, chinese_literals, device_module_reaches, long_functions,
                         module_graph, package_graph, package_tangles, path_through, read_tree, tangles, within,
                         workload_of, workload_packages)

ROOT = REPO
LONG_FUNCTION = 60

TEXTUAL = ("textual", "textual_plotext", "plotext")
TORCH = ("torch", "torchvision")
# the only package that may import Textual (ARCHITECTURE.md: the workbench: app, panes, view-models, screenshot)
UI = ("tui.workbench",)
# entry points that start the UI (the workbench, or the headless export's off-screen screenshot): they may
# import a UI module; every other tui module is UI-free and must not reach Textual through one
UI_CALLERS = ("tui.cli", "tui.headless")
REGISTRY = "workloads"  # workloads/__init__.py: one line per workload, naming its spec

# Cycles, by their members (one that grows still fails). Empty: no module cycle is tolerated.
KNOWN_MODULE_CYCLES: dict[frozenset[str], str] = {}
KNOWN_PACKAGE_CYCLES: dict[frozenset[str], str] = {}

# (importing module, imported module) from one workload package into another's; each goes to a shared layer
KNOWN_WORKLOAD_IMPORTS: dict[tuple[str, str], str] = {}
# (tui module, workload module) where tui/ reaches into a workload's package instead of its spec
KNOWN_TUI_WORKLOAD_IMPORTS: dict[tuple[str, str], str] = {}
# 'module:function' over LONG_FUNCTION code lines
KNOWN_LONG_FUNCTIONS: dict[str, str] = {}
# module -> how many Chinese literals it still holds (more fails); the catalogue owns them all in the end
KNOWN_CHINESE: dict[str, int] = {}


@functools.cache
def the_tree() -> dict[str, Module]:
    """This checkout's tree, read once for all the tests here (none of them changes it)."""
    return read_tree(ROOT)


def _warn_gone(what: str, entries: Iterable[object], table: str) -> None:
    for entry in sorted(entries, key=str):
        warnings.warn(f"{what} {entry} is gone: delete it from {table}", stacklevel=2)


# -- cycles -------------------------------------------------------------------------------------------------

def cycle_problems(modules: dict[str, Module], known_modules: Iterable[frozenset[str]] = (),
                   known_packages: Iterable[frozenset[str]] = ()) -> list[str]:
    """A line for each tangle of modules and of packages that is not known by its members (so a known one that
    grows fails), with one cycle through it and the other members."""
    return sorted([*_unknown("import", module_graph(modules), tangles(module_graph(modules)), known_modules),
                   *_unknown("package", package_graph(modules), package_tangles(modules), known_packages)])


def _unknown(kind: str, graph: dict[str, set[str]], found: Iterable[frozenset[str]],
             known: Iterable[frozenset[str]]) -> list[str]:
    problems = []
    for tangle in set(found) - set(known):
        path = path_through(graph, tangle)
        rest = sorted(tangle - set(path))
        problems.append(f"{kind} cycle: {' -> '.join(path)}" + (f" (tangled with {', '.join(rest)})" if rest else ""))
    return problems


def test_no_module_cycle_and_no_package_cycle():
    modules = the_tree()
    assert {"tui.workbench.app", "tui.report", "workloads", "workloads.protocol"} <= set(modules)  # it read the tree
    problems = cycle_problems(modules, KNOWN_MODULE_CYCLES, KNOWN_PACKAGE_CYCLES)
    assert problems == [], "\n".join(problems)
    _warn_gone("the import cycle", set(KNOWN_MODULE_CYCLES) - set(tangles(module_graph(modules))),
               "KNOWN_MODULE_CYCLES")
    _warn_gone("the package cycle", set(KNOWN_PACKAGE_CYCLES) - set(package_tangles(modules)),
               "KNOWN_PACKAGE_CYCLES")


# -- layers ---------------------------------------------------------------------------------------------------

def layer_problems(modules: dict[str, Module]) -> list[str]:
    """Every layer break, one line each; [] when the layers hold."""
    problems = []
    for m in modules.values():
        if within(m.name, "workloads"):
            problems += [f"{m.name}:{line} imports {n}: workloads/ never imports tui/"
                         for line, n in m.external(("tui",))]
        else:
            problems += [f"{m.name}:{line} imports {n}: torch is imported only in workload children"
                         for line, n in m.external(TORCH)]
        if not within(m.name, UI):
            problems += [f"{m.name}:{line} imports {n}: only {', '.join(UI)} imports Textual"
                         for line, n in m.external(TEXTUAL)]
        if not within(m.name, UI + UI_CALLERS):
            problems += [f"{m.name}:{i.line} imports {t}: a UI-free module reaches Textual through it"
                         for i in m.imports for t in i.targets if within(t, UI)]
        if within(m.name, "tui"):
            problems += [f"{m.name}:{line} imports {n}: tui/ never imports workloads/child/"
                         for line, n in m.external(("workloads",)) if within(n, "workloads.child")]
    return problems


def test_the_layers_hold():
    problems = layer_problems(the_tree())
    assert problems == [], "\n".join(problems)


def workload_imports(modules: dict[str, Module]) -> dict[tuple[str, str], str]:
    """(importer, imported) -> 'module:line imports target: why not' for each import of a workload package's module
    by another workload's, by a shared layer of workloads/ (models, child, facts...: what workloads share imports none
    of them), or by tui/ (which reads a workload's spec through the registry)."""
    workloads = workload_packages(modules)
    found = {}
    for m in modules.values():
        own = workload_of(m.name, workloads)
        for i in m.imports:
            for t in i.targets:
                other = workload_of(t, workloads)
                shared = within(m.name, "workloads") and m.name != REGISTRY
                if other is None or other == own or not (own or shared or within(m.name, "tui")):
                    continue
                why = ("no workload imports another's" if own else
                       "a shared layer imports no workload" if shared else
                       "tui/ reads a workload's spec through workloads.registry")
                found.setdefault((m.name, t), f"{m.name}:{i.line} imports {t}: {why}")
    return found


def test_no_workload_package_imports_another_and_tui_reads_only_the_registry():
    found = workload_imports(the_tree())
    known = {**KNOWN_WORKLOAD_IMPORTS, **KNOWN_TUI_WORKLOAD_IMPORTS}
    problems = [line for pair, line in sorted(found.items()) if pair not in known]
    assert problems == [], "a shared part goes to a layer of its own (workloads/models, child/train, facts):\n" + \
        "\n".join(problems)
    _warn_gone("the import", set(KNOWN_WORKLOAD_IMPORTS) - set(found), "KNOWN_WORKLOAD_IMPORTS")
    _warn_gone("the import", set(KNOWN_TUI_WORKLOAD_IMPORTS) - set(found), "KNOWN_TUI_WORKLOAD_IMPORTS")


# -- size and words ---------------------------------------------------------------------------------------------

def test_no_function_is_over_60_code_lines():
    found = long_functions(the_tree(), LONG_FUNCTION)
    problems = [f"{name}: {n} code lines (a function does one step)" for name, n in sorted(found.items())
                if name not in KNOWN_LONG_FUNCTIONS]
    assert problems == [], "\n".join(problems)
    _warn_gone("the long function", set(KNOWN_LONG_FUNCTIONS) - set(found), "KNOWN_LONG_FUNCTIONS")


def chinese_problems(modules: dict[str, Module], known: Mapping[str, int] = {}) -> list[str]:
    """A line for each module outside the catalogue holding more Chinese literals than ``known`` allows it."""
    counts = Counter(name for name, _ in chinese_literals(modules))
    return [f"{name}: {n} Chinese literal(s), {known.get(name, 0)} known (say it in {' or '.join(CATALOGUE)})"
            for name, n in sorted(counts.items()) if n > known.get(name, 0)]


def test_no_chinese_literal_outside_the_catalogue():
    modules = the_tree()
    problems = chinese_problems(modules, KNOWN_CHINESE)
    assert problems == [], "\n".join(problems)
    counts = Counter(name for name, _ in chinese_literals(modules))
    _warn_gone("every Chinese literal of", {m for m in KNOWN_CHINESE if not counts[m]}, "KNOWN_CHINESE")
    for name in sorted(m for m in KNOWN_CHINESE if 0 < counts[m] < KNOWN_CHINESE[m]):
        warnings.warn(f"{name} holds {counts[name]} Chinese literal(s): lower KNOWN_CHINESE to it", stacklevel=1)


# -- the checkers themselves, on planted trees ------------------------------------------------------------------

def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_checker_reports_planted_cycles_and_planted_layer_breaks(tmp_path):
    _write(tmp_path, files := {
        "tui/__init__.py": "",
        "tui/workbench/app.py": "import textual\nfrom tui.report import export\n",
        "tui/workbench/panes/__init__.py": "",
        "tui/workbench/panes/plots.py": "from textual.containers import Container\nfrom . import series_plot\n",
        # the cycle: plots -> series_plot (relative import above) -> plots
        "tui/workbench/panes/series_plot.py": "from tui.workbench.panes.plots import Line\n",
        "tui/report/__init__.py": "from tui.report import screen\n\ndef export():\n    pass\n",
        # a report module that reaches Textual and the app only when called
        "tui/report/screen.py": "def shot():\n    import textual.app\n    from tui.workbench.app import build_app\n",
        "tui/workbench/history.py": "def f():\n    import torch\n",
        # no module cycle, but the packages tui.store and tui.compare lean on each other
        "tui/store/__init__.py": "from tui.compare.load import x\n",
        "tui/compare/__init__.py": "",
        "tui/compare/load.py": "",
        "tui/compare/shape.py": "from tui.store import y\n",
        "workloads/__init__.py": "",
        "workloads/protocol.py": "import json\n",
        "workloads/runner.py": "from workloads import protocol\n\ndef r():\n    from tui.store import RunStore\n",
        "workloads/child.py": "import importlib\nimportlib.import_module('tui.store.live')\nimport torch\n",
        # a module loaded by a computed name (a table of names, as a command registry keeps) is imported too
        "tui/cli/__init__.py": ("import importlib\nCOMMANDS = {'doctor': 'tui.cli.doctor'}\n"
                                "def run(n):\n    importlib.import_module(COMMANDS[n])\n"),
        "tui/cli/doctor.py": "def check():\n    from workloads.child.harness import HELP_SHOWN\n    from tui.cli import x\n",
    })
    modules = read_tree(tmp_path)
    assert sorted(cycle_problems(modules)) == sorted([
        "import cycle: tui.workbench.panes.plots -> tui.workbench.panes.series_plot -> tui.workbench.panes.plots",
        # the lazy import in a function closes the cycle the report once had
        "import cycle: tui.report -> tui.report.screen -> tui.workbench.app -> tui.report",
        "import cycle: tui.cli -> tui.cli.doctor -> tui.cli",
        "package cycle: tui.compare -> tui.store -> tui.compare",
        "package cycle: tui.report -> tui.workbench -> tui.report",
        # the layer breaks below tie the two top packages together too
        "package cycle: tui -> workloads -> tui",
    ])
    assert sorted(layer_problems(modules)) == sorted([
        "tui.report.screen:2 imports textual.app: only tui.workbench imports Textual",
        "tui.report.screen:3 imports tui.workbench.app: a UI-free module reaches Textual through it",
        "tui.workbench.history:2 imports torch: torch is imported only in workload children",
        "workloads.runner:4 imports tui.store: workloads/ never imports tui/",
        "workloads.child:2 imports tui.store.live: workloads/ never imports tui/",
        "tui.cli.doctor:2 imports workloads.child.harness: tui/ never imports workloads/child/",
    ])
    # a known tangle that grows is a new one
    grown = {**files, "tui/workbench/panes/other.py": "from tui.workbench.panes import plots\n",
             "tui/workbench/panes/series_plot.py": "from tui.workbench.panes.plots import Line\nimport tui.workbench.panes.other\n"}
    _write(tmp_path, grown)
    assert [p for p in cycle_problems(read_tree(tmp_path), {frozenset({"tui.workbench.panes.plots",
                                                                       "tui.workbench.panes.series_plot"})})
            if "panes" in p] == [
        "import cycle: tui.workbench.panes.other -> tui.workbench.panes.plots -> tui.workbench.panes.series_plot -> "
        "tui.workbench.panes.other"]
    _write(tmp_path, files)
    # allowing one cycle hides no other
    allowed = cycle_problems(modules, {frozenset({"tui.workbench.panes.plots", "tui.workbench.panes.series_plot"})},
                             {frozenset({"tui.compare", "tui.store"})})
    assert sorted(allowed) == ["import cycle: tui.cli -> tui.cli.doctor -> tui.cli",
                               "import cycle: tui.report -> tui.report.screen -> tui.workbench.app -> tui.report",
                               "package cycle: tui -> workloads -> tui",
                               "package cycle: tui.report -> tui.workbench -> tui.report"]


def test_the_checker_reports_workloads_leaning_on_each_other_and_tui_reaching_past_the_registry(tmp_path):
    _write(tmp_path, {
        "workloads/__init__.py": "from workloads.alpha.spec import SPEC as A\nfrom workloads.beta.spec import SPEC as B\n",
        "workloads/spec.py": "", "workloads/models/__init__.py": "",
        "workloads/models/gpt2.py": "from workloads.beta import train\n",   # a shared layer leaning on a workload
        "workloads/alpha/__init__.py": "", "workloads/alpha/spec.py": "", "workloads/alpha/loop.py": "",
        "workloads/beta/__init__.py": "", "workloads/beta/spec.py": "from workloads.spec import WorkloadSpec\n",
        # a shared layer (models) is fine; alpha's loop is not
        "workloads/beta/train.py": "from workloads.models import gpt2\n\ndef run():\n    from workloads.alpha import loop\n",
        "tui/__init__.py": "", "tui/cli.py": "from workloads import registry\nfrom workloads.alpha.loop import x\n",
    })
    assert sorted(workload_imports(read_tree(tmp_path)).values()) == [
        "tui.cli:2 imports workloads.alpha.loop: tui/ reads a workload's spec through workloads.registry",
        "workloads.beta.train:4 imports workloads.alpha.loop: no workload imports another's",
        "workloads.models.gpt2:1 imports workloads.beta.train: a shared layer imports no workload",
    ]


def test_the_size_and_word_checks_count_code_lines_and_chinese_outside_the_catalogue(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(60))
    _write(tmp_path, {
        # 61 code lines with the def, padded with a docstring, comments and blank lines that do not count
        "tui/long.py": f'def long():\n    """A docstring.\n\n    Of three lines."""\n    # why\n\n{body}',
        "tui/short.py": "def fine():\n" + "".join(body.splitlines(keepends=True)[1:]),   # 60: not over
        "tui/i18n/__init__.py": 'WORDS = {"ok": "好"}\n',
        "workloads/spec.py": '"""文档: a docstring is not a literal."""\nTITLE = ("Soak", "浸泡")\nHINT = f"看 {x} 日志"\n',
    })
    modules = read_tree(tmp_path)
    assert long_functions(modules, LONG_FUNCTION) == {"tui.long:long": 61}
    assert chinese_problems(modules) == [
        f"workloads.spec: 2 Chinese literal(s), 0 known (say it in {' or '.join(CATALOGUE)})"]
    assert chinese_problems(modules, {"workloads.spec": 2}) == []


def test_an_allowlist_entry_whose_break_is_gone_warns_by_name():
    with pytest.warns(UserWarning, match=r"the long function tui.gone:f is gone: delete it from KNOWN_LONG_FUNCTIONS"):
        _warn_gone("the long function", {"tui.gone:f"}, "KNOWN_LONG_FUNCTIONS")


# -- what a module really loads ----------------------------------------------------------------------------

CHECK = """
import sys, importlib
for name in {modules!r}:
    importlib.import_module(name)
heavy = sorted(m for m in ("torch", "textual", "torchvision") if m in sys.modules)
print(",".join(heavy))
"""


@pytest.mark.parametrize("modules", [
    ["tui"], ["workloads"], ["workloads.spec", "workloads.protocol", "workloads.hints"], ["workloads.runner"],
    ["workloads.child.harness"],
    ["tui.store", "tui.cli", "tui.cli.run"], ["tui.headless", "tui.report", "tui.report.screen"],
    ["tui.telemetry", "tui.doctor"], ["tui.workbench.history", "tui.workbench.launch", "tui.workbench.plot_lines"],
    # the screenshot module imports the app only when it draws, so the headless export can hold it for free
    ["tui.workbench.screenshot"],
])
def test_light_modules_load_neither_torch_nor_textual(modules):
    out = subprocess.run([sys.executable, "-c", CHECK.format(modules=modules)],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{modules} pulled in {out.stdout.strip()}"


# -- issue 23: one owner of the run directory, every module importable --------------------------------------

# a config.json that is not a run's: the trial's settings (~/.config/cardbench) and a Hugging Face checkpoint's
NOT_A_RUN_FILE = {("tui.trial.config", "config.json"), ("workloads.models.gpt2.config", "config.json"),
                  ("workloads.models.llama.hf_config", "config.json")}
OWNER = ("workloads.rundir",)


def run_file_literals(root: Path, names: Iterable[str], allowed: Iterable[tuple[str, str]] = ()) -> list[str]:
    """'module:line spells NAME' for each string literal under tui/ and workloads/ (docstrings aside, the run
    directory's own package aside) that is one of a run's file names, or a path ending in one ('*/run.log',
    an f-string's '/events.jsonl')."""
    names, allowed = set(names), set(allowed)
    found = []
    for module in read_tree(root).values():
        if within(module.name, OWNER):
            continue
        found += [f"{module.name}:{lit.line} spells {name!r}" for lit in module.literals for piece in lit.pieces()
                  for name in names if (piece == name or piece.endswith("/" + name))
                  and (module.name, name) not in allowed]
    return sorted(found)


def test_only_the_run_directory_package_spells_a_run_files_name():
    from workloads import rundir

    problems = run_file_literals(ROOT, rundir.FILES, NOT_A_RUN_FILE)
    assert problems == [], "a run's files are named in workloads/rundir (import the name from there):\n" + \
        "\n".join(problems)


def test_the_file_name_check_sees_literals_paths_and_f_strings(tmp_path):
    _write(tmp_path, {
        "tui/__init__.py": '"""Reads events.jsonl."""\n',
        "tui/report.py": 'X = "events.jsonl"\nY = f"logs/{i}/run.log"\nZ = "see run.log for more"\n',
        "tui/trial.py": 'P = "config.json"\n',
        "workloads/rundir/__init__.py": 'EVENTS = "events.jsonl"\n',
        "workloads/soak.py": 'G = root.glob("*/telemetry.jsonl")\n',
    })
    assert run_file_literals(tmp_path, ["events.jsonl", "run.log", "telemetry.jsonl", "config.json"],
                             {("tui.trial", "config.json")}) == [
        "tui.report:1 spells 'events.jsonl'", "tui.report:2 spells 'run.log'",
        "workloads.soak:1 spells 'telemetry.jsonl'"]


def test_device_modules_are_reached_only_through_the_table_of_device_types():
    """No ``torch.cuda`` anywhere in tui/ and workloads/, and no device module looked up by type outside the one
    table (workloads/child/device_types.py): every synchronise, memory reading, graph capture and backend is a
    row's, so an npu, mlu or musa run calls its own vendor's functions, never CUDA's by default."""
    problems = [f"{m.name}:{line} {code}" for m in the_tree().values() if m.name not in DEVICE_TABLE[:1]
                for line, code in device_module_reaches(m.tree)]
    assert problems == [], "reach a device's module through workloads.child.device (its table):\n" + \
        "\n".join(problems)


def test_the_device_module_check_sees_each_way_of_reaching_one():
    import ast

    planted = ("import torch\ntorch.cuda.synchronize()\nok = hasattr(torch.cuda, 'CUDAGraph')\n"
               "m = getattr(torch, device.type)\nn = getattr(torch, 'npu', None)\n"
               "d = getattr(torch, spec['dtype'])\nf = torch.float16\ntorch.backends.cuda.matmul.allow_tf32 = 1\n")
    assert [line for line, _code in device_module_reaches(ast.parse(planted))] == [2, 3, 4, 5]


EVERY = """
import importlib, sys, traceback
failed = []
for name in {modules!r}:
    try:
        importlib.import_module(name)
    except BaseException as exc:
        failed.append(f"{{name}}: {{type(exc).__name__}}: {{exc}}")
print("\\n".join(failed))
"""


def test_every_module_imports():
    """One child imports every module of tui/ and workloads/ (a move that left a stale import fails here, even
    in a module no other test loads); a module run as a script (__main__) is left out."""
    modules = sorted(name for name in the_tree() if not name.endswith("__main__"))
    assert len(modules) > 200
    out = subprocess.run([sys.executable, "-c", EVERY.format(modules=modules)], capture_output=True, text=True,
                         cwd=ROOT, timeout=240)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "", out.stdout


# the workbench's first frame needs none of these: each is imported where it is first used (the export, a run's
# report, the compare screen, the doctor, r/attach/D, the first run or sample, the fields and plots mounted just after
# the first frame). The bound is a first frame within 1.3x an empty Textual app's (bench/app_latency.py); this keeps
# what was made lazy lazy.
NOT_AT_START = (
    # the export's machinery, the telemetry decoder (msgspec and its types: made on the first read) and the doctor
    "tui.report.bundle", "tui.redact", "zipfile", "torch", "msgspec", "tui.doctor", "tui.doctor.facts",
    "tui.doctor.all_checks", "tui.workbench.panes.doctor", "tui.workbench.panes.export", "tui.workbench.view.export_runs", "tui.report",
    # the run store, the session and its runner, the history, the sampler, the CPU trap, the events' classes
    "tui.store", "tui.session", "workloads.runner", "tui.workbench.history", "tui.workbench.sampler", "tui.telemetry.sampler",
    "tui.cpu_trap", "workloads.protocol", "workloads.rundir.read", "tui.report.run_times",
    # runs in progress (r, attach, D) and the screens and fields shown after a key or the first frame
    "tui.store.live", "tui.store.follow", "psutil", "tui.detach", "tui.workbench.panes.live_runs", "tui.workbench.panes.confirm",
    "tui.workbench.panes.fields", "tui.workbench.panes.series_plot", "tui.workbench.plot_lines", "textual_plotext", "plotext",
    # the trial's clock and settings: read one refresh after the first frame (the banner is hidden without a trial)
    "tui.trial.clock", "tui.trial.config",
)

# the modules loaded when the workbench's first frame is out: the first on_ready handler is the subclass's, which
# Textual calls before the Workbench's own (which then builds the fields and plots); no sampler, so no torch probe
FIRST_FRAME = """
import sys
from tui.workbench.app import Workbench

class FirstFrame(Workbench):
    def on_ready(self):
        self.exit(sorted(m for m in {modules!r} if m in sys.modules))

print(FirstFrame(sys.argv[1], start_sampler=False).run(headless=True, size=(120, 36)))
"""


def test_the_workbench_module_leaves_the_export_s_machinery_for_the_first_export():
    check = f"import sys\nimport tui.workbench.app\nprint(sorted(m for m in {NOT_AT_START!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", f"importing tui.workbench.app pulled in {out.stdout.strip()}"


def test_the_workbench_s_first_frame_leaves_what_it_does_not_draw_for_later(tmp_path):
    out = subprocess.run([sys.executable, "-c", FIRST_FRAME.format(modules=NOT_AT_START), str(tmp_path)],
                         capture_output=True, text=True, cwd=ROOT, timeout=240)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]", f"the first frame pulled in {out.stdout.strip()}"
