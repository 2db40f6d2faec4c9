"""No secret from the environment, the runs' arguments or their logs reaches the report bundle."""

import os
import zipfile

import pytest

from report_runs import generate_run, resnet_run
from tui.report import envinfo, png
from tui.report.export import ExportInputs, export_bundle
from tui.redact import REDACTED, Redactor, env_allowed, is_secret_name
from tui.store import RunStore
from workloads import protocol

# name -> value planted in the environment; every value must be absent from every file of the bundle
PLANTED_ENV = {
    "HF_TOKEN": "hf_PlantedHuggingFaceToken0123456789",
    "HUGGING_FACE_HUB_TOKEN": "PlantedHubTokenWithoutPrefix42",
    "AWS_ACCESS_KEY_ID": "AKIAPLANTEDEXAMPLE12",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/PlantedAwsSecretKey",
    "OPENAI_API_KEY": "sk-proj-PlantedOpenAiKey0123456789abcdef",
    "GITHUB_TOKEN": "ghp_PlantedGithubToken0123456789abcdefgh",
    "WANDB_API_KEY": "0123456789abcdef0123456789abcdefplanted",
    "DATABASE_URL": "postgresql://admin:PlantedDbPassw0rd@db.internal:5432/prod",
    "HTTPS_PROXY": "http://proxyuser:PlantedProxyPass@proxy.corp:3128",
    "NCCL_IB_AUTH_TOKEN": "PlantedNcclAuthValue77",                          # allow-listed prefix, secret name
    "NCCL_DEBUG_FILE": "https://nccluser:PlantedNcclUrlPass@logs.example/x",   # allow-listed, credentials in URL
    "PYTORCH_CACHE_HINT": "ghp_PlantedTokenInAnAllowedVar0123456789",          # allow-listed, token-shaped value
    "MY_SERVICE_PASSWORD": "PlantedServicePassword99",
}
# secrets that live in the runs themselves
ARG_SECRET = "PlantedArgSecret4242"           # cardbench run ... --hf-token PlantedArgSecret4242
ARG_EQ_SECRET = "PlantedEqArgSecret7777"      # --api-key=PlantedEqArgSecret7777
CONFIG_SECRET = "PlantedStartConfigSecret55"  # {"wandb_key": ...} in the start event's config
LOG_BEARER = "PlantedBearerInLog31337"        # "Authorization: Bearer ..." printed by a workload
LOG_URL_PASS = "PlantedLogUrlPassword"        # https://bob:...@host printed by a workload
ALL = [*PLANTED_ENV.values(), ARG_SECRET, ARG_EQ_SECRET, CONFIG_SECRET, LOG_BEARER, LOG_URL_PASS]


@pytest.fixture
def planted(monkeypatch):
    for name, value in PLANTED_ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    monkeypatch.setenv("NCCL_DEBUG", "INFO")
    monkeypatch.setattr(envinfo, "run_collect_env", lambda **kw: envinfo.CollectEnv(
        "PyTorch version: 2.14.1\nOS: Linux", {"PyTorch version": "2.14.1"}, 0.1))


def _secret_runs(tmp_path):
    store = RunStore(tmp_path / "runs")
    args = ["--steps", "10", "--hf-token", ARG_SECRET, f"--api-key={ARG_EQ_SECRET}"]
    resnet = resnet_run(store, args=args)
    with open(resnet / "events.jsonl", "a") as fh:
        fh.write(protocol.Start(workload="resnet50", config={"wandb_key": CONFIG_SECRET, "hf_token": ARG_SECRET,
                                                             "data": f"https://bob:{LOG_URL_PASS}@data.example/x"}
                                ).to_json() + "\n")
    with open(resnet / "run.log", "a") as fh:
        fh.write(f"[x] requests: Authorization: Bearer {LOG_BEARER}\n")
        fh.write(f"[x] downloading https://bob:{LOG_URL_PASS}@data.example/x with --hf-token {ARG_SECRET}\n")
        fh.write(f"[x] env dump: HF_TOKEN={PLANTED_ENV['HF_TOKEN']} OPENAI_API_KEY="
                 f"{PLANTED_ENV['OPENAI_API_KEY']}\n")
    return [resnet, generate_run(store)]


def test_planted_secrets_appear_in_no_file_of_the_bundle(tmp_path, planted):
    runs = _secret_runs(tmp_path)
    # the workbench's screenshot shows the launcher's arguments: it must be scrubbed too
    svg = png.terminal_svg(f"launcher: resnet50 --hf-token {ARG_SECRET}\nHF_TOKEN={PLANTED_ENV['HF_TOKEN']}",
                           "cardbench")
    path = export_bundle(ExportInputs(runs, tmp_path / "out", screenshot_svg=svg, doctor_checks=[]))
    blobs = {}
    with zipfile.ZipFile(path) as zf:
        for name in zf.namelist():
            blobs[name] = zf.read(name)
    blobs["<the zip itself>"] = path.read_bytes()
    leaks = [(secret, name) for secret in ALL for name, data in blobs.items() if secret.encode() in data]
    assert leaks == []
    # the redaction left the useful parts
    top = path.stem
    env_json = blobs[f"{top}/env.json"].decode()
    assert '"CUDA_VISIBLE_DEVICES": "0,1"' in env_json and '"NCCL_DEBUG": "INFO"' in env_json
    assert '"NCCL_IB_AUTH_TOKEN": "[redacted]"' in env_json
    assert "logs.example/x" in env_json and "HOME" not in env_json and "DATABASE_URL" not in env_json
    config = blobs[f"{top}/logs/{runs[0].name}/config.json"].decode()
    assert '"--hf-token",\n    "[redacted]"' in config and "--api-key=[redacted]" in config
    assert "950 images/s" in blobs[f"{top}/report.md"].decode()


def test_secret_names():
    for name in ("HF_TOKEN", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "MY_PASSWORD", "DB_PASS",
                 "apiKey", "hfToken", "--hf-token", "--api-key", "Authorization", "SESSION_COOKIE", "NCCL_IB_AUTH",
                 "client_secret", "PRIVATE_KEY", "credentials", "SMTP_PASS", "db-pass", "HFTOKEN", "dbPassword",
                 "oauth", "api_key", "x-api-key", "SECRET"):
        assert is_secret_name(name), name
    for name in ("tokens_per_s", "tokens", "max_new_tokens", "PWD", "OLDPWD", "ttft_s", "author", "batch_size",
                 "CUDA_VISIBLE_DEVICES", "passes", "keys", "PASS", "pass", "bypass", "Spec store bypass", "compass",
                 "monkey", "hotkey", "surpass", "keyboard"):
        assert not is_secret_name(name), name


def test_environment_is_an_allow_list():
    assert env_allowed("CUDA_VISIBLE_DEVICES") and env_allowed("NCCL_SOCKET_IFNAME")
    assert env_allowed("HIP_VISIBLE_DEVICES") and env_allowed("ASCEND_RT_VISIBLE_DEVICES")
    assert not env_allowed("HOME") and not env_allowed("DATABASE_URL") and not env_allowed("AWS_REGION")
    env = {"CUDA_VISIBLE_DEVICES": "0", "NCCL_SOCKET_IFNAME": "eth0", "NCCL_IB_KEY": "abcd1234",
           "OMP_NUM_THREADS": "8", "HOME": "/root", "SSH_AUTH_SOCK": "/tmp/agent",
           "CUDA_CACHE_URL": "https://u:pw123456@cache.example"}
    shown = Redactor(env).environment(env)
    assert shown == {"CUDA_VISIBLE_DEVICES": "0", "NCCL_SOCKET_IFNAME": "eth0", "NCCL_IB_KEY": REDACTED,
                     "OMP_NUM_THREADS": "8", "CUDA_CACHE_URL": f"https://{REDACTED}@cache.example"}


@pytest.mark.parametrize("text, kept, gone", [
    ("config: hf_token=abcd1234 steps=3", "steps=3", "abcd1234"),
    ('{"tokens_per_s": 12.5, "api_key": "abcd1234"}', '"tokens_per_s": 12.5', "abcd1234"),
    ("see https://bob:pw12345@example.com/x", "example.com/x", "pw12345"),
    ("git clone https://ghtok3n9999@github.com/a/b", "github.com/a/b", "ghtok3n9999"),
    ("--hf-token&#160;abcd1234&#160;--steps 3", "--steps 3", "abcd1234"),
    ("--password=abcd1234 --lr 0.1", "--lr 0.1", "abcd1234"),
    ("Authorization: Bearer abcdefghijk", "Authorization", "abcdefghijk"),
    ("Authorization: Token 0a1b2c3d4e5f6a7b8c9d", "Authorization:", "0a1b2c3d4e5f"),
    ('{"authorization": "Digest q1w2e3r4t5y6"}', "authorization", "q1w2e3r4t5y6"),
    ("GPT-2 token generation, first token generated", "GPT-2 token generation, first token generated", "[redacted]"),
    ("export NCCL_IB_KEY='abcd 1234'", "NCCL_IB_KEY", "abcd 1234"),
    ("time to first token 12.0 ms, 256 tokens", "time to first token 12.0 ms, 256 tokens", "[redacted]"),
    # a verdict's status and a CPU's vulnerability line are not passwords (whole key names, not their endings)
    ("PASS: none of the above", "PASS: none of the above", "[redacted]"),
    ("Vulnerability Spec store bypass: Mitigation; Speculative Store Bypass disabled via prctl",
     "Spec store bypass: Mitigation; Speculative", "[redacted]"),
    ("DB_PASS=hunter2hunter2 SMTP_PASS: s3cr3tvalue", "DB_PASS=", "hunter2"),
    ("db_pass: s3cr3tvalue", "db_pass:", "s3cr3tvalue"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "", "eyJhbGci"),
])
def test_text_forms(text, kept, gone):
    out = Redactor({}).text(text)
    assert kept in out and gone not in out


def test_learned_values_are_removed_everywhere_but_harmless_ones_are_not_learned():
    r = Redactor({"MY_TOKEN": "s3cr3t-value", "SOME_FLAG_SECRET": "true", "PWD": "/tmp/work"})
    r.learn_from_args(["--hf-token", "argvalue99", "--steps", "3"])
    out = r.text("value s3cr3t-value and argvalue99 printed bare; flag true; cwd /tmp/work")
    assert "s3cr3t-value" not in out and "argvalue99" not in out
    assert "flag true" in out and "/tmp/work" in out


def test_objects_keep_their_shape():
    r = Redactor({})
    assert r.obj({"args": ["--hf-token", "x", "--steps", "2"], "hf_token": "abc", "tokens": 256, "nested": {
        "password": "p", "lr": 0.1}}) == {"args": ["--hf-token", REDACTED, "--steps", "2"], "hf_token": REDACTED,
                                          "tokens": 256, "nested": {"password": REDACTED, "lr": 0.1}}


def test_redaction_is_idempotent():
    r = Redactor({"HF_TOKEN": "hf_abcdefghijklmnop"})
    once = r.text("HF_TOKEN=hf_abcdefghijklmnop --api-key x1234567 https://u:p4ssword@h")
    assert r.text(once) == once
    assert os.environ.get("HF_TOKEN") != "hf_abcdefghijklmnop"  # the test planted nothing for real


# -- long texts (issue 16): line by line where something could match, the same result as the whole text ---

STEP_LINE = ('{"event":"step","t":1790000000.%d,"step":%d,"loss":0.5,"throughput":2401.0,"unit":"images/s",'
             '"step_s":0.1,"data_wait_s":0.002,"memory_allocated_bytes":64424509440}')
TRICKY = [
    "Authorization:\n\n  Bearer\n abc123456789", "proxy-authorization = 'Basic\n\nzxcvbnm123'", "bearer\n\n\nxyz123456",
    "bearer&#160;qwerty12345", "Authorization&#160;:&#160;Token&#160;&#160;\nasdfgh123456", "hfToken=s3cr3tvalue",
    "myTokenSize=42", "tokens_per_s=5 token1s=3 TOKENS=4 tokenS=9", 'x: {"api_key": "k3yk3yk3y"}',
    "see https://bob:pw12345@example.com/x", "hf_abcdefghijkl ghp_aaaaaaaaaaaaaaaaaaaa AKIAABCDEFGHIJKLMNOP",
    "AIzaSyA1234567890abcdefghijklmnopqrstu", "sk-proj-ABCDEFGHIJKLMNOP", "xoxb-1234567890-abc",
    "ba\u017fic ZXCVBNM12345", "authoriz\u0131ation: zxcvb12345qq", "\u0130 authorization: Bearer qwert12345",
    "x hf_abcdefghijklmnop y",
    "api\u212aey=qqqqqqqq", "--hf-token abcd1234 --steps 3", "--password=abcd1234 --lr 0.1",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
    "db_dsn=postgres://u:pw@h/db", "SESSIONID=abcdef1234", "passphrase 'open sesame'", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIi"
    "OiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "\r\ncookie=\r\nchoc0late99", "",
    "   ", "\t\n", "&#160;", "planted-learned-value-42", "a multi\nline learned\nvalue-77",
]


def _whole(redactor, text):
    """The reference: every pattern over the whole text, as Redactor.text did for any text before."""
    from tui import redact

    pattern = redactor._secret_pattern()
    if pattern is not None:
        text = pattern.sub(REDACTED, text)
    return redact._patterns(text)


def _long_text(rng, tricky_lines):
    from tui import redact

    lines = [STEP_LINE % (i, i) for i in range(redact._LINEWISE_FROM // 150)]
    for _ in range(tricky_lines):
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(TRICKY) + rng.choice(["", " tail", "\n"]))
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(25))
def test_a_long_text_is_scrubbed_as_if_it_went_through_whole(seed):
    import random

    rng = random.Random(seed)
    text = _long_text(rng, tricky_lines=rng.choice([0, 1, 5, 40, 200]))
    r = Redactor({"HF_TOKEN": "planted-learned-value-42", "MY_PASSWORD": "line learned\nvalue-77"})
    assert len(text) >= 1 << 16 and r.text(text) == _whole(r, text)


def test_a_long_jsonl_is_decoded_only_where_something_could_be_redacted(monkeypatch):
    import json

    decoded = []
    loads = json.loads
    monkeypatch.setattr(json, "loads", lambda s, *a, **kw: decoded.append(s) or loads(s, *a, **kw))
    lines = [STEP_LINE % (i, i) for i in range(20_000)]
    lines[7] = '{"event":"start","config":{"args":["--hf-token","abcd1234"],"wandb_key":"zzzz1234"}}'
    lines[9] = '{"event":"warning","message":"caf\\u00e9 hf_\\u0061bcdefghijklmn"}'  # escapes hide a token
    r = Redactor({})
    out = r.jsonl("\n".join(lines) + "\n").split("\n")
    assert len(decoded) == 2 and out[10:] == lines[10:] + [""]
    assert "abcd1234" not in out[7] and "zzzz1234" not in out[7] and "abcdefghijklmn" not in out[9]
    assert r.jsonl("") == "" and r.jsonl('{"torn') == '{"torn\n'
