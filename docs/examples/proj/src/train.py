"""A script that reads its data relative to its project's root, for the --workdir sample of docs/guides/scripts.md:
run from its own folder (the default) it cannot find data/train.csv; with --workdir docs/examples/proj it can."""

import sys

rows = open(sys.argv[1]).read().splitlines()
print(f"{len(rows)} rows")
