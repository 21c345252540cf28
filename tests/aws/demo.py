"""Try the whole AWS flow offline: a moto server stands in for AWS, a thread plays each instance
(runs its real user-data: real curl, real bench on this CPU), and `planner run` runs as you would
run it. Anything after `--` goes to `planner run`.

    python -m tests.aws.demo -- examples/surface-mlp.yaml --targets local,aws:c7i.xlarge,aws:g4dn.xlarge
    python -m tests.aws.demo --no-player -- examples/surface-mlp.yaml --targets aws:c7i.xlarge --max-bench-minutes 0.2
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from moto.server import ThreadedMotoServer

from tests.aws.helpers import FAKE_ENV, Player, ec2, free_port, live_instances, x86_ami


def main(argv: list[str]) -> int:
    player_on = "--no-player" not in argv
    args = (
        argv[argv.index("--") + 1 :]
        if "--" in argv
        else ["examples/surface-mlp.yaml", "--targets", "local,aws:c7i.xlarge,aws:g4dn.xlarge"]
    )
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    try:
        with tempfile.TemporaryDirectory(prefix="planner-demo-") as tmp:
            player = Player(endpoint, Path(tmp) / "instances")
            if player_on:
                player.start()
            env = {
                **os.environ,
                **FAKE_ENV,
                "AWS_ENDPOINT_URL": endpoint,
                "PLANNER_CACHE_DIR": str(Path(tmp) / "cache"),
            }
            ami = x86_ami(ec2(endpoint))
            print(
                f"moto server at {endpoint}; AMI {ami}; instances {'played by a thread' if player_on else 'left alone'}",
                file=sys.stderr,
            )
            code = subprocess.call(
                [
                    sys.executable,
                    "-m",
                    "planner.cli",
                    "run",
                    *args,
                    "--ami",
                    ami,
                    "--poll-seconds",
                    "1",
                    "--yes",
                ],
                env=env,
            )
            player.stop.set()
            left = [i["InstanceId"] for i in live_instances(ec2(endpoint))]
            print(
                f"instances still running in moto afterwards: {len(left)} {left}", file=sys.stderr
            )
            return code
    finally:
        server.stop()


if __name__ == "__main__":
    import logging

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    sys.exit(main(sys.argv[1:]))
