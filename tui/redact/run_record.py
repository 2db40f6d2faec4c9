"""What a run's config.json keeps so that a later export redacts what an export now would (:func:`record_for_run`)."""

from __future__ import annotations

import re
import secrets as _secrets
from typing import Any, Mapping

from tui.redact.recorded import salted_digest, secret_shape, word_span
from tui.redact.redactor import Redactor
from tui.redact.rules import REDACTED, URL_USERINFO
from tui.redact.scrub import leaves


def record_for_run(config: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """What a run's config.json keeps so that a later export redacts what an export now would.

    Every secret a :class:`Redactor` knows now (the environment's secret variables, values of secret
    options, token shapes, URL passwords) that a string of ``config`` (the arguments, the config) holds,
    as ``{"salt": hex, "sha256": [digest, ...], "shapes": [shape, ...]}``: a salted SHA-256 digest and
    the shape (:func:`secret_shape`) of each, never the value. A secret inside a longer word
    (``/data/runSECRET``) is recorded as that word too: it is found again as whole words only. The value
    of a variable a secret option names (``--api-key-env HOSTILE_SRV``) is recorded whether a string holds
    it or not. None when there is no secret to record.
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
    # the value of a variable a secret option names (--api-key-env VAR) is in no argument, yet a server may echo it
    # back ("Incorrect API key provided: <key>") into the run's log and events: recorded all the same
    found |= redactor.from_variables
    if not found:
        return None
    salt = _secrets.token_hex(16)
    entries = sorted((salted_digest(salt, value), secret_shape(value)) for value in found)  # in digest order
    return {"salt": salt, "sha256": [d for d, _ in entries], "shapes": [s for _, s in entries]}


def without_url_passwords(obj: Any) -> Any:
    """A run's config with the password of each URL in it replaced (``http://user:[redacted]@host/v1``), and a
    one-part user (how a token is given: ``https://TOKEN@host``) too: config.json is what gets backed up, and the run
    was started already. What :func:`record_for_run` recorded of them finds them again where something else wrote
    them."""
    if isinstance(obj, str):
        return URL_USERINFO.sub(_masked_userinfo, obj) if "@" in obj else obj
    if isinstance(obj, Mapping):
        return {key: without_url_passwords(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [without_url_passwords(value) for value in obj]
    return obj


def _masked_userinfo(match: re.Match[str]) -> str:
    user, colon, _ = match.group("userinfo").partition(":")
    return f"{match.group('scheme')}{user}:{REDACTED}@" if colon else f"{match.group('scheme')}{REDACTED}@"
