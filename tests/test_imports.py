"""The layers hold: no import cycles, `workloads/` never imports `tui/`, only the UI imports Textual, only the
workloads import torch; and the UI process does not pay for torch while the headless paths do not load Textual.

The static checks read every module under tui/ and workloads/ with `ast` (nothing is executed), so an import
inside a function counts as much as one at the top: a lazy import still ties two layers together. What `ast`
cannot see (what a module really loads when imported) the subprocess test at the end checks.
"""
from __future__ import annotations

import ast
import subprocess
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import pytest

from paths import REPO

ROOT = REPO
PACKAGES = ("tui", "workloads")

TEXTUAL = ("textual", "textual_plotext", "plotext")
TORCH = ("torch", "torchvision")
# the only package that may import Textual (ARCHITECTURE.md: the workbench: app, panes, view-models, screenshot)
UI = ("tui.workbench",)
# entry points that start the UI (the workbench, or the headless export's off-screen screenshot): they may
# import a UI module; every other tui module is UI-free and must not reach Textual through one
UI_CALLERS = ("tui.cli", "tui.headless")

# Empty: no cycle is tolerated. An entry (a cycle allowed by exact membership, so one that grows still fails)
# is only for a cut in progress; the layer test warns once its cycle is gone.
KNOWN_CYCLES: dict[frozenset[str], str] = {}


@dataclass
class Import:
    line: int
    names: list[str]                 # dotted names as written, absolute (relative ones resolved)
    targets: list[str] = field(default_factory=list)   # the project modules it loads


@dataclass
class Module:
    name: str
    path: Path
    imports: list[Import]

    def external(self, tops: tuple[str, ...]) -> list[tuple[int, str]]:
        return [(i.line, n) for i in self.imports for n in i.names if n.split(".")[0] in tops]


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(name: str, modules: set[str]) -> str | None:
    """The project module that `import name` loads (a package stands for its __init__)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imports(tree: ast.AST, name: str, is_package: bool, modules: set[str]) -> list[Import]:
    package = name if is_package else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imp = Import(node.lineno, [a.name for a in node.names])
            imp.targets = [t for t in (_resolve(a.name, modules) for a in node.names) if t]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:   # relative: `from . import x` is x in this package, each more dot one package up
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            imp = Import(node.lineno, [base])
            # `from pkg import name`: the submodule pkg.name when there is one, else pkg's __init__
            imp.targets = [t for t in (f"{base}.{a.name}" if f"{base}.{a.name}" in modules else _resolve(base, modules)
                                       for a in node.names) if t]
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and (getattr(node.func, "attr", None) or getattr(node.func, "id", None)) in ("import_module",
                                                                                           "__import__")):
            # importlib.import_module("x") with a literal name is an import too
            imp = Import(node.lineno, [node.args[0].value])
            imp.targets = [t for t in [_resolve(node.args[0].value, modules)] if t]
        else:
            continue
        out.append(imp)
    return out


def read_modules(root: Path, packages: tuple[str, ...] = PACKAGES) -> dict[str, Module]:
    paths = {_module_name(root, p): p for pkg in packages for p in sorted((root / pkg).rglob("*.py"))}
    names = set(paths)
    return {name: Module(name, path, _imports(ast.parse(path.read_text(encoding="utf-8"), str(path)), name,
                                              path.name == "__init__.py", names))
            for name, path in paths.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with a cycle (Tarjan), each as one cycle path a -> ... -> a."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(v: str) -> None:   # recursion depth is bounded by the module count (a few hundred)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                components.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_path_through(graph, c) for c in components]


def _path_through(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """One cycle inside a component, from its first module back to it (breadth-first, so a short one)."""
    start = min(component)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & component):
                if w == start:
                    back = [v]
                    while back[-1] != start:
                        back.append(came_from[back[-1]])
                    return [*reversed(back), start]
                if w not in came_from:
                    came_from[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no cycle in {component}")


def _in(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _graph(modules: dict[str, Module]) -> dict[str, set[str]]:
    return {m.name: {t for i in m.imports for t in i.targets} for m in modules.values()}


def layer_problems(modules: dict[str, Module], known_cycles: Iterable[frozenset[str]] = ()) -> list[str]:
    """Every cycle (with its path) and every layer break, one line each; [] when the layers hold."""
    known_cycles = set(known_cycles)
    problems = []
    for cycle in _cycles(_graph(modules)):
        if frozenset(cycle) not in known_cycles:
            problems.append("import cycle: " + " -> ".join(cycle))
    for m in modules.values():
        in_workloads = _in(m.name, ("workloads",))
        if in_workloads:
            problems += [f"{m.name}:{line} imports {n}: workloads/ never imports tui/"
                         for line, n in m.external(("tui",))]
        else:
            problems += [f"{m.name}:{line} imports {n}: torch is imported only in workload children"
                         for line, n in m.external(TORCH)]
        if not _in(m.name, UI):
            problems += [f"{m.name}:{line} imports {n}: only {', '.join(UI)} imports Textual"
                         for line, n in m.external(TEXTUAL)]
        if not _in(m.name, UI + UI_CALLERS):
            problems += [f"{m.name}:{i.line} imports {t}: a UI-free module reaches Textual through it"
                         for i in m.imports for t in i.targets if _in(t, UI)]
        if _in(m.name, ("tui",)):
            problems += [f"{m.name}:{line} imports {n}: tui/ never imports workloads/child/"
                         for line, n in m.external(("workloads",)) if _in(n, ("workloads.child",))]
    return problems


def test_no_import_cycles_and_the_layers_hold():
    modules = read_modules(ROOT)
    assert {"tui.workbench.app", "tui.report", "workloads", "workloads.protocol"} <= set(modules)  # it read the tree
    problems = layer_problems(modules, KNOWN_CYCLES)
    assert problems == [], "\n".join(problems)
    for cycle in set(KNOWN_CYCLES) - {frozenset(c) for c in _cycles(_graph(modules))}:
        warnings.warn(f"the import cycle {sorted(cycle)} is cut: delete it from KNOWN_CYCLES", stacklevel=1)


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_checker_reports_a_planted_cycle_and_planted_layer_breaks(tmp_path):
    _write(tmp_path, {
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
        "workloads/__init__.py": "",
        "workloads/protocol.py": "import json\n",
        "workloads/runner.py": "from workloads import protocol\n\ndef r():\n    from tui.store import RunStore\n",
        "workloads/child.py": "import importlib\nimportlib.import_module('tui.store.live')\nimport torch\n",
        "tui/cli.py": "def check():\n    from workloads.child.harness import HELP_SHOWN\n",
    })
    problems = layer_problems(read_modules(tmp_path))
    assert sorted(problems) == sorted([
        "import cycle: tui.workbench.panes.plots -> tui.workbench.panes.series_plot -> tui.workbench.panes.plots",
        # the lazy import in a function closes the cycle the report once had
        "import cycle: tui.report -> tui.report.screen -> tui.workbench.app -> tui.report",
        "tui.report.screen:2 imports textual.app: only tui.workbench imports Textual",
        "tui.report.screen:3 imports tui.workbench.app: a UI-free module reaches Textual through it",
        "tui.workbench.history:2 imports torch: torch is imported only in workload children",
        "workloads.runner:4 imports tui.store: workloads/ never imports tui/",
        "workloads.child:2 imports tui.store.live: workloads/ never imports tui/",
        "tui.cli:2 imports workloads.child.harness: tui/ never imports workloads/child/",
    ])
    # allowing one cycle hides no other
    allowed = layer_problems(read_modules(tmp_path), {frozenset({"tui.workbench.panes.plots", "tui.workbench.panes.series_plot"})})
    assert [p for p in allowed if "cycle" in p] == ["import cycle: tui.report -> tui.report.screen -> tui.workbench.app -> tui.report"]


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


# String literals under tui/ equal to a workload's name that are not that workload: the argparse dest and the
# report's "command" key are the word, not the `command` workload; `cardbench soak` is the command's name. An entry
# is exact (module, literal): a new one anywhere else fails.
NOT_A_WORKLOAD = {
    ("tui.cli", "command"), ("tui.report.contents", "command"), ("tui.report.smi", "command"),
    ("tui.cli", "soak"),            # COMMAND_MODULES: the `cardbench soak` command's module
    ("tui.cli.soak", "soak"),   # the command's name, and the workload it starts (a known exception)
}


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def workload_literals(root: Path, names: Iterable[str], allowed: Iterable[tuple[str, str]] = ()) -> list[str]:
    """'module:line names workload' for each string literal under tui/ (docstrings aside) equal to one of ``names``."""
    names, allowed = set(names), set(allowed)
    found = []
    for path in sorted((root / "tui").rglob("*.py")):
        module = _module_name(root, path)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        docs = _docstrings(tree)
        found += [f"{module}:{node.lineno} names workload {node.value!r}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
                  and id(node) not in docs and (module, node.value) not in allowed]
    return sorted(found)


def test_no_tui_module_names_a_workload():
    from workloads import registry

    problems = workload_literals(ROOT, registry.names(), NOT_A_WORKLOAD)
    assert problems == [], "the suite and the workbench read the spec; a workload is never named in tui/:\n" + \
        "\n".join(problems)


def test_the_name_check_sees_literals_and_lets_docstrings_and_comments_be(tmp_path):
    _write(tmp_path, {
        "tui/__init__.py": '"""Runs opscan first."""\n',
        "tui/headless/plan.py": ('"""The plan (opscan first)."""\n# opscan runs first\n'
                                 'def names():\n    """opscan"""\n    return sorted(x, key=lambda n: n != "opscan")\n'),
        "tui/cli.py": 'SUB = "command"\nWHO = f"{x} opscan"\nTAKES = ("resnet50",)\n',
    })
    assert workload_literals(tmp_path, ["opscan", "resnet50", "command"], {("tui.cli", "command")}) == [
        "tui.cli:3 names workload 'resnet50'", "tui.headless.plan:5 names workload 'opscan'"]


# -- issue 23: one owner of the run directory, small modules, every module importable --------------------------

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
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            module = _module_name(root, path)
            if _in(module, OWNER):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            docs = _docstrings(tree)
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in docs:
                    continue
                for name in names:
                    if (node.value == name or node.value.endswith("/" + name)) and (module, name) not in allowed:
                        found.append(f"{module}:{node.lineno} spells {name!r}")
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


MAX_LINES = 400
# modules over MAX_LINES whose split is another change's (an entry that gets short warns, to be deleted)
KNOWN_LONG: dict[str, str] = {}


def long_modules(root: Path, limit: int = MAX_LINES) -> dict[str, int]:
    return {m.name: n for m in read_modules(root).values()
            if (n := len(m.path.read_text(encoding="utf-8").splitlines())) > limit}


def test_no_module_is_over_400_lines():
    found = long_modules(ROOT)
    problems = [f"{name}: {n} lines (split it by what it holds)" for name, n in sorted(found.items())
                if name not in KNOWN_LONG]
    assert problems == [], "\n".join(problems)
    for name in set(KNOWN_LONG) - set(found):
        warnings.warn(f"{name} is {MAX_LINES} lines or fewer now: delete it from KNOWN_LONG", stacklevel=1)


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
    modules = sorted(name for name in read_modules(ROOT) if not name.endswith("__main__"))
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
    "tui.report.bundle", "tui.report.redact", "zipfile", "torch", "msgspec", "tui.doctor", "tui.doctor.facts",
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
