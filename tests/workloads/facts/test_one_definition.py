"""A fact lives in one place (issue 35 item 1): the number, byte and duration formatters, the rule for a missing
figure and its one text (N/A), the warm-up rule, the percentile and the rule for which rated peak a precision reads
against are defined in workloads/facts and nowhere else. The tree is walked with ast, so a
second copy fails here before it can disagree with the first (1000 MiB once printed three ways, a missing figure
three ways: 'N/A', 'n/a', '-')."""

from __future__ import annotations

import ast
import re
from functools import lru_cache

from paths import REPO

from workloads.facts import formatting, missing
from workloads.facts.missing import NA

PACKAGES = ("tui", "workloads")
HOMES = {  # the one definition: name -> the module that holds it
    "format_number": "workloads/facts/formatting.py", "format_bytes": "workloads/facts/formatting.py",
    "format_duration": "workloads/facts/formatting.py", "finite_or_none": "workloads/facts/missing.py",
    "is_finite": "workloads/facts/missing.py",
}
# the warm-up rule and the percentile, under any of the names their copies had (warmup_of, percentile_of_sorted...)
_STEP_RULE = re.compile(r"percentile|warmup_(of|steps|count)$|default_warmup|split_warmup")
STEP_RULE_HOMES = {"workloads/facts/warmup.py", "workloads/facts/percentile.py"}
_BYTE_UNIT = re.compile(r"\b[KMGTPE]iB\b")
_BINARY_SCALES = {1024, 2**20, 2**30, 2**40, 10, 20, 30, 40}   # a divisor, or a shift count


@lru_cache(maxsize=None)
def _modules() -> tuple[tuple[str, ast.Module], ...]:
    found = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            found.append((path.relative_to(REPO).as_posix(), ast.parse(path.read_text(encoding="utf-8"))))
    return tuple(found)


def _scaled_to_binary_unit(node: ast.AST) -> bool:
    """Whether an expression divides or shifts by a binary scale (n / 2**30, n >> 20, n / 1024)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.BinOp) and isinstance(sub.op, (ast.Div, ast.FloorDiv, ast.RShift)):
            try:
                scale = ast.literal_eval(sub.right)
            except ValueError:
                continue
            if scale in _BINARY_SCALES:
                return True
    return False


def test_the_formatters_and_the_missing_rule_are_defined_once():
    seconds = [(rel, node.name) for rel, tree in _modules() for node in ast.walk(tree)
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in HOMES
               and HOMES[node.name] != rel]
    assert not seconds, f"a second definition of a shared formatter or rule: {seconds}"
    assert formatting.format_bytes(1000 * 2**20) == "1000 MiB" and formatting.format_number(None) == NA


def test_the_warmup_rule_and_the_percentile_are_defined_once():
    found = [(rel, node.name) for rel, tree in _modules() for node in ast.walk(tree)
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
             and _STEP_RULE.search(node.name.lstrip("_")) and rel not in STEP_RULE_HOMES]
    assert not found, f"a second copy of the warm-up rule or the percentile: {found}"


def test_bytes_are_printed_by_the_one_byte_formatter():
    """No f-string prints bytes scaled by hand into KiB/MiB/GiB (each such copy rounded its own way)."""
    inline = []
    for rel, tree in _modules():
        if rel == HOMES["format_bytes"]:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.JoinedStr):
                continue
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
            if _BYTE_UNIT.search(text) and any(isinstance(v, ast.FormattedValue) and _scaled_to_binary_unit(v.value)
                                               for v in node.values):
                inline.append(f"{rel}:{node.lineno}")
    assert not inline, f"bytes formatted by hand (use workloads.facts.formatting.format_bytes): {inline}"


def test_no_second_unit_ladder():
    """No function but format_bytes walks a ladder of byte units ("B", "KiB", "MiB", "GiB"...), as the six
    byte formatters before it each did."""
    ladders = []
    for rel, tree in _modules():
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name == "format_bytes":
                continue
            units = {c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and isinstance(c.value, str)
                     and c.value.strip() in {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}}
            if len(units) >= 2:
                ladders.append(f"{rel}:{node.lineno} {node.name}")
    assert not ladders, f"a second byte formatter (use workloads.facts.formatting.format_bytes): {ladders}"


def test_only_the_rated_rule_names_a_rated_peak_figure():
    """A precision -> rated figure table outside workloads/facts/rated.py is a second rule (there were five, and
    compare's disagreed with the report's on a V100)."""
    figures = {"fp32_tflops", "tf32_tflops", "fp16_tflops", "bf16_tflops", "fp8_tflops", "int8_tops"}
    named = [f"{rel}:{node.lineno} {node.value}" for rel, tree in _modules() if rel != "workloads/facts/rated.py"
             for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value in figures]
    assert not named, f"a rated peak figure chosen outside workloads.facts.rated.rated_peak: {named}"


def _parsed_not_printed(tree: ast.Module) -> set[int]:
    """The ids of string constants that are read, not printed: compared with (``m.group(4) == "N/A"``) or listed
    among the words a tool prints for missing (``{"", "n/a", "[n/a]"}``)."""
    read = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            read.update(id(c) for c in [node.left, *node.comparators])
        elif isinstance(node, (ast.Set, ast.Tuple, ast.List)):
            read.update(id(c) for c in node.elts)
    return read


def test_a_missing_figure_prints_one_text():
    spelt = []
    for rel, tree in _modules():
        if rel == "workloads/facts/missing.py":
            continue
        read = _parsed_not_printed(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in read
                    and node.value.strip().lower() in {"n/a", "na"}):
                spelt.append(f"{rel}:{node.lineno} {node.value!r}")
    assert not spelt, f"a missing figure spelt by hand (use workloads.facts.missing.NA): {spelt}"
    assert missing.NA == "N/A"
