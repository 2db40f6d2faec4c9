"""`python -m workloads.generate`."""
import sys

from workloads.child.harness import run_main
from workloads.generate.cli import main

sys.exit(run_main(main))
