"""What a run's config.json keeps so that a later export redacts what an export now would (:func:`record_for_run`)."""

from __future__ import annotations

import secrets as _secrets
from typing import Any, Mapping

from tui.report.redact.recorded import salted_digest, secret_shape, word_span
from tui.report.redact.redactor import Redactor
from tui.report.redact.scrub import leaves


def record_for_run(config: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """What a run's config.json keeps so that a later export redacts what an export now would.

    Every secret a :class:`Redactor` knows now (the environment's secret variables, values of secret
    options, token shapes, URL passwords) that a string of ``config`` (the arguments, the config) holds,
    as ``{"salt": hex, "sha256": [digest, ...], "shapes": [shape, ...]}``: a salted SHA-256 digest and
    the shape (:func:`secret_shape`) of each, never the value. A secret inside a longer word
    (``/data/runSECRET``) is recorded as that word too: it is found again as whole words only. None
    when the config holds no secret.
    """
    redactor = Redactor(environ)
    redactor.learn_from_obj(config)
    texts = [leaf for leaf in leaves(config) if isinstance(leaf, str)]
    found: set[str] = set()
    for secret in redactor._secrets:
        for text in texts:
            at = text.find(secret)
            while at != -1:
                found.add(secret)
                start, end = word_span(text, at, at + len(secret))
                if end - start != len(secret):
                    found.add(text[start:end])
                at = text.find(secret, at + 1)
    if not found:
        return None
    salt = _secrets.token_hex(16)
    entries = sorted((salted_digest(salt, value), secret_shape(value)) for value in found)  # in digest order
    return {"salt": salt, "sha256": [d for d, _ in entries], "shapes": [s for _, s in entries]}

