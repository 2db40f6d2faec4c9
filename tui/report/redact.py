"""Keep the user's secrets out of the report bundle.

The bundle is handed to strangers (a campaign's reviewers), and it carries the
environment, the runs' arguments and their logs. Three layers, so one missed
case in a layer does not leak:

1. the environment is written only through an allow-list of names, and an
   allowed name that looks secret has its value replaced;
2. every value that is known to be secret (environment variables whose names
   look secret, values given to secret-looking options or keys in a run's
   arguments, URL passwords) is learned before anything is written;
3. :meth:`Redactor.text` runs over EVERY text written to the bundle as the last
   line of defence: it removes the learned values wherever they appear, masks
   credentials inside URLs, and blanks the values of ``NAME=value``,
   ``"name": "value"`` and ``--name value`` forms whose name looks secret, and
   well-known token shapes (``hf_...``, ``ghp_...``, ``sk-...``, AWS key ids, JWTs).

Two more things keep a secret out when the text it was in is cut short or the variable is gone:

4. a secret the run's arguments or config hold when the run is created (an ``$HF_TOKEN`` inside a
   ``--data`` path) is recorded with the run (:func:`record_for_run`, ``config.json["redact"]``): a salted
   SHA-256 digest and the value's shape (its runs of letters and digits replaced by their lengths),
   never the value. An export made later from a shell without the variable (the README's export after a
   crash) finds it again (:meth:`Redactor.learn_run`, :meth:`Redactor.discover`): a stretch of text of
   that shape, whole words, whose digest matches is learned like any other secret;
5. what is drawn (the screenshot, the text screen, the charts) is drawn from redacted copies of the runs
   (:meth:`Redactor.record`), so a field or a line cut to its width can only cut the marker, never half a
   secret; and a drawn screen goes through :meth:`Redactor.screen`, which also removes what a cut left of a
   learned secret (a word ending with its start or starting with its end) and a token shape cut short.

A long text (a run.log or events.jsonl of hundreds of thousands of steps) is
scrubbed where it can change: every match of every pattern holds one of
:data:`_TRIGGERS` on its first line, so only the lines holding one (and the few
after, for a value on the next line) go through the patterns, with the same
result as the whole text through them, in linear time.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import html
import json
import os
import re
import secrets as _secrets
import typing
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Iterable, Mapping

# not "<...>": inside the SVG screenshot or report.html that would be a broken or invisible tag
REDACTED = "[redacted]"

# a name part ends with one of these -> the value is secret ("HF_TOKEN", "apikey", "db-password")
_SECRET_ENDINGS = ("key", "token", "secret", "pass", "password", "passwd", "pwd", "auth", "credential",
                   "credentials", "cookie", "signature", "passphrase", "authorization", "sessionid", "dsn")
_SECRET_STARTS = ("secret", "passw", "credential", "cookie", "authoriz", "privatekey")
# environment names that look secret by the rule above but hold nothing of the kind
_NOT_SECRET_NAMES = {"pwd", "oldpwd", "keymap", "xauthority"}

# names (prefixes or exact) the environment section may show: device selection and the libraries' tuning
ENV_ALLOW_PREFIXES = (
    "CUDA_", "NCCL_", "PYTORCH_", "TORCH_", "TORCHINDUCTOR_", "OMP_", "MKL_", "KMP_", "OPENBLAS_",
    "NVIDIA_", "HIP_", "HSA_", "ROCR_", "ROCM_", "MIOPEN_", "HCCL_", "ASCEND_", "MLU_", "CNCL_", "CNRT_",
    "MUSA_", "MCCL_", "MACA_", "MX_", "IX_", "COREX_", "XPU_", "ZE_", "ONEAPI_", "NEURON_", "HABANA_",
    "TPU_", "XLA_", "DTK_", "TOPS_", "ECCL_", "BIREN_", "CARDBENCH_",
)
ENV_ALLOW_EXACT = {"PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_DEFAULT_ENV",
                   "CONDA_PREFIX", "LANG", "LC_ALL", "TZ", "GPU_DEVICE_ORDINAL", "SHELL", "TERM"}

# values shorter than this are blanked only where they stand beside a secret name, not everywhere
MIN_LEARNED = 6
# a cut piece of a learned secret this long is removed from a drawn screen (Redactor.screen)
MIN_FRAGMENT = 4
# config.json's key for what the run recorded for later exports (record_for_run); never in the bundle
RECORD_KEY = "redact"
_HARMLESS_VALUES = {"true", "false", "none", "null", "yes", "no", "on", "off", "0", "1"}

_TOKEN_SHAPES = re.compile(
    r"\bhf_[A-Za-z0-9]{8,}"                     # Hugging Face
    r"|\bgh[pousr]_[A-Za-z0-9]{16,}"            # GitHub
    r"|\bgithub_pat_[A-Za-z0-9_]{16,}"
    r"|\bglpat-[A-Za-z0-9_-]{16,}"              # GitLab
    r"|\bsk-[A-Za-z0-9_-]{16,}"                 # OpenAI, Anthropic...
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"           # AWS access key id
    r"|\bxox[abprs]-[A-Za-z0-9-]{10,}"          # Slack
    r"|\bAIza[0-9A-Za-z_-]{30,}"                # Google API key
    r"|\bnpm_[A-Za-z0-9]{30,}"
    r"|\bpypi-[A-Za-z0-9_-]{40,}"
    r"|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"  # a JWT
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"
)
# scheme://user:password@host or scheme://token@host
_URL_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/\s@:\"']+(?::[^/\s@\"']*)?)@")
_BEARER = re.compile(r"(?i)\b(bearer|basic)(\s+|&#160;)[A-Za-z0-9._~+/=-]{6,}")
# any scheme after an Authorization header ("Token x", "Digest x"...): bare words like "token" are prose elsewhere
_AUTH_HEADER = re.compile(r"(?i)\b((?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?)([A-Za-z-]+(?:\s|&#160;)+)?[^\s\"'&]{6,}")
# space as the SVG screenshot writes it too, so a screenshot of `--hf-token xyz` is caught
_SP = r"(?:[ \t]|&#160;|&nbsp;)"
_KEY_VALUE = re.compile(
    r"(?P<q>[\"']?)(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)(?P=q)(?P<sep>" + _SP + r"*[:=]" + _SP + r"*)"
    # a bare value never starts with "[" or "<": that is the marker already written, or markup
    r"(?P<val>\"[^\"\n]*\"|'[^'\n]*'|&quot;.*?&quot;|[^\s,;}\[\]\)&\"'<]+)")
_OPTION_VALUE = re.compile(
    r"(?P<opt>(?<![A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9_-]*)(?P<sep>" + _SP + r"+|=|\"," + _SP + r"*\"|'," + _SP
    + r"*')(?P<val>[^\s\"'<&]+)")


# Every match of the patterns below holds one of these on its first line (compared lowercased, as the (?i)
# patterns match): a secret name holds the start of one of its secret parts (_SECRET_ENDINGS/_STARTS,
# "authorization" holds "auth"), a token shape its literal prefix, a URL "://".
_TRIGGERS = ("key", "token", "secret", "pass", "pwd", "auth", "credential", "cookie", "signature", "sessionid",
             "dsn", "hf_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "sk-", "akia", "asia", "xox", "aiza", "npm_", "pypi-",
             "eyj", "-----begin", "://", "bearer", "basic")
# below this many characters a text goes through every pattern whole (the line-wise pass only pays off on logs)
_LINEWISE_FROM = 1 << 16
# a value may follow its "Authorization:" or "Bearer" on later lines (\s spans newlines): at most this many
# more lines with something on them (":", the scheme, the value)
_FOLLOWING_LINES = 3


def _parts(name: str) -> list[str]:
    # camelCase -> camel_Case, so "hfToken" and "apiKey" split like "hf_token"
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [p for p in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if p]


@functools.lru_cache(maxsize=4096)  # the same few keys, once per line of a long events.jsonl
def is_secret_name(name: str) -> bool:
    """Does a variable, key or option name look like it holds a secret? ("tokens_per_s" does not.)"""
    bare = name.lstrip("-").lower()
    if bare in _NOT_SECRET_NAMES:
        return False
    parts = _parts(name.lstrip("-"))
    whole = "".join(parts)
    if any(whole.endswith(e) for e in ("apikey", "accesskey", "privatekey", "secretkey")):
        return True
    return any(p.endswith(_SECRET_ENDINGS) or p.startswith(_SECRET_STARTS) for p in parts)


def env_allowed(name: str) -> bool:
    return name in ENV_ALLOW_EXACT or name.startswith(ENV_ALLOW_PREFIXES)


class Redactor:
    """Learns the secrets first, then scrubs every text and object written to the bundle."""

    def __init__(self, environ: Mapping[str, str] | None = None):
        self._secrets: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        # recorded secrets not found yet: shape -> [(salt, sha256 hex digest)]
        self._hidden: dict[str, list[tuple[str, str]]] = {}
        # short strings seen again and again (an event's unit, once per step): text() of each, once
        self._short: dict[str, str] = {}
        self.learn_environment(os.environ if environ is None else environ)

    # -- learning -------------------------------------------------------------------------

    def learn(self, value: Any) -> None:
        if not isinstance(value, str):
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                value = str(value)
            else:
                return
        value = value.strip().strip("\"'")
        if len(value) < MIN_LEARNED or value.lower() in _HARMLESS_VALUES:
            return
        if value not in self._secrets:
            self._secrets.add(value)
            self._pattern = None
            self._short.clear()

    def learn_environment(self, environ: Mapping[str, str]) -> None:
        for name, value in environ.items():
            if is_secret_name(name):
                self.learn(value)
            self.learn_from_text(value)

    def learn_from_text(self, text: str) -> None:
        """URL passwords and token shapes inside any value (a DATABASE_URL, a proxy setting)."""
        for match in _URL_USERINFO.finditer(text):
            userinfo = match.group("userinfo")
            user, _, password = userinfo.partition(":")
            self.learn(password if password else user)
        for match in _TOKEN_SHAPES.finditer(text):
            self.learn(match.group(0))

    def learn_from_args(self, args: Iterable[Any]) -> None:
        """``--hf-token xyz`` and ``--hf-token=xyz`` in a run's arguments."""
        items = [str(a) for a in args]
        for i, item in enumerate(items):
            if item.startswith("-"):
                name, eq, value = item.partition("=")
                if is_secret_name(name):
                    if eq:
                        self.learn(value)
                    elif i + 1 < len(items):
                        self.learn(items[i + 1])
            self.learn_from_text(item)

    def learn_from_obj(self, obj: Any) -> None:
        """Values under secret-looking keys, anywhere in a JSON-like object; option lists too."""
        if isinstance(obj, Mapping):
            for key, value in obj.items():
                if is_secret_name(str(key)):
                    if isinstance(value, (str, int, float)):
                        self.learn(value)
                    else:
                        for leaf in _leaves(value):
                            self.learn(leaf)
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
        for salt, digest, shape in _recorded_entries(recorded):
            wanted = self._hidden.setdefault(shape, [])
            if (salt, digest) not in wanted:
                wanted.append((salt, digest))

    def learn_run(self, record: Any) -> None:
        """All a run (a ``tui.runs.RunRecord``) tells of its secrets, before anything of it is written.

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
            for leaf in _leaves([config, start.config if start is not None else {}]):
                if isinstance(leaf, str):
                    self.discover(leaf)

    def learn_run_dir(self, path: str | os.PathLike[str]) -> None:
        """:meth:`learn_run` from a run directory without loading the run (its config.json and start event).

        For the workbench, which must know the secrets before it draws its screen for an export: a long
        run's events take seconds to load, its start event is on one of the first lines.
        """
        path = Path(path)
        config: Any = {}
        try:
            config = json.loads((path / "config.json").read_text(encoding="utf-8", errors="replace"))
        except (OSError, ValueError, RecursionError):
            pass
        start: Any = None
        try:
            with open(path / "events.jsonl", encoding="utf-8", errors="replace") as handle:
                for _, line in zip(range(64), handle):
                    try:
                        data = json.loads(line)
                    except (ValueError, RecursionError):
                        continue
                    if isinstance(data, dict) and data.get("event") == "start":
                        start = data
                        break
        except OSError:
            pass
        start_config = start.get("config") if isinstance(start, dict) else None
        # what learn_run reads of a record
        self.learn_run(SimpleNamespace(config=config if isinstance(config, dict) else {},
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
        loose = len(text) <= _LOOSE_UP_TO
        masked = text.encode("ascii").translate(_MASK) if not loose and text.isascii() else None
        for shape in list(self._hidden):
            wanted = self._hidden[shape]
            if not _may_hold(shape, text):
                continue
            if masked is not None:
                candidates: Iterable[str] = _masked_candidates(shape, text, masked)
            else:
                pattern = _shape_pattern(shape, loose)
                candidates = (m.group(1) for m in pattern.finditer(text)) if pattern is not None else ()
            tried: set[str] = set()  # a log repeats its words: each one hashed once
            for candidate in candidates:
                if candidate in tried:
                    continue
                tried.add(candidate)
                for entry in wanted:
                    if _digest(entry[0], candidate) == entry[1]:
                        wanted.remove(entry)
                        self.learn(candidate)
                        break
                if not wanted:
                    break
            if not wanted:
                del self._hidden[shape]

    # -- what is drawn ---------------------------------------------------------------------

    def record(self, record: Any) -> Any:
        """A copy of a run (a ``tui.runs.RunRecord``) with all it can show redacted, for drawing it.

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
        heads, tails = _fragments(self._secrets)
        return _PIECE.sub(lambda m: _screen_piece(m.group(0), heads, tails), text)

    # -- scrubbing ------------------------------------------------------------------------

    def _secret_pattern(self) -> re.Pattern[str] | None:
        if self._pattern is None and self._secrets:
            self._pattern = _alternation(frozenset(self._secrets))
        return self._pattern

    def text(self, text: str) -> str:
        if self._hidden:
            self.discover(text)
        pattern = self._secret_pattern()
        if pattern is not None and len(text) >= _LINEWISE_FROM:
            # an alternation of every learned value scans a long text slowly: only those present in it
            present = [s for s in self._secrets if s in text]
            pattern = _alternation(frozenset(present)) if present else None
        if pattern is not None:
            text = pattern.sub(REDACTED, text)
        if len(text) < _LINEWISE_FROM:
            return _patterns(text)
        lines = text.split("\n")
        flags = _flag_lines(text, lines)
        if flags is None:
            return _patterns(text)
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
            end = _reach(lines, i)
            j = i + 1
            while j < n and (j <= end or flags[j]):
                if flags[j]:
                    end = max(end, _reach(lines, j))
                j += 1
            out.append(_patterns("\n".join(lines[i:j])))
            i = j
        return "\n".join(out)

    def jsonl(self, text: str) -> str:
        """JSON lines scrubbed object by object (secret keys, option lists, strings), then as text.

        A line nothing in could be scrubbed (no trigger, no learned value, no backslash: a JSON escape
        hides what it spells) is kept as it is, undecoded: most of a long run's events.jsonl.
        """
        # split at "\n" only: a JSON string may hold U+2028, which splitlines() would cut it at
        body = text[:-1] if text.endswith("\n") else text
        if not body:
            return ""
        if self._hidden:
            self.discover(body)
        lines = body.split("\n")
        flags = _flag_lines(body, lines, also="\\")
        present = [s for s in self._secrets if s in body]
        if flags is not None and not present and not any(flags):
            # nothing :meth:`text` would find either (its patterns all need a trigger)
            return body + "\n"
        out = []
        for i, line in enumerate(lines):
            if flags is not None and not flags[i] and not any(s in line for s in present):
                out.append(line)
                continue
            try:
                out.append(json.dumps(self.obj(json.loads(line)), separators=(",", ":"), ensure_ascii=False))
            except (ValueError, RecursionError):
                # a torn line, or one nested too deep to walk: kept as it is (and still scrubbed as text)
                out.append(line)
        return self.text("\n".join(out) + ("\n" if out else ""))

    def obj(self, obj: Any) -> Any:
        """A JSON-like object with secret-keyed values and secret option arguments blanked, strings scrubbed."""
        if isinstance(obj, Mapping):
            return {str(k): (REDACTED if is_secret_name(str(k)) and v not in (None, "") else self.obj(v))
                    for k, v in obj.items()}
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
def _alternation(secrets: frozenset[str]) -> re.Pattern[str]:
    # longest first, so a secret containing another is removed whole
    return re.compile("|".join(re.escape(s) for s in sorted(secrets, key=len, reverse=True)))


def _shape_may_match(shape: str) -> bool:
    """Could any pattern match from a line like this (its digits left out: no trigger holds one)?"""
    low = shape.lower()
    if len(low) != len(shape):
        return True  # "İ" lowers to two characters: let the patterns decide
    # the two letters (?i) also matches in a non-ASCII form that lower() keeps: dotless i, long s
    low = low.replace("\u0131", "i").replace("\u017f", "s")
    for trigger in _TRIGGERS:
        at = low.find(trigger)
        if trigger == "token":
            # "tokens" is not a secret name part ("tokens_per_s"): "token" must end its part
            while at != -1 and shape[at + 5:at + 6] == "s":
                at = low.find(trigger, at + 1)
        if at != -1:
            return True
    return False


def _flag_lines(text: str, lines: list[str], also: str = "") -> list[bool] | None:
    """Per line: could a pattern match from it (or does it hold ``also``)? None when the whole text must go
    through the patterns (it holds a private key: a PEM block spans lines)."""
    if text.isascii():
        # bytes translate at C speed; step lines that differ only in their numbers share one shape
        shapes: list[Any] = text.encode("ascii").translate(None, b"0123456789").split(b"\n")
        decode = bytes.decode
    else:
        shapes = text.translate(_NO_DIGITS).split("\n")
        decode = str
    verdict: dict[Any, bool] = {}
    for shape in set(shapes):
        line = decode(shape)
        verdict[shape] = _shape_may_match(line) or bool(also and also in line)
    if any(verdict[shape] and "-----begin" in decode(shape).lower() for shape in verdict):
        return None
    if len(shapes) != len(lines):  # cannot happen (digits are not line breaks); if it did, the slow way
        return None
    return [verdict[shape] for shape in shapes]


_NO_DIGITS = {ord(c): None for c in "0123456789"}


def _blank(line: str) -> bool:
    return not line.replace("&#160;", "").replace("&nbsp;", "").strip()


def _reach(lines: list[str], i: int) -> int:
    """The last line a match starting on line i may reach: _FOLLOWING_LINES lines with something on them."""
    seen, j = 0, i
    while seen < _FOLLOWING_LINES and j + 1 < len(lines):
        j += 1
        if not _blank(lines[j]):
            seen += 1
    return j


def _patterns(text: str) -> str:
    """Every pattern over the whole text: token shapes, URL credentials, auth headers, secret names' values."""
    text = _TOKEN_SHAPES.sub(REDACTED, text)
    text = _URL_USERINFO.sub(lambda m: f"{m.group('scheme')}{REDACTED}@", text)
    text = _AUTH_HEADER.sub(lambda m: f"{m.group(1)}{m.group(2) or ''}{REDACTED}", text)
    text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    text = _scan(_KEY_VALUE, "name", text, _blank_key_value)
    text = _scan(_OPTION_VALUE, "opt", text, _blank_option_value)
    return text


def _leaves(obj: Any) -> Iterable[Any]:
    if isinstance(obj, Mapping):
        for value in obj.values():
            yield from _leaves(value)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            yield from _leaves(value)
    else:
        yield obj


def _scan(pattern: re.Pattern[str], name_group: str, text: str, blank) -> str:
    """Like pattern.sub, but a non-secret name gives its value back to the scan.

    In ``config: hf_token=x`` the first candidate is ``config`` with the value
    ``hf_token=x``; a plain ``sub`` would step over the real secret inside it.
    """
    out: list[str] = []
    pos = 0
    while True:
        match = pattern.search(text, pos)
        if match is None:
            break
        if is_secret_name(match.group(name_group)):
            out.append(text[pos:match.start()])
            out.append(blank(match))
            pos = match.end()
        else:
            resume = max(match.start("val"), match.start() + 1)
            out.append(text[pos:resume])
            pos = resume
    out.append(text[pos:])
    return "".join(out)


def _blank_key_value(match: re.Match[str]) -> str:
    value = match.group("val")
    if value.startswith("&quot;"):
        replacement = f"&quot;{REDACTED}&quot;"
    elif value[:1] in "\"'":
        replacement = f"{value[0]}{REDACTED}{value[0]}"
    else:
        replacement = REDACTED
    q = match.group("q")
    return f"{q}{match.group('name')}{q}{match.group('sep')}{replacement}"


def _blank_option_value(match: re.Match[str]) -> str:
    if match.group("val") == REDACTED:
        return match.group(0)
    return f"{match.group('opt')}{match.group('sep')}{REDACTED}"


# -- what a run records, and how it is found again -------------------------------------------

def without_record(config: Mapping[str, Any]) -> dict[str, Any]:
    """A run's config without what it recorded for the redactor (that stays on the user's disk)."""
    return {k: v for k, v in config.items() if k != RECORD_KEY}


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
    texts = [leaf for leaf in _leaves(config) if isinstance(leaf, str)]
    found: set[str] = set()
    for secret in redactor._secrets:
        for text in texts:
            at = text.find(secret)
            while at != -1:
                found.add(secret)
                start, end = _word_span(text, at, at + len(secret))
                if end - start != len(secret):
                    found.add(text[start:end])
                at = text.find(secret, at + 1)
    if not found:
        return None
    salt = _secrets.token_hex(16)
    entries = sorted((_digest(salt, value), secret_shape(value)) for value in found)  # in digest order
    return {"salt": salt, "sha256": [d for d, _ in entries], "shapes": [s for _, s in entries]}


_WORD_RUN = re.compile(r"[^\W_]+")  # letters and digits; str.isalnum() says the same of one character


def secret_shape(value: str) -> str:
    """The value with each run of letters and digits replaced by its length: ``ghp_Ab12`` -> ``3_4``."""
    return _WORD_RUN.sub(lambda m: str(len(m.group())), value)


def _word_span(text: str, start: int, end: int) -> tuple[int, int]:
    """[start, end) widened to whole words: a secret starting or ending inside a word takes the word."""
    if start < end and text[start].isalnum():
        while start > 0 and text[start - 1].isalnum():
            start -= 1
    if start < end and text[end - 1].isalnum():
        while end < len(text) and text[end].isalnum():
            end += 1
    return start, end


def _digest(salt: str, value: str) -> str:
    return hashlib.sha256(f"{salt}\0{value}".encode("utf-8", "surrogatepass")).hexdigest()


_HEX_DIGEST = re.compile(r"[0-9a-f]{64}")


def _recorded_entries(recorded: Any) -> list[tuple[str, str, str]]:
    """(salt, digest, shape) of each well-formed entry of a run's record; anything else is ignored."""
    if not isinstance(recorded, Mapping):
        return []
    salt, digests, shapes = recorded.get("salt"), recorded.get("sha256"), recorded.get("shapes")
    if not isinstance(salt, str) or not isinstance(digests, list) or not isinstance(shapes, list):
        return []
    return [(salt, digest, shape) for digest, shape in zip(digests, shapes)
            if isinstance(digest, str) and _HEX_DIGEST.fullmatch(digest) and isinstance(shape, str)
            and _shape_pattern(shape) is not None]


_SHAPE_PARTS = re.compile(r"[0-9]+|[^0-9]+")


@functools.lru_cache(maxsize=256)
def _shape_parts(shape: str) -> tuple[int | str, ...] | None:
    """A shape as (word length | separator text) parts; None when it is not one :func:`secret_shape` gives."""
    if not shape or len(shape) > 4096:
        return None
    parts: list[int | str] = []
    for part in _SHAPE_PARTS.findall(shape):
        if part[0] in "0123456789":
            n = int(part)
            if not 0 < n <= 1 << 16:
                return None
            parts.append(n)
        elif _WORD_RUN.search(part):  # a separator holds no letter or digit
            return None
        else:
            parts.append(part)
    return tuple(parts)


# texts up to this long are searched for recorded secrets at every position, longer ones at word boundaries
_LOOSE_UP_TO = 4096


@functools.lru_cache(maxsize=256)
def _shape_pattern(shape: str, loose: bool = False) -> re.Pattern[str] | None:
    """Every stretch of text of this shape (group 1), overlapping ones too: made of whole words unless loose."""
    parts = _shape_parts(shape)
    if parts is None:
        return None
    body = "".join(rf"[^\W_]{{{p}}}" if isinstance(p, int) else re.escape(p) for p in parts)
    lead = r"(?<![^\W_])" if isinstance(parts[0], int) and not loose else ""
    trail = r"(?![^\W_])" if isinstance(parts[-1], int) and not loose else ""
    return re.compile(f"{lead}(?=({body}){trail})")


# ASCII letters and digits -> "a", everything else kept: a shape's stretches of text are then one string
_MASK = bytes(ord("a") if chr(b).isalnum() else b for b in range(128)) + bytes(range(128, 256))


def _masked_candidates(shape: str, text: str, masked: bytes) -> Iterable[str]:
    """The stretches of an ASCII text of this shape made of whole words (``masked``: the text through _MASK)."""
    parts = _shape_parts(shape)
    if parts is None:
        return
    try:
        needle = b"".join(b"a" * p if isinstance(p, int) else p.encode("ascii") for p in parts)
    except UnicodeEncodeError:  # a separator no ASCII text holds
        return
    word_first, word_last = isinstance(parts[0], int), isinstance(parts[-1], int)
    size, a = len(needle), ord("a")
    at = masked.find(needle)
    while at != -1:
        end = at + size
        if (not word_first or at == 0 or masked[at - 1] != a) and (not word_last or end == len(masked)
                                                                    or masked[end] != a):
            yield text[at:end]
        at = masked.find(needle, at + 1)


def _may_hold(shape: str, text: str) -> bool:
    """Each separator of the shape is in the text (at C speed, before the pattern walks a long text)."""
    parts = _shape_parts(shape)
    return parts is not None and all(p in text for p in parts if isinstance(p, str))


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


# -- what the live screen shows ------------------------------------------------------------------

def redacted_args(args: Iterable[Any], redactor: Redactor) -> list[str]:
    """A run's arguments as a screen may show them: secret options' values and learned secrets replaced."""
    return redactor.obj([str(a) for a in args])


def redacted_values(values: Mapping[str, str], redactor: Redactor) -> dict[str, str]:
    """The launcher's field values (field name -> text) as a screen may show them.

    A field whose name looks secret shows only the marker; any other its text redacted. Set on the
    fields before the screen is drawn: a field crops its text, and the cropped half of a secret is
    found by no rule afterwards.
    """
    return {key: (REDACTED if value and is_secret_name(key) else redactor.text(value)) if isinstance(value, str)
            else value for key, value in values.items()}


# SVG: a tag, or text between tags (a <text> element's characters); a line break ends a piece too
_PIECE = re.compile(r"<[^>]*>|[^<\n]+")
_SPACES = re.compile(r"((?:\s|&#160;|&nbsp;)+)")
_ELLIPSIS = ("…", "&#8230;", "...")
# a token shape's start at the end of a piece: cut there, it may be too short for _TOKEN_SHAPES
_CUT_SHAPE = re.compile(r"\b(?:hf_|gh[pousr]_|github_pat_|glpat-|sk-|AKIA|ASIA|xox[abprs]-|AIza|npm_|pypi-|eyJ)"
                        r"[A-Za-z0-9_.-]{6,}$")
_MAX_FRAGMENT = 512


def _fragments(secrets: Iterable[str]) -> tuple[set[str], set[str]]:
    """Proper prefixes (heads) and suffixes (tails) of each secret, as written and XML-escaped."""
    heads: set[str] = set()
    tails: set[str] = set()
    for secret in secrets:
        for form in {secret, html.escape(secret, quote=False), html.escape(secret)}:
            n = len(form)
            for k in range(MIN_FRAGMENT, min(n, _MAX_FRAGMENT)):
                heads.add(form[:k])
                tails.add(form[n - k:])
    return heads, tails


def _screen_piece(piece: str, heads: set[str], tails: set[str]) -> str:
    if piece.startswith("<"):
        return piece
    parts = _SPACES.split(piece)
    last = max((i for i in range(0, len(parts), 2) if parts[i]), default=-1)
    for i in range(0, len(parts), 2):
        if parts[i]:
            parts[i] = _screen_word(parts[i], heads, tails, at_end=i == last)
    return "".join(parts)


def _screen_word(word: str, heads: set[str], tails: set[str], at_end: bool) -> str:
    lead = next((e for e in _ELLIPSIS if word.startswith(e)), "")
    core = word[len(lead):]
    end = next((e for e in _ELLIPSIS if core.endswith(e)), "")
    core = core[:len(core) - len(end)]
    n = len(core)
    if heads:
        # the start of a secret, cut at its end: "/data/ghp_AbCdEf" -> "/data/[redacted]"
        for k in range(min(n, _MAX_FRAGMENT), MIN_FRAGMENT - 1, -1):
            if core[n - k:] in heads:
                core = core[:n - k] + REDACTED
                break
        n = len(core)
        # the end of a secret, cut at its start
        for k in range(min(n, _MAX_FRAGMENT), MIN_FRAGMENT - 1, -1):
            if core[:k] in tails:
                core = REDACTED + core[k:]
                break
    if at_end:
        core = _CUT_SHAPE.sub(REDACTED, core)
    return lead + core + end
