"""The report, UI-free: the bundle's export pipeline (``tui.report.export``), the document's sections
(``contents`` and the modules it reads), its renderers (``markdown``, ``html``, ``png``); every
text it writes goes through ``tui.redact`` (a package of its own: the run store uses it too, when a run is created).

Nothing is imported here: the workbench imports a module of this package (the screen's title, ``run_times``)
without paying for the export's machinery (zip, hashing, redaction), which ``tui.report.export`` loads.
"""
