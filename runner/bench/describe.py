"""`python -m runner.bench.describe JOB.json`: describe a model in a child process.

SHIPPED TO THE INSTANCE: imports only torch and the standard library. The planner never imports a
user's module itself: a factory that crashes, hangs, exits or allocates without bound takes this
process down, not the planner (runner.local.describe_model runs it with a time and memory limit).
Prints one JSON line: {"rows": [...]} (runner.bench.introspect.describe) or {"error": "..."}.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def limit_memory() -> None:
    """Cap this process's address space (PLANNER_MEMORY_LIMIT_BYTES): an allocation past it fails
    with MemoryError here instead of swapping the machine."""
    limit = os.environ.get("PLANNER_MEMORY_LIMIT_BYTES")
    if not limit:
        return
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (int(limit), int(limit)))
    except (ImportError, ValueError, OSError):
        pass


def main(argv: list[str]) -> int:
    limit_memory()
    if len(argv) != 1:
        print("usage: python -m runner.bench.describe JOB.json", file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        job = json.load(f)
    # a bench job, a spec's job (model + data + train), or a model alone
    model = job.get("spec", job)
    try:
        from runner.bench.introspect import describe
        from runner.bench.workloads import WorkloadError

        try:
            out: dict[str, Any] = {"rows": describe(model)}
        except WorkloadError as exc:
            out = {"error": str(exc)}
    except MemoryError:
        out = {
            "error": "model.factory: the model ran out of memory while it was being described "
            "(the planner allows it a bounded amount; is the model this large?)"
        }
    except BaseException as exc:  # noqa: BLE001 - the user's module failed on a sample batch, or called sys.exit
        what = "called sys.exit" if isinstance(exc, SystemExit) else f"{type(exc).__name__}: {exc}"
        shape = (model.get("model") or model).get("input_shape")
        out = {
            "error": f"model.factory: the model failed on a sample batch of shape {shape} ({what})"
        }
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
