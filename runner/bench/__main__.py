"""`python -m runner.bench JOB.json RESULT.json`: run one job, write its result atomically. Design
notes: docs/reference/modules.md (runner/bench/__main__.py)."""

from __future__ import annotations

import json
import sys
import traceback


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m runner.bench JOB.json RESULT.json", file=sys.stderr)
        return 2
    job_path, result_path = argv
    with open(job_path) as f:
        job = json.load(f)
    if job.get("kind") == "script":  # a user's own training script (runner/script_job.py)
        from runner.script_job import run_job as run_script_job

        script_result = run_script_job(job, ".", lambda event: print(json.dumps(event), flush=True))
        script_result.write(result_path)
        print(json.dumps({"event": "done", "status": script_result.status}), flush=True)
        return 0

    from runner.bench.distributed import processes_for, relaunch, world

    # several processes: exec torchrun, which runs this again per rank
    relaunch(argv, processes_for(job))
    rank = world()[0]

    from runner.bench.result import BenchResult
    from runner.bench.run import run_job

    def progress(event: dict) -> None:
        if rank == 0:  # one voice: the other ranks run the same steps
            print(json.dumps(event), flush=True)

    try:
        result = run_job(job, progress)
    except Exception as exc:  # noqa: BLE001 - report it as a result, keep the trace in the log
        traceback.print_exc()
        result = BenchResult(
            status="error",
            device=str(job.get("device", "cpu")),
            workload=job.get("spec", {}).get("name", ""),
            message=f"the bench failed: {type(exc).__name__}: {exc}",
        )
    if rank == 0:
        result.write(result_path)
        print(json.dumps({"event": "done", "status": result.status}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
