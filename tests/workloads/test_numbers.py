"""The one rule for "is this a figure", which the report, compare, the soak, the parsers and the probe share."""

import math

import pytest

from workloads.numbers import finite, is_finite


@pytest.mark.parametrize("value, figure", [
    (3, 3), (0, 0), (2.5, 2.5), (-1e300, -1e300), (0.0, 0.0),
    (True, None), (False, None),                        # JSON's booleans are not counts
    (math.nan, None), (math.inf, None), (-math.inf, None),  # json.loads gives these for NaN and Infinity
    ("1", None), (None, None), ([1], None), ({"value": 1}, None),
])
def test_a_figure_is_a_finite_int_or_float(value, figure):
    assert finite(value) == figure and (finite(value) is None) == (figure is None)
    assert is_finite(value) is (figure is not None)


def test_the_report_soak_parsers_and_probe_use_it():
    from tui.report import charts, summary
    from workloads import probe_report

    from tui.compare import comparison
    from workloads.command.parsers import tqdm
    from workloads.soak import intervals

    assert summary.number is finite and charts._finite is is_finite and comparison.number is finite
    assert intervals.number is finite and tqdm.finite is finite
    assert probe_report._number(math.nan) is None and probe_report._number(3) == 3.0  # NaN passed before
