"""The trial's budget: when the rented instance goes away, what it costs, and where to back up before then.

UI-free and torch-free: `config` keeps it in the user's config file, `clock` says how much time is left
and what it has cost, `command` is `cardbench trial`. The workbench's header and banner
(`tui.workbench.panes.trial_banner`), the headless export and `cardbench devices` read the same file.
"""
