"""The one catalogue of (English, Chinese) words keyed by id (`tui.i18n`): its form, and the check that finds an
English sentence of its in a Chinese text (each area's Chinese test uses it: compare, the CPU trap, the doctor)."""

from __future__ import annotations

import string

import pytest

from catalogue_words import FRAGMENTS, english_leaks
from tui import i18n
from tui.i18n import CATALOGUE, doctor_pointer, hint_zh, joined, say, say_or, text

AREAS = ("report.", "metric.", "status.", "verdict.", "check.", "doctor.", "hint.", "warning.", "compare.",
         "currency.", "cpu_trap.")


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
    monkeypatch.setattr(i18n.cpu_trap, "WORDS", {"report.title": ("x", "y")})
    with pytest.raises(ValueError, match="report.title"):
        i18n._merged()


def test_a_hint_s_english_names_one_chinese():
    hints = [(en, zh) for key, (en, zh) in CATALOGUE.items() if key.startswith("hint.")]
    english = [en for en, _zh in hints]
    assert len(set(english)) == len(english), "two hints with the same English: hint_zh could not tell them apart"
    assert all(hint_zh(en) == zh for en, zh in hints)
    assert hint_zh("advice no table has") is None


def test_every_piece_of_advice_of_workloads_hints_has_its_chinese_and_that_table_s_english():
    from tui.i18n import hints as hint_words
    from workloads.hints import ADVICE, HINTS, RULES

    assert sorted(set(ADVICE) - set(hint_words.ZH)) == [], "advice of workloads.hints with no Chinese"
    assert sorted(set(hint_words.ZH) - set(ADVICE)) == [], "Chinese for advice workloads.hints does not have"
    for key, english in ADVICE.items():
        assert CATALOGUE[f"hint.{key}"] == (english, hint_words.ZH[key]), key
    assert {advice for _pattern, advice in RULES} == set(ADVICE), "advice no failure text leads to"
    assert [hint for _pattern, hint in HINTS] == [ADVICE[advice] for _pattern, advice in RULES]


def test_a_hint_without_chinese_or_with_other_english_is_caught(monkeypatch):
    # the check above, fed a table that lost a Chinese entry, and a catalogue whose English drifted
    from tui.i18n import hints as hint_words
    from workloads import hints

    monkeypatch.setattr(hint_words, "ZH", {k: v for k, v in hint_words.ZH.items() if k != "disk_full"})
    with pytest.raises(AssertionError, match="no Chinese"):
        test_every_piece_of_advice_of_workloads_hints_has_its_chinese_and_that_table_s_english()
    monkeypatch.undo()
    monkeypatch.setitem(hints.ADVICE, "disk_full", "the disk is full (said otherwise)")
    with pytest.raises(AssertionError, match="disk_full"):
        test_every_piece_of_advice_of_workloads_hints_has_its_chinese_and_that_table_s_english()


def test_say_or_and_joined_and_the_doctor_pointer():
    assert say_or("status.ok", "zh", "x") == say("status.ok", "zh") and say_or("status.no_such", "zh", "x") == "x"
    assert joined(["a", "b"]) == "a; b" and joined(["a", "b"], "zh") == "a；b"
    assert say("hint.with_doctor", hint="advice", doctor=say("hint.see_doctor")) == "advice" + doctor_pointer()


def test_say_fills_each_language_and_says_a_nested_sentence_in_it():
    why = text("doctor.torch.why", why="no CUDA")
    said = text("doctor.torch.no_accelerator", why=why)
    assert said.en == "no accelerator on this machine (no CUDA)" and said.zh == "本机没有加速卡（no CUDA）"
    assert say("report.summary") == "Summary" and say("report.summary", "zh") == "概要"


def test_the_leak_check_finds_a_catalogue_sentence_and_lets_terms_be():
    # the check the areas' Chinese tests rely on: were it blind, they would pass on English output
    assert [leak.split(":")[0] for leak in english_leaks("环境检查：" + say("doctor.pci.none"))] == ["doctor.pci.none"]
    assert english_leaks(say("cpu_trap.as_asked", cards="x")) != []
    assert english_leaks("torch 看不到卡：ResNet-50、GPT-2、`--device cpu`、top-1、channels-last") == []
    assert len(FRAGMENTS) > 150  # most sentences are long enough to be told apart from a term
