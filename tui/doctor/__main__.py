"""`python -m tui.doctor [--json]`, the same as `cardbench doctor`."""

import sys

from tui.cli.doctor import main

sys.exit(main("--json" in sys.argv[1:]))
