"""Chinese words live in the one catalogue (`workloads.catalogue`): a module elsewhere says them by message id.

Each string literal holding a Chinese character is counted, per module, with ast (docstrings and f-string pieces
included). The issue-35 pass started from 356 in 32 modules outside the catalogue; none is left, and none may
come back: a new sentence is a catalogue entry and its id.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from paths import REPO as ROOT

CATALOGUE = "workloads/catalogue/"
HAN = re.compile(r"[\u4e00-\u9fff]")

def chinese_literals(source: str) -> int:
    """How many string literals of ``source`` hold a Chinese character."""
    return sum(1 for node in ast.walk(ast.parse(source))
               if isinstance(node, ast.Constant) and isinstance(node.value, str) and HAN.search(node.value))


def counts() -> dict[str, int]:
    found = {}
    for package in ("tui", "workloads"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if not name.startswith(CATALOGUE) and (n := chinese_literals(path.read_text(encoding="utf-8"))):
                found[name] = n
    return found


def test_no_module_outside_the_catalogue_holds_a_chinese_literal():
    assert counts() == {}, "say it by message id from workloads.catalogue: (module: literals) " + repr(counts())


def test_the_count_sees_literals_in_calls_f_strings_and_docstrings_and_not_elsewhere():
    source = '"""文档"""\nx = Text("a", "甲")\ny = f"{x}乙"\nz = "abc"  # 注释\n'
    assert chinese_literals(source) == 3
    assert Path(ROOT / CATALOGUE / "report.py").is_file()  # the exempt folder is where the catalogue is
