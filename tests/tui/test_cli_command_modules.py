"""A command that lives in its own package plugs into `cardbench` through tui.cli.COMMAND_MODULES."""

import sys
import types

from tui import cli


def test_a_command_module_gets_its_parser_and_its_run(monkeypatch, capsys):
    module = types.ModuleType("cardbench_test_hello")

    def add_parser(sub):
        hello = sub.add_parser("hello", help="say hello")
        hello.add_argument("name")

    def run(args):
        print(f"hello {args.name}")
        return 3

    module.add_parser, module.run = add_parser, run
    monkeypatch.setitem(sys.modules, "cardbench_test_hello", module)
    monkeypatch.setitem(cli.COMMAND_MODULES, "hello", "cardbench_test_hello")

    assert cli.main(["hello", "world"]) == 3
    assert capsys.readouterr().out == "hello world\n"
    assert cli.main(["hello"]) == 2  # its own parser's errors are one line and exit 2, as every command's
    assert "the following arguments are required: name" in capsys.readouterr().err
