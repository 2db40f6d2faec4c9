"""The workloads' own words (``workload.<name>.<key>``): their titles, the labels of their figures and fields, the
notes the report states about a run and the words of their extra tables.

A spec names one by `workloads.catalogue.Message`; the report and the workbench say it in their language.
"""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
}
