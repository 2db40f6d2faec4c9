"""One `ast` walk of the source tree (tui/ and workloads/), read by every structural test and by
bench/house_counts.py, so a rule and its figure count the same thing.

Nothing is executed: each module is parsed once and described by its imports (those inside functions
too, marked lazy: a lazy import still ties two modules together), its functions with their code lines,
and its string literals. A code line is a line that holds code: blank lines, comment lines and
docstrings are not counted, so a function is measured by what a reader has to follow.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

PACKAGES = ("tui", "workloads")
# the one place Chinese text may be written: the catalogue (tui/i18n today, workloads/catalogue once the
# workloads emit message ids); a literal in any other module is a translation kept beside the code
CATALOGUE = ("tui.i18n", "workloads.catalogue")
# the heavy libraries an import may wait for inside a function (import cost; torch never in the UI process)
LAZY_LIBRARIES = ("torch", "torchvision", "textual", "textual_plotext", "plotext")
WORKLOADS_REGISTRY = "workloads"        # the module whose imports `workloads.NAME.spec` name the workloads

CJK = re.compile("[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
_NOT_CODE = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
             tokenize.ENCODING, tokenize.ENDMARKER}


@dataclass(frozen=True)
class Import:
    line: int
    names: tuple[str, ...]        # dotted names as written, made absolute (relative ones resolved)
    targets: tuple[str, ...]      # the project modules it loads
    lazy: bool                    # inside a function: runs when the function is first called

    def library(self) -> bool:
        """Whether every name it imports is one of the heavy libraries that may be imported lazily."""
        return all(within(n, LAZY_LIBRARIES) for n in self.names)


@dataclass(frozen=True)
class Function:
    name: str                     # qualified: Class.method, outer.inner
    line: int
    code_lines: int


@dataclass(frozen=True)
class Literal:
    line: int
    value: str                    # an f-string's text parts, joined
    parts: tuple[str, ...] = ()   # an f-string's text parts, each as written between its fields

    def pieces(self) -> tuple[str, ...]:
        return self.parts or (self.value,)


@dataclass
class Module:
    name: str
    path: Path
    is_package: bool              # an __init__.py
    imports: list[Import] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)
    literals: list[Literal] = field(default_factory=list)   # docstrings aside
    code_lines: int = 0
    tree: ast.Module | None = None

    @property
    def package(self) -> str:
        """The package the module belongs to: its own name for an __init__, else its folder's."""
        return self.name if self.is_package else self.name.rpartition(".")[0]

    def external(self, tops: tuple[str, ...]) -> list[tuple[int, str]]:
        """(line, name) of each imported name under one of the top-level packages ``tops``."""
        return [(i.line, n) for i in self.imports for n in i.names if n.split(".")[0] in tops]


def within(name: str, prefixes: tuple[str, ...] | str) -> bool:
    """Whether dotted ``name`` is one of ``prefixes`` or inside one."""
    prefixes = (prefixes,) if isinstance(prefixes, str) else prefixes
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def read_tree(root: Path, packages: tuple[str, ...] = PACKAGES) -> dict[str, Module]:
    """Every module under ``packages`` of ``root``, by dotted name."""
    paths = {module_name(root, p): p for pkg in packages for p in sorted((root / pkg).rglob("*.py"))}
    names = set(paths)
    return {name: _read_module(name, path, names) for name, path in paths.items()}


def _read_module(name: str, path: Path, names: set[str]) -> Module:
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text, str(path))
    module = Module(name, path, path.name == "__init__.py", tree=tree)
    docs = _docstrings(tree)
    code = _code_lines(text) - {line for node in docs for line in range(node.lineno, node.end_lineno + 1)}
    module.code_lines = len(code)
    walker = _Walker(module, names, code, {id(n) for n in docs})
    walker.visit(tree)
    if walker.by_name:   # import_module(NAMES[key]): each module name the module spells is an import it may make
        module.imports += [Import(lit.line, (lit.value,), (lit.value,), True) for lit in module.literals
                           if lit.value in names and lit.value != name]
    return module


def _docstrings(tree: ast.AST) -> list[ast.Constant]:
    return [node.body[0].value for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
            and isinstance(node.body[0].value.value, str)]


def _code_lines(text: str) -> set[int]:
    """The lines a token of code touches (a string over several lines touches each)."""
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type not in _NOT_CODE:
            lines.update(range(token.start[0], token.end[0] + 1))
    return lines


class _Walker(ast.NodeVisitor):
    """Fills a Module with its imports, functions and literals in one pass, knowing the enclosing scope."""

    def __init__(self, module: Module, names: set[str], code: set[int], docstrings: set[int]):
        self.module, self.names, self.code, self.docstrings = module, names, code, docstrings
        self.scope: list[str] = []            # enclosing classes and functions
        self.depth = 0                        # enclosing functions (and lambdas)
        self.by_name = False                  # an import_module whose name is computed

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        name = ".".join([*self.scope, node.name])
        # from the `def` line (its decorators are the caller's business) to its last line
        lines = sum(1 for line in range(node.lineno, node.end_lineno + 1) if line in self.code)
        self.module.functions.append(Function(name, node.lineno, lines))
        self.scope.append(node.name)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    def visit_Import(self, node: ast.Import) -> None:
        names = tuple(a.name for a in node.names)
        self._add(node, names, tuple(t for t in map(self._resolve, names) if t))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:   # relative: `from . import x` is x in this package, each more dot one package up
            parts = self.module.package.split(".")
            base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
        # `from pkg import name`: the submodule pkg.name when there is one, else pkg's __init__
        targets = (f"{base}.{a.name}" if f"{base}.{a.name}" in self.names else self._resolve(base)
                   for a in node.names)
        self._add(node, (base,), tuple(t for t in targets if t))

    def visit_Call(self, node: ast.Call) -> None:
        func = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
        if func in ("import_module", "__import__") and node.args:
            if isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                name = node.args[0].value   # importlib.import_module("x"): an import too
                self._add(node, (name,), tuple(t for t in [self._resolve(name)] if t))
            else:
                self.by_name = True
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and id(node) not in self.docstrings:
            self.module.literals.append(Literal(node.lineno, node.value))

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        """An f-string is one literal (its text parts joined); the expressions inside are walked as code."""
        parts = tuple(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
        self.module.literals.append(Literal(node.lineno, "".join(parts), parts))
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                self.visit(value.value)

    def _resolve(self, name: str) -> str | None:
        """The project module that `import name` loads (a package stands for its __init__)."""
        while name and name not in self.names:
            name = name.rpartition(".")[0]
        return name or None

    def _add(self, node: ast.AST, names: tuple[str, ...], targets: tuple[str, ...]) -> None:
        self.module.imports.append(Import(node.lineno, names, targets, self.depth > 0))


# -- the graphs and their cycles ----------------------------------------------------------------------------

def module_graph(modules: dict[str, Module]) -> dict[str, set[str]]:
    """module -> the project modules it imports (lazy imports counted)."""
    return {m.name: {t for i in m.imports for t in i.targets if t != m.name} for m in modules.values()}


def package_graph(modules: dict[str, Module]) -> dict[str, set[str]]:
    """package -> the packages its modules import, each import seen between the two siblings it crosses.

    An import from a.x.m into a.y.n ties the siblings a.x and a.y (children of a, whatever depth the two
    modules sit at); a top-level module such as tui/session.py is a sibling of its own. An import from a
    package into its own parent or child ties nothing here: a package that leans on its parent's modules
    is a hierarchy, and a real cycle through them is a module cycle, counted there. A package's __main__
    (`python -m tui.doctor`) is the command line's entry point, above every package, and ties nothing."""
    graph: dict[str, set[str]] = {}
    for m in modules.values():
        if m.name.endswith(".__main__"):   # an entry point: nothing imports it, so no cycle runs through it
            continue
        for t in {t for i in m.imports for t in i.targets}:
            pair = _siblings(m.name, t)
            if pair:
                graph.setdefault(pair[0], set()).add(pair[1])
                graph.setdefault(pair[1], set())
    return graph


def package_tangles(modules: dict[str, Module]) -> list[frozenset[str]]:
    """The tangles of `package_graph` that hold a package: one of sibling modules alone is a module cycle."""
    packages = {m.name for m in modules.values() if m.is_package}
    return [t for t in tangles(package_graph(modules)) if t & packages]


def _siblings(a: str, b: str) -> tuple[str, str] | None:
    """The two children of the deepest package holding both modules, or None when one holds the other."""
    pa, pb = a.split("."), b.split(".")
    common = 0
    while common < min(len(pa), len(pb)) and pa[common] == pb[common]:
        common += 1
    if common == len(pa) or common == len(pb):
        return None
    return ".".join(pa[:common + 1]), ".".join(pb[:common + 1])


def tangles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with a cycle (Tarjan): the nodes that reach each other. A tangle is
    counted once however many cycles run through it, and named by its members (an allowlist of one still
    fails when it grows)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[frozenset[str]] = []

    def visit(v: str) -> None:   # recursion depth is bounded by the module count (a few hundred)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
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
            if len(component) > 1 or v in graph.get(v, ()):
                components.append(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(components, key=sorted)


def path_through(graph: dict[str, set[str]], component: frozenset[str]) -> list[str]:
    """One cycle inside a tangle, from its first node back to it (breadth-first, so a short one)."""
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


# -- what the house rules read ------------------------------------------------------------------------------

def workload_packages(modules: dict[str, Module]) -> set[str]:
    """The workload packages, as the registry names them: each `workloads.NAME.spec` it imports."""
    registry = modules.get(WORKLOADS_REGISTRY)
    if registry is None:
        return set()
    return {".".join(t.split(".")[:2]) for i in registry.imports for t in i.targets
            if t.count(".") == 2 and t.endswith(".spec")}


def workload_of(name: str, workloads: set[str]) -> str | None:
    """The workload package a module belongs to, if any."""
    top = ".".join(name.split(".")[:2])
    return top if top in workloads else None


def is_spec(name: str, workloads: set[str]) -> bool:
    """A workload's spec: what tui/ reads (through the registry) to know a workload."""
    return workload_of(name, workloads) is not None and name.count(".") == 2 and name.endswith(".spec")


def chinese(text: str) -> bool:
    return CJK.search(text) is not None


def chinese_literals(modules: dict[str, Module], catalogue: tuple[str, ...] = CATALOGUE) -> list[tuple[str, int]]:
    """(module, line) of each string literal holding Chinese outside the catalogue."""
    return [(m.name, lit.line) for m in modules.values() if not within(m.name, catalogue)
            for lit in m.literals if chinese(lit.value)]


def long_functions(modules: dict[str, Module], limit: int = 60) -> dict[str, int]:
    """'module:Function' -> its code lines, for each function over ``limit`` code lines."""
    return {f"{m.name}:{f.name}": f.code_lines for m in modules.values() for f in m.functions
            if f.code_lines > limit}


# a device type's torch module, reached outside the one table of device types (workloads/child/device_types.py)
DEVICE_TABLE = ("workloads.child.device_types", "workloads.child.device")
DEVICE_TYPES = ("cuda", "npu", "mlu", "musa", "xpu", "hpu", "mps", "cpu")
_DEVICE_NAMED = re.compile(r"(^|\.)(type|device|device_type|name)$")


def device_module_reaches(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, code) of each place ``tree`` reaches a device type's torch module itself: ``torch.cuda`` (any use:
    a call, ``hasattr(torch.cuda, ...)``), ``getattr(torch, "npu")`` or ``getattr(torch, device.type)``. A dtype
    looked up by name (``getattr(torch, spec["dtype"])``) is not a device module."""
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch"
                and node.attr in DEVICE_TYPES):
            found.append((node.lineno, ast.unparse(node)))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
              and len(node.args) >= 2 and isinstance(node.args[0], ast.Name) and node.args[0].id == "torch"):
            name = node.args[1]
            literal = isinstance(name, ast.Constant) and name.value in DEVICE_TYPES
            if literal or (not isinstance(name, ast.Constant) and _DEVICE_NAMED.search(ast.unparse(name))):
                found.append((node.lineno, ast.unparse(node)))
    return sorted(found)
