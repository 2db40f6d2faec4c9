"""The report's microbenchmark table from a run's result (torch-free): each figure beside its rated one."""

from __future__ import annotations

from typing import Any, Mapping

from workloads.facts.missing import NA
from workloads.spec import Text

HEADING = Text("Microbenchmarks against the device's rated figures", "微基准测试与设备标称值对比")
COLUMNS = [Text("part", "部分"), Text("figure", "指标"), Text("measured", "实测"), Text("rated", "标称"),
           Text("measured / rated", "实测 / 标称"), Text("rated figure's source", "标称值来源"), Text("note", "说明")]
PARTS = {"gemm": Text("gemm", "矩阵乘"), "memory": Text("memory", "显存带宽"), "transfer": Text("transfer", "主机-设备传输"),
         "launch": Text("launch", "内核启动"), "burn": Text("burn", "逐位校验"), "collectives": Text("collectives", "集合通信")}


def value(number: Any, unit: str) -> str:
    if number is None:
        return NA
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        return str(number)
    text = f"{number:,.0f}" if abs(number) >= 1000 else f"{number:.3g}"
    return f"{text} {unit}".strip()


def rows(figures: list[Mapping[str, Any]]) -> list[list[str]]:
    out = []
    for f in figures:
        percent = f"{f['percent']:.1f} %" if isinstance(f.get("percent"), (int, float)) else NA
        measured = value(f.get("measured"), f.get("unit", ""))
        part = str(f.get("part", ""))
        out.append([PARTS.get(part, part), str(f.get("figure", "")), measured,
                    value(f.get("rated"), f.get("unit", "")), percent, str(f.get("source") or ""),
                    str(f.get("note") or "")])
    return out


def report_table(metrics: Mapping[str, Any]) -> tuple[Text, list[Text], list[list[Any]]]:
    figures = [f for f in metrics.get("figures") or [] if isinstance(f, Mapping)]
    return HEADING, list(COLUMNS), rows(figures)


def lines(figures: list[Mapping[str, Any]]) -> list[str]:
    """The same table as aligned text lines, for run.log."""
    table = [[c.en for c in COLUMNS[:5]]] + [[c.en if isinstance(c, Text) else c for c in r[:5]]
                                           for r in rows(figures)]
    widths = [max(len(r[i]) for r in table) for i in range(5)]
    return ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in table]
