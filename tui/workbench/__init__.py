"""The workbench: the only package that imports Textual (app, panes, view-models, screenshot, sampler thread)."""
