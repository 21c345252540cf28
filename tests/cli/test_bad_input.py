"""Issue 16 at the CLI: every bad flag value, output path and usage gets exit 2 and one message naming
the flag, the value and what is accepted, before any work; never a traceback or "internal error".

The commands run in-process (`planner.cli.main`), as cheap as argparse: every case here is refused
before a bench starts or AWS is asked, which is what is being tested.
"""

from __future__ import annotations

import io
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
import yaml

from planner.cli import build_parser, main
from tests.cli.helpers import Completed
from tests.conftest import TINY_MLP


def call(*argv: object) -> Completed:
    """`planner ARGV` in this process: exit code, stdout, stderr (argparse's SystemExit included)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return Completed(int(code), out.getvalue(), err.getvalue())


def refused(r: Completed, *expected: str) -> None:
    """Exit 2, every expected fragment on stderr, no traceback, no internal error."""
    assert r.code == 2, (r.code, r.err)
    for text in expected:
        assert text in r.err, (text, r.err)
    assert "Traceback" not in r.err and "internal error" not in r.err


@pytest.fixture
def spec(tmp_path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(TINY_MLP))
    return path


# ----------------------------------------------------------------------------- numbers

SECONDS = "must be a number above 0 and at most 3,600 (seconds)"
USD_PER_HOUR = "must be a number between 0 and 10,000 (USD per hour)"
SPEC_COMMANDS = ["bench", "run", "estimate", "validate"]


@pytest.mark.parametrize("command", SPEC_COMMANDS + ["tui"])
@pytest.mark.parametrize("value", ["inf", "nan", "1e9", "0", "-1", "", "ten", "1e999", "9" * 500])
def test_seconds_is_finite_and_at_most_an_hour(spec, command, value):
    argv = [command, spec] if command != "tui" else [command]
    shown = repr(value) if len(value) < 40 else "'9999"
    refused(call(*argv, f"--seconds={value}"), f"argument --seconds: {SECONDS}, got {shown}")


@pytest.mark.parametrize("command", ["run", "estimate", "plan"])
@pytest.mark.parametrize("flag", ["--time-value", "--local-price"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-0.01", "10001", "1e400"])
def test_prices_people_type_are_finite_and_not_negative(spec, tmp_path, command, flag, value):
    first = spec if command != "plan" else tmp_path  # argparse refuses before the journal is read
    refused(
        call(command, first, f"{flag}={value}"), f"argument {flag}: {USD_PER_HOUR}, got '{value}'"
    )


@pytest.mark.parametrize(
    "argv, expected",
    [
        (
            ["run", "SPEC", "--bench-budget", "0"],
            "--bench-budget: must be a number above 0 and at most 1,000 (USD)",
        ),
        (
            ["run", "SPEC", "--bench-budget", "1001"],
            "--bench-budget: must be a number above 0 and at most 1,000 (USD)",
        ),
        (["run", "SPEC", "--bench-budget", "nan"], "got 'nan'"),
        (
            ["prices", "--max-price", "0"],
            "--max-price: must be a number above 0 and at most 10,000 (USD per hour), got '0'",
        ),
        (["prices", "--max-price", "inf"], "got 'inf'"),
        (
            ["prices", "--min-gpu-memory", "-8"],
            "--min-gpu-memory: must be a number above 0 and at most 10,000 (GB), got '-8'",
        ),
        (["prices", "--min-gpu-memory", "nan"], "got 'nan'"),
        (
            ["run", "SPEC", "--max-bench-minutes", "0"],
            "--max-bench-minutes: must be a number above 0 and at most 1,440 (minutes)",
        ),
        (["run", "SPEC", "--max-bench-minutes", "1e9"], "got '1e9'"),
        (
            ["run", "SPEC", "--poll-seconds", "0.01"],
            "--poll-seconds: must be a number between 0.05 and 600 (seconds), got '0.01'",
        ),
        (["run", "SPEC", "--poll-seconds", "601"], "got '601'"),
        (
            ["run", "SPEC", "--max-instances", "0"],
            "--max-instances: must be a whole number between 1 and 64 (instances at once)",
        ),
        (["run", "SPEC", "--max-instances", "65"], "got '65'"),
        (["run", "SPEC", "--max-instances", "2.5"], "got '2.5'"),
        (
            ["bench", "SPEC", "--threads", "0"],
            "--threads: must be a whole number between 1 and 1,024 (threads), got '0'",
        ),
        (["bench", "SPEC", "--threads", "100000"], "got '100000'"),
        (
            ["validate", "SPEC", "--epochs", "0"],
            "--epochs: must be a whole number between 1 and 10,000,000 (epochs), got '0'",
        ),
        (["validate", "SPEC", "--epochs", "10000001"], "got '10000001'"),
        (["validate", "SPEC", "--epochs", "1e3"], "got '1e3'"),
        (["run", "SPEC", "--deadline", "1e400h"], "--deadline: must be a duration like 4h"),
        (
            ["estimate", "SPEC", "--deadline", "400d"],
            "--deadline: must be at most 366 days, got '400d'",
        ),
        (
            ["plan", "SPEC", "--deadline", "soon"],
            "--deadline: must be a duration like 4h, 90m, 1h30m or 2d, got 'soon'",
        ),
    ],
)
def test_every_numeric_flag_says_its_range(spec, argv, expected):
    refused(call(*[spec if a == "SPEC" else a for a in argv]), expected)


def test_the_ranges_take_their_ends_and_the_values_tests_use():
    parse = build_parser().parse_args
    args = parse(
        [
            "run",
            "s.yaml",
            "--seconds",
            "3600",
            "--time-value",
            "0",
            "--local-price",
            "10000",
            "--bench-budget",
            "1000",
            "--max-bench-minutes",
            "0.1",
            "--poll-seconds",
            "0.3",
            "--max-instances",
            "64",
        ]
    )
    assert (args.seconds, args.time_value, args.local_price, args.bench_budget) == (
        3600,
        0,
        10000,
        1000,
    )
    assert (args.max_bench_minutes, args.poll_seconds, args.max_instances) == (0.1, 0.3, 64)
    assert parse(["validate", "s.yaml", "--epochs", "10000000"]).epochs == 10_000_000
    assert parse(["bench", "s.yaml", "--threads", "1024", "--seconds", "0.3"]).threads == 1024
    assert parse(["prices", "--max-price", "0.5", "--min-gpu-memory", "24"]).max_price == 0.5


def test_the_help_states_the_range():
    r = call("bench", "--help")
    assert r.code == 0 and "above 0 and at most 3,600" in " ".join(r.out.split())


def test_validate_epochs_meet_the_specs_total_steps_limit(write_spec, tiny_mlp):
    tiny_mlp["data"] = {"samples": 1_000_000_000, "task": "regression", "location": "host"}
    tiny_mlp["train"].update(batch_size=1, epochs=1)
    r = call(
        "validate", write_spec(tiny_mlp), "--epochs", "10000"
    )  # 10^13 steps: refused before the bench
    refused(
        r,
        "--epochs 10,000: 10,000 epochs x 1,000,000,000 steps per epoch",
        "at most 1,000,000,000,000",
        "to fix: train fewer epochs",
    )


# ----------------------------------------------------------------------------- usage the service refuses


@pytest.mark.parametrize("command", ["run", "estimate", "plan"])
def test_the_deadline_objective_needs_a_deadline(spec, tmp_path, command):
    if command == "plan":
        from tests.cli.test_bad_input_journal import write_journal

        first = write_journal(tmp_path / "run")
    else:
        first = spec
    refused(
        call(command, first, "--objective", "deadline"),
        "--objective deadline needs --deadline",
        "--deadline 4h",
    )


@pytest.mark.parametrize("value", ["tomorrow", "2026-13-45T99:00:00Z", "1" * 41])
def test_reap_at_must_be_a_utc_time(value):
    refused(call("reap", "--at", value), "--at", "UTC time like 2026-11-21T18:00:00Z")


def test_reap_at_in_the_right_form_but_no_date_is_the_services_input_error():
    # characters of a time but not one: the flag passes it, the service refuses it, still exit 2
    refused(
        call("reap", "--at", "2026-99-99T00:00:00Z"),
        "--at: must be a UTC time like 2026-11-21T18:00:00Z",
    )


def test_no_command_is_usage():
    assert call().code == 2 and call("nonsense").code == 2


# ----------------------------------------------------------------------------- AWS names


@pytest.mark.parametrize(
    "argv, expected",
    [
        (
            ["run", "SPEC", "--region", "US-EAST-1"],
            'AWS region like us-east-1 (did you mean "us-east-1"?)',
        ),
        (["prices", "--region", "mars-1"], "AWS region like us-east-1"),
        (["ls", "--region", "x" * 5000], "AWS region like us-east-1"),
        (["reap", "--region", "us-east-1; rm -rf /"], "AWS region"),
        (
            ["run", "SPEC", "--ami", "ami-xyz"],
            "AMI id like ami-0123456789abcdef0 (ami- and 8 or 17 hexadecimal digits)",
        ),
        (["tui", "--ami", "ubuntu"], "AMI id"),
        (["run", "SPEC", "--subnet", "subnet-1"], "subnet id like subnet-0123456789abcdef0"),
        (["infra", "deploy", "--vpc", "default"], "VPC id like vpc-0123456789abcdef0"),
        (["run", "SPEC", "--bucket", "My_Bucket"], "S3 bucket name like my-planner-results"),
        (["run", "SPEC", "--bucket", "a..b"], "no two dots in a row"),
        (["run", "SPEC", "--bucket", "10.0.0.1"], "not an IP address"),
        (["run", "SPEC", "--bucket", "b" * 64], "S3 bucket name"),
        (
            ["infra", "deploy", "--stack-name", "2fast"],
            "CloudFormation stack name like cloud-planner",
        ),
        (["infra", "status", "--stack-name", "s" * 129], "at most 128 characters"),
        (
            ["infra", "deploy", "--schedule", "every 10 minutes"],
            'EventBridge schedule like "rate(10 minutes)"',
        ),
        (["infra", "deploy", "--schedule", "rate(1 minutes)"], 'write "rate(1 minute)"'),
        (["infra", "deploy", "--schedule", "rate(0 minutes)"], "a rate of at least 1"),
        (["reap", "--run-id", "../../etc"], "run id like"),
        (["reap", "--run-id", "é" * 200], "run id like"),
        (["run", "SPEC", "--ami-type", "a/b"], "Deep Learning AMI type"),
        (["prices", "--arch", "X86-64"], "architecture like x86_64 or arm64"),
        (
            ["run", "SPEC", "--targets", "local;aws:g5.xlarge"],
            "list of targets like local,aws:g5.xlarge",
        ),
        (["run", "SPEC", "--targets", "local," * 300], "at most 1,000 characters"),
    ],
)
def test_aws_names_are_in_aws_formats(spec, argv, expected):
    r = call(*[spec if a == "SPEC" else a for a in argv])
    refused(
        r,
        f"argument {argv[2] if argv[0] == 'infra' else next(a for a in argv if a.startswith('--'))}:",
        expected,
    )
    assert len(r.err) < 2_000  # a 5,000-character value is shown cut


@pytest.mark.parametrize(
    "argv",
    [
        [
            "run",
            "SPEC",
            "--region",
            "us-west-2",
            "--ami",
            "ami-0123456789abcdef0",
            "--subnet",
            "subnet-0abc1234",
            "--bucket",
            "my.results-bucket",
            "--ami-type",
            "oss-nvidia-driver-gpu-pytorch-2.9-ubuntu-24.04",
        ],
        [
            "infra",
            "deploy",
            "--stack-name",
            "cloud-planner",
            "--vpc",
            "vpc-0abc1234",
            "--schedule",
            "cron(0/10 * * * ? *)",
        ],
        ["infra", "deploy", "--schedule", "rate(1 hour)"],
        ["reap", "--run-id", "20261121T180000Z-1a2b3c4d", "--at", "2026-11-21T18:00:00+00:00"],
        ["prices", "--arch", "arm64", "--region", "ap-southeast-2"],
    ],
)
def test_real_aws_names_pass(argv):
    build_parser().parse_args(argv)  # no SystemExit


# ----------------------------------------------------------------------------- output paths


def test_bench_out_in_a_missing_directory_is_refused_before_the_bench(spec, tmp_path):
    r = call("bench", spec, "--out", tmp_path / "nonexistent" / "x.json", "--seconds", "0.3")
    refused(
        r,
        f"--out {tmp_path}/nonexistent/x.json: the directory {tmp_path}/nonexistent does not exist",
        "to fix: create the directory first",
    )
    assert "measured" not in r.err and r.out == ""


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda d: d, "is a directory"),
        (
            lambda d: d / ("n" * 300) / "x.json",
            "has a file or directory name of 300 bytes; at most 255",
        ),
        (lambda d: d / "/".join(["d" * 200] * 25), "bytes long; a path is at most 4,095"),
        (lambda d: d / "file.txt" / "x.json", "file.txt is not a directory"),
        (lambda d: str(d / "a\x00b"), "contains a NUL character"),
    ],
)
def test_bench_out_paths(spec, tmp_path, make, expected):
    (tmp_path / "file.txt").write_text("a file")
    refused(call("bench", spec, "--out", make(tmp_path)), "--out ", expected)


def test_bench_out_a_fifo_nobody_reads_is_refused_not_blocked_on(spec, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    refused(call("bench", spec, "--out", fifo), "is a named pipe nothing reads from")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_bench_out_in_a_read_only_directory(spec, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    refused(call("bench", spec, "--out", locked / "x.json"), "permission denied")


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda d: d / "file.txt", "is a file, not a directory"),
        (lambda d: d / "file.txt" / "run", "file.txt is a file, not a directory"),
        (lambda d: d / "full", "the directory exists and is not empty"),
        (lambda d: d / ("r" * 256), "has a file or directory name of 256 bytes; at most 255"),
        (lambda d: "", "the path is empty"),
    ],
)
def test_run_out_paths_are_checked_before_anything_runs(spec, tmp_path, make, expected):
    (tmp_path / "file.txt").write_text("a file")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep").write_text("keep me")
    r = call("run", spec, "--out", make(tmp_path), "--seconds", "0.3")
    refused(r, "--out", expected, "to fix: give a new directory for the run journal")
    assert sorted(os.listdir(tmp_path)) == ["file.txt", "full", "tiny.yaml"]  # nothing written


@pytest.mark.parametrize("path", ["/dev/zero", "DIR", "FIFO", "MISSING"])
def test_tui_refuses_a_spec_it_cannot_read_before_it_opens(tmp_path, path):
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    target = {"DIR": tmp_path, "FIFO": fifo, "MISSING": tmp_path / "missing.yaml"}.get(path, path)
    refused(
        call("tui", target),
        str(target),
        *(["not a run directory (no spec.json)"] if path == "DIR" else []),
    )


# ----------------------------------------------------------------------------- text that looks like markup


def test_a_spec_path_that_looks_like_rich_markup_is_shown_as_typed(tmp_path, monkeypatch):
    monkeypatch.setenv(
        "COLUMNS", "400"
    )  # the long path on one line, wherever the temporary folder is
    (tmp_path / "a[").mkdir()
    path = (
        tmp_path / "a[" / "bold]b.yaml"
    )  # the path reads ".../a[/bold]b.yaml": a closing tag to rich
    path.write_text(yaml.safe_dump(TINY_MLP))
    r = call("check", path)
    assert r.code == 0, r.err
    assert f"ok: {path} is a valid spec" in " ".join(r.err.split())


# ----------------------------------------------------------------------------- the environment


def test_a_malformed_aws_region_in_the_environment_is_named(monkeypatch):
    monkeypatch.setenv("AWS_REGION", "Mars")
    refused(
        call("ls"),
        "the environment variable AWS_REGION: must be an AWS region like us-east-1",
        "got 'Mars'",
        "to fix: fix or unset AWS_REGION, or pass --region",
    )


@pytest.mark.parametrize("columns", ["abc", "999999999999", "-5", "0"])
def test_columns_that_are_not_a_width_fall_back_to_150(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    r = call("prices", "--region", "us-east-1", "--gpu")
    assert r.code == 0 and "internal error" not in r.err
    assert max(len(line) for line in r.out.splitlines()) <= 1_000


def test_a_hint_on_a_terminal_wraps_between_words_and_stays_one_line_in_a_pipe(monkeypatch):
    import sys

    from planner.cli import error_text
    from planner.errors import InputError

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    hint = "it ran in its own folder, /tmp/proj/src; to run it from here, as `python src/train.py` would, give --workdir ."
    exc = InputError("train.py failed", hint=hint)
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert error_text(exc).splitlines() == [
        "bad input: train.py failed",
        f"  to fix: {hint}",
    ]  # a program reads it whole
    monkeypatch.setattr(sys, "stderr", Terminal())
    lines = error_text(exc).splitlines()
    assert (
        lines[0] == "bad input: train.py failed"
        and len(lines) == 4
        and all(len(line) < 60 for line in lines)
    )
    assert (
        lines[3].startswith("    ")
        and " ".join(line.strip() for line in lines[1:]) == f"to fix: {hint}"
    )  # no word cut
