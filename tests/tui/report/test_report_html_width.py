"""report.html's tables stay inside the window (issue 36 item 11): the LLM sweep's 17 columns ran 1422 px wide, past
a 1280 px window. The rules are checked here on the HTML and its CSS; `python bench/report_width.py` lays the
report out in Chromium at 1280 and 800 px and measures each table (the README's section on tests)."""

from __future__ import annotations

import re

from tui.report import html as report_html
from tui.report.document import Table
from workloads.llm import cell_tables
from workloads.llm.table import COLUMNS, report_table

# one sweep cell as the llm workload writes it (workloads/llm/cells.py), and one that did not fit
CELL = {"input_len": 2048, "output_len": 1024, "batch": 32, "status": "ok", "ttft_s": 5.5629, "tpot_p50_s": 0.0362,
        "tpot_p90_s": 0.0376, "tpot_p99_s": 0.0437, "decode_tokens_per_s": 27.7, "decode_tokens_per_s_all": 885.1,
        "decode_bound_tokens_per_s": 197.4, "decode_bandwidth_fraction": 0.14, "prefill_tokens_per_s": 11780.9,
        "prefill_peak_fraction": 0.169, "end_to_end_s": 42.6, "peak_memory_bytes": 26.2 * 2**30,
        "estimate_bytes": 28.2 * 2**30}
NO_FIT = {"input_len": 2048, "output_len": 1024, "batch": 64, "estimate_bytes": 41.1 * 2**30,
          "status": "does not fit: needs about 41.1 GiB, 22.0 GiB free"}


def _page(table: Table) -> str:
    return report_html.render([table], "t")


def _rule(page: str, selector: str) -> str:
    """The declarations of ``selector``'s rule in the page's style sheet."""
    style = page[page.index("<style>"):page.index("</style>")]
    found = re.search(r"(?:^|[}\n])\s*" + re.escape(selector) + r"\s*\{([^}]*)\}", style)
    assert found, f"no CSS rule for {selector}"
    return found.group(1)


def _llm_table(printer=report_table) -> Table:
    heading, columns, rows = printer({"cells": [CELL, NO_FIT], "peak_memory_kind": "x"})
    return Table([c.en for c in columns], rows)


def test_the_llm_sweep_s_table_is_set_as_a_wide_table_whose_type_shrinks_with_the_window():
    assert len(COLUMNS) > report_html.WIDE_COLUMNS     # 17 columns ran past 1280 px; the first table's 10 are wide yet
    page = _page(_llm_table())
    assert '<table class="wide">' in page
    wide = _rule(page, "table.wide")
    # smaller in a narrower window (10.4 px at 800 px), never below 0.6 em nor above 0.8 em
    assert re.search(r"font-size:\s*clamp\(0\.6em,\s*[\d.]+vw,\s*0\.8em\)", wide), wide
    narrow = _page(Table(["metric", "value"], [["a", "1"]]))
    assert "<table>" in narrow and 'class="wide"' not in narrow   # a narrow table keeps the page's type


def test_a_wide_table_s_long_header_words_may_break_hyphenated_and_short_ones_never():
    page = _page(_llm_table())
    heads = re.findall(r"<th>(.*?)</th>", page)
    assert "pre\u00adfill tok/s" in heads   # a soft hyphen: drawn only where it breaks
    assert "input" in heads and "batch" in heads and "TTFT ms" in heads
    assert "band\u00adwidth" not in _page(Table(["bandwidth", "v"], [["1", "2"]]))   # only in a wide table
    linked = _page(Table(["[see](https://example.org/bandwidth)"] + ["c"] * 9, [["1"] * 10]))
    assert 'href="https://example.org/bandwidth"' in linked and "\u00ad" not in linked   # markup left whole


def test_numbers_stay_whole_and_only_long_words_break_anywhere():
    page = "".join(_page(_llm_table(printer)) for printer in (report_table, *cell_tables.TABLES))
    cells = dict((text, cls) for cls, text in re.findall(r'<td(?: class="([^"]*)")?>(.*?)</td>', page))
    assert cells["14.0 %"] == "whole" and cells["11,780.9"] == ""   # a share never wraps (a number cannot)
    assert cells[NO_FIT["status"]] == ""          # a sentence wraps between its words only
    assert "white-space: nowrap" in _rule(page, "td.whole")
    path = "/home/user/cardbench-runs/20261206-212239-resnet50-fb03/run.log"
    page = _page(Table(["item", "value"], [["log", f"see {path}"], ["verdict", "PASS"]]))
    assert f'<td class="long">see {path}</td>' in page   # a path no window holds may break anywhere
    assert "overflow-wrap: anywhere" in _rule(page, "td.long")
    assert '<td class="PASS">PASS</td>' in page   # a doctor's verdict keeps its colour's class
    assert "overflow-wrap: anywhere" not in _rule(page, "th, td")   # not every cell: "inpu t" was the cost
