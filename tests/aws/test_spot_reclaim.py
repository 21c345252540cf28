"""Spot reclaims (issue 43, item 4). A spot bench warned by the two-minute notice (IMDSv2 `spot/instance-action`,
which runner/bootstrap.sh watches) keeps the steps it measured, is journaled as interrupted with its reason, and the
run exits 3 (a plan, but a target did not finish); an instance EC2 took back (`Server.SpotInstanceTermination`) is
named as such, and is launched again on-demand only with `--fallback on-demand`. EC2's reclaim is injected at
botocore's boundary (`_make_api_call`); the notice comes from a small IMDS of our own that the played instance asks,
as a real one asks 169.254.169.254. Nothing is left running in any of them."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import botocore.client

from runner.aws import AwsRun, AwsSettings, AwsTarget
from runner.session import BenchSession
from tests.aws.helpers import live_instances, x86_ami

JOB = {"spec": {"name": "tiny"}, "device": "auto"}


def reclaimed(monkeypatch, ec2) -> set[str]:
    """Instances put in the returned set are terminated as EC2 reclaims a spot instance: DescribeInstances says
    `Server.SpotInstanceTermination` for them (moto runs everything else)."""
    real = botocore.client.BaseClient._make_api_call
    taken: set[str] = set()

    def call(self, operation, params):
        answer = real(self, operation, params)
        if operation == "DescribeInstances":
            for r in answer.get("Reservations", []):
                for i in r["Instances"]:
                    if i["InstanceId"] in taken:
                        i["State"] = {"Code": 48, "Name": "terminated"}
                        i["StateReason"] = {
                            "Code": "Server.SpotInstanceTermination",
                            "Message": "Server.SpotInstanceTermination: Spot instance termination",
                        }
        return answer

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", call)
    return taken


def spot_target(ec2, fallback: str | None, run_id: str) -> AwsTarget:
    run = AwsRun(
        AwsSettings(
            ami=x86_ami(ec2),
            purchase="spot",
            fallback=fallback,
            max_bench_minutes=5,
            poll_seconds=0.05,
        ),
        run_id,
    )
    run.prepare()
    return AwsTarget(run, "g5.xlarge", JOB, "aws-g5.xlarge", 0.436, fallback_price=1.006)


def test_a_reclaimed_spot_bench_is_relaunched_on_demand_with_the_fallback(aws_session, monkeypatch):
    ec2 = aws_session.client("ec2")
    taken = reclaimed(monkeypatch, ec2)
    t = spot_target(ec2, "on-demand", "run-spot-1")
    said: list[tuple[str, str]] = []
    session = BenchSession([t], on_notice=lambda label, text: said.append((label, text)))
    session._start(t, [])
    first = t.instance_id
    assert first and watches_spot(
        ec2, first
    )  # the bootstrap watches for the notice on a spot instance
    taken.add(first)
    session._advance(t, [t])  # the poll that finds it taken back
    assert t.instance_id not in (None, first) and t.attempt == 2 and t.state == "booting"
    again = ec2.describe_instances(InstanceIds=[t.instance_id])["Reservations"][0]["Instances"][0]
    assert again.get("InstanceLifecycle") != "spot" and t.price_per_hour == 1.006
    assert t.keys["result"].endswith(
        "aws-g5.xlarge/attempt-2/result.json"
    )  # its own keys: nothing of the first is read
    assert said == [
        (
            "aws-g5.xlarge",
            "EC2 reclaimed the spot instance (Server.SpotInstanceTermination): relaunched "
            "on-demand (--fallback on-demand)",
        )
    ]
    assert t.tries[-1] == (
        "spot",
        "EC2 reclaimed the spot instance (Server.SpotInstanceTermination)",
    )
    assert t.interruption == "" and t.relaunched_after.startswith(
        "EC2 reclaimed"
    )  # its own run: not interrupted
    assert not watches_spot(ec2, t.instance_id)  # on-demand: no notice comes
    t.run.terminate_run()
    assert live_instances(ec2) == []


def test_without_the_fallback_a_reclaimed_spot_bench_fails_naming_the_reclaim_and_the_flag(
    aws_session, monkeypatch
):
    ec2 = aws_session.client("ec2")
    taken = reclaimed(monkeypatch, ec2)
    t = spot_target(ec2, None, "run-spot-2")
    t.start()
    taken.add(t.instance_id)  # type: ignore[arg-type]
    assert t.poll().state == "failed" and t.attempt == 1
    result = t.collect()
    assert (
        result.status == "error"
        and result.interruption
        == "EC2 reclaimed the spot instance (Server.SpotInstanceTermination)"
    )
    assert result.message == (
        "no result from aws-g5.xlarge: EC2 reclaimed the spot instance (Server.SpotInstanceTermination)"
        "; --fallback on-demand relaunches an interrupted spot bench on-demand"
    )
    t.run.terminate_run()
    assert live_instances(ec2) == []


def test_a_notice_before_enough_steps_is_named_a_reclaim_with_the_flag_that_relaunches(aws_session):
    """The bench itself uploads a failed result when the notice comes before it has steps enough to time: the
    target's message says a spot reclaim cut it short and names --fallback on-demand (a new user read only
    'interrupted (...) after 0 measured step(s)')."""
    from runner.bench.result import BenchResult

    ec2 = aws_session.client("ec2")
    t = spot_target(ec2, None, "run-spot-3")
    t.start()
    early = BenchResult(
        status="error",
        device="cuda",
        workload="tiny",
        message="interrupted (spot notice) after 0 measured step(s) and 12 of warm-up: too few to time",
        interruption="spot notice",
    )
    for key, body in (("result", json.dumps(early.to_dict())), ("log", "the instance's log")):
        t.run.s3.put_object(Bucket=t.run.bucket, Key=t.keys[key], Body=body.encode())
    assert t.poll().state == "done"
    result = t.collect()
    assert result.status == "error" and result.message.startswith(
        "a spot reclaim cut the bench short: interrupted (spot notice) after 0 measured step(s)"
    )
    assert result.message.endswith(
        "--fallback on-demand relaunches an interrupted spot bench on-demand"
    )
    t.run.terminate_run()
    assert live_instances(ec2) == []


def watches_spot(ec2, instance_id: str) -> bool:
    """Whether the instance's user-data starts the watcher of the spot notice (rendered for a spot launch only)."""
    from tests.aws.helpers import user_data

    return 'if [ "1" = "1" ]; then watch_spot' in user_data(ec2, instance_id)


class Imds(ThreadingHTTPServer):
    """IMDSv2 as a spot instance sees it: a token for a PUT; `spot/instance-action` 404 until `due()` says the notice
    is due (EC2 gives it two minutes before it takes the instance back), then the notice."""

    def __init__(self, due):
        super().__init__(("127.0.0.1", 0), _ImdsHandler)
        self.due = due
        self.asked = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _ImdsHandler(BaseHTTPRequestHandler):
    server: Imds

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_PUT(self) -> None:
        self._answer(200, b"token" if self.path == "/latest/api/token" else b"")

    def do_GET(self) -> None:
        self.server.asked += 1
        if (
            self.path != "/latest/meta-data/spot/instance-action"
            or self.headers.get("X-aws-ec2-metadata-token") != "token"
        ):
            return self._answer(404, b"")
        if not self.server.due():
            return self._answer(404, b"")
        self._answer(
            200, json.dumps({"action": "terminate", "time": "2026-11-29T03:02:00Z"}).encode()
        )

    def _answer(self, code: int, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_planner_run_keeps_the_steps_a_spot_notice_cut_short_and_exits_3(
    endpoint, env, tmp_path, monkeypatch
):
    """`planner run --purchase spot` end to end against moto's server, the instance played with the real bench: the
    notice comes mid-measurement; the bench stops with the steps it has, the instance uploads them and halts, the
    result is journaled as interrupted and planned, the run says so and exits 3, and nothing is left running."""
    from tests.aws.helpers import ec2 as ec2_of
    from tests.aws.helpers import journaled, played_run, run_id

    def measuring() -> (
        bool
    ):  # the notice comes mid-measurement: once the bench on the instance has timed 50 steps
        for log in (tmp_path / "instances").glob("*/work/log.txt"):
            for line in log.read_text(errors="replace").splitlines():
                if (
                    line.startswith('{"event": "measure"')
                    and json.loads(line).get("steps", 0) >= 50
                ):
                    return True
        return False

    imds = Imds(measuring)
    threading.Thread(target=imds.serve_forever, daemon=True).start()
    monkeypatch.setenv(
        "PLANNER_IMDS_URL", imds.url
    )  # the played instance's IMDS (a real one has 169.254.169.254)
    monkeypatch.setenv("PLANNER_IMDS_POLL_SECONDS", "0.5")
    try:
        proc, stdout, stderr, out, _ = played_run(
            endpoint,
            env,
            tmp_path,
            "aws:c7i.xlarge",
            "--purchase",
            "spot",
            "--max-bench-minutes",
            "3",
            "--json",
            "--seconds",
            "60",
        )
    finally:
        imds.shutdown()
    assert proc.returncode == 3, stderr
    assert "Traceback" not in stderr and imds.asked > 0
    assert (
        "incomplete: aws:c7i.xlarge interrupted by a spot reclaim (its steps until then are planned)"
        in stderr
    )
    result = journaled(out)["aws-c7i.xlarge"]
    assert result["status"] == "ok" and result["stopped_because"] == "interrupted"
    assert result["interruption"].startswith('spot interruption notice: {"action": "terminate"')
    assert result["steps_measured"] >= 5
    doc = json.loads(stdout)
    assert doc["interrupted_targets"] == ["aws-c7i.xlarge"] and doc["failed_targets"] == []
    row = next(o for o in doc["options"] if o["target"] == "aws:c7i.xlarge")
    assert row["source"] == "measured"
    assert any("interrupted (spot interruption notice" in w["text"] for w in doc["warnings"])
    assert live_instances(ec2_of(endpoint), run_id(out)) == []
