"""workloads/models/ is shared by workloads, so it imports none of them: a workload's package may change without
breaking another's model (every import counted, those inside functions too)."""

import ast

from paths import REPO

from workloads import registry

MODELS = REPO / "workloads" / "models"


def imported_workloads(path):
    """(line, module) of each import of a registered workload's package in ``path``."""
    names = set(registry.names())
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found += [(node.lineno, m) for m in modules if m.startswith("workloads.") and m.split(".")[1] in names]
    return found


def test_no_model_module_imports_a_workload():
    found = {str(p.relative_to(REPO)): imported_workloads(p) for p in sorted(MODELS.rglob("*.py"))}
    assert len(found) > 10  # the walk found the package
    assert {path: hits for path, hits in found.items() if hits} == {}


def test_the_walk_sees_an_import_inside_a_function(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import os\n\ndef f():\n    from workloads.generate import spec\n    from workloads import llm\n")
    assert imported_workloads(module) == [(4, "workloads.generate"), (4, "workloads.generate.spec"),
                                          (5, "workloads.llm")]
