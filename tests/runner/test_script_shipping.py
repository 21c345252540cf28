"""What of a script's folder ships to an instance (runner/folder.py) and how its timeline comes back as a
bench result (runner/script_job.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import InputError
from planner.report.remarks import words
from runner.folder import script_folder
from runner.script_job import script_result


def tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body if isinstance(body, bytes) else body.encode())
    return root / "train.py"


def test_gitignore_rules_apply_below_their_folder_and_secrets_never_ship(tmp_path):
    script = tree(
        tmp_path,
        {
            "train.py": "",
            "lib/model.py": "",
            "lib/.gitignore": "*.ckpt\n",
            "lib/last.ckpt": "x",
            "top.ckpt": "kept: the root's .gitignore does not list it",
            ".gitignore": "out/\n",
            "out/log.txt": "",
            ".env": "KEY=1",
            "prod.env": "KEY=2",
            "conf/id_ed25519": "k",
            "keys/site.pem": "k",
            ".aws/credentials": "k",
            "__pycache__/x.pyc": "",
            "notes.md": "",
            "planner-runs/20261124T000000Z-train/run.json": "{}",
        },
    )  # the planner's own journals
    shipped = script_folder(script)
    names = sorted(name for _, name in shipped.files)
    assert names == [
        "user/.gitignore",
        "user/lib/.gitignore",
        "user/lib/model.py",
        "user/notes.md",
        "user/top.ckpt",
        "user/train.py",
    ]
    secrets = sorted(p for p, why in shipped.left_out if why == "a secret")
    assert secrets == [".aws/", ".env", "conf/id_ed25519", "keys/site.pem", "prod.env"]
    listing = "\n".join(shipped.lines())
    assert "shipping 6 file(s)" in listing and "never shipped (secrets): .aws/, .env" in listing


def test_a_folder_holding_a_dataset_is_refused_before_anything_launches(tmp_path):
    script = tree(tmp_path, {"train.py": "", "data.bin": b"\0" * 4096})
    with pytest.raises(InputError, match="more than 0 MiB") as caught:
        script_folder(script, max_bytes=1024)
    assert ".gitignore" in (caught.value.hint or "")
    tree(tmp_path, {".gitignore": "*.bin\n"})
    assert [name for _, name in script_folder(script, max_bytes=1024).files] == [
        "user/.gitignore",
        "user/train.py",
    ]


def test_a_timeline_comes_back_as_a_bench_result_and_a_cpu_run_on_a_gpu_instance_says_so():
    timeline = {
        "status": "ok",
        "steps": [1.0 + 0.01 * i for i in range(40)],
        "cuda_used": False,
        "device_name": "Xeon",
        "threads": 4,
        "stopped_because": "budget",
        "boundary": "optimizer",
    }
    r = script_result(timeline, "", 0, 300, want_device="cuda", setup_seconds=5.0)
    assert r.status == "ok" and r.device == "cpu" and r.step_seconds == pytest.approx(0.01)
    assert any("never used the GPU" in w for w in words(r.warnings)) and r.script is not None
    assert (
        r.script["requirements_seconds"] == 5.0
        and r.setup_seconds is not None
        and r.setup_seconds >= 5.0
    )
    hung = script_result(None, "", None, 300)
    assert hung.status == "error" and "no training step within 300 s" in hung.message
    failed = script_result(
        {"status": "error", "steps": [], "message": "ZeroDivisionError: division by zero"},
        "",
        1,
        300,
    )
    assert failed.status == "error" and failed.message == "ZeroDivisionError: division by zero"


def test_a_workdir_ships_whole_with_the_script_inside_it_and_an_ignored_script_is_refused(tmp_path):
    tree(
        tmp_path,
        {
            "src/train.py": "",
            "src/model.py": "",
            "configs/base.yaml": "",
            "data/small.csv": "1,2\n",
            ".env": "KEY=1",
            ".gitignore": "outputs/\n",
            "outputs/ckpt.pt": "x",
        },
    )
    shipped = script_folder(tmp_path / "src" / "train.py", folder=tmp_path)
    assert sorted(name for _, name in shipped.files) == [
        "user/.gitignore",
        "user/configs/base.yaml",
        "user/data/small.csv",
        "user/src/model.py",
        "user/src/train.py",
    ]
    assert [p for p, why in shipped.left_out if why == "a secret"] == [".env"]
    tree(tmp_path, {".gitignore": "src/\n"})
    with pytest.raises(InputError, match="the script itself would not ship"):
        script_folder(tmp_path / "src" / "train.py", folder=tmp_path)


def test_a_script_job_runs_a_script_below_its_folder_in_that_folder(tmp_path):
    """The instance's side of --workdir: the job names the script by its path in the shipped folder and runs
    it there (relative paths in its arguments are the folder's)."""
    from runner.script_job import run_job

    tree(
        tmp_path,
        {
            "data/x.txt": "3\n",
            "src/train.py": (
                "import sys, torch\n"
                "n = int(open(sys.argv[1]).read())\n"
                "w = torch.nn.Linear(2, 1)\n"
                "opt = torch.optim.SGD(w.parameters(), lr=0.01)\n"
                "for i in range(40 * n):\n"
                "    opt.zero_grad(); w(torch.ones(1, 2)).sum().backward(); opt.step()\n"
            ),
        },
    )
    events: list[dict] = []
    r = run_job(
        {
            "kind": "script",
            "folder": str(tmp_path),
            "script": "src/train.py",
            "args": ["data/x.txt"],
            "seconds": 5,
            "cap_seconds": 120,
            "device": "cpu",
        },
        str(tmp_path),
        events.append,
    )
    assert r.status == "ok", r.message
    assert (
        r.script is not None
        and len(r.script["steps"]) == 120
        and r.script["stopped_because"] == "finished"
    )
    assert (
        events and events[0]["phase"] == "setup"
    )  # progress, as runner.bench prints it on an instance
