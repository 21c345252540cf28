"""What the terse plan says beside its answer, from a saved run (tests/cli/fixtures/run-convnet-finished: a convnet
measured whole here, on a busy machine): the region and purchase it priced, the other answer when a deadline decided,
a busy measurement named once under --explain, and a flag of another command named as such."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.cli.helpers import planner
from tests.conftest import ROOT


@pytest.fixture()
def run_dir(tmp_path):
    return shutil.copytree(ROOT / "tests/cli/fixtures/run-convnet-finished", tmp_path / "run")


def test_the_title_names_a_region_and_spot_prices_when_asked(run_dir):
    plain = planner("plan", run_dir, env={"AWS_REGION": None, "AWS_DEFAULT_REGION": None})
    assert plain.code == 0, plain.err
    title = plain.out.splitlines()[0]
    assert "us-east-1" not in title and "spot" not in title  # the defaults go unsaid
    r = planner("plan", run_dir, "--region", "eu-west-1", "--purchase", "spot")
    assert r.code == 0, r.err
    assert r.out.splitlines()[0].endswith("; eu-west-1; spot prices"), r.out


def test_a_deadline_the_rented_answer_misses_still_names_it(run_dir):
    """The convnet trains here in seconds; any instance's boot alone is minutes: renting misses a 2-minute deadline,
    and the answer says so beside training here instead of leaving renting out."""
    r = planner("plan", run_dir, "--objective", "deadline", "--deadline", "2m")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[1].startswith("Train here:"), r.out
    renting = [line for line in lines[2:6] if line.strip().startswith("Renting aws:")]
    assert renting and renting[0].endswith("— misses the 2 min deadline."), r.out
    # its point inside the deadline, its interval past it: it may miss, not misses
    r = planner("plan", run_dir, "--objective", "deadline", "--deadline", "162s")
    renting = [line for line in r.out.splitlines()[2:6] if line.strip().startswith("Renting aws:")]
    assert renting and "— may miss the 162 s deadline (up to 3" in renting[0], r.out


def test_explain_names_a_busy_measurement_once(run_dir):
    r = planner("plan", run_dir, "--explain")
    assert r.code == 0, r.err
    assert r.out.count("Careful") == 1, r.out
    terse = planner("plan", run_dir)
    assert "Careful: local measured on a busy machine" in terse.out  # the short answer keeps it


def test_a_flag_of_another_command_is_named_as_one_not_guessed_at(run_dir):
    r = planner("plan", run_dir, "--secret", "TOKEN")
    assert r.code == 2 and "Traceback" not in r.err
    assert "did you mean --chart" not in r.err, r.err
    assert "--secret is a flag of planner " in r.err and "not of planner plan" in r.err, r.err


def to_closed_pipe(*args: str) -> tuple[int, str]:
    """`planner ARGS` with stdout a pipe whose reading end is closed before it starts (its first write fails, as under
    `| head -1` once head has its line): (exit code, stderr)."""
    read, write = os.pipe()
    os.close(read)
    proc = subprocess.run(
        [sys.executable, "-m", "planner.cli", *args],
        stdout=write,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        # stdout buffered, as a user's shell has it (unbuffered, each write fails at once)
        env={**{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}, "COLUMNS": "120"},
        timeout=120,
    )
    os.close(write)
    return proc.returncode, proc.stderr.decode()


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_a_reader_that_stopped_gets_no_error_text(run_dir, fmt):
    """`planner plan RUN | head -1`: the pipe closes under the planner; it stops with exit 1 (as rich does) and no
    word on stderr."""
    code, err = to_closed_pipe("plan", str(run_dir), "--format", fmt)
    assert code == 1
    assert err.strip() in ("", f"run journal: {run_dir}  (this plan saved as its plan.json)"), err


def test_a_closed_pipe_under_a_short_output_is_quiet_too():
    """`planner prices --max-rows 1 --format csv | true`: output smaller than stdout's buffer is written when the
    planner ends; a closed pipe then must not show Python's 'Exception ignored' either."""
    code, err = to_closed_pipe("prices", "--max-rows", "1", "--format", "csv")
    assert code == 1 and "Exception" not in err and "rror" not in err, err


def test_a_flag_before_its_command_or_a_near_miss_of_its_own_keeps_the_right_hint(run_dir):
    r = planner("--json", "plan", run_dir)
    assert r.code == 2 and "(--json goes after the command: planner plan ... --json)" in r.err, (
        r.err
    )
    # --out is run's and bench's; --out-file is plan's own
    r = planner("plan", run_dir, "--out", "x.txt")
    assert r.code == 2 and "did you mean --out-file?" in r.err, r.err
    assert "--out is a flag of planner run, bench, not of planner plan" in r.err


def test_a_command_typed_as_a_flag_is_named_as_the_command():
    r = planner("estimate", "examples/small-cnn.yaml", "--reap")
    assert (
        r.code == 2 and "(reap is a command: planner reap)" in r.err and "did you mean" not in r.err
    ), r.err


def test_when_neither_answer_meets_the_deadline_the_other_says_so_too(run_dir):
    r = planner("plan", run_dir, "--deadline", "5s")
    lines = r.out.splitlines()
    assert "misses the 5 s deadline" in lines[1], r.out
    renting = [line for line in lines[2:6] if line.strip().startswith("Renting aws:")]
    # the dollars beside it are billed; the ratio counts the waiting the title names, and says so
    assert renting and renting[0].endswith("— slower, dearer; misses the 5 s deadline."), r.out


def test_at_no_waiting_a_free_answer_is_said_free_without_a_ratio(run_dir):
    billed = planner("plan", run_dir, "--time-value", "0").out.splitlines()
    # at $0/h of waiting the comparison is the bill alone: here costs nothing, so no ratio, and its dollars once
    assert "waiting at $0/h" in billed[0], billed
    assert billed[2].endswith("$0.0079 — training here costs nothing."), billed


def test_the_title_tells_the_default_value_of_waiting_from_one_given(run_dir):
    """A trial read "waiting at $5/h (default)" as `--time-value 5`, which ranks every option by it and answered
    otherwise: the default weighs only here against rent, and the title says so."""
    default = planner("plan", run_dir).out.splitlines()[0]
    given = planner("plan", run_dir, "--time-value", "5").out.splitlines()[0]
    assert default.endswith("; cheapest (here vs rent: $5/h waiting)"), default
    assert given.endswith("; cheapest, waiting at $5/h"), given
    # --explain's title (wrapped at the terminal's width: its first two lines)
    explained = " ".join(planner("plan", run_dir, "--explain").out.split()[:40])
    given_out = planner("plan", run_dir, "--explain", "--time-value", "5").out
    explained_given = " ".join(given_out.split()[:40])
    assert "; objective: cheapest; here vs rent at $5/h of waiting (default)" in explained, (
        explained
    )
    assert "; objective: cheapest; waiting at $5/h" in explained_given, explained_given
    assert "here vs rent" not in explained_given, explained_given
    assert "Not given, $5/h weighs only training here against renting" in " ".join(
        planner("plan", "--help").out.split()
    )


def test_no_paid_benchmark_for_an_instance_that_cannot_beat_training_here(run_dir):
    """Training here meets a 162 s deadline for sure (5.6 s, $0); renting's interval straddles it, but even meeting it
    renting is slower and dearer at every end: measuring it cannot change the answer."""
    r = planner("plan", run_dir, "--deadline", "162s")
    assert r.code == 0 and "paid benchmark" not in r.out.lower(), r.out


def test_a_deadline_the_fastest_objective_does_not_use_is_said_to_be_unused(run_dir):
    r = planner("plan", run_dir, "--deadline", "5m", "--objective", "fastest")
    assert r.code == 0, r.err
    assert (
        "; fastest (the 5 min deadline is not used: fastest ignores it)" in r.out.splitlines()[0]
    ), r.out


def test_a_negative_value_is_named_not_reported_as_missing(run_dir):
    r = planner("plan", run_dir, "--deadline", "-5m")
    assert (
        r.code == 2
        and "(--deadline -5m: a negative value, which --deadline does not take)" in r.err
    ), r.err


@pytest.mark.parametrize("columns", [60, 80])
def test_a_wrapped_answer_keeps_each_number_with_its_unit_and_indents_what_follows(
    run_dir, columns
):
    """A trial at 80 columns: '... may miss the 162' / 's deadline'. Every line fits, no line starts with a unit, and
    a continuation is indented past its line."""
    r = planner("plan", run_dir, "--deadline", "162s", env={"COLUMNS": str(columns)})
    assert r.code == 0, r.err
    head = r.out.split("\n\n")[0].splitlines()
    assert all(len(line) <= columns for line in head), head
    assert not [line for line in head if line.split()[0] in ("s", "min", "ms", "h")], head
    wraps = [(a, b) for a, b in zip(head, head[1:]) if "162 s" in b and "Renting" in a]
    assert wraps and wraps[0][1].startswith("    "), head
    assert "may miss the 162 s deadline" in " ".join(" ".join(head).split()), head


def test_a_plan_without_its_length_names_the_script_s_own_epochs_and_shows_the_crossover_instance(
    tmp_path,
):
    """A trial: 'train here below ~251,562 steps, rent aws:c7i.xlarge above' with no c7i row in the table, and the
    script's own --epochs 20 on the title line while the fix said only '--epochs N'."""
    import json

    run = shutil.copytree(ROOT / "tests/cli/fixtures/run-reinforce-no-length", tmp_path / "run")
    script = json.loads((run / "script.json").read_text())
    script["args"] = ["--epochs", "20"]
    (run / "script.json").write_text(json.dumps(script))
    r = planner("plan", run)
    assert r.code == 0, r.err
    said = " ".join(r.out.split())
    assert "its own --epochs 20? then give the planner --epochs 20 too, before --" in said, r.out
    # its own steps flag is offered the same way, in the script's words (what it counts is its own)
    from planner.report.terse import length_line
    from planner.service import PlannerService

    script["args"] = ["--max_iters=5000"]
    (run / "script.json").write_text(json.dumps(script))
    line = " ".join(length_line(PlannerService().replan(run, None)).split())
    assert (
        "its own --max_iters 5000? if it counts optimizer steps, give the planner --total-steps 5000 too, "
        "before --" in line
    ), line
    crossed = re.search(r"rent (aws:\S+) above", said)
    assert crossed and re.search(rf"^\s+\d+\s+{re.escape(crossed.group(1))}\s", r.out, re.M), r.out
    # the rent line names another instance than the crossover: at which length it is the rent (a third trial)
    renting = re.search(r"Renting (aws:\S+?)( at 1,000 steps)?: ", said)
    assert renting and (renting.group(1) == crossed.group(1)) == (renting.group(2) is None), said
    assert renting.group(1) != crossed.group(
        1
    )  # the fixture's case: c6i at 1,000 steps, c7i above (a review)


def test_a_second_trial_s_findings_each_said_once_and_as_given(run_dir):
    """A second trial: the footer said the 162 s deadline as '(3 min)', said the missed deadline again under an answer
    that had said it, cut its one line inside '(3 min)'; --explain's GPU rule said 'the GPU costs less' where the
    short answer said too close to call; and 'Fastest GPU: T4 at 1.00x' named a GPU no faster than a CPU."""
    r = planner("plan", run_dir, "--deadline", "162s", "--verbose")
    assert "finishes within the deadline (162 s) with its whole interval" in r.out, r.out
    for deadline in ("5s", "162s"):
        terse = planner("plan", run_dir, "--deadline", deadline, env={"COLUMNS": "80"}).out
        footer = terse.split("\n\n")[-1]
        assert "deadline" in terse.split("\n\n")[0] and not re.search(
            r"^(\d+ )?warnings?: ", footer, re.M
        )
    explained = " ".join(planner("plan", run_dir, "--time-value", "1000", "--explain").out.split())
    assert "Too close to call for a GPU: T4" in explained
    assert (
        "the GPU costs less; too close to call: their costs are within the noise band" in explained
    )
    fastest = planner("plan", run_dir, "--objective", "fastest").out
    assert "No GPU is surely faster than aws:" in fastest and "Fastest GPU" not in fastest, fastest


def test_a_warning_cut_to_one_line_is_cut_at_a_word_never_inside_a_number_and_its_unit():
    from planner.report.footer import _at_a_word

    text = "no option to rent finishes within the deadline (3 min) with its whole interval"
    assert _at_a_word(text, 200) == text
    for room in range(20, len(text)):
        cut = _at_a_word(text, room)
        assert len(cut) <= room and cut.endswith("…"), (room, cut)
        assert not cut.endswith(("(3…", "3 m…", "(…")), (room, cut)
