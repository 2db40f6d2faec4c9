"""What looks secret: secret names, the environment's allow-list, token shapes and the patterns that blank them.

The constants the other modules of :mod:`tui.redact` share live here too (the marker, the lengths, the
triggers every pattern's match holds).
"""

from __future__ import annotations

import functools
import re

# not "<...>": inside the SVG screenshot or report.html that would be a broken or invisible tag
REDACTED = "[redacted]"

# a name part that is one of these -> the value is secret ("HF_TOKEN", "api-key", "db_pass"); whole parts only,
# or "bypass" (a CPU's "Spec store bypass:") and "monkey" would be secrets
_SECRET_PARTS = ("key", "token", "secret", "pass", "password", "passwd", "pwd", "auth", "credential",
                 "credentials", "cookie", "signature", "passphrase", "authorization", "sessionid", "dsn")
# a part that ends with one of these is secret too: no English word ends so ("hftoken", "dbpassword", "oauth")
_SECRET_ENDINGS = ("token", "secret", "password", "passwd", "credential", "credentials", "cookie", "passphrase",
                   "authorization", "sessionid", "apikey", "accesskey", "privatekey", "secretkey", "oauth")
_SECRET_STARTS = ("secret", "passw", "credential", "cookie", "authoriz", "privatekey")
# names that look secret by the rules above but hold nothing of the kind; a bare "pass" is the PASS of a
# verdict ("PASS: none of the above"), a password is named "db_pass" or "password"
_NOT_SECRET_NAMES = {"pwd", "oldpwd", "keymap", "xauthority", "pass"}

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
HARMLESS_VALUES = {"true", "false", "none", "null", "yes", "no", "on", "off", "0", "1"}

TOKEN_SHAPES = re.compile(
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
URL_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/\s@:\"']+(?::[^/\s@\"']*)?)@")
BEARER = re.compile(r"(?i)\b(bearer|basic)(\s+|&#160;)[A-Za-z0-9._~+/=-]{6,}")
# any scheme after an Authorization header ("Token x", "Digest x"...): bare words like "token" are prose elsewhere
AUTH_HEADER = re.compile(r"(?i)\b((?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?)([A-Za-z-]+(?:\s|&#160;)+)?[^\s\"'&]{6,}")
# space as the SVG screenshot writes it too, so a screenshot of `--hf-token xyz` is caught
_SP = r"(?:[ \t]|&#160;|&nbsp;)"
KEY_VALUE = re.compile(
    r"(?P<q>[\"']?)(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)(?P=q)(?P<sep>" + _SP + r"*[:=]" + _SP + r"*)"
    # a bare value never starts with "[" or "<": that is the marker already written, or markup
    r"(?P<val>\"[^\"\n]*\"|'[^'\n]*'|&quot;.*?&quot;|[^\s,;}\[\]\)&\"'<]+)")
OPTION_VALUE = re.compile(
    r"(?P<opt>(?<![A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9_-]*)(?P<sep>" + _SP + r"+|=|\"," + _SP + r"*\"|'," + _SP
    + r"*')(?P<val>[^\s\"'<&]+)")


# Every match of the patterns below holds one of these on its first line (compared lowercased, as the (?i)
# patterns match): a secret name holds the start of one of its secret parts (_SECRET_ENDINGS/_STARTS,
# "authorization" holds "auth"), a token shape its literal prefix, a URL "://".
TRIGGERS = ("key", "token", "secret", "pass", "pwd", "auth", "credential", "cookie", "signature", "sessionid",
             "dsn", "hf_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "sk-", "akia", "asia", "xox", "aiza", "npm_", "pypi-",
             "eyj", "-----begin", "://", "bearer", "basic")
# below this many characters a text goes through every pattern whole (the line-wise pass only pays off on logs)
LINEWISE_FROM = 1 << 16
# a value may follow its "Authorization:" or "Bearer" on later lines (\s spans newlines): at most this many
# more lines with something on them (":", the scheme, the value)
FOLLOWING_LINES = 3


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
    if "".join(parts).endswith(("apikey", "accesskey", "privatekey", "secretkey")):
        return True
    return any(p in _SECRET_PARTS or p.endswith(_SECRET_ENDINGS) or p.startswith(_SECRET_STARTS) for p in parts)


# the last part of a secret option's name that says its value is a variable's name, the secret the variable's value
# (``--api-key-env HOSTILE_SRV``: the key is what HOSTILE_SRV holds, whatever the variable is called)
_NAMES_VARIABLE = ("env", "var", "variable")
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,255}")


def names_variable(name: str) -> bool:
    """Does a secret option or key (``--api-key-env``, ``hf_token_var``) take the name of the variable holding it?"""
    parts = _parts(name.lstrip("-"))
    return len(parts) > 1 and parts[-1] in _NAMES_VARIABLE and is_secret_name(name)


def env_allowed(name: str) -> bool:
    return name in ENV_ALLOW_EXACT or name.startswith(ENV_ALLOW_PREFIXES)

