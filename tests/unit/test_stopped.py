"""What a stopped run reports of the instances it could not terminate (planner/service/launch.py `stopped`)."""

from __future__ import annotations

from planner.errors import Cancelled, RunError
from planner.journal import RunJournal
from planner.report.answers import left_running_line
from planner.service.launch import stopped
from planner.service.settings import RunStopped
from runner.session import BenchSession


def _session(*left: dict[str, str]) -> BenchSession:
    """A session whose terminate failed: what its targets' `leftover` returned (runner/aws.py, runner/session.py)."""
    session = BenchSession([])
    session.unterminated = list(left)
    return session


FOUND = {
    "label": "aws-c6i.large",
    "instance_id": "i-0abc",
    "instance_type": "c6i.large",
    "region": "us-east-2",
    "run_id": "20261130T060000Z-1a2b3c4d",
    "expires_at": "2026-11-30T07:00:00Z",
}
# the target's `leftover` raised: only its label and the error are known
LOST = {"label": "aws-g5.xlarge", "error": "ExpiredToken: the security token expired"}


def test_a_cancel_names_each_instance_left_and_how_to_reap_it(tmp_path):
    journal = RunJournal.create("w", tmp_path / "run")
    error = stopped(Cancelled("cancelled"), journal, _session(FOUND, LOST))
    assert isinstance(error, RunError)
    assert "2 instance(s) could not be terminated" in str(error)
    assert "i-0abc (us-east-2)" in str(error) and "aws-g5.xlarge (ExpiredToken" in str(error)
    assert "planner reap --region us-east-2 --run-id 20261130T060000Z-1a2b3c4d" in (
        error.hint or ""
    )
    assert "planner ls" in (error.hint or "")


def test_an_interrupt_carries_what_was_left_typed(tmp_path):
    journal = RunJournal.create("w", tmp_path / "run")
    error = stopped(KeyboardInterrupt(), journal, _session(FOUND, LOST))
    assert isinstance(error, RunStopped)
    found, lost = error.unterminated
    assert found.instance_id == "i-0abc" and found.reap_command and "--run-id" in found.reap_command
    assert lost.instance_id is None and lost.reap_command is None and lost.error == LOST["error"]
    # as `planner run` and the TUI's run pane print them: no "None" for what is not known
    found_line, lost_line = left_running_line(found), left_running_line(lost)
    assert "i-0abc" in found_line and "planner reap --region us-east-2 --run-id" in found_line
    assert "None" not in lost_line and "ExpiredToken" in lost_line and "planner ls" in lost_line
