"""The report, UI-free: the bundle's export pipeline (``tui.report.export``), the document's sections
(``contents`` and the modules it reads), its renderers (``markdown``, ``html``, ``png``) and the redaction of every
text it writes (``redact``).

Nothing is imported here: the workbench imports a module of this package (the screen's title, ``run_times``)
without paying for the export's machinery (zip, hashing, redaction), which ``tui.report.export`` loads.
"""
