"""No workload's package imports another workload's package: what two workloads share lives in a layer of its own
(workloads/child/train/, workloads/jobs/, workloads/vision/, workloads/rundir/, workloads/models/...), so a change
inside one workload cannot break another, and a new workload is a folder and a registry line.

A workload package is the package a registered spec runs (``workloads.<name>``, from the registry in
workloads/__init__.py). Every module under workloads/ is read with ast, imports inside functions included, relative
imports resolved.
"""

from __future__ import annotations

import ast
from pathlib import Path

from paths import REPO

from workloads import registry

# The model code (GPT-2, the Llama family, KV cache, weights, tokenizer, LM loss and the configs and estimates read
# with them) still lives in the llm and generate workloads; its move to workloads/models/ removes these imports.
# (importing module, imported module): delete an entry with the import it names (a stale entry fails the test).
KNOWN_MODEL_IMPORTS = frozenset({
    ("workloads.finetune.budget", "workloads.llm.fit"),
    ("workloads.finetune.budget", "workloads.llm.presets"),
    ("workloads.finetune.cpu_check", "workloads.llm.model"),
    ("workloads.finetune.flops", "workloads.llm"),
    ("workloads.finetune.flops", "workloads.llm.presets"),
    ("workloads.finetune.lora", "workloads.llm.model"),
    ("workloads.finetune.meta_init", "workloads.llm.checkpoint"),
    ("workloads.finetune.meta_init", "workloads.llm.model"),
    ("workloads.finetune.meta_init", "workloads.llm.presets"),
    ("workloads.finetune.options", "workloads.llm.hf_config"),
    ("workloads.finetune.options", "workloads.llm.plan"),
    ("workloads.finetune.options", "workloads.llm.presets"),
    ("workloads.finetune.step", "workloads.llm.checkpoint"),
    ("workloads.finetune.step", "workloads.llm.model"),
    ("workloads.finetune.step", "workloads.llm.presets"),
    ("workloads.finetune.train", "workloads.llm.fit"),
    ("workloads.finetune.train", "workloads.llm.presets"),
    ("workloads.llm.cells", "workloads.generate.decoding"),
    ("workloads.llm.checkpoint", "workloads.generate.weights"),
    ("workloads.llm.cli", "workloads.generate"),
    ("workloads.llm.cli", "workloads.generate.memory"),
    ("workloads.llm.model", "workloads.generate"),
    ("workloads.llm.model", "workloads.generate.gpt2"),
    ("workloads.llm.prompt", "workloads.generate"),
    ("workloads.llm.run", "workloads.generate.decoding"),
    ("workloads.opscan.llama_decode", "workloads.llm.model"),
    ("workloads.opscan.llama_train", "workloads.finetune.step"),   # lm_loss
    ("workloads.opscan.llama_train", "workloads.llm.model"),
    ("workloads.opscan.llama_train", "workloads.llm.presets"),
    ("workloads.opscan.sources", "workloads.generate"),
    ("workloads.opscan.sources", "workloads.generate.config"),
})

# The rated table (workloads/microbench/rated.py and rated.csv) moves to workloads/facts/ with the rule for which
# peak a precision reads against; that move removes these.
KNOWN_RATED_IMPORTS = frozenset({
    ("workloads.dataio.consumer", "workloads.microbench"),
    ("workloads.finetune.train", "workloads.microbench"),
    ("workloads.llm.run", "workloads.microbench"),
    ("workloads.resnet50.baselines", "workloads.microbench"),
})

KNOWN = KNOWN_MODEL_IMPORTS | KNOWN_RATED_IMPORTS


def workload_packages() -> set[str]:
    """The packages the registered workloads run (``workloads.resnet50``...)."""
    return {spec.run_module for spec in registry.specs() if spec.run_module.startswith("workloads.")}


def module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.AST, module: str, is_package: bool) -> list[tuple[int, list[str]]]:
    """Each import in ``tree`` (in functions too) as (line, the modules it may name, the line's own first):
    ``from P import x`` may name ``P.x`` (``from workloads import resnet50``)."""
    package = module if is_package else module.rpartition(".")[0]
    found: list[tuple[int, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, [alias.name]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
            found.append((node.lineno, [base, *(f"{base}.{a.name}" for a in node.names if a.name != "*")]))
    return found


def _owner(name: str, packages: set[str]) -> str | None:
    return next((p for p in packages if name == p or name.startswith(p + ".")), None)


def cross_imports(root: Path, packages: set[str]) -> set[tuple[str, str]]:
    """(importing module, imported module) for each import from one workload package into another's."""
    pairs: set[tuple[str, str]] = set()
    for path in sorted((root / "workloads").rglob("*.py")):
        module = module_name(root, path)
        own = _owner(module, packages)
        if own is None:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for _, names in imported(tree, module, path.name == "__init__.py"):
            foreign = [name for name in names if _owner(name, packages) not in (None, own)]
            if foreign:
                pairs.add((module, foreign[0]))   # the line's module where it is a workload's, else the name
    return pairs


def test_no_workload_package_imports_another():
    pairs = cross_imports(REPO, workload_packages())
    new = sorted(pairs - KNOWN)
    assert not new, ("a workload imports another workload's package; move what they share to a layer of its own "
                     "(workloads/child/train/, jobs/, vision/, rundir/, models/...):\n"
                     + "\n".join(f"  {module} imports {target}" for module, target in new))
    stale = sorted(KNOWN - pairs)
    assert not stale, "these imports are gone: delete their entries from the allowlist\n" + "\n".join(
        f"  {module} -> {target}" for module, target in stale)


def test_the_registry_names_the_workload_packages_the_rule_holds_apart():
    packages = workload_packages()
    assert {"workloads.resnet50", "workloads.finetune", "workloads.opscan", "workloads.serve",
            "workloads.command", "workloads.soak", "workloads.dataio"} <= packages
    assert not packages & {"workloads.child", "workloads.child.train", "workloads.jobs", "workloads.vision",
                           "workloads.rundir"}


def test_an_import_between_workloads_is_found_wherever_it_is_written(tmp_path):
    files = {
        "workloads/__init__.py": "",
        "workloads/shared/__init__.py": "",
        "workloads/shared/part.py": "from workloads.alpha import cli\n",   # a shared layer: not a workload's
        "workloads/alpha/__init__.py": "",
        "workloads/alpha/cli.py": "import os\nfrom workloads.shared import part\nfrom workloads.alpha import x\n",
        "workloads/alpha/late.py": "def run():\n    from workloads.beta.loop import step\n",
        "workloads/alpha/relative.py": "from ..beta import loop\n",
        "workloads/alpha/whole.py": "from workloads import beta\nimport workloads.beta.loop as l\n",
        "workloads/beta/__init__.py": "",
        "workloads/beta/loop.py": "import workloads.shared.part\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert cross_imports(tmp_path, {"workloads.alpha", "workloads.beta"}) == {
        ("workloads.alpha.late", "workloads.beta.loop"),
        ("workloads.alpha.relative", "workloads.beta"),
        ("workloads.alpha.whole", "workloads.beta"),
        ("workloads.alpha.whole", "workloads.beta.loop"),
    }
