"""The workbench's words (``workbench.<key>``): the list of keys (`?`) and what the launcher asks before a start.

The screen is English; the Chinese is here so the sentences live where every other one does.
"""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # the list of keys (tui/workbench/panes/key_list.py); a row per action, its keys beside it
    "workbench.keys.title": ("keys", "按键"),
    "workbench.keys.close": ("Escape or ? closes this list", "Esc 或 ? 关闭此列表"),
    "workbench.keys.workloads": ("workloads", "负载"),
    "workbench.keys.actions": ("actions", "操作"),
    "workbench.key.start_stop": ("start or stop the workload", "启动或停止负载"),
    "workbench.key.start_detached": ("start detached: the run goes on after the workbench quits",
                                     "后台启动：工作台退出后运行继续"),
    "workbench.key.live_runs": ("runs in progress: attach to one, or stop it", "进行中的运行：接入或停止"),
    "workbench.key.cycle_plots": ("all plots, or one at a time", "全部图表，或逐个显示"),
    "workbench.key.doctor": ("doctor: driver, management CLI, PyTorch and the device",
                             "环境检查：驱动、管理工具、PyTorch 和设备"),
    "workbench.key.export": ("export the report bundle", "导出报告包"),
    "workbench.key.backup": ("back up runs, checkpoints and report bundles", "备份运行、检查点和报告包"),
    "workbench.key.show_keys": ("this list of keys", "本按键列表"),
    "workbench.key.command_palette": ("every action, searched by name (the command palette)",
                                      "按名称搜索全部操作（命令面板）"),
    "workbench.key.quit": ("quit", "退出"),
    "workbench.key.help_quit": ("how to quit", "如何退出"),
    "workbench.key.leave_field": ("leave the field: keys go to the workbench again", "离开输入框：按键重新交给工作台"),
    "workbench.key.focus_next": ("next field", "下一个输入框"),
    "workbench.key.focus_previous": ("previous field", "上一个输入框"),
    "workbench.key.copy_text": ("copy the selected text", "复制选中的文字"),
    # the launcher's defaults once torch is known to see no accelerator (tui/workbench/sizing.py)
    "workbench.launch.cpu_sized": ("torch sees no accelerator: the launcher's values are sized for the CPU, as the "
                                   "headless suite's (a field you edited keeps its value)",
                                   "torch 看不到加速卡：启动器的参数按 CPU 设定，与无界面测试套件相同（已编辑的输入框保留其值）"),
    # before a start (tui/workbench/sizing.py): the workload's rough estimate of the run, above ten minutes
    "workbench.launch.long_run_cpu": ("this run would take about {duration} on the CPU ({cores} cores) by a rough "
                                      "estimate, more than {minutes} min",
                                      "粗略估计此运行在 CPU（{cores} 核）上约需 {duration}，超过 {minutes} 分钟"),
    "workbench.launch.long_run": ("this run would take about {duration} by a rough estimate, more than {minutes} min",
                                  "粗略估计此运行约需 {duration}，超过 {minutes} 分钟"),
}
