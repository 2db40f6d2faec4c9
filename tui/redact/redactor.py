"""The :class:`Redactor`: learns the secrets first, then scrubs every text and object written to the bundle."""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import typing
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Iterable, Mapping

from workloads.rundir import EVENTS
from workloads.rundir.read import iter_jsonl, read_config
from tui.redact import as_json
from tui.redact.fragments import PIECE, screen_piece, secret_fragments
from tui.redact.recorded import (LOOSE_UP_TO, MASK, RECORD_KEY, masked_candidates, may_hold, recorded_entries,
                                        salted_digest, shape_pattern, without_record)
from tui.redact.rules import (HARMLESS_VALUES, LINEWISE_FROM, MIN_LEARNED, REDACTED, TOKEN_SHAPES,
                                     URL_USERINFO, VARIABLE_NAME, env_allowed, is_secret_name, names_variable)
from tui.redact.scrub import alternation, flag_lines, leaves, patterns, reach


class Redactor:
    """Learns the secrets first, then scrubs every text and object written to the bundle."""

    def __init__(self, environ: Mapping[str, str] | None = None):
        self._secrets: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        # recorded secrets not found yet: shape -> [(salt, sha256 hex digest)]
        self._hidden: dict[str, list[tuple[str, str]]] = {}
        # short strings seen again and again (an event's unit, once per step): text() of each, once
        self._short: dict[str, str] = {}
        self._environ: Mapping[str, str] = os.environ if environ is None else environ
        # the values of the variables secret options name (--api-key-env VAR): a run records them whatever else
        # its arguments hold (record_for_run), as a server may echo one back in its error
        self.from_variables: set[str] = set()
        self.learn_environment(self._environ)

    # -- learning -------------------------------------------------------------------------

    def learn(self, value: Any) -> str | None:
        """Learn a secret value; the value as learned (stripped), None when it is too short or harmless."""
        if not isinstance(value, str):
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                value = str(value)
            else:
                return None
        value = value.strip().strip("\"'")
        if len(value) < MIN_LEARNED or value.lower() in HARMLESS_VALUES:
            return None
        if value not in self._secrets:
            self._secrets.add(value)
            self._pattern = None
            self._short.clear()
        return value

    def learn_variable(self, name: Any) -> None:
        """The value of the variable a secret option names (``--api-key-env HOSTILE_SRV``), whatever it is called."""
        if not isinstance(name, str) or not VARIABLE_NAME.fullmatch(name):
            return
        learned = self.learn(self._environ.get(name))
        if learned is not None:
            self.from_variables.add(learned)

    def learn_environment(self, environ: Mapping[str, str]) -> None:
        for name, value in environ.items():
            if is_secret_name(name):
                self.learn(value)
            self.learn_from_text(value)

    def learn_from_text(self, text: str) -> None:
        """URL passwords and token shapes inside any value (a DATABASE_URL, a proxy setting)."""
        for match in URL_USERINFO.finditer(text):
            userinfo = match.group("userinfo")
            user, _, password = userinfo.partition(":")
            self.learn(password if password else user)
        for match in TOKEN_SHAPES.finditer(text):
            self.learn(match.group(0))

    def learn_from_args(self, args: Iterable[Any]) -> None:
        """``--hf-token xyz`` and ``--hf-token=xyz`` in a run's arguments."""
        items = [str(a) for a in args]
        for i, item in enumerate(items):
            if item.startswith("-"):
                name, eq, value = item.partition("=")
                if is_secret_name(name) and (eq or i + 1 < len(items)):
                    value = value if eq else items[i + 1]
                    self.learn(value)
                    if names_variable(name):
                        self.learn_variable(value)
            self.learn_from_text(item)

    def learn_from_obj(self, obj: Any) -> None:
        """Values under secret-looking keys, anywhere in a JSON-like object; option lists too."""
        if isinstance(obj, Mapping):
            for key, value in obj.items():
                if is_secret_name(str(key)):
                    if isinstance(value, (str, int, float)):
                        self.learn(value)
                    else:
                        for leaf in leaves(value):
                            self.learn(leaf)
                    if names_variable(str(key)):
                        self.learn_variable(value)
                self.learn_from_obj(value)
        elif isinstance(obj, (list, tuple)):
            self.learn_from_args(obj)
            for value in obj:
                self.learn_from_obj(value)
        elif isinstance(obj, str):
            self.learn_from_text(obj)

    # -- what a run recorded --------------------------------------------------------------

    def learn_recorded(self, recorded: Any) -> None:
        """The secrets a run recorded when it was created (``config["redact"]``, see :func:`record_for_run`).

        They are found again by shape and digest in the texts this redactor is given from now on
        (:meth:`discover`); a malformed record is ignored.
        """
        for salt, digest, shape in recorded_entries(recorded):
            wanted = self._hidden.setdefault(shape, [])
            if (salt, digest) not in wanted:
                wanted.append((salt, digest))

    def learn_run(self, record: Any) -> None:
        """All a run (a ``tui.store.RunRecord``) tells of its secrets, before anything of it is written.

        Its config (arguments, secret options), its start event's config, and the secrets it recorded,
        looked for at once in those (where the run put them).
        """
        config = record.config if isinstance(record.config, Mapping) else {}
        self.learn_recorded(config.get(RECORD_KEY))
        config = without_record(config)
        self.learn_from_obj(config)
        start = record.start
        if start is not None:
            self.learn_from_obj(start.config)
        if self._hidden:
            for leaf in leaves([config, start.config if start is not None else {}]):
                if isinstance(leaf, str):
                    self.discover(leaf)

    def learn_run_dir(self, path: str | os.PathLike[str]) -> None:
        """:meth:`learn_run` from a run directory without loading the run (its config.json and start event).

        For the workbench, which must know the secrets before it draws its screen for an export: a long
        run's events take seconds to load, its start event is on one of the first lines.
        """
        path = Path(path)
        config = read_config(path, [])   # what is wrong with it the report says, from load_run
        # the start event among the first lines: of the first segment when the events are rotated
        start = next((data for _, data in zip(range(64), iter_jsonl(path / EVENTS))
                      if isinstance(data, dict) and data.get("event") == "start"), None)
        start_config = start.get("config") if isinstance(start, dict) else None
        # what learn_run reads of a record
        self.learn_run(SimpleNamespace(config=config,
                                       start=SimpleNamespace(config=start_config)
                                       if isinstance(start_config, dict) else None))

    @property
    def hiding(self) -> bool:
        """Are there recorded secrets not found yet?"""
        return bool(self._hidden)

    def discover(self, text: str) -> None:
        """Learn the recorded secrets this text holds: whole words of their shape whose digest matches."""
        if not self._hidden or not text:
            return
        # a short text (an argument, a config value) at every position: "/data/run<secret>" holds it too;
        # a long one (a log) at word boundaries only, which keeps the candidates few; an ASCII one (most
        # logs) with its letters and digits turned into "a"s, where a shape is a plain string to find
        loose = len(text) <= LOOSE_UP_TO
        masked = text.encode("ascii").translate(MASK) if not loose and text.isascii() else None
        for shape in list(self._hidden):
            wanted = self._hidden[shape]
            if not may_hold(shape, text):
                continue
            if masked is not None:
                candidates: Iterable[str] = masked_candidates(shape, text, masked)
            else:
                pattern = shape_pattern(shape, loose)
                candidates = (m.group(1) for m in pattern.finditer(text)) if pattern is not None else ()
            tried: set[str] = set()  # a log repeats its words: each one hashed once
            for candidate in candidates:
                if candidate in tried:
                    continue
                tried.add(candidate)
                for entry in wanted:
                    if salted_digest(entry[0], candidate) == entry[1]:
                        wanted.remove(entry)
                        self.learn(candidate)
                        break
                if not wanted:
                    break
            if not wanted:
                del self._hidden[shape]

    # -- what is drawn ---------------------------------------------------------------------

    def record(self, record: Any) -> Any:
        """A copy of a run (a ``tui.store.RunRecord``) with all it can show redacted, for drawing it.

        Its config and arguments, its events' strings, its log and its problems; its telemetry (numbers
        and device names) is shared. The screenshot, the text screen and the charts draw this copy: a field
        or a line cut to its width then cuts the marker, never half a secret (which no rule could find).
        """
        log = self.text(record.log_text)  # first: a recorded secret found in it is then known to the rest
        events = [self.event(e) for e in record.events]
        config = record.config if isinstance(record.config, Mapping) else {}
        return dataclasses.replace(record, config=self.obj(without_record(config)), events=events, log=log,
                                   problems=[self.text(p) for p in record.problems])

    def event(self, event: Any) -> Any:
        """An event (a ``workloads.protocol`` dataclass) with its strings redacted; the same object if none changes."""
        changes: dict[str, Any] = {}
        for name in _text_fields(type(event)):  # a long run's steps: their unit and their (empty) extra
            value = getattr(event, name)
            if value.__class__ is str:
                new: Any = self._short_text(value)
            elif not value:
                continue
            elif isinstance(value, (dict, list, tuple, Mapping)):
                new = self.obj(value)
            elif isinstance(value, str):
                new = self._short_text(value)
            else:
                continue
            if new != value:
                changes[name] = new
        return dataclasses.replace(event, **changes) if changes else event

    def _short_text(self, text: str) -> str:
        if len(text) > 256:
            return self.text(text)
        out = self._short.get(text)
        if out is None:
            if len(self._short) > 4096:
                self._short.clear()
            out = self.text(text)
            self._short[text] = out  # after text(): a secret it discovered has cleared the cache
        return out

    def screen(self, text: str) -> str:
        """A drawn screen (the screenshot's SVG, or a text rendering), with what a cut left of a secret.

        :meth:`text`, then, in each piece of text (an SVG ``<text>`` element's, or a line): a word that
        ends with the start of a learned secret or begins with its end (at least :data:`MIN_FRAGMENT`
        characters of it), and a word at the end of a piece that starts like a token shape (``ghp_``,
        ``hf_``...) but was cut too short for the shape rule, are replaced. The screen is drawn from
        redacted runs (:meth:`record`); this is for what was drawn before the redactor knew (the live screen).
        """
        text = self.text(text)
        heads, tails = secret_fragments(self._secrets)
        return PIECE.sub(lambda m: screen_piece(m.group(0), heads, tails), text)

    # -- scrubbing ------------------------------------------------------------------------

    def _secret_pattern(self) -> re.Pattern[str] | None:
        if self._pattern is None and self._secrets:
            self._pattern = alternation(frozenset(self._secrets))
        return self._pattern

    def text(self, text: str) -> str:
        if self._hidden:
            self.discover(text)
        pattern = self._secret_pattern()
        if pattern is not None and len(text) >= LINEWISE_FROM:
            # an alternation of every learned value scans a long text slowly: only those present in it
            present = [s for s in self._secrets if s in text]
            pattern = alternation(frozenset(present)) if present else None
        if pattern is not None:
            text = pattern.sub(REDACTED, text)
        if len(text) < LINEWISE_FROM:
            return patterns(text)
        lines = text.split("\n")
        flags = flag_lines(text, lines)
        if flags is None:
            return patterns(text)
        if not any(flags):
            return text
        out: list[str] = []
        i, n = 0, len(lines)
        while i < n:
            if not flags[i]:
                j = i
                while j < n and not flags[j]:
                    j += 1
                out.append("\n".join(lines[i:j]))
                i = j
                continue
            # a chunk: flagged lines, each with the lines its match may reach, merged where they meet
            end = reach(lines, i)
            j = i + 1
            while j < n and (j <= end or flags[j]):
                if flags[j]:
                    end = max(end, reach(lines, j))
                j += 1
            out.append(patterns("\n".join(lines[i:j])))
            i = j
        return "\n".join(out)

    def jsonl(self, text: str) -> str:
        """JSON lines redacted object by object, each line still JSON (:func:`~tui.redact.as_json.jsonl`)."""
        return as_json.jsonl(self, text)

    def json_text(self, obj: Any) -> str:
        """An object as a bundle's JSON file, redacted as JSON (:func:`~tui.redact.as_json.json_text`)."""
        return as_json.json_text(self, obj)

    def obj(self, obj: Any) -> Any:
        """A JSON-like object with secret-keyed values and secret option arguments blanked, strings (keys too)
        scrubbed; a number that is a learned secret is the marker."""
        if isinstance(obj, Mapping):
            return {self._short_text(str(k)): (REDACTED if is_secret_name(str(k)) and v not in (None, "")
                                               else self.obj(v))
                    for k, v in obj.items()}
        if isinstance(obj, (int, float)) and not isinstance(obj, bool):
            return REDACTED if self._secrets and str(obj) in self._secrets else obj
        if isinstance(obj, (list, tuple)):
            out: list[Any] = []
            blank_next = False
            for item in obj:
                if blank_next:
                    out.append(REDACTED)
                    blank_next = False
                    continue
                if isinstance(item, str) and item.startswith("-"):
                    name, eq, _value = item.partition("=")
                    if is_secret_name(name):
                        if eq:
                            out.append(f"{name}={REDACTED}")
                        else:
                            out.append(item)
                            blank_next = True
                        continue
                out.append(self.obj(item))
            return out
        if isinstance(obj, str):
            return self.text(obj)
        return obj

    def environment(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        """The allow-listed variables only, secret-looking values replaced, URLs masked."""
        environ = os.environ if environ is None else environ
        out: dict[str, str] = {}
        for name in sorted(environ):
            if not env_allowed(name):
                continue
            out[name] = REDACTED if is_secret_name(name) else self.text(environ[name])
        return out


@functools.lru_cache(maxsize=64)
def _text_fields(cls: type) -> tuple[str, ...]:
    """The fields of an event class that may hold a string (not those typed as numbers only); () if no dataclass."""
    if not dataclasses.is_dataclass(cls):
        return ()
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - an annotation that does not resolve: every field is looked at
        hints = {}
    numeric = (int, float, bool, type(None))
    out = []
    for f in dataclasses.fields(cls):
        hint = hints.get(f.name, Any)
        if all(a in numeric for a in (typing.get_args(hint) or (hint,))):
            continue
        out.append(f.name)
    return tuple(out)

