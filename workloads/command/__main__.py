"""`python -m workloads.command`."""
import sys

from workloads.child.harness import run_main
from workloads.command.cli import main

sys.exit(run_main(main))
