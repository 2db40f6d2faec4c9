"""`python -m tui.doctor [--json]`, the same as `cardbench doctor`."""

import sys

from tui.doctor.command import main

sys.exit(main("--json" in sys.argv[1:]))
