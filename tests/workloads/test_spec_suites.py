"""A spec says which headless suites run its workload and its short name; an argument list is read as argparse reads it."""

import re

import pytest

from workloads import registry
from workloads.spec import SuiteArgs, Text, WorkloadSpec, flag_value, option


def test_suites_say_which_suites_run_a_workload_and_default_is_the_quick_one():
    from tui.cli import build_parser
    from tui.headless.plan import suite_names

    assert SuiteArgs().suites == ("quick", "standard") and SuiteArgs().default
    assert not SuiteArgs(suites=("standard",)).default
    # the quick suite's CPU time budget has room for resnet50 and generate only
    assert [s.name for s in registry.specs() if s.suite and s.suite.default] == ["resnet50", "generate"]
    # what the spec says is what runs: `--export-report` with no --suite runs quick, and quick runs exactly the
    # default workloads; a workload in the standard suite alone runs there and not in the default one
    assert build_parser().parse_args(["--export-report"]).suite == "quick"
    standard_only = WorkloadSpec(name="nightly_only", title=Text("Nightly only"),
                                 suite=SuiteArgs(suites=("standard",)))
    with registry.registered(standard_only):
        assert suite_names(None) == suite_names(None, "quick") == ["resnet50", "generate"]
        assert "nightly_only" in suite_names(None, "standard") and "nightly_only" not in suite_names(None, "quick")
        assert not standard_only.suite.default
    # and `cardbench --help` names the default suite's workloads, no others
    said = " ".join(build_parser().format_help().split())
    assert "(the doctor, then ResNet-50 training, GPT-2 token generation)" in said, said


def test_an_unknown_suite_is_refused_when_the_spec_is_written():
    with pytest.raises(ValueError, match="suites nightly: not one of quick, standard"):
        SuiteArgs(suites=("standard", "nightly"))


def test_the_last_value_of_a_repeated_flag_wins_as_in_argparse():
    args = ["--steps", "10", "--amp=fp16", "--steps=20", "--amp", "bf16", "--tokens"]
    assert flag_value(args, "--steps") == "20" and flag_value(args, "--amp") == "bf16"
    assert flag_value(args, "--tokens") is None  # no value after it
    assert option(args, "--steps") == 20.0 and option(["--steps", "x"], "--steps", 5) == 5


def test_a_spec_s_short_name_is_its_own_else_the_title_s_first_word():
    assert WorkloadSpec(name="x", title=Text("Operator coverage scan")).short_title == "Operator"
    assert WorkloadSpec(name="x", title=Text("Operator coverage scan"),
                        short="Op-scan").short_title == "Op-scan"


def _words(label: str) -> set[str]:
    return set(re.sub(r"[^\w/%-]+", " ", label.lower()).split())


def test_a_figure_has_one_label_in_the_table_and_the_result_line():
    """The launcher's glance and `cardbench run`'s RESULT line (line_metrics) name a figure in the words of the
    report's table (metrics), shortened maybe, never others: generate once called one figure 'share of read
    bandwidth achieved' in the table and 'read bandwidth used' on the line."""
    differ = []
    for spec in registry.specs():
        table = {m.key: m for m in spec.metrics}
        for m in spec.line_metrics:
            full = table.get(m.key)
            if full is not None and (m.kind != full.kind or not _words(m.label.en) <= _words(full.label.en)):
                differ.append(f"{spec.name}.{m.key}: {m.label.en!r} is not in {full.label.en!r}")
    assert differ == []
