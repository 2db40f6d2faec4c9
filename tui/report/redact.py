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

A long text (a run.log or events.jsonl of hundreds of thousands of steps) is
scrubbed where it can change: every match of every pattern holds one of
:data:`_TRIGGERS` on its first line, so only the lines holding one (and the few
after, for a value on the next line) go through the patterns, with the same
result as the whole text through them, in linear time.
"""

from __future__ import annotations

import functools
import json
import os
import re
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

    # -- scrubbing ------------------------------------------------------------------------

    def _secret_pattern(self) -> re.Pattern[str] | None:
        if self._pattern is None and self._secrets:
            self._pattern = _alternation(frozenset(self._secrets))
        return self._pattern

    def text(self, text: str) -> str:
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
