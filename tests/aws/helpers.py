"""Shared pieces of the AWS tests: a moto server a second process can see, and a player that does
what an EC2 instance would do with our user-data."""

from __future__ import annotations

import base64
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import boto3

FAKE_ENV = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
            "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ec2(endpoint: str | None = None):
    if endpoint is None:  # in-process moto (mock_aws): the environment's fake credentials apply
        return boto3.client("ec2", region_name="us-east-1")
    return boto3.client("ec2", region_name="us-east-1", endpoint_url=endpoint,
                        aws_access_key_id="testing", aws_secret_access_key="testing")


_AMI: list[str] = []


def x86_ami(client) -> str:
    """An x86_64 AMI moto knows (its catalog is static, so the slow look-up is done once)."""
    if not _AMI:
        images = client.describe_images(Owners=["amazon"], Filters=[{"Name": "architecture", "Values": ["x86_64"]}])["Images"]
        _AMI.append(images[0]["ImageId"])
    return _AMI[0]


def live_instances(client, run_id: str | None = None) -> list[dict]:
    filters = [{"Name": "instance-state-name", "Values": ["pending", "running", "stopping", "stopped"]}]
    if run_id:
        filters.append({"Name": "tag:planner:run-id", "Values": [run_id]})
    return [i for r in client.describe_instances(Filters=filters)["Reservations"] for i in r["Instances"]]


def user_data(client, instance_id: str) -> str:
    value = client.describe_instance_attribute(InstanceId=instance_id, Attribute="userData")["UserData"]["Value"]
    return base64.b64decode(value).decode()


SHUTDOWN_STUB = """#!{python}
import os, sys, boto3
with open(os.environ["CALLS"], "a") as f:
    f.write("shutdown " + " ".join(sys.argv[1:]) + "\\n")
if "now" in sys.argv[1:]:
    # halting an instance with InstanceInitiatedShutdownBehavior=terminate terminates it
    boto3.client("ec2", region_name="us-east-1", endpoint_url=os.environ["AWS_ENDPOINT_URL"],
                 aws_access_key_id="testing", aws_secret_access_key="testing").terminate_instances(
        InstanceIds=[os.environ["INSTANCE_ID"]])
"""


def play_instance(endpoint: str, instance_id: str, workdir: Path, python_stub: str | None = None,
                  timeout: float = 240) -> subprocess.CompletedProcess:
    """Run the instance's real user-data as the instance would: real curl against moto, real bench
    (or `python_stub` as python3), a `shutdown` that terminates the instance through moto."""
    workdir.mkdir(parents=True, exist_ok=True)
    bin_dir = workdir / "bin"
    bin_dir.mkdir(exist_ok=True)
    shutdown = bin_dir / "shutdown"
    shutdown.write_text(SHUTDOWN_STUB.format(python=sys.executable))
    shutdown.chmod(shutdown.stat().st_mode | stat.S_IEXEC)
    python = bin_dir / "python3"
    # exec, not a symlink: a symlinked venv interpreter loses its venv (and torch), and the
    # bootstrap would then fall back to `pip install torch`
    python.write_text(python_stub if python_stub is not None else f'#!/bin/bash\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    script = workdir / "user-data.sh"
    script.write_text(user_data(ec2(endpoint), instance_id))
    env = {**os.environ, **FAKE_ENV, "AWS_ENDPOINT_URL": endpoint, "INSTANCE_ID": instance_id,
           "PATH": f"{bin_dir}:{os.environ['PATH']}", "PLANNER_WORKDIR": str(workdir / "work"),
           "CALLS": str(workdir / "calls.txt")}
    return subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=timeout)


class Player(threading.Thread):
    """Plays every planner instance that appears in moto, each once."""

    def __init__(self, endpoint: str, workdir: Path, python_stub: str | None = None, terminate_instead: bool = False):
        super().__init__(daemon=True)
        self.endpoint, self.workdir, self.python_stub = endpoint, workdir, python_stub
        self.terminate_instead = terminate_instead
        self.played: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        client = ec2(self.endpoint)
        while not self.stop.is_set():
            for inst in live_instances(client):
                iid = inst["InstanceId"]
                if iid in self.played or inst["State"]["Name"] != "running":
                    continue
                self.played.append(iid)
                if self.terminate_instead:  # a spot interruption: gone without a word
                    client.terminate_instances(InstanceIds=[iid])
                else:
                    play_instance(self.endpoint, iid, self.workdir / iid, self.python_stub)
            time.sleep(0.2)
