"""The workbench's panes, one module each; only this package and `tui.workbench.app` import textual."""
