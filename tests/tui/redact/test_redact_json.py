"""JSON redacted as JSON (issue 37): a value under a secret-looking key becomes the marker as a string, null stays
null, and every .json and .jsonl file the bundle writes is still JSON that a reader (cardbench compare) takes."""

from __future__ import annotations

import json

from tui.report.bundle import Bundle
from tui.redact import REDACTED, Redactor

SECRET = "hunter2-Secret-4411"


def test_a_secret_key_holding_null_a_number_or_a_boolean_stays_json():
    obj = {"api_key_env": None, "password": 123456, "use_auth": True, "auth_cached": False, "token": "",
           "config": {"hf_token": 1.5, "levels": [1, 2]}, "note": f"token={SECRET}"}
    out = json.loads(Redactor({}).json_text(obj))
    assert out == {"api_key_env": None, "password": REDACTED, "use_auth": REDACTED, "auth_cached": REDACTED,
                   "token": "", "config": {"hf_token": REDACTED, "levels": [1, 2]}, "note": f"token={REDACTED}"}


def test_a_learned_secret_in_a_key_or_as_a_number_is_the_marker_and_the_json_stays_json():
    redactor = Redactor({"DB_PASSWORD": "98765432"})
    out = json.loads(redactor.json_text({"runs": {"/data/98765432": 98765432, "steps": 10}}))
    assert out == {"runs": {f"/data/{REDACTED}": REDACTED, "steps": 10}}


def test_events_jsonl_stays_json_line_by_line_and_a_torn_line_is_scrubbed_as_text():
    lines = ['{"event":"start","config":{"api_key_env":null,"url":"http://u:pw12345@h/v1"}}',
             '{"event":"step","step":1,"api_key":42,"secret":true}',
             '{"event":"warning","message":"said --hf-token ' + SECRET + '"}',
             '{"event":"step","step":2,"token":']     # the run was cut mid-write
    out = Redactor({}).jsonl("\n".join(lines) + "\n")
    got = out.split("\n")
    assert got[-1] == "" and len(got) == 5
    assert [json.loads(line) for line in got[:3]] == [
        {"event": "start", "config": {"api_key_env": None, "url": f"http://{REDACTED}@h/v1"}},
        {"event": "step", "step": 1, "api_key": REDACTED, "secret": REDACTED},
        {"event": "warning", "message": f"said --hf-token {REDACTED}"}]
    assert got[3] == '{"event":"step","step":2,"token":'


def test_json_in_a_text_keeps_its_null_and_quotes_its_marker():
    """A log line that is JSON: the text rules leave it JSON too."""
    text = '{"api_key_env": null, "password": 12345678, "auth": true}'
    assert json.loads(Redactor({}).text(text)) == {"api_key_env": None, "password": REDACTED, "auth": REDACTED}


def test_the_bundles_json_files_are_json():
    bundle = Bundle(Redactor({}))
    bundle.add_json("metrics/summary.json", {"runs": [{"config": {"api_key_env": None, "seed": 0}}]})
    assert json.loads(bundle.files["metrics/summary.json"]) == {"runs": [{"config": {"api_key_env": None, "seed": 0}}]}
