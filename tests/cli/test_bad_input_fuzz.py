"""Property-based (issue 16) at the CLI: whatever a user types — any command, any flags, hostile
values (inf, nan, huge, negative, empty, unicode, very long), paths that are FIFOs, directories,
devices or missing, random spec files, damaged run journals — `planner` answers with exit 0, 1 or 2,
no traceback, no "internal error", within a bounded time.

Everything runs in-process (`planner.cli.main`). Nothing here may start a real bench, a TUI or reach
AWS: a command that would measure (bench, run, estimate, validate, tui) is given at least one input
it must refuse before any work (a flag value outside its range, or a spec it cannot load); AWS is
stubbed at the process boundary (no credentials, no instance metadata, an endpoint on a closed local
port), so the AWS commands fail fast with their exit-1 explanation. Scale with FUZZ_SCALE=10.
"""

from __future__ import annotations

import json
import os
import signal
import time

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli.test_bad_input import call
from tests.cli.test_bad_input_journal import write_journal
from tests.conftest import TINY_MLP
from tests.unit.test_spec_fuzz import FIELDS, MODELS, edited_spec, values, yaml_texts

SECONDS_PER_CALL = 20  # an in-process call past this is a hang (they take 10-300 ms)


def fuzz(examples: int):
    return settings(
        max_examples=examples * int(os.environ.get("FUZZ_SCALE", "1")),
        deadline=None,
        derandomize=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


class Hang(BaseException):  # not an Exception: main() must not turn it into "internal error"
    pass


def answered(argv: list[str]):
    """Run `planner ARGV`; assert exit 0/1/2, no traceback or internal error, bounded time."""

    def alarm(*_):
        raise Hang(f"planner {argv!r} ran past {SECONDS_PER_CALL} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(SECONDS_PER_CALL)
    start = time.monotonic()
    try:
        r = call(*argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert r.code in (0, 1, 2), (argv, r.code, r.err)
    assert "Traceback" not in r.err and "internal error" not in r.err, (argv, r.err)
    assert len(r.err) < 50_000, argv  # a message is bounded whatever the value
    assert time.monotonic() - start < SECONDS_PER_CALL
    return r


# ----------------------------------------------------------------------------- the world the commands see


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Paths of every kind, and an environment where AWS cannot be reached and nothing is cached
    outside the test's directory."""
    root = tmp_path_factory.mktemp("fuzz")
    mp = pytest.MonkeyPatch()
    for name in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_ROLE_ARN",
        "PLANNER_DEBUG",
    ):
        mp.delenv(name, raising=False)
    mp.setenv("AWS_SHARED_CREDENTIALS_FILE", str(root / "no-credentials"))
    mp.setenv("AWS_CONFIG_FILE", str(root / "no-config"))
    mp.setenv("AWS_EC2_METADATA_DISABLED", "true")
    mp.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")  # discard port: nothing listens
    mp.setenv("PLANNER_CATALOG_URL", "http://127.0.0.1:9/vms.csv")  # the hosted catalog: likewise
    mp.setenv("PLANNER_CACHE_DIR", str(root / "cache"))
    mp.chdir(root)  # a default run directory (planner-runs/) would land here
    good = root / "tiny.yaml"
    good.write_text(yaml.safe_dump(TINY_MLP))
    invalid = root / "invalid.yaml"
    invalid.write_text(yaml.safe_dump({**TINY_MLP, "train": {**TINY_MLP["train"], "epochs": -1}}))
    fifo = root / "fifo.yaml"
    os.mkfifo(fifo)
    (root / "binary.yaml").write_bytes(b"\x00\xff" * 256)
    (root / "full").mkdir()
    (root / "full" / "keep").write_text("x")
    journal = write_journal(root / "run")
    damaged = write_journal(root / "damaged")
    cloud = write_journal(
        root / "cloud"
    )  # an AWS result too: re-planning prices it in the region asked
    local = json.loads((cloud / "results" / "local-cpu.json").read_text())
    (cloud / "results" / "aws-g5.xlarge.json").write_text(
        json.dumps(
            {
                **local,
                "device": "cuda",
                "target": "aws:g5.xlarge",
                "region": "us-east-1",
                "purchase": "on-demand",
            }
        )
    )
    (damaged / "results" / "local-cpu.json").write_text(
        '{"status": "ok", "device": "cpu", "step_seconds": "fast"}'
    )
    unreadable = [str(p) for p in (fifo, root / "binary.yaml", root / "missing.yaml", root)] + [
        "/dev/zero",
        "",
        "x" * 5000,
        "\x00",
        "é" * 300,
        "-",
        str(root / "tiny.yaml" / "below"),
    ]
    bad_specs = [str(invalid), *unreadable]
    yield {
        "root": root,
        "good": str(good),
        "bad_specs": bad_specs,
        "unreadable": unreadable,
        "journals": [str(journal), str(damaged), str(cloud)],
        "paths": bad_specs
        + [
            str(good),
            str(journal),
            str(root / "full"),
            str(root / "new-dir"),
            str(root / "out.json"),
            str(root / "missing" / "x.json"),
            "/dev/null",
            "/",
            "planner-runs",
        ],
    }
    mp.undo()


# ----------------------------------------------------------------------------- values

HOSTILE = [
    "inf",
    "-inf",
    "nan",
    "NaN",
    "1e9",
    "1e999",
    "-1e999",
    "0",
    "-0",
    "-1",
    "",
    " ",
    "ten",
    "1" * 400,
    "0x10",
    "1_000",
    "\u0663",
    "1e-400",
    "4294967296",
    "9" * 5000,
    "\x00",
    "\udcff",
    "é" * 300,
    "😀",
    "--json",
    "-",
    "rate(1 minutes)",
    "ami-",
    "us-east-1 ",
    "../../etc/passwd",
    "a" * 70_000,
    "%s%n",
    "{}",
    "[]",
    "null",
]
VALID = {
    "--seconds": ["0.2", "3600"],
    "--time-value": ["0", "25"],
    "--local-price": ["0", "0.5"],
    "--deadline": ["4h", "90m"],
    "--threads": ["1", "2"],
    "--epochs": ["1", "3"],
    "--region": ["us-east-1", "eu-west-1", "xx-east-9"],
    "--bench-budget": ["2"],
    "--max-price": ["1.5"],
    "--min-gpu-memory": ["24"],
    "--max-bench-minutes": ["5"],
    "--poll-seconds": ["0.3"],
    "--max-instances": ["8"],
    "--ami": ["ami-0123456789abcdef0"],
    "--subnet": ["subnet-0abc1234"],
    "--bucket": ["my-results"],
    "--stack-name": ["cloud-planner"],
    "--schedule": ["rate(10 minutes)"],
    "--run-id": ["20261121T180000Z-1a2b3c4d"],
    "--at": ["2026-11-21T18:00:00Z"],
    "--vpc": ["vpc-0abc1234"],
    "--arch": ["x86_64", "arm64"],
    "--ami-type": ["oss-nvidia-driver-gpu-pytorch-2.9-ubuntu-24.04"],
    "--targets": ["local", "auto", "aws:g5.xlarge", "aws:nope.nope", "local,,local"],
    "--objective": ["cheapest", "fastest", "deadline"],
    "--purchase": ["on-demand", "spot"],
    "--device": ["cpu", "cuda", "auto"],
    "--sort": ["price", "gpu-memory"],
    "--target": ["local"],
    "--source": ["catalog", "aws"],
}
# Values each measuring flag refuses whatever else is typed: argparse stops there, before any work.
REFUSED = {
    "--seconds": ["inf", "nan", "0", "-1", "1e9", "", "ten", "9" * 5000, "\x00"],
    "--threads": ["0", "1025", "1.5", "nan", ""],
    "--epochs": ["0", "-3", "1e3", "10000001"],
    "--time-value": ["nan", "inf", "-1", "10001"],
    "--local-price": ["-inf", "-0.5", "1e999"],
    "--region": ["US-EAST-1", "", "x" * 100, "us east 1"],
    "--ami": ["ami-", "ubuntu", "ami-XYZ12345"],
    "--deadline": ["1e400h", "soon", "0", "400d"],
    "--poll-seconds": ["0", "0.01", "601"],
    "--max-instances": ["0", "65"],
    "--bench-budget": ["0", "1001"],
    "--bucket": ["A", "a..b"],
    "--device": ["tpu"],
}
SWITCHES = {
    "--json",
    "--sweep",
    "--dry-run",
    "--refresh",
    "--gpu",
    "--cpu",
    "--no-recheck",
    "--help",
    "-h",
}
PLAN = ["--objective", "--deadline", "--time-value", "--local-price", "--json"]
COMMANDS = {  # command: (positional kind, its flags)
    "check": ("spec", ["--json"]),
    "bench": ("spec", ["--device", "--seconds", "--sweep", "--threads", "--json", "--out"]),
    "validate": (
        "spec",
        ["--target", "--device", "--epochs", "--seconds", "--no-recheck", "--json"],
    ),
    "run": (
        "spec",
        [
            "--targets",
            *PLAN,
            "--seconds",
            "--region",
            "--purchase",
            "--ami",
            "--ami-type",
            "--subnet",
            "--bucket",
            "--bench-budget",
            "--max-bench-minutes",
            "--max-instances",
            "--poll-seconds",
            "--out",
        ],
    ),
    "estimate": ("spec", ["--region", "--gpu", "--cpu", "--purchase", *PLAN, "--seconds"]),
    "tui": ("spec", ["--seconds", "--region", "--ami"]),
    "plan": ("journal", [*PLAN, "--region", "--purchase"]),
    "calibrate": ("journal", ["--dry-run"]),
    "prices": (
        None,
        [
            "--region",
            "--gpu",
            "--cpu",
            "--arch",
            "--min-gpu-memory",
            "--max-price",
            "--purchase",
            "--sort",
            "--refresh",
            "--source",
            "--json",
        ],
    ),
    "reap": (None, ["--region", "--run-id", "--dry-run", "--at"]),
    "ls": (None, ["--region", "--json"]),
    "infra": ("action", ["--region", "--stack-name", "--vpc", "--schedule"]),
}
MEASURING = {"bench", "validate", "run", "estimate", "tui"}
hostile = (
    st.sampled_from(HOSTILE)
    | st.text(max_size=12)
    | st.floats().map(repr)
    | st.integers(-(10**30), 10**30).map(str)
)


def value_of(flag: str):
    """Half the time a value the flag takes (so the command goes deeper), half the time a hostile one."""
    return st.booleans().flatmap(
        lambda valid: st.sampled_from(VALID.get(flag, ["x"])) if valid else hostile
    )


@st.composite
def argvs(draw, world) -> list[str]:
    command = draw(st.sampled_from(sorted(COMMANDS) + ["nonsense", "--version", ""]))
    if command not in COMMANDS:
        return [command] + draw(st.lists(hostile, max_size=2))
    kind, flags = COMMANDS[command]
    argv = [command]
    odd = (
        ["--unknown", "--sec", "-h"] if draw(st.integers(0, 5)) == 0 else []
    )  # usage mistakes, now and then
    chosen = draw(st.lists(st.sampled_from(flags + odd), max_size=4, unique=True))
    for flag in chosen:
        if flag in SWITCHES:
            argv.append(flag)
        elif flag in ("--out",):
            argv += [flag, draw(st.sampled_from(world["paths"]))]
        else:
            argv += [flag, draw(value_of(flag))]
    if command in MEASURING:  # something it must refuse before any work, or a spec it cannot load
        refusers = [f for f in flags if f in REFUSED]
        if draw(st.booleans()):
            flag = draw(st.sampled_from(refusers))
            argv += [flag, draw(st.sampled_from(REFUSED[flag]))]
            spec = draw(st.sampled_from(world["paths"]))
        else:
            # the editor opens a readable spec whatever it says (it shows the problems): tui gets unreadable ones
            spec = draw(st.sampled_from(world["unreadable" if command == "tui" else "bad_specs"]))
            argv = [a for a in argv if a not in ("--help", "-h")]
        argv.insert(1, spec)
    elif kind == "spec":
        argv.insert(1, draw(st.sampled_from(world["paths"])))
    elif kind == "journal":
        argv.insert(1, draw(st.sampled_from(world["journals"]) | st.sampled_from(world["paths"])))
        if command == "calibrate" and "--dry-run" not in argv:
            argv.append(
                "--dry-run"
            )  # the corrections file is the user's (PLANNER_CACHE_DIR keeps it in the test anyway)
    elif kind == "action":
        argv.insert(
            1, draw(st.sampled_from(["deploy", "status", "delete", "template", "policy"]) | hostile)
        )
    if draw(st.integers(0, 5)) == 0 and command not in MEASURING:
        argv.insert(draw(st.integers(1, len(argv))), draw(hostile))  # a stray positional anywhere
    return argv


# ----------------------------------------------------------------------------- the properties


@fuzz(200)
@given(data=st.data())
def test_any_command_line_gets_a_clear_answer(world, data):
    argv = data.draw(argvs(world))
    r = answered(argv)
    if (
        argv[0] in MEASURING
    ):  # refused before the bench, as designed (or help asked for: no work either)
        assert r.code == 2 or (
            r.code == 0 and {"-h", "--help"} & set(argv) and "usage:" in r.out
        ), (argv, r.err)
        assert "measured" not in r.err


@fuzz(80)
@given(
    model=st.sampled_from(MODELS[:4]),
    edits=st.lists(st.tuples(st.sampled_from(FIELDS), values), max_size=3),
    text=yaml_texts,
    raw=st.booleans(),
    as_json=st.booleans(),
)
def test_any_spec_file_gets_a_clear_answer(world, model, edits, text, raw, as_json):
    """Random spec texts written to a file, through `check` (which describes a valid one: cheap for
    every built-in kind; custom models are the child process's, tested in tests/runner)."""
    data = edited_spec(model, edits)
    try:
        body = text if raw else (json.dumps(data, default=str) if as_json else yaml.safe_dump(data))
    except (yaml.YAMLError, ValueError):
        body = text
    path = world["root"] / ("fuzz.json" if as_json else "fuzz.yaml")
    path.write_text(body, errors="surrogateescape")
    answered(["check", str(path)] + (["--json"] if as_json else []))


JOURNAL_FILES = ["spec.json", "run.json", "results/local-cpu.json", "results/aws-g5.xlarge.json"]
json_values = (
    values
    | st.sampled_from([float("nan"), float("inf"), -1, 0, 10**400, "", [], {}])
    | st.floats(0, 1e15)
    | st.floats(1e-7, 100)
)  # in range or nearly: the arithmetic after the checks


def strict_json(text: str):
    """JSON as RFC 8259 has it: no NaN or Infinity (what `--json` promises)."""

    def refuse(constant):
        raise AssertionError(f"{constant} in --json output")

    return json.loads(text, parse_constant=refuse)


@fuzz(100)
@given(
    file=st.sampled_from(JOURNAL_FILES),
    how=st.sampled_from(["truncate", "field", "option", "replace", "bytes"]),
    key=st.sampled_from(
        [
            "status",
            "device",
            "step_seconds",
            "step_seconds_ci_low",
            "threads",
            "target",
            "region",
            "purchase",
            "warnings",
            "setup_seconds",
            "plan_options",
            "model",
            "train",
            "name",
        ]
    ),
    value=json_values,
    cut=st.floats(0, 1),
    junk=st.binary(max_size=64),
    command=st.sampled_from(["plan", "calibrate"]),
)
def test_any_damage_to_a_journal_gets_a_clear_answer(
    world, file, how, key, value, cut, junk, command
):
    run = world["root"] / "journals" / f"j{time.monotonic_ns()}"
    write_journal(run)
    target = run / file
    if file.startswith("results/aws-"):  # an AWS result, priced from the catalog
        data = json.loads((run / "results/local-cpu.json").read_text())
        target.write_text(
            json.dumps(
                {**data, "target": "aws:g5.xlarge", "region": "us-east-1", "purchase": "on-demand"}
            )
        )
    text = target.read_text()
    if how == "truncate":
        target.write_text(text[: int(len(text) * cut)])
    elif how == "bytes":
        target.write_bytes(junk)
    elif how == "replace":
        target.write_text(json.dumps(value, default=str))
    else:
        data = json.loads(text)
        if how == "option" and isinstance(data.get("plan_options"), dict):
            data["plan_options"][key if key in data["plan_options"] else "local_price_per_hour"] = (
                value
            )
        else:
            data[key] = value
        target.write_text(json.dumps(data, default=str))
    argv = [command, str(run)] + (["--dry-run"] if command == "calibrate" else ["--json"])
    r = answered(argv)
    if command == "plan" and r.code == 0:
        strict_json(r.out)
