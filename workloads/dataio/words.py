"""The verdict in words, said from the result's figures (torch-free): the same sentence in run.log (English) and in
the report (the reader's language), one definition for both.

A run from before these figures (no ``consumer_basis``) carries its verdict as the English it was written in
(``verdict_line``): said as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workloads.catalogue import Message, message
from workloads.dataio import consumer, verdict

_SOURCE = {consumer.COMPUTE: "compute", consumer.MEDIAN: "median", consumer.STEPS: "steps",
           consumer.GIVEN: "given", consumer.RATED: "rated"}
_VERDICT = {verdict.COMPUTE: "compute", verdict.DATA: "data", verdict.STORAGE: "storage",
            verdict.NO_CARD: "no_card", verdict.NO_FIGURE: "no_figure"}


def _n(value: Any) -> str:
    return f"{value:,.0f}" if isinstance(value, (int, float)) and not isinstance(value, bool) else "?"


def _size(value: Any) -> Any:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else "?"


def source_words(m: Mapping[str, Any]) -> Message | str:
    """Where the card's rate comes from, and how it was brought to the loader's image size."""
    basis, size = m.get("consumer_basis"), _size(m.get("image_size"))
    if basis not in _SOURCE:
        return str(basis or "?")   # a basis of another version: as it was written
    measured_at = m.get("consumer_image_size")
    at = message("workload.dataio.at_px", size=_size(measured_at)) if measured_at else ""
    said = message(f"workload.dataio.source.{_SOURCE[basis]}", run=str(m.get("consumer_run") or "?"), at=at,
                   size=size, steps=m.get("consumer_steps") or "?")
    measured = m.get("consumer_measured_images_per_s")
    if measured is not None and measured_at and measured_at != m.get("image_size"):
        return message("workload.dataio.source.scaled", source=said, measured=_n(measured),
                       measured_at=_size(measured_at), size=size)
    return said


def card_words(m: Mapping[str, Any]) -> Message:
    """'the card trains at 1,234 images/s (ResNet-50 run ... at 224 px: its compute-only images/s)'."""
    which = "bound" if m.get("consumer_basis") == consumer.RATED else "measured"
    return message(f"workload.dataio.card.{which}", rate=_n(m.get("consumer_images_per_s")), source=source_words(m))


def _where(m: Mapping[str, Any]) -> Message:
    """What a storage-bound run should do: the local disk is the limit, or a local folder with room."""
    if m.get("data_kind") == "local":
        return Message("workload.dataio.where.local")
    if m.get("room_where"):
        return message("workload.dataio.where.room", path=str(m["room_where"]),
                       free=f"{(m.get('room_free_bytes') or 0) / 1e9:,.0f}")
    return message("workload.dataio.where.no_room", size=f"{(m.get('data_bytes') or 0) / 1e9:,.1f}")


def verdict_words(m: Mapping[str, Any]) -> Message | str:
    """The verdict's sentence: a catalogue message said in the reader's language, or an older run's English."""
    kind = m.get("verdict")
    if ("consumer_basis" not in m and "image_size" not in m) or kind not in _VERDICT:
        return str(m.get("verdict_line") or kind or "no verdict")
    params: dict[str, Any] = {"size": _size(m.get("image_size")), "rate": _n(m.get("loader_images_per_s")),
                              "workers": m.get("loader_workers") or 1}
    if kind in (verdict.COMPUTE, verdict.DATA, verdict.STORAGE):
        params["card"] = card_words(m)
    if kind == verdict.STORAGE:
        params.update(files=_n(m.get("cold_files_s")), where=_where(m))
    return message(f"workload.dataio.verdict.{_VERDICT[kind]}", **params)
