"""After `cardbench trial`, the headless export prints the time left and its report uses the kept list price."""

import argparse

from tui import cli
from tui.headless.output import report_options


def test_the_report_takes_the_trial_s_price_when_none_is_given(capsys):
    assert cli.main(["trial", "--hours", "48", "--price-per-hour", "6.5", "--currency", "CNY"]) == 0
    kept = report_options(argparse.Namespace(price_per_hour=None, currency="USD", lang="en"))
    assert (kept["price_per_hour"], kept["currency"]) == (6.5, "CNY")
    given = report_options(argparse.Namespace(price_per_hour=2.0, currency="USD", lang="en"))
    assert (given["price_per_hour"], given["currency"]) == (2.0, "USD")  # the command line wins
