"""What the vendor CLI readers' tests hand a reader: a real capture by its path, and a fake `call`."""

from paths import FIXTURES
from tui.telemetry.cli_tool import CliResult


def fixture(path):
    return (FIXTURES / path).read_text()


def answers(*results):
    """A fake `call` that answers each call with the next CliResult, and records what it was asked."""
    asked, queue = [], list(results)

    def call(args):
        asked.append(list(args))
        return queue.pop(0)
    call.asked = asked
    return call


def ok(text):
    return CliResult(0, text, "", None)
