"""Run pane: a row per target within a second of `r`, elapsed time ticking, a new run starting from
a clean table and log. Instances pane: loaded when it opens, with age, expiry and cost so far
(moto in process plays the account)."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest

from planner.report.text import label_target
from planner.tui.app import PlannerApp
from planner.tui.run import RunPane
from tests.tui.helpers import TINY, settled, started, wait_for, without_aws_credentials


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return path


def cells(table, key: str) -> list[str]:
    return [str(c) for c in table.get_row(key)]


def test_rows_show_within_a_second_and_elapsed_ticks_and_a_new_run_starts_clean(
    spec_file, tmp_path, monkeypatch
):
    from planner.tui.dialogs import ConfirmLaunch

    without_aws_credentials(
        monkeypatch, tmp_path
    )  # an instance the run accepts, and no AWS to launch it on

    async def scenario():
        app = PlannerApp(
            str(spec_file), runs_dir=tmp_path / "runs", bench_seconds=3, estimate_on_open=False
        )
        async with started(app, (80, 24)) as pilot:
            await settled(pilot)
            run = app.query_one(RunPane)
            table = run.query_one("#states")
            app.targets = [
                "local",
                "aws:no-such-type.xlarge",
            ]  # refused before anything starts, as `planner run` does
            await pilot.press("r")
            await pilot.pause(0.3)
            assert (
                not run.running
                and not isinstance(app.screen, ConfirmLaunch)
                and table.row_count == 0
            )
            app.query_one("TargetsPane").selected = ["aws:g4dn.xlarge"]
            app.targets = ["local", "aws:g4dn.xlarge"]
            await pilot.press(
                "r"
            )  # no credentials: refused before it asks, as `planner run` refuses it
            await pilot.pause(0.3)
            assert not isinstance(app.screen, ConfirmLaunch) and not run.running
            assert any("need AWS credentials" in n.message for n in app._notifications)
            app.query_one("TargetsPane").selected = []  # unpicked: measured here only
            app.targets = ["local"]
            await pilot.press("r")
            # the rows are made by the run's start, before its work (import torch) starts: on screen at the next
            # refresh (a wall clock here would time this shared machine's load instead)
            assert [label_target(str(k.value)) for k in table.rows] == ["local"]  # or local-cpu
            await wait_for(pilot, lambda: not run.running, timeout=60)
            run.log_line("the first run's line")

            app.targets = ["local"]
            await pilot.press("r")
            assert run.running
            assert [label_target(str(k.value)) for k in table.rows] == [
                "local"
            ]  # pending, or already local-cpu
            log = run.query_one("#run-log")
            assert not any(
                "the first run's line" in line for line in log.lines
            )  # the previous run's log is gone
            await wait_for(
                pilot, lambda: any(k.value == "local-cpu" for k in table.rows), timeout=60
            )
            await wait_for(
                pilot,
                lambda: "steps" in cells(table, "local-cpu")[4] or not run.running,
                timeout=60,
            )
            if run.running:  # the bench's progress line, in full
                assert cells(table, "local-cpu")[4].startswith("measuring: ")
            first = cells(table, "local-cpu")[2]
            await pilot.pause(2.2)
            if run.running:
                assert cells(table, "local-cpu")[2] != first  # ticking while it runs
            await wait_for(pilot, lambda: not run.running, timeout=60)
            assert (
                cells(table, "local-cpu")[1] == "done" and cells(table, "local-cpu")[0] == "local"
            )  # as the plan names it
            final = cells(table, "local-cpu")[2]
            await pilot.pause(1.5)
            assert cells(table, "local-cpu")[2] == final  # a finished row stops ticking

    asyncio.run(scenario())


def test_the_instances_pane_loads_when_it_opens_with_age_expiry_and_cost(monkeypatch, tmp_path):
    from moto import mock_aws

    from tests.aws.helpers import FAKE_ENV, ec2, x86_ami

    for key, value in {**FAKE_ENV, "PLANNER_CACHE_DIR": str(tmp_path / "cache")}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)

    async def scenario():
        app = PlannerApp(None)
        async with started(app, (120, 40)) as pilot:
            await pilot.press("5")
            table = app.query_one("#instance-table")
            await wait_for(pilot, lambda: table.row_count == 1, timeout=30)
            row = [str(c) for c in table.get_row_at(0)]
            assert row[1] == "c7i.xlarge" and row[3] == "run-1"
            assert row[4].endswith(("s", "min"))  # age
            assert row[5].startswith("20") and "expired" not in row[5]
            assert row[6].startswith("$")  # cost so far
            assert "1 planner-managed instance(s) in us-east-1" in str(
                app.query_one("#instances-status").render()
            )

    with mock_aws():
        client = ec2()
        expires = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(minutes=30)).strftime(
            "%Y-%m-%dT%H:%M:%SZ"
        )
        client.run_instances(
            ImageId=x86_ami(client),
            InstanceType="c7i.xlarge",
            MinCount=1,
            MaxCount=1,
            TagSpecifications=[
                {
                    "ResourceType": "instance",
                    "Tags": [
                        {"Key": "planner:managed", "Value": "true"},
                        {"Key": "planner:run-id", "Value": "run-1"},
                        {"Key": "planner:expires-at", "Value": expires},
                    ],
                }
            ],
        )
        asyncio.run(scenario())


def test_this_machines_state_keeps_its_device_label_and_an_instances_is_said_under_the_type_launched():
    """A new user saw a phantom 'local-None' row beside 'local' in every run: the states said under the instance type
    launched (--fallback next) had relabelled this machine's too (CI once saw two 'local' rows)."""
    from planner.core.candidates import LOCAL, Target
    from planner.service.launch import states_as_launched

    said: list[str] = []
    on_state = states_as_launched(
        lambda label, *_: said.append(label),
        {"local-cpu": LOCAL, "aws-g4dn.xlarge": Target("aws", "g4dn.xlarge")},
        {},
    )
    assert on_state is not None
    on_state("local-cpu", "running", 0.0, 0.0)
    on_state("aws-g4dn.xlarge", "booting", 0.0, 0.0)
    assert said == ["local-cpu", "aws-g4dn.xlarge"]
