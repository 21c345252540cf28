"""What the instance gets and gives back, in-process (moto): presigned URLs that end at the deadline
and a --max-bench-minutes S3 cannot honour refused; a custom model's folder in the bundle (bounded,
never this machine's path in the job); an uploaded result held to the journal's checks, its failure
shown with the instance's log; a launch whose answer was lost still found and terminated. The fault
table itself is test_faults_server.py."""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from urllib.parse import parse_qs, urlparse

import pytest

from planner.errors import InputError
from planner.journal_checks import result_problems
from planner.service import AwsOptions, preflight
from pricing.catalog import load_snapshot
from runner.aws import AwsRun, AwsSettings, AwsTarget
from runner.bundle import USER_CODE_MAX_BYTES, bench_bundle, job_for_instance, user_code
from tests.aws.helpers import live_instances, user_data, x86_ami
from tests.cli.helpers import planner

JOB = {"spec": {"name": "tiny", "model": {"kind": "mlp"}}, "device": "auto"}


def new_run(ec2, minutes: float = 5.0, run_id: str = "run-f") -> AwsRun:
    run = AwsRun(
        AwsSettings(ami=x86_ami(ec2), max_bench_minutes=minutes, poll_seconds=0.05),
        run_id,
        check_result=result_problems,
    )  # as the service builds it
    run.prepare()
    return run


def test_presigned_urls_end_at_the_deadline(aws_session):
    ec2 = aws_session.client("ec2")
    run = new_run(ec2, minutes=7)
    t = AwsTarget(run, "c7i.xlarge", JOB, "aws-c7i.xlarge", 0.1785)
    t.start()
    script = user_data(ec2, t.instance_id)
    left = (run.deadline - dt.datetime.now(dt.timezone.utc)).total_seconds()
    for line in script.splitlines():
        if line.endswith("'") and "_URL='" in line:
            expires = int(parse_qs(urlparse(line.split("'")[1]).query)["X-Amz-Expires"][0])
            assert (
                left - 30 <= expires <= left + 1
            )  # until the deadline, not a second of grace past it
    run.terminate_run()


def test_a_max_bench_minutes_past_s3s_seven_days_is_refused_before_anything_starts(tmp_path):
    # the service refuses it for every caller (the TUI, the API), the CLI's flag even earlier
    with pytest.raises(
        InputError, match=r"--max-bench-minutes 10081: .* at most 7 days \(10080 minutes\)"
    ):
        preflight(
            ["c7i.xlarge"], AwsOptions(max_bench_minutes=10081, bench_budget=1e6), load_snapshot()
        )
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "name: t\nmodel: {kind: mlp, input_size: 2, hidden: [4], outputs: 1}\ndata: {samples: 64}\n"
        "train: {batch_size: 8, epochs: 1}\n"
    )
    r = planner(
        "run",
        spec,
        "--targets",
        "aws:c7i.xlarge",
        "--max-bench-minutes",
        "20000",
        "--bench-budget",
        "100000",
        "--out",
        tmp_path / "run",
    )  # (the CLI's own range, a day, refuses it first)
    assert r.code == 2 and "--max-bench-minutes" in r.err and "20000" in r.err
    assert not (tmp_path / "run").exists()


def test_a_custom_models_folder_ships_in_the_bundle_and_the_job_names_it_there(tmp_path):
    folder = tmp_path / "models"
    (folder / "nets").mkdir(parents=True)
    (folder / "tinynet.py").write_text("import nets.blocks\n")
    (folder / "nets" / "__init__.py").write_text("")
    (folder / "nets" / "blocks.py").write_text("X = 1\n")
    for junk in ("__pycache__", ".git", ".venv"):
        (folder / junk).mkdir()
        (folder / junk / "x.pyc").write_bytes(b"0" * 10)
    model = {"kind": "custom", "factory": "tinynet:build", "path": str(folder / "tinynet.py")}
    files = user_code(model)
    assert sorted(name for _, name in files) == [
        "user/nets/__init__.py",
        "user/nets/blocks.py",
        "user/tinynet.py",
    ]
    names = zipfile.ZipFile(io.BytesIO(bench_bundle(files))).namelist()
    assert "runner/bench/__main__.py" in names and "user/nets/blocks.py" in names
    job = {"spec": {"name": "c", "model": model}}
    assert job_for_instance(job, files)["spec"]["model"]["path"] == "user"
    assert job["spec"]["model"]["path"] == str(
        folder / "tinynet.py"
    )  # the local job is left as it was
    # without a path, the module the local bench would import from the current directory
    assert [
        n for _, n in user_code({"kind": "custom", "factory": "tinynet:build"}, cwd=folder)
    ] == ["user/tinynet.py"]
    assert (
        user_code({"kind": "custom", "factory": "torchvision.models:resnet18"}, cwd=tmp_path) == []
    )  # installed
    assert user_code({"kind": "mlp"}) == []


def test_a_model_folder_too_big_to_ship_is_refused_by_name(aws_session, tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "net.py").write_text("")
    with (folder / "checkpoint.pt").open("wb") as f:
        f.truncate(USER_CODE_MAX_BYTES + 1)  # sparse: big on paper, instant to make
    run = AwsRun(AwsSettings(), "run-big")
    job = {
        "spec": {
            "name": "c",
            "model": {"kind": "custom", "factory": "net:build", "path": str(folder)},
        }
    }
    with pytest.raises(InputError, match=r"model.path: .*project holds more than 20 MiB") as caught:
        run.ship(job)
    assert "folder of its own" in caught.value.hint


def test_an_uploaded_result_is_held_to_the_journals_checks_before_it_is_believed(aws_session):
    ec2 = aws_session.client("ec2")
    run = new_run(ec2, run_id="run-bad")
    t = AwsTarget(run, "c7i.xlarge", JOB, "aws-c7i.xlarge", 0.1785)
    t.start()
    s3 = aws_session.client("s3")
    s3.put_object(
        Bucket=run.bucket,
        Key=t.keys["result"],
        Body=b'{"status": "ok", "device": "cpu", "step_seconds": "fast"}',
    )
    s3.put_object(
        Bucket=run.bucket,
        Key=t.keys["log"],
        Body="".join(f"line {i}\n" for i in range(100)).encode(),
    )
    assert t.poll().state == "done"
    result = t.collect()
    assert result.status == "error" and "unreadable: step_seconds: must be" in result.message
    lines = result.message.splitlines()
    assert lines[lines.index("--- the instance's log ---") + 1] == "line 0"  # its first lines ...
    assert "... (76 lines) ..." in lines and lines[-1] == "line 99"  # ... and its last
    t.terminate()
    assert live_instances(ec2, "run-bad") == []


def test_a_launch_whose_answer_was_lost_is_found_by_its_tags_and_terminated(aws_session):
    ec2 = aws_session.client("ec2")
    run = new_run(ec2, run_id="run-lost")
    t = AwsTarget(run, "c7i.xlarge", JOB, "aws-c7i.xlarge", 0.1785)
    t.start()
    lost, t.instance_id = (
        t.instance_id,
        None,
    )  # as if a signal had struck while run_instances was answering
    assert t.leftover()["instance_id"] == lost  # named, though the target never learnt its id ...
    t.instance_id = None
    t.terminate()  # ... and terminated all the same
    assert live_instances(ec2, "run-lost") == [] and t.leftover() is None
