import pytest

from tui import cli


@pytest.fixture
def compare(monkeypatch, capsys):
    """`cardbench compare ARGS` through tui.cli.main: (exit code, stdout, stderr)."""
    monkeypatch.setitem(cli.COMMAND_MODULES, "compare", "tui.cli.compare")

    def go(*argv):
        code = cli.main(["compare", *map(str, argv)])
        out, err = capsys.readouterr()
        return code, out, err
    return go
