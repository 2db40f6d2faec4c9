"""Chinese words live in the one catalogue (`workloads.catalogue`): a module elsewhere says them by message id.

Each string literal holding a Chinese character is counted, per module, with ast (docstrings and f-string pieces
included). ``LEFT`` is what the move to the catalogue has not reached yet: a module may not gain one, a module not
listed may have none, and an entry is lowered as its module is converted (the test says when it is stale).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from paths import REPO as ROOT

CATALOGUE = "workloads/catalogue/"
HAN = re.compile(r"[\u4e00-\u9fff]")

# module -> the Chinese literals it still holds (the issue-35 pass started from 356 in 32 modules)
LEFT: dict[str, int] = {
    "tui/compare/alike.py": 1,
    "tui/cpu_trap/facts.py": 1,
    "tui/doctor/checks.py": 1,
    "tui/figures.py": 1,
    "tui/formatting.py": 6,
    "tui/i18n/voice.py": 2,
    "tui/report/__init__.py": 1,
    "tui/report/charts.py": 3,
    "workloads/spec.py": 1,
}


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


def test_no_module_gains_a_chinese_literal_outside_the_catalogue():
    gained = {name: (n, LEFT.get(name, 0)) for name, n in counts().items() if n > LEFT.get(name, 0)}
    assert gained == {}, "say it by message id from workloads.catalogue: (now, allowed) " + repr(gained)


def test_the_list_of_what_is_left_shrinks_with_the_work():
    now = counts()
    stale = {name: (now.get(name, 0), allowed) for name, allowed in LEFT.items() if now.get(name, 0) != allowed}
    assert stale == {}, "lower LEFT to what is left: (now, listed) " + repr(stale)


def test_the_count_sees_literals_in_calls_f_strings_and_docstrings_and_not_elsewhere():
    source = '"""文档"""\nx = Text("a", "甲")\ny = f"{x}乙"\nz = "abc"  # 注释\n'
    assert chinese_literals(source) == 3
    assert Path(ROOT / CATALOGUE / "report.py").is_file()  # the exempt folder is where the catalogue is
