"""`python -m workloads.dataio`."""
import sys

from workloads.child.harness import run_main
from workloads.dataio.cli import main

sys.exit(run_main(main))
