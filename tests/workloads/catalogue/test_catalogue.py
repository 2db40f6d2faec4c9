"""The one catalogue of (English, Chinese) words keyed by id (`workloads.catalogue`, said by the host through
`tui.i18n`): its form, the hints' ids, and the check that finds an English sentence of its in a Chinese text (each
area's Chinese test uses it: compare, the CPU trap, the doctor)."""

from __future__ import annotations

import ast
import string

import pytest

from catalogue_words import FRAGMENTS, english_leaks
from paths import REPO
from tui.i18n import doctor_pointer, hint_in, joined
from workloads import catalogue, protocol
from workloads.catalogue import CATALOGUE, Message, message, message_id_of, say, say_or
from workloads.hints import RULES, hint_for

AREAS = ("report.", "metric.", "status.", "verdict.", "check.", "doctor.", "hint.", "warning.", "compare.",
         "currency.", "cpu_trap.", "workload.", "workbench.", "ready.")


def _fields(words: str) -> set[str]:
    return {name for _literal, name, _spec, _conv in string.Formatter().parse(words) if name is not None}


def test_every_id_has_both_languages_with_the_same_placeholders():
    problems = []
    for key, (english, chinese) in sorted(CATALOGUE.items()):
        if not (english.strip() and chinese.strip()):
            problems.append(f"{key}: a language is empty")
        if _fields(english) != _fields(chinese):
            problems.append(f"{key}: English fills {sorted(_fields(english))}, Chinese {sorted(_fields(chinese))}")
        if not key.startswith(AREAS):
            problems.append(f"{key}: an id is area.name, of a known area")
    assert problems == [], "\n".join(problems)
    assert len(CATALOGUE) > 300


def test_an_id_defined_twice_is_refused(monkeypatch):
    monkeypatch.setattr(catalogue.cpu_trap, "WORDS", {"report.title": ("x", "y")})
    with pytest.raises(ValueError, match="report.title"):
        catalogue._merged()


def test_every_failure_pattern_leads_to_a_hint_of_the_catalogue_and_every_hint_is_led_to():
    ids = {f"hint.{advice}" for _pattern, advice in RULES}
    assert sorted(ids - set(CATALOGUE)) == [], "a failure pattern whose hint the catalogue lacks"
    own = {key for key in CATALOGUE if key.startswith("hint.") and not key.startswith("hint.doctor.")}
    assert sorted(own - ids - {"hint.see_doctor", "hint.with_doctor"}) == [], "a hint no failure text leads to"


def test_hint_for_gives_an_id_said_in_either_language_and_an_error_event_carries_both():
    hint = hint_for("RuntimeError: CUDA error: out of memory")
    assert hint == Message("hint.out_of_memory") and hint_for("all is well") is None
    assert hint.en == say("hint.out_of_memory") == str(hint) and hint("zh") == say("hint.out_of_memory", "zh")
    event = protocol.Error(message="boom", hint=hint).to_dict()
    assert (event["hint"], event["hint_id"]) == (hint.en, "hint.out_of_memory")
    assert "hint_id" not in protocol.Error(message="boom", hint="free text").to_dict()


def test_a_hint_is_said_by_its_id_and_an_old_run_s_english_still_finds_it():
    english = say("hint.disk_full")
    assert hint_in("zh", "reworded later", "hint.disk_full") == say("hint.disk_full", "zh")   # the id wins
    assert hint_in("zh", english) == say("hint.disk_full", "zh") and message_id_of(english, "hint.") == "hint.disk_full"
    assert hint_in("zh", "advice no table has") is None
    hints = [en for key, (en, _zh) in CATALOGUE.items() if key.startswith("hint.")]
    assert len(set(hints)) == len(hints), "two hints with the same English: an old run's hint could not be told"


def test_say_or_and_joined_and_the_doctor_pointer():
    assert say_or("status.ok", "zh", "x") == say("status.ok", "zh") and say_or("status.no_such", "zh", "x") == "x"
    assert joined(["a", "b"]) == "a; b" and joined(["a", "b"], "zh") == "a；b"
    assert say("hint.with_doctor", hint="advice", doctor=say("hint.see_doctor")) == "advice" + doctor_pointer()


def test_say_fills_each_language_and_says_a_nested_sentence_in_it():
    why = message("doctor.torch.why", why="no CUDA")
    said = message("doctor.torch.no_accelerator", why=why)
    assert said.en == "no accelerator on this machine (no CUDA)" and said.zh == "本机没有加速卡（no CUDA）"
    assert say("report.summary") == "Summary" and say("report.summary", "zh") == "概要"


def test_the_leak_check_finds_a_catalogue_sentence_and_lets_terms_be():
    # the check the areas' Chinese tests rely on: were it blind, they would pass on English output
    assert [leak.split(":")[0] for leak in english_leaks("环境检查：" + say("doctor.pci.none"))] == ["doctor.pci.none"]
    assert english_leaks(say("cpu_trap.as_asked", cards="x")) != []
    assert english_leaks("torch 看不到卡：ResNet-50、GPT-2、`--device cpu`、top-1、channels-last") == []
    assert len(FRAGMENTS) > 150  # most sentences are long enough to be told apart from a term


def test_every_message_id_the_code_names_is_in_the_catalogue():
    # a typo in an id would only fail when that sentence is first shown: here it fails at once
    named = {}
    for package in ("tui", "workloads"):
        for path in (REPO / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id in ("Message", "message") and node.args
                        and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                    named[node.args[0].value] = path.relative_to(REPO).as_posix()
    assert len(named) > 20
    assert {key: where for key, where in named.items() if key not in CATALOGUE} == {}
