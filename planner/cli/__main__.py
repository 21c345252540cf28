"""`python -m planner.cli ...` (what the tests run)."""

import sys

from planner.cli import main

sys.exit(main())
