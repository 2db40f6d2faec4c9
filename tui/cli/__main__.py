"""`python -m tui.cli ...`: how a detached run and the tests start the command line."""

from tui.cli import console_main

console_main()
