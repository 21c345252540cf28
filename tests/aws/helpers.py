"""Shared pieces of the AWS tests: a moto server a second process can see, and a player that does
what an EC2 instance would do with our user-data (with the real bench, or a stub python that writes
a given result.json at once, for tests about what happens around the bench)."""

from __future__ import annotations

import base64
import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import boto3

FAKE_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ec2(endpoint: str | None = None):
    if endpoint is None:  # in-process moto (mock_aws): the environment's fake credentials apply
        return boto3.client("ec2", region_name="us-east-1")
    return boto3.client(
        "ec2",
        region_name="us-east-1",
        endpoint_url=endpoint,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


_AMI: list[str] = []


def x86_ami(client) -> str:
    """An x86_64 AMI moto knows (its catalog is static, so the slow look-up is done once)."""
    if not _AMI:
        images = client.describe_images(
            Owners=["amazon"], Filters=[{"Name": "architecture", "Values": ["x86_64"]}]
        )["Images"]
        _AMI.append(images[0]["ImageId"])
    return _AMI[0]


def live_instances(client, run_id: str | None = None) -> list[dict]:
    filters = [
        {"Name": "instance-state-name", "Values": ["pending", "running", "stopping", "stopped"]}
    ]
    if run_id:
        filters.append({"Name": "tag:planner:run-id", "Values": [run_id]})
    return [
        i
        for r in client.describe_instances(Filters=filters)["Reservations"]
        for i in r["Instances"]
    ]


def user_data(client, instance_id: str) -> str:
    value = client.describe_instance_attribute(InstanceId=instance_id, Attribute="userData")[
        "UserData"
    ]["Value"]
    return base64.b64decode(value).decode()


SHUTDOWN_STUB = """#!{python}
import os, sys, boto3
with open(os.environ["CALLS"], "a") as f:
    f.write("shutdown " + " ".join(sys.argv[1:]) + "\\n")
if "now" in sys.argv[1:] and os.environ.get("HALTS") == "1":
    # halting an instance with InstanceInitiatedShutdownBehavior=terminate terminates it
    boto3.client("ec2", region_name="us-east-1", endpoint_url=os.environ["AWS_ENDPOINT_URL"],
                 aws_access_key_id="testing", aws_secret_access_key="testing").terminate_instances(
        InstanceIds=[os.environ["INSTANCE_ID"]])
"""


def result_stub(result_json: str) -> str:
    """A python3 for the player whose bench writes `result_json` (any text, valid or not) at once;
    everything else (the bootstrap's torch check, unzipping the bundle) works as it would."""
    assert "'" not in result_json
    return (
        f"#!/bin/bash\ncase \"$*\" in\n  *'import torch'*) exit 0 ;;\n"
        f"  *'-m runner.bench'*) echo 'stub bench: writing its result'; printf '%s' '{result_json}' > \"$4\" ;;\n"
        f'  *) exec "{sys.executable}" "$@" ;;\nesac\n'
    )


FAKE_RESULT = (
    '{"status": "ok", "device": "cpu", "device_name": "played", "step_seconds": 0.01, '
    '"step_seconds_ci_low": 0.0095, "step_seconds_ci_high": 0.0105, "batch_size": 128, "steps_per_epoch": 8}'
)


def play_instance(
    endpoint: str,
    instance_id: str,
    workdir: Path,
    python_stub: str | None = None,
    timeout: float = 240,
    halts: bool = True,
) -> subprocess.CompletedProcess:
    """Run the instance's real user-data as the instance would: real curl against moto, real bench
    (or `python_stub` as python3), a `shutdown` that terminates the instance through moto (with
    `halts` False, one that does not: the instance stays up until someone terminates it)."""
    workdir.mkdir(parents=True, exist_ok=True)
    bin_dir = workdir / "bin"
    bin_dir.mkdir(exist_ok=True)
    shutdown = bin_dir / "shutdown"
    shutdown.write_text(SHUTDOWN_STUB.format(python=sys.executable))
    shutdown.chmod(shutdown.stat().st_mode | stat.S_IEXEC)
    python = bin_dir / "python3"
    # exec, not a symlink: a symlinked venv interpreter loses its venv (and torch), and the
    # bootstrap would then fall back to `pip install torch`
    python.write_text(
        python_stub if python_stub is not None else f'#!/bin/bash\nexec "{sys.executable}" "$@"\n'
    )
    python.chmod(0o755)
    script = workdir / "user-data.sh"
    script.write_text(user_data(ec2(endpoint), instance_id))
    env = {
        **os.environ,
        **FAKE_ENV,
        "AWS_ENDPOINT_URL": endpoint,
        "INSTANCE_ID": instance_id,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "PLANNER_WORKDIR": str(workdir / "work"),
        "CALLS": str(workdir / "calls.txt"),
        "HALTS": "1" if halts else "0",
    }
    return subprocess.run(
        ["bash", str(script)], env=env, capture_output=True, text=True, timeout=timeout
    )


class Player(threading.Thread):
    """Plays every planner instance that appears in moto, each once."""

    def __init__(
        self,
        endpoint: str,
        workdir: Path,
        python_stub: str | None = None,
        terminate_instead: bool = False,
        halts: bool = True,
        only: set[str] | None = None,
    ):
        super().__init__(daemon=True)
        self.endpoint, self.workdir, self.python_stub = endpoint, workdir, python_stub
        self.terminate_instead, self.halts, self.only = terminate_instead, halts, only
        self.played: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        client = ec2(self.endpoint)
        while not self.stop.is_set():
            for inst in live_instances(client):
                iid = inst["InstanceId"]
                if (
                    iid in self.played
                    or inst["State"]["Name"] != "running"
                    or (self.only is not None and inst["InstanceType"] not in self.only)
                ):
                    continue
                self.played.append(iid)
                if self.terminate_instead:  # a spot interruption: gone without a word
                    client.terminate_instances(InstanceIds=[iid])
                else:  # each in a thread of its own, as instances boot side by side
                    threading.Thread(
                        target=play_instance,
                        args=(self.endpoint, iid, self.workdir / iid, self.python_stub),
                        kwargs={"halts": self.halts},
                        daemon=True,
                    ).start()
            time.sleep(0.2)


# ----------------------------------------------------------------------------- `planner run` in a subprocess

SPEC = (
    "name: e2e-mlp\nmodel: {kind: mlp, input_size: 4, hidden: [16], outputs: 1}\n"
    "data: {samples: 1024}\ntrain: {batch_size: 128, epochs: 20}\n"
)


def start_planner(
    env: dict,
    tmp_path: Path,
    targets: str,
    *extra: str,
    spec: str = SPEC,
    ami: str | None = None,
    faults: list[dict] | None = None,
    fault_log: Path | None = None,
) -> tuple[subprocess.Popen, Path]:
    """`planner run` on a small spec against the moto server of `env`; with `faults` (or `fault_log`),
    through tests/aws/faults.py, which injects them at botocore's boundary in that process."""
    from tests.conftest import ROOT

    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text(spec)
    out = tmp_path / "run"
    ami = ami or x86_ami(ec2(env["AWS_ENDPOINT_URL"]))
    entry = (
        ["-m", "tests.aws.faults"]
        if faults is not None or fault_log is not None
        else ["-m", "planner.cli"]
    )
    if faults is not None or fault_log is not None:
        env = {
            **env,
            "PLANNER_FAULTS": json.dumps(faults or []),
            **({"PLANNER_FAULT_LOG": str(fault_log)} if fault_log else {}),
        }
    cmd = [
        sys.executable,
        *entry,
        "run",
        str(spec_path),
        "--targets",
        targets,
        "--ami",
        ami,
        "--seconds",
        "1",
        "--poll-seconds",
        "0.3",
        "--out",
        str(out),
        *extra,
    ]
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_as_from_a_terminal,
    )
    return proc, out


def _as_from_a_terminal() -> None:
    """The planner as a person starts it: Ctrl-C (SIGINT) live. A suite started as a background job
    (`make test &`) hands its children an ignored SIGINT, which the planner rightly keeps ignored
    (as SIGHUP under nohup), and the signal tests would then test nothing."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def played_run(
    endpoint: str,
    env: dict,
    tmp_path: Path,
    targets: str,
    *extra: str,
    timeout: float = 180,
    faults: list[dict] | None = None,
    **player_options,
):
    """`planner run` to the end while a thread plays its instances. Returns (process, stdout, stderr,
    run dir, player)."""
    player = Player(endpoint, tmp_path / "instances", **player_options)
    player.start()
    try:
        proc, out = start_planner(env, tmp_path, targets, *extra, faults=faults)
        stdout, stderr = proc.communicate(timeout=timeout)
    finally:
        player.stop.set()
    return proc, stdout, stderr, out, player


def run_id(out: Path, timeout: float = 60) -> str:
    """The run's id, from its journal (written before anything is launched)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            return json.loads((out / "run.json").read_text())["run_id"]
        except (OSError, ValueError, KeyError):
            time.sleep(0.1)
    raise AssertionError(f"{out}/run.json never appeared")


def wait_for_instances(endpoint: str, out: Path, count: int, timeout: float = 60) -> list[dict]:
    rid = run_id(out, timeout)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [i for i in live_instances(ec2(endpoint), rid) if i["State"]["Name"] == "running"]
        if len(found) >= count:
            return found
        time.sleep(0.2)
    raise AssertionError(f"{count} instances of {rid} never ran")


def journaled(out: Path) -> dict[str, dict]:
    """The results a run journaled, by label."""
    return {p.stem: json.loads(p.read_text()) for p in sorted((out / "results").glob("*.json"))}
