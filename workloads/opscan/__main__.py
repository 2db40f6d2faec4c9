"""`python -m workloads.opscan`."""
import sys

from workloads.child.harness import run_main
from workloads.opscan.cli import main

sys.exit(run_main(main))
