"""The one catalogue of (English, Chinese) words keyed by id (`tui.i18n`): its form, and the check that finds an
English sentence of its in a Chinese text (each area's Chinese test uses it: compare, the CPU trap, the doctor)."""

from __future__ import annotations

import string

import pytest

from catalogue_words import FRAGMENTS, english_leaks
from tui import i18n
from tui.i18n import CATALOGUE, hint_zh, say, text

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
