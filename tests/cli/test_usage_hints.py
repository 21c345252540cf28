"""A misspelled flag gets the flags of its command it is closest to, not a bare 'unrecognized arguments'."""

from __future__ import annotations

import json

from tests.cli.helpers import planner
from tests.conftest import EXAMPLES


def test_a_misspelled_flag_is_matched_against_its_own_commands_flags():
    r = planner("estimate", EXAMPLES / "surface-mlp.yaml", "--regoin", "us-east-1")
    assert r.code == 2 and "(--regoin: did you mean --region?)" in r.err
    r = planner("prices", "--gpuu")
    assert r.code == 2 and "did you mean --gpu" in r.err
    r = planner("prices", "--zzzzzz")
    assert (
        r.code == 2 and "did you mean" not in r.err and "unrecognized arguments: --zzzzzz" in r.err
    )


def test_a_misspelled_command_or_choice_gets_the_closest_one():
    r = planner("estimte", EXAMPLES / "surface-mlp.yaml")
    assert r.code == 2 and "(estimte: did you mean estimate?)" in r.err
    r = planner("estimate", EXAMPLES / "surface-mlp.yaml", "--objective", "cheapst")
    assert r.code == 2 and "(cheapst: did you mean cheapest?)" in r.err
    r = planner("zzzz")
    assert r.code == 2 and "did you mean" not in r.err


def test_a_usage_error_with_json_asked_is_a_json_error_too_and_a_scripts_own_json_flag_is_not_the_planners():
    r = planner("estimate", "train.py", "--seconds", "0", "--json")
    assert r.code == 2 and "argument --seconds" in r.err  # said for people on stderr
    error = json.loads(r.out)["error"]
    assert (
        error["exit_code"] == 2 and "must be a number above 0" in error["message"] and error["hint"]
    )
    r = planner("estimate", "train.py", "--epoch", "3", "--format", "json")
    assert "did you mean --epochs?" in json.loads(r.out)["error"]["hint"]
    r = planner(
        "estimate", "train.py", "--seconds", "0", "--", "--json"
    )  # the script's flag: stdout stays empty
    assert r.code == 2 and r.out == ""
