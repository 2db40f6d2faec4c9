"""`python -m workloads.soak`."""
import sys

from workloads.child.harness import run_main
from workloads.soak.cli import main

sys.exit(run_main(main))
