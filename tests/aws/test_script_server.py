"""A user's training script on a played AWS instance, end to end against moto's server mode: `planner run
train.py --targets local,aws:TYPE -- ARGS` ships the script's folder (bounded, .gitignore honoured, no
secret), the instance runs its real user-data (real curl, the real launcher on CPU), the result comes
back, is journaled and planned, and nothing is left running."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.aws.helpers import Player, ec2, live_instances, run_id, x86_ami
from tests.conftest import ROOT

TRAIN = """
import os, pathlib, sys, torch
from torch.utils.data import DataLoader, TensorDataset
import helper  # a module of its own folder: it ships with the script
device = "cuda" if torch.cuda.is_available() else "cpu"
loader = DataLoader(TensorDataset(torch.randn(512, 8), torch.randn(512, 1)), batch_size=16)
model = torch.nn.Linear(8, 1).to(device)
# its envs, here and on the instance (a KeyError without them); its secret, here only
pathlib.Path(os.environ["MARKS"], f"secret-{'WANDB_API_KEY' in os.environ}").touch()
opt = torch.optim.SGD(model.parameters(), lr=float(os.environ["LR"]) * helper.LR)
for epoch in range(int(sys.argv[1])):
    for x, y in loader:
        opt.zero_grad(); torch.nn.functional.mse_loss(model(x.to(device)), y.to(device)).backward(); opt.step()
"""


SECRET = "sk-planner-test-never-uploaded"


def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    (folder / "data").mkdir(parents=True)
    (folder / "train.py").write_text(textwrap.dedent(TRAIN))
    (folder / "helper.py").write_text("LR = 0.01\n")
    (folder / "requirements.txt").write_text("torch\n")  # installed already: nothing to download
    (folder / ".gitignore").write_text("data/\n")
    (folder / "data" / "big.bin").write_bytes(b"\0" * 1024)
    (folder / ".env").write_text("AWS_SECRET_ACCESS_KEY=do-not-ship\n")
    (folder / "deploy.pem").write_text("-----BEGIN PRIVATE KEY-----\n")
    return folder


def test_a_script_runs_on_a_played_instance_and_its_folder_ships_without_secrets(
    endpoint, env, tmp_path
):
    folder = project(tmp_path)
    out, marks = tmp_path / "run", tmp_path / "marks"
    marks.mkdir()
    player = Player(endpoint, tmp_path / "instances")
    player.start()
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "planner.cli",
                "run",
                str(folder / "train.py"),
                "--targets",
                "local,aws:c7i.xlarge",
                "--ami",
                x86_ami(ec2(endpoint)),
                "--seconds",
                "2",
                "--poll-seconds",
                "0.3",
                "--max-bench-minutes",
                "5",
                "--epochs",
                "40",
                "--requirements",
                str(folder / "requirements.txt"),
                "--out",
                str(out),
                "--json",
                "--env",
                "LR=1.0",
                "--env",
                f"MARKS={marks}",
                "--secret",
                f"WANDB_API_KEY={SECRET}",
                "--",
                "3",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=420,
        )
    finally:
        player.stop.set()
    assert proc.returncode == 0, proc.stderr
    assert (
        "shipping 4 file(s)" in proc.stderr
        and "never shipped (secrets): .env, deploy.pem" in proc.stderr
    )
    doc = json.loads(proc.stdout)
    rows = {o["target"]: o for o in doc["options"] if o["source"] == "measured"}
    assert set(rows) == {"local", "aws:c7i.xlarge"}
    there = rows["aws:c7i.xlarge"]
    assert (
        there["source"] == "measured"
        and there["device"] == "cpu"
        and there["train_seconds"] > 0
        and there["cost_usd"] > 0
    )
    assert (
        doc["workload"]["kind"] == "script" and doc["workload"]["total_steps"] == 40 * 32
    )  # 512 / 16 per epoch
    log = "".join(p.read_text() for p in (tmp_path / "instances").glob("*/work/log.txt"))
    assert (
        '"phase": "installing requirements.txt"' in log and '"phase": "setup"' in log
    )  # its progress lines
    shipped = {
        p.name for p in (tmp_path / "instances").glob("*/work/bundle/user/**/*") if p.is_file()
    }
    assert shipped == {"train.py", "helper.py", "requirements.txt", ".gitignore"}
    result = json.loads((out / "results" / "aws-c7i.xlarge.json").read_text())
    assert (
        result["script"]["requirements_seconds"] > 0 and result["script"]["boundary"] == "optimizer"
    )
    assert live_instances(ec2(endpoint), run_id(out)) == []
    # the envs reached the script here and there (it ran on both), the secret here only: nothing uploaded or
    # journaled holds it (the instance's job, user-data, bundle and log; the run's journal), nor does the output
    assert {p.name for p in marks.iterdir()} == {"secret-True", "secret-False"}
    assert "WANDB_API_KEY set here only" in proc.stderr
    for path in [*(tmp_path / "instances").rglob("*"), *out.rglob("*")]:
        assert not path.is_file() or SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in proc.stdout + proc.stderr
    job = json.loads((out / "script.json").read_text())
    assert job["env"] == {"LR": "1.0", "MARKS": str(marks)} and job["secret_names"] == [
        "WANDB_API_KEY"
    ]
    replanned = subprocess.run(
        [sys.executable, "-m", "planner.cli", "plan", str(out), "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert replanned.returncode == 0, replanned.stderr
    again = {o["target"]: o for o in json.loads(replanned.stdout)["options"]}
    assert (
        again["aws:c7i.xlarge"]["source"] == "measured"
        and again["aws:g4dn.xlarge"]["source"] == "predicted"
    )
