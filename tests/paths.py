"""Where the tests' own files are, whatever folder a test module sits in (tests/ mirrors the packages)."""
from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
CHILDREN = TESTS / "children"        # small torch-free stand-ins for workloads
FIXTURES = TESTS / "fixtures"        # real outputs of management CLIs, with their sources
SNAPSHOTS = TESTS / "snapshots"      # the workbench's SVG snapshots
