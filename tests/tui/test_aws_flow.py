"""The TUI's AWS flow against moto's server mode, with a thread playing the instance: pick an
instance in the Targets pane, run, get its measured row, and nothing is left running."""

from __future__ import annotations

import asyncio

import pytest
from moto.server import ThreadedMotoServer

from planner.tui.app import PlannerApp
from planner.tui.dialogs import ConfirmLaunch
from planner.tui.results import ResultsPane
from tests.aws.helpers import FAKE_ENV, Player, ec2, free_port, live_instances, x86_ami
from tests.tui.helpers import TINY, started, wait_for


@pytest.fixture
def moto_env(monkeypatch, tmp_path):
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    for k, v in {
        **FAKE_ENV,
        "AWS_ENDPOINT_URL": endpoint,
        "PLANNER_CACHE_DIR": str(tmp_path / "cache"),
    }.items():
        monkeypatch.setenv(k, v)
    yield endpoint
    server.stop()


def test_pick_an_instance_run_it_and_leave_nothing_running(moto_env, tmp_path):
    spec = tmp_path / "tiny.yaml"
    spec.write_text(TINY)
    player = Player(moto_env, tmp_path / "instances")
    player.start()

    async def scenario():
        app = PlannerApp(
            str(spec),
            runs_dir=tmp_path / "runs",
            bench_seconds=1,
            ami=x86_ami(ec2(moto_env)),
            estimate_on_open=False,
        )  # the picks are this test's own
        async with started(app, (120, 40)) as pilot:
            await wait_for(pilot, lambda: app.spec is not None)
            await pilot.press("2")
            await pilot.pause(0.5)
            table = app.query_one("#catalog")
            row = next(i for i, key in enumerate(table.rows) if key.value == "aws:c7i.xlarge")
            table.move_cursor(row=row)
            await pilot.press("space")
            assert app.targets == ["local", "aws:c7i.xlarge"]
            assert "worst-case bench cost $" in str(app.query_one("#selection").render())
            await pilot.press(
                "r"
            )  # a run that rents asks first, with what it would launch and bill
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmLaunch))
            asked = str(app.screen.query_one("#launch-lines").render())
            assert (
                "would launch 1 instance(s)" in asked
                and "aws:c7i.xlarge" in asked
                and "worst case" in asked
            )
            await pilot.press("y")
            results = app.query_one(ResultsPane)
            await wait_for(
                pilot, lambda: results.doc is not None and results.doc.run_dir, timeout=240
            )
            doc = results.doc
            measured = {
                o.target for o in doc.plan.options if o.source == "measured" and o.train_seconds
            }
            assert measured == {"local", "aws:c7i.xlarge"}

    asyncio.run(scenario())
    player.stop.set()
    assert len(player.played) == 1
    assert live_instances(ec2(moto_env)) == []


def test_the_targets_pane_shows_each_picks_quota_and_its_latest_launch(
    moto_env, tmp_path, monkeypatch
):
    """Issue 43, item 5: each picked instance's vCPU quota, read from AWS off the UI thread (Service Quotas' answers
    injected at botocore's boundary, where moto has none: 0 for G and VT, 64 for Standard), the pick a launch would
    stop at first; and what a run's launch of it did, as the Run pane passes each notice on (LaunchNotice). The run
    that makes such a notice is tests/aws/test_capacity.py's."""
    import botocore.client

    from planner.tui.messages import LaunchNotice
    from planner.tui.targets import TargetsPane

    real = botocore.client.BaseClient._make_api_call

    def call(self, operation, params):
        if operation == "GetServiceQuota":
            return {
                "Quota": {
                    "QuotaCode": params["QuotaCode"],
                    "Value": 0.0 if params["QuotaCode"] == "L-DB2E81BA" else 64.0,
                }
            }
        return real(self, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", call)
    spec = tmp_path / "tiny.yaml"
    spec.write_text(TINY)

    async def scenario():
        app = PlannerApp(
            str(spec),
            runs_dir=tmp_path / "runs",
            bench_seconds=1,
            ami=x86_ami(ec2(moto_env)),
            estimate_on_open=False,
        )
        async with started(app, (120, 40)) as pilot:
            await wait_for(pilot, lambda: app.spec is not None)
            await pilot.press("2")
            await pilot.pause(0.5)
            table = app.query_one("#catalog")
            for itype in ("c7i.xlarge", "g4dn.xlarge"):
                table.move_cursor(
                    row=next(i for i, key in enumerate(table.rows) if key.value == f"aws:{itype}")
                )
                await pilot.press("space")

            def selection() -> str:
                return " ".join(str(app.query_one("#selection").render()).split())

            await wait_for(
                pilot,
                lambda: "OVER its quota" in selection() and "Standard" in selection(),
                timeout=60,
            )
            assert (
                "aws:g4dn.xlarge: OVER its quota: needs 4 vCPUs of 0 (0 in use): a run is refused"
                in selection()
            )
            lines = [
                line.strip() for line in str(app.query_one("#selection").render()).splitlines()
            ]
            assert lines.index(next(x for x in lines if x.startswith("aws:g4dn"))) < lines.index(
                next(x for x in lines if x.startswith("aws:c7i"))
            )  # what stops a launch first, though picked last
            assert (
                'aws:c7i.xlarge: quota: needs 4 vCPUs of 64 (0 in use), "Running On-Demand Standard'
                in selection()
            )
            app.post_message(
                LaunchNotice(
                    "aws-c7i.xlarge",
                    "launched in us-east-1b after EC2's choice of zone: "
                    "InsufficientInstanceCapacity",
                )
            )
            await pilot.pause(0.3)
            assert (
                app.query_one(TargetsPane)
                .launches["aws:c7i.xlarge"]
                .startswith("launched in us-east-1b")
            )
            assert (
                "aws:c7i.xlarge: last launch: launched in us-east-1b after EC2's choice of zone"
                in selection()
            )

    asyncio.run(scenario())
