"""cardbench's workbench and its UI-free services.

Only `tui.app` and `tui.panes` import textual; nothing here imports torch.
"""

__version__ = "0.1.0"
