"""cardbench's workbench and its UI-free services.

Only `tui.workbench.app`, `tui.workbench.panes` and `tui.workbench.screenshot` import textual; nothing here imports torch
(tests/test_imports.py walks the imports to hold both).
"""

__version__ = "0.1.0"
