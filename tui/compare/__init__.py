"""`cardbench compare`: report bundles or runs side by side, UI-free.

    load.py        a bundle (.zip) or a run directory -> a Side (per workload the run compared)
    alike.py       the settings that must match, and those shown where they differ
    ratio.py       a ratio to the baseline with hyperfine's uncertainty
    prices.py      performance per currency unit, cost per epoch / million tokens, the verdict line
    published.py   --against: published figures as the baseline
    comparison.py  all of it per workload; blocks.py (Markdown/HTML), chart.py (PNG), to_dict (JSON)
    command.py     add_parser / run, for tui.cli.COMMAND_MODULES
"""
