"""The counts of issue 35 ("a house a newcomer can live in") for a source tree, before and after its pass.

    python bench/house_counts.py [ROOT] [--json | --before BASE]

ROOT is a checkout (default: this one); `--before BASE` prints a markdown table of BASE's counts beside ROOT's
(`mkdir /tmp/base && git archive 02e0438 tui workloads | tar -x -C /tmp/base` gives the tree before). The
tree is read with `ast` by tests/source_tree.py, the walker the structural tests use, so a figure here
and the rule that holds it count the same thing. Nothing in ROOT is imported or run.

- module cycles and package cycles, lazy imports counted (a tangle of modules or sibling packages that
  reach each other counts once, listed by its members);
- imports from one workload package into another (a workload package is one the registry in
  workloads/__init__.py names), and imports of a workload package from tui/ (tui/ reads specs through
  the registry);
- Chinese string literals outside the catalogue, and the modules that hold them;
- functions over 60 code lines, and modules under 30 code lines (__init__ and __main__ aside): code
  lines are those holding code, blank lines, comments and docstrings aside;
- the share of imports inside functions, and how many of those are not of torch, Textual or plotext;
- byte formatters: functions named for bytes or sizes that return text built with a byte unit;
- the spellings of a missing value (`N/A`, `n/a`, `-`) where code returns or substitutes one;
- the result figures a workload declares with a label (a `Metric(...)` in a spec before the typed results, a
  `figure(...)` field or a `Family(...)` in a result record after): every other key was named by its spelling.
"""
from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))   # the one walker of the tree is the tests' own

import source_tree as tree  # noqa: E402  (after the path it lives on)

LONG_FUNCTION = 60
SHORT_MODULE = 30
MISSING = ("N/A", "n/a", "-")
_BYTES_NAME = re.compile(r"bytes|size|(^|_)[kmgt]i?b$", re.IGNORECASE)
_BYTE_UNIT = re.compile(r"(?<![A-Za-z])[KMGTP]i?B(?![A-Za-z])")


def counts(root: Path) -> dict[str, Any]:
    """Every figure for the tree at ``root``, as plain data (the JSON output)."""
    modules = tree.read_tree(root)
    workloads = tree.workload_packages(modules)
    chinese = tree.chinese_literals(modules)
    long = tree.long_functions(modules, LONG_FUNCTION)
    short = sorted(m.name for m in modules.values() if m.code_lines < SHORT_MODULE
                   and not m.is_package and not m.name.endswith(".__main__"))
    imports = [i for m in modules.values() for i in m.imports]
    lazy = [i for i in imports if i.lazy]
    between = between_workloads(modules, workloads)
    from_tui = tui_imports_of_workloads(modules, workloads)
    return {
        "modules": len(modules),
        "module_cycles": [sorted(t) for t in tree.tangles(tree.module_graph(modules))],
        "package_cycles": [sorted(t) for t in tree.package_tangles(modules)],
        "workload_packages": sorted(workloads),
        "imports_between_workloads": len(between),
        "imports_between_workloads_by_pair": dict(sorted(Counter(f"{a} -> {b}" for a, b, _ in between).items())),
        "tui_imports_of_workloads": from_tui,
        "chinese_literals_outside_catalogue": len(chinese),
        "chinese_literal_modules": dict(sorted(Counter(m for m, _ in chinese).items())),
        "functions_over_60_code_lines": dict(sorted(long.items(), key=lambda kv: -kv[1])),
        "modules_under_30_code_lines": short,
        "imports": len(imports),
        "imports_inside_functions": len(lazy),
        "share_inside_functions": round(len(lazy) / len(imports), 3) if imports else 0.0,
        "inside_functions_not_torch_textual_plotext": sum(1 for i in lazy if not i.library()),
        "byte_formatters": byte_formatters(modules),
        "missing_spellings": missing_spellings(modules),
        "labelled_figures": labelled_figures(modules, workloads),
    }


def labelled_figures(modules: dict[str, tree.Module], workloads: set[str]) -> int:
    """The figures the workloads declare with a label: `Metric(...)` in a spec, `figure(...)` or `Family(...)` in a
    result record (a Metric listed twice, in the table and the glance, counts twice: it was written twice)."""
    found = 0
    for m in modules.values():
        if tree.workload_of(m.name, workloads) is None:
            continue
        for node in ast.walk(m.tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("Metric", "figure", "Family"):
                found += 1
    return found


def between_workloads(modules: dict[str, tree.Module], workloads: set[str]) -> list[tuple[str, str, str]]:
    """(from package, to package, 'module:line') for each import of one workload package's module by another's."""
    found = []
    for m in modules.values():
        own = tree.workload_of(m.name, workloads)
        if own is None:
            continue
        for i in m.imports:
            for other in sorted({tree.workload_of(t, workloads) for t in i.targets} - {own, None}):
                found.append((own, other, f"{m.name}:{i.line}"))
    return found


def tui_imports_of_workloads(modules: dict[str, tree.Module], workloads: set[str]) -> list[str]:
    """'module:line imports target' for each tui/ import of a workload package (the registry is the way in)."""
    return [f"{m.name}:{i.line} imports {t}" for m in modules.values() if tree.within(m.name, "tui")
            for i in m.imports for t in sorted(set(i.targets)) if tree.workload_of(t, workloads)]


def byte_formatters(modules: dict[str, tree.Module]) -> list[str]:
    """'module:function' for each function named for bytes or a size, returning str, that writes a byte unit."""
    found = []
    for m in modules.values():
        for node in ast.walk(m.tree):
            if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _BYTES_NAME.search(node.name)
                    and _returns_str(node) and any(_BYTE_UNIT.search(s) for s in _strings(node))):
                found.append(f"{m.name}:{node.name}")
    return sorted(found)


def _returns_str(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    ret = node.returns
    return (isinstance(ret, ast.Name) and ret.id == "str") or (isinstance(ret, ast.Constant) and ret.value == "str")


def _strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def missing_spellings(modules: dict[str, tree.Module]) -> dict[str, int]:
    """How often each spelling of a missing value is written where one is given for nothing: returned,
    the other branch of a conditional, the right of an `or`, a `.get` default, a parameter default."""
    found: Counter[str] = Counter()
    for m in modules.values():
        for node in ast.walk(m.tree):
            for value in _missing_positions(node):
                if isinstance(value, ast.Constant) and value.value in MISSING:
                    found[value.value] += 1
    return {s: found[s] for s in MISSING if found[s]}


def _missing_positions(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Return) and node.value is not None:
        return [node.value]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        return node.values[1:]
    if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "get" and len(node.args) == 2:
        return [node.args[1]]
    if isinstance(node, ast.arguments):
        return [*node.defaults, *(d for d in node.kw_defaults if d is not None)]
    return []


def render(figures: dict[str, Any]) -> str:
    """The figures as the lines a person reads (the issue's order)."""
    def listed(items: Any) -> str:
        return "".join(f"\n    {item}" for item in items)

    lines = [
        f"modules: {figures['modules']}",
        f"module cycles: {len(figures['module_cycles'])}" + listed(" <-> ".join(c) for c in figures["module_cycles"]),
        f"package cycles: {len(figures['package_cycles'])}" + listed(" <-> ".join(c) for c in figures["package_cycles"]),
        f"imports between workload packages: {figures['imports_between_workloads']}"
        + listed(f"{pair}: {n}" for pair, n in figures["imports_between_workloads_by_pair"].items()),
        f"tui/ imports of workload packages: {len(figures['tui_imports_of_workloads'])}"
        + listed(figures["tui_imports_of_workloads"]),
        f"Chinese literals outside the catalogue: {figures['chinese_literals_outside_catalogue']} in "
        f"{len(figures['chinese_literal_modules'])} modules"
        + listed(f"{m}: {n}" for m, n in figures["chinese_literal_modules"].items()),
        f"functions over {LONG_FUNCTION} code lines: {len(figures['functions_over_60_code_lines'])}"
        + listed(f"{f}: {n}" for f, n in figures["functions_over_60_code_lines"].items()),
        f"modules under {SHORT_MODULE} code lines: {len(figures['modules_under_30_code_lines'])}",
        f"imports inside functions: {figures['imports_inside_functions']} of {figures['imports']} "
        f"({100 * figures['share_inside_functions']:.1f} %), "
        f"{figures['inside_functions_not_torch_textual_plotext']} of them not torch, Textual or plotext",
        f"byte formatters: {len(figures['byte_formatters'])}" + listed(figures["byte_formatters"]),
        f"spellings of missing: {len(figures['missing_spellings'])}"
        + listed(f"{s!r}: {n}" for s, n in figures["missing_spellings"].items()),
        f"result figures declared with a label: {figures.get('labelled_figures', 0)}",
    ]
    return "\n".join(lines)


def scalars(figures: dict[str, Any]) -> dict[str, Any]:
    """Each count as one number (a list by its length), named as the issue's closing table names it."""
    return {
        "module cycles": len(figures["module_cycles"]),
        "package cycles": len(figures["package_cycles"]),
        "imports between workload packages": figures["imports_between_workloads"],
        "tui/ imports of workload packages": len(figures["tui_imports_of_workloads"]),
        "Chinese literals outside the catalogue": figures["chinese_literals_outside_catalogue"],
        "modules holding them": len(figures["chinese_literal_modules"]),
        f"functions over {LONG_FUNCTION} code lines": len(figures["functions_over_60_code_lines"]),
        f"modules under {SHORT_MODULE} code lines": len(figures["modules_under_30_code_lines"]),
        "imports inside functions": f"{100 * figures['share_inside_functions']:.1f} %",
        "of them not torch, Textual or plotext": figures["inside_functions_not_torch_textual_plotext"],
        "byte formatters": len(figures["byte_formatters"]),
        "spellings of missing": len(figures["missing_spellings"]),
        "result figures declared with a label": figures.get("labelled_figures", 0),
    }


def table(before: dict[str, Any], after: dict[str, Any]) -> str:
    """A markdown table of the counts before and after."""
    old, new = scalars(before), scalars(after)
    rows = ["| count | before | after |", "|---|---:|---:|"]
    return "\n".join(rows + [f"| {name} | {old[name]} | {new[name]} |" for name in new])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Issue 35's counts for a source tree.")
    parser.add_argument("root", nargs="?", type=Path, default=REPO, help="a checkout (default: this one)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--before", type=Path, metavar="BASE",
                        help="another checkout (the tree before): print a markdown table of both trees' counts")
    args = parser.parse_args(argv)
    figures = counts(args.root.resolve())
    if args.before is not None:
        print(table(counts(args.before.resolve()), figures))
    else:
        print(json.dumps(figures, indent=2) if args.json else render(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
