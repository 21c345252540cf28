"""runner/bootstrap.sh itself, with stub curl, python3 and shutdown on PATH: the dead-man timer
comes first, and `shutdown -h now` runs whether the bench succeeds, fails or hangs past its timeout."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from runner.aws import render_bootstrap

STUB = """#!/bin/bash
echo "{name} $*" >> "$CALLS"
{body}
"""
CURL_BODY = """out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
if [ -n "$out" ]; then
  case "$out" in
    bundle.zip) python3 -c "import zipfile; zipfile.ZipFile('bundle.zip','w').writestr('runner/__init__.py','')" ;;
    *) echo '{}' > "$out" ;;
  esac
fi
exit 0"""


def run_bootstrap(tmp_path: Path, python_body: str, bench_timeout: int = 5) -> list[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stubs = {"curl": CURL_BODY, "shutdown": "exit 0", "python3": python_body}
    for name, body in stubs.items():
        path = bin_dir / name
        path.write_text(STUB.format(name=name, body=body))
        path.chmod(0o755)
    urls = {
        k: f"https://bucket.s3.amazonaws.com/runs/r/t/{k}?sig"
        for k in ("bundle", "job", "result", "log")
    }
    script = tmp_path / "user-data.sh"
    script.write_text(
        render_bootstrap("r", "t", urls, deadman_minutes=20, bench_timeout=bench_timeout)
    )
    calls = tmp_path / "calls.txt"
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "CALLS": str(calls),
        "PLANNER_WORKDIR": str(tmp_path / "work"),
        "HOME": str(tmp_path),
    }
    subprocess.run(["bash", str(script)], env=env, timeout=60, capture_output=True)
    return calls.read_text().splitlines()


# The stub python: "import torch" succeeds, the zip extraction is done for real, and the bench
# (`-m runner.bench`) does what the test says.
def python_stub(bench: str) -> str:
    return f"""case "$*" in
  *"-m runner.bench"*) {bench} ;;
  *zipfile*) exec /usr/bin/env -i PATH=/usr/bin:/bin python3 "$@" ;;
  *) exit 0 ;;
esac"""


def test_dead_man_first_and_results_uploaded(tmp_path):
    calls = run_bootstrap(tmp_path, python_stub('echo "{}" > ../result.json'))
    assert calls[0] == "shutdown -h +20"
    assert calls[-1] == "shutdown -h now"
    uploads = [c for c in calls if c.startswith("curl") and "-X PUT" in c]
    assert any("/result?" in c for c in uploads) and any("/log?" in c for c in uploads)


def test_shutdown_now_runs_when_the_bench_fails(tmp_path):
    calls = run_bootstrap(tmp_path, python_stub('echo "Traceback: boom" >&2; exit 1'))
    assert calls[0] == "shutdown -h +20" and calls[-1] == "shutdown -h now"
    assert not any("/result?" in c for c in calls)  # no result to upload, but the log goes up
    assert any("/log?" in c and "-X PUT" in c for c in calls)


def test_shutdown_now_runs_when_the_bench_hangs_past_its_timeout(tmp_path):
    calls = run_bootstrap(tmp_path, python_stub("sleep 600"), bench_timeout=2)
    assert calls[-1] == "shutdown -h now"
    log = (tmp_path / "work" / "log.txt").read_text()
    assert "bench exited with status 124" in log  # timeout's status


def test_download_failure_still_halts(tmp_path):
    tmp = tmp_path / "failing"  # a curl that always fails
    tmp.mkdir()
    (tmp / "bin").mkdir()
    for name, body in {"curl": "exit 22", "shutdown": "exit 0", "python3": "exit 0"}.items():
        path = tmp / "bin" / name
        path.write_text(STUB.format(name=name, body=body))
        path.chmod(0o755)
    urls = {k: f"https://b/{k}" for k in ("bundle", "job", "result", "log")}
    script = tmp / "u.sh"
    script.write_text(render_bootstrap("r", "t", urls, 20, 60))
    env = {
        "PATH": f"{tmp / 'bin'}:/usr/bin:/bin",
        "CALLS": str(tmp / "calls.txt"),
        "PLANNER_WORKDIR": str(tmp / "w"),
    }
    subprocess.run(["bash", str(script)], env=env, timeout=60, capture_output=True)
    lines = (tmp / "calls.txt").read_text().splitlines()
    assert lines[0] == "shutdown -h +20" and lines[-1] == "shutdown -h now"
    assert "could not download the bench bundle" in (tmp / "w" / "log.txt").read_text()


def test_user_data_refuses_to_grow_past_16_kb():
    urls = {k: "https://x/" + "a" * 5000 for k in ("bundle", "job", "result", "log")}
    with pytest.raises(ValueError, match="16 KB"):
        render_bootstrap("r", "t", urls, 20, 60)
