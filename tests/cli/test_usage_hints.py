"""A misspelled flag gets the flags of its command it is closest to, not a bare 'unrecognized arguments'."""

from __future__ import annotations

from tests.cli.helpers import planner
from tests.conftest import EXAMPLES


def test_a_misspelled_flag_is_matched_against_its_own_commands_flags():
    r = planner("estimate", EXAMPLES / "surface-mlp.yaml", "--regoin", "us-east-1")
    assert r.code == 2 and "(--regoin: did you mean --region?)" in r.err
    r = planner("prices", "--gpuu")
    assert r.code == 2 and "did you mean --gpu" in r.err
    r = planner("prices", "--zzzzzz")
    assert r.code == 2 and "did you mean" not in r.err and "unrecognized arguments: --zzzzzz" in r.err
