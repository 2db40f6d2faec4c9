"""The CPU trap's words in the report (`tui.cpu_trap.words.headline`): the first line of a report whose work ran on
the CPU while accelerators are listed (``cpu_trap.<key>``).

The run's own warning and the workbench's banner lines are English only (events and the screen are); the report
says it in either language.
"""

from __future__ import annotations

_NOT_THE_RUNS = "not the runs' data"

WORDS: dict[str, tuple[str, str]] = {
    "cpu_trap.as_asked": ("Note: the workloads ran on the CPU as asked (`--device cpu`); {cards} were not used, and "
                          f"their readings are {_NOT_THE_RUNS}.",
                          "注意：负载按要求在 CPU 上运行（`--device cpu`）；{cards}未被使用，其读数不是这些运行的数据。"),
    # one run or several: 'its figures', 'their figures' (the same in Chinese)
    "cpu_trap.warning_one": ("WARNING: {who} ran on the CPU, not on {cards}: torch sees none of them, so its figures "
                             f"are CPU figures and the cards' readings are {_NOT_THE_RUNS}{{elsewhere}}.",
                             "警告：{who}在 CPU 上运行，而不是在{cards}上：torch 看不到其中任何一张，因此这些数据是 CPU 的数据，"
                             "加速卡的读数也不是这些运行的数据{elsewhere}。"),
    "cpu_trap.warning_many": ("WARNING: {who} ran on the CPU, not on {cards}: torch sees none of them, so their "
                              f"figures are CPU figures and the cards' readings are {_NOT_THE_RUNS}{{elsewhere}}.",
                              "警告：{who}在 CPU 上运行，而不是在{cards}上：torch 看不到其中任何一张，因此这些数据是 CPU 的数据，"
                              "加速卡的读数也不是这些运行的数据{elsewhere}。"),
    "cpu_trap.everyone": ("the workloads", "全部负载"),
    "cpu_trap.and": (" and ", "和"),
    "cpu_trap.elsewhere": (" ({runs})", "（{runs}）"),
    "cpu_trap.ran_on": ("{workload} ran on {device}", "{workload}在 {device} 上运行"),
    "cpu_trap.doctor": (" The doctor: {evidence}.", "环境检查：{evidence}。"),
    "cpu_trap.hint": (" Hint: {hint}.", "建议：{hint}。"),
    # the accelerators that were listed ('the 2 accelerators nvidia-smi lists (2x NVIDIA H100 80GB HBM3)'): English
    # counts the card and the tools, Chinese does not
    "cpu_trap.cards_by_tool_one": ("the {count} accelerator {tools} lists", "{tools} 列出的 {count} 张加速卡"),
    "cpu_trap.cards_by_tool": ("the {count} accelerators {tools} lists", "{tools} 列出的 {count} 张加速卡"),
    "cpu_trap.cards_by_tools_one": ("the {count} accelerator {tools} list", "{tools} 列出的 {count} 张加速卡"),
    "cpu_trap.cards_by_tools": ("the {count} accelerators {tools} list", "{tools} 列出的 {count} 张加速卡"),
    "cpu_trap.cards_one": ("the {count} accelerator listed", "所列的 {count} 张加速卡"),
    "cpu_trap.cards": ("the {count} accelerators listed", "所列的 {count} 张加速卡"),
    "cpu_trap.models": (" ({models})", "（{models}）"),
}
