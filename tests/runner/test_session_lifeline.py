"""The local bench dies with the planner, also when the planner is SIGKILLed (runner/lifeline.py).

The bench runs in a session of its own (so that terminating it takes its whole group), which also
means nothing reaches it when its parent is killed outright. A bench busy printing progress would
die of a broken pipe at its next line; one that is silent (building a big model, a slow first step)
would run on for as long as it likes. This test keeps the bench silent on purpose: its model's
factory sleeps.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from planner.workload.spec import parse_spec
from tests.conftest import ROOT

SLEEPY = "import time\n\n\ndef build(input_shape, outputs):\n    time.sleep(120)\n"
PARENT = """
import json, sys, time
from pathlib import Path
from runner.local import LocalTarget

target = LocalTarget(json.loads(sys.argv[1]), Path(sys.argv[2]), "local-cpu")
target.start()
print(target.proc.pid, flush=True)
time.sleep(300)
"""


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"  # a zombie has died; only its parent's reaping is left


def test_the_local_bench_dies_with_a_sigkilled_parent(tmp_path):
    (tmp_path / "sleepy.py").write_text(SLEEPY)
    spec = parse_spec(
        {
            "name": "silent",
            "model": {
                "kind": "custom",
                "factory": "sleepy:build",
                "input_shape": [4],
                "outputs": 1,
                "path": str(tmp_path),
            },
            "data": {"samples": 64},
            "train": {"batch_size": 8, "epochs": 1},
        }
    )
    job = {"spec": spec.to_job(), "device": "cpu", "seconds": 1, "sweep": False, "threads": None}
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, json.dumps(job), str(tmp_path / "work")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    bench = int(parent.stdout.readline())
    try:
        time.sleep(1.0)  # the bench is up: importing torch, then building the model in silence
        assert alive(bench)
        parent.kill()  # SIGKILL: no finally, no handler, nothing the parent can do
        parent.wait(10)
        deadline = time.monotonic() + 5
        while alive(bench):
            assert time.monotonic() < deadline, "the bench outlived its parent"
            time.sleep(0.05)
    finally:
        if alive(bench):
            os.kill(bench, signal.SIGKILL)
