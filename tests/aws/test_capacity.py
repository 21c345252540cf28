"""Capacity failover (issue 43, item 3): EC2 out of capacity where it placed an instance is tried again in each other
zone of the region (the security group's VPC, a subnet a zone) until one launches; every try is kept and said; when
none has capacity the target fails naming every zone, and nothing is left running. The capacity errors are injected
at botocore's boundary (`_make_api_call`); moto runs every other call, the launches that succeed included."""

from __future__ import annotations

import botocore.client
from botocore.exceptions import ClientError

from runner.aws import AwsRun, AwsSettings, AwsTarget
from runner.session import BenchSession
from tests.aws.helpers import live_instances, x86_ami

JOB = {"spec": {"name": "tiny"}, "device": "auto"}


def out_of_capacity(monkeypatch, ec2, zones: set[str]) -> list[str]:
    """RunInstances answers InsufficientInstanceCapacity in `zones` ("" : where EC2 would choose, no subnet given).
    Returns the zone of each RunInstances call."""
    real = botocore.client.BaseClient._make_api_call
    subnet_zone = {s["SubnetId"]: s["AvailabilityZone"] for s in ec2.describe_subnets()["Subnets"]}
    calls: list[str] = []

    def call(self, operation, params):
        if operation == "RunInstances":
            nics = params.get("NetworkInterfaces") or [{}]
            zone = subnet_zone.get(nics[0].get("SubnetId", ""), "")
            calls.append(zone)
            if zone in zones:
                raise ClientError(
                    {
                        "Error": {
                            "Code": "InsufficientInstanceCapacity",
                            "Message": f"We currently do not have sufficient capacity in {zone or 'the zone'}",
                        }
                    },
                    operation,
                )
        return real(self, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", call)
    return calls


def target(ec2, label="aws-g5.xlarge") -> AwsTarget:
    run = AwsRun(AwsSettings(ami=x86_ami(ec2), max_bench_minutes=5, poll_seconds=0.05), "run-1")
    run.prepare()
    return AwsTarget(run, "g5.xlarge", JOB, label, 1.006)


def test_the_first_zone_out_of_capacity_then_the_next_one_launches_and_the_tries_are_said(
    aws_session, monkeypatch
):
    ec2 = aws_session.client("ec2")
    zones = sorted({s["AvailabilityZone"] for s in ec2.describe_subnets()["Subnets"]})
    calls = out_of_capacity(monkeypatch, ec2, {"", zones[0]})
    t = target(ec2)
    said: list[tuple[str, str]] = []
    BenchSession([t], on_notice=lambda label, text: said.append((label, text)))._start(
        t, []
    )  # as a run starts it
    assert t.error is None and t.instance_id, t.error
    placed = ec2.describe_instances(InstanceIds=[t.instance_id])["Reservations"][0]["Instances"][0][
        "Placement"
    ]
    assert placed["AvailabilityZone"] == zones[1] and calls == ["", zones[0], zones[1]]
    assert t.tries == [
        ("EC2's choice of zone", "InsufficientInstanceCapacity"),
        (zones[0], "InsufficientInstanceCapacity"),
        (zones[1], "launched"),
    ]
    assert said == [
        (
            "aws-g5.xlarge",
            f"launched in {zones[1]} after EC2's choice of zone: InsufficientInstanceCapacity; "
            f"{zones[0]}: InsufficientInstanceCapacity",
        )
    ]  # the session says what the start did
    assert [i["InstanceId"] for i in live_instances(ec2)] == [t.instance_id]
    t.run.terminate_run()


def test_every_zone_out_of_capacity_fails_the_target_naming_each_and_leaves_nothing_running(
    aws_session, monkeypatch
):
    ec2 = aws_session.client("ec2")
    zones = {s["AvailabilityZone"] for s in ec2.describe_subnets()["Subnets"]}
    calls = out_of_capacity(monkeypatch, ec2, zones | {""})
    t = target(ec2)
    t.start()
    assert t.state == "failed" and t.instance_id is None
    assert len(calls) == len(zones) + 1  # EC2's choice, then each zone once
    assert "AWS has no capacity for g5.xlarge in us-east-1" in t.error  # type: ignore[operator]
    assert all(zone in t.error for zone in zones) and "tried every zone of us-east-1" in t.error  # type: ignore[operator]
    advice = t.error.split("tried every zone")[0]  # type: ignore[union-attr]
    assert "--subnet" not in advice and "--fallback next" in advice  # no zone left to suggest
    assert live_instances(ec2) == []


def test_a_subnet_pinned_by_the_user_is_not_left(aws_session, monkeypatch):
    ec2 = aws_session.client("ec2")
    subnet = ec2.describe_subnets()["Subnets"][0]
    calls = out_of_capacity(monkeypatch, ec2, {subnet["AvailabilityZone"]})
    run = AwsRun(
        AwsSettings(ami=x86_ami(ec2), max_bench_minutes=5, subnet=subnet["SubnetId"]), "run-2"
    )
    run.prepare()
    t = AwsTarget(run, "g5.xlarge", JOB, "aws-g5.xlarge", 1.006)
    t.start()
    assert t.state == "failed" and calls == [subnet["AvailabilityZone"]] and t.tries == []
    assert live_instances(ec2) == []


def test_planner_run_journals_and_says_the_zone_it_fell_over_to(endpoint, env, tmp_path):
    """`planner run` end to end against moto's server: EC2's first placement has no capacity, the next zone does; the
    bench runs there, its result is planned, the try is said on stderr and kept in run.json's notices."""
    import json

    from tests.aws.helpers import FAKE_RESULT, played_run, result_stub
    from tests.aws.helpers import ec2 as ec2_of

    faults = [{"op": "RunInstances", "code": "InsufficientInstanceCapacity", "times": 1}]
    proc, stdout, stderr, out, _ = played_run(
        endpoint,
        env,
        tmp_path,
        "aws:g4dn.xlarge",
        "--json",
        "--max-bench-minutes",
        "3",
        faults=faults,
        python_stub=result_stub(FAKE_RESULT),
    )
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stderr and "launched in us-east-1" in stderr
    doc = json.loads(stdout)
    assert any(
        o["target"] == "aws:g4dn.xlarge" and o["source"] == "measured" for o in doc["options"]
    )
    notices = json.loads((out / "run.json").read_text())["notices"]
    assert (
        notices[0]["label"] == "aws-g4dn.xlarge"
        and "after EC2's choice of zone: InsufficientInstanceCapacity" in notices[0]["text"]
    )
    assert live_instances(ec2_of(endpoint)) == []


def refused(monkeypatch, code_for) -> list[dict]:
    """RunInstances answers `code_for(params)` (an EC2 error code) where it gives one; moto runs the others. Returns
    the parameters of each RunInstances call."""
    real = botocore.client.BaseClient._make_api_call
    calls: list[dict] = []

    def call(self, operation, params):
        if operation == "RunInstances":
            calls.append(params)
            if code := code_for(params):
                raise ClientError({"Error": {"Code": code, "Message": "injected"}}, operation)
        return real(self, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", call)
    return calls


def market(params: dict) -> str:
    return (
        "spot"
        if (params.get("InstanceMarketOptions") or {}).get("MarketType") == "spot"
        else "on-demand"
    )


def spot_refused(monkeypatch, code: str) -> list[dict]:
    """Every spot RunInstances answers `code`; on-demand ones go to moto. Returns each call's parameters."""
    return refused(monkeypatch, lambda params: code if market(params) == "spot" else None)


def test_spot_out_of_capacity_everywhere_falls_back_to_on_demand_only_when_allowed(
    aws_session, monkeypatch
):
    ec2 = aws_session.client("ec2")
    zones = {s["AvailabilityZone"] for s in ec2.describe_subnets()["Subnets"]}
    calls = spot_refused(monkeypatch, "InsufficientInstanceCapacity")
    run = AwsRun(
        AwsSettings(ami=x86_ami(ec2), purchase="spot", fallback="on-demand", poll_seconds=0.05),
        "run-3",
    )
    run.prepare()
    t = AwsTarget(run, "g5.xlarge", JOB, "aws-g5.xlarge", 0.436, fallback_price=1.006)
    t.start()
    assert (
        t.error is None and t.instance_id and t.price_per_hour == 1.006
    )  # billed, and costed, on-demand
    assert [market(p) for p in calls] == ["spot"] * (len(zones) + 1) + [
        "on-demand"
    ]  # every zone on spot first
    assert t.notices[0].startswith(
        "launched on-demand (--fallback on-demand) after spot: EC2's choice of zone"
    )
    inst = ec2.describe_instances(InstanceIds=[t.instance_id])["Reservations"][0]["Instances"][0]
    assert inst.get("InstanceLifecycle") != "spot"
    run.terminate_run()
    assert live_instances(ec2) == []

    calls.clear()  # without --fallback: the target fails, nothing runs
    run = AwsRun(AwsSettings(ami=x86_ami(ec2), purchase="spot", poll_seconds=0.05), "run-4")
    run.prepare()
    t = AwsTarget(run, "g5.xlarge", JOB, "aws-g5.xlarge", 0.436)
    t.start()
    assert (
        t.state == "failed"
        and "on-demand" not in [market(p) for p in calls]
        and live_instances(ec2) == []
    )
    assert "AWS has no spot capacity for g5.xlarge" in t.error  # type: ignore[operator]
    assert "--fallback on-demand" in t.error and "--purchase spot" not in t.error  # type: ignore[operator]


def test_a_spot_price_too_low_goes_straight_to_the_fallback(aws_session, monkeypatch):
    ec2 = aws_session.client("ec2")
    calls = spot_refused(monkeypatch, "SpotMaxPriceTooLow")
    run = AwsRun(
        AwsSettings(ami=x86_ami(ec2), purchase="spot", fallback="on-demand", poll_seconds=0.05),
        "run-5",
    )
    run.prepare()
    t = AwsTarget(run, "g5.xlarge", JOB, "aws-g5.xlarge", 0.436, fallback_price=1.006)
    t.start()
    assert (
        [market(p) for p in calls] == ["spot", "on-demand"]
        and t.tries[0] == ("spot", "SpotMaxPriceTooLow")
        and t.instance_id
    )
    run.terminate_run()


def test_the_budget_counts_the_fallbacks_worst_case_and_the_fallback_needs_spot():
    import pytest

    from planner.errors import InputError
    from planner.service import AwsOptions, preflight
    from pricing.catalog import load_snapshot

    spot = preflight(["g5.xlarge"], AwsOptions(purchase="spot"), load_snapshot())[2]
    with_fallback = preflight(
        ["g5.xlarge"], AwsOptions(purchase="spot", fallback="on-demand"), load_snapshot()
    )[2]
    on_demand = preflight(["g5.xlarge"], AwsOptions(), load_snapshot())[2]
    assert spot < with_fallback == on_demand
    with pytest.raises(InputError, match="--fallback on-demand: the launch is on-demand already"):
        preflight(["g5.xlarge"], AwsOptions(fallback="on-demand"), load_snapshot())


def out_of_capacity_for(monkeypatch, types: set[str]) -> list[dict]:
    """RunInstances answers InsufficientInstanceCapacity for `types`, in every zone. Returns each call's parameters."""
    return refused(
        monkeypatch,
        lambda params: "InsufficientInstanceCapacity" if params["InstanceType"] in types else None,
    )


def next_run(aws_session, monkeypatch, run_id: str):
    """(ec2, a prepared run with --fallback next, the RunInstances calls) where g5.xlarge and g6.xlarge have no
    capacity in any zone."""
    ec2 = aws_session.client("ec2")
    calls = out_of_capacity_for(monkeypatch, {"g5.xlarge", "g6.xlarge"})
    run = AwsRun(AwsSettings(ami=x86_ami(ec2), fallback="next", poll_seconds=0.05), run_id)
    run.prepare()
    return ec2, run, calls


def test_every_zone_out_and_fallback_next_launches_the_plans_next_best_instead(
    aws_session, monkeypatch
):
    ec2, run, calls = next_run(aws_session, monkeypatch, "run-next-1")
    zones = {s["AvailabilityZone"] for s in ec2.describe_subnets()["Subnets"]}
    t = AwsTarget(
        run,
        "g5.xlarge",
        JOB,
        "aws-g5.xlarge",
        1.006,
        alternatives=[("g6.xlarge", 0.805, "x86_64"), ("g4dn.xlarge", 0.526, "x86_64")],
    )
    said: list[tuple[str, str]] = []
    BenchSession([t], on_notice=lambda label, text: said.append((label, text)))._start(t, [])
    assert (
        t.error is None
        and t.instance_id
        and t.instance_type == "g4dn.xlarge"
        and t.price_per_hour == 0.526
    )
    assert [p["InstanceType"] for p in calls] == ["g5.xlarge"] * (len(zones) + 1) + [
        "g6.xlarge"
    ] * (len(zones) + 1) + ["g4dn.xlarge"]
    assert t.replaced == ["g5.xlarge", "g6.xlarge"]
    inst = ec2.describe_instances(InstanceIds=[t.instance_id])["Reservations"][0]["Instances"][0]
    assert inst["InstanceType"] == "g4dn.xlarge"
    assert [text.split(" (")[0] for _, text in said] == [
        "no capacity for g5.xlarge",
        "no capacity for g6.xlarge",
    ]
    assert said[1][1].endswith(
        "launching g4dn.xlarge instead, the plan's next-best (--fallback next)"
    )
    run.terminate_run()
    assert live_instances(ec2) == []


def test_fallback_next_with_nothing_left_fails_naming_every_type_it_tried(aws_session, monkeypatch):
    ec2, run, _ = next_run(aws_session, monkeypatch, "run-next-2")
    t = AwsTarget(
        run, "g5.xlarge", JOB, "aws-g5.xlarge", 1.006, alternatives=[("g6.xlarge", 0.805, "x86_64")]
    )
    t.start()
    assert t.state == "failed" and t.instance_id is None
    assert "AWS has no capacity for g6.xlarge" in t.error  # type: ignore[operator]
    assert t.error.endswith("(after --fallback next left g5.xlarge for want of capacity)")  # type: ignore[union-attr]
    assert live_instances(ec2) == []


def test_two_targets_out_of_capacity_do_not_both_take_the_same_next_best(aws_session, monkeypatch):
    """--fallback next: an alternative one target took is no other's (both would journal under its name)."""
    ec2, run, _ = next_run(aws_session, monkeypatch, "run-next-3")
    run.claimed = {"g5.xlarge", "g6.xlarge"}
    first, second = (
        AwsTarget(run, t, JOB, f"aws-{t}", 1.0, alternatives=[("g4dn.xlarge", 0.526, "x86_64")])
        for t in ("g5.xlarge", "g6.xlarge")
    )
    first.start()
    second.start()
    assert first.instance_type == "g4dn.xlarge" and first.instance_id
    assert (
        second.state == "failed"
        and second.instance_id is None
        and second.instance_type == "g6.xlarge"
    )
    run.terminate_run()
    assert live_instances(ec2) == []


def test_planner_run_with_fallback_next_measures_the_next_best_and_journals_it_under_its_own_name(
    endpoint, env, tmp_path
):
    """`planner run --fallback next` end to end against moto's server: g5.xlarge has no capacity in any zone; the run
    launches the plan's next-best GPU instance instead, journals its result under that instance's name, says why, and
    leaves nothing running."""
    import json

    from pricing.catalog import instance_facts, load_snapshot
    from tests.aws.helpers import FAKE_RESULT, journaled, played_run, result_stub, run_id
    from tests.aws.helpers import ec2 as ec2_of

    faults = [
        {
            "op": "RunInstances",
            "code": "InsufficientInstanceCapacity",
            "params": {"InstanceType": "g5.xlarge"},
        }
    ]
    proc, stdout, stderr, out, _ = played_run(
        endpoint,
        env,
        tmp_path,
        "aws:g5.xlarge",
        "--json",
        "--fallback",
        "next",
        "--max-bench-minutes",
        "3",
        faults=faults,
        python_stub=result_stub(FAKE_RESULT),
    )
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stderr and "aws:g5.xlarge: no capacity for g5.xlarge" in stderr
    (label,) = journaled(out)
    instead = label.removeprefix("aws-")
    assert (
        instead != "g5.xlarge"
        and instance_facts(load_snapshot(), instead, "us-east-1")["gpu_count"] >= 1
    )
    assert f"launching {instead} instead, the plan's next-best (--fallback next)" in stderr
    # its states are said under its own name
    after = stderr.split(f"launching {instead} instead")[1]
    assert f"aws:{instead}: done" in after and "aws:g5.xlarge: done" not in stderr
    doc = json.loads(stdout)
    assert any(
        o["target"] == f"aws:{instead}" and o["source"] == "measured" for o in doc["options"]
    )
    assert doc["failed_targets"] == []
    notices = json.loads((out / "run.json").read_text())["notices"]
    assert any("--fallback next" in n["text"] for n in notices)
    assert live_instances(ec2_of(endpoint), run_id(out)) == []


def test_fallback_next_reads_each_alternatives_quota_first_and_skips_one_it_would_exceed(
    aws_session, monkeypatch
):
    """--fallback next reads an alternative's vCPU quota before launching it: one it would exceed (a new account's
    0 for G) is skipped, said with the request that raises it, and the next one launches; nothing asks EC2 to
    launch the skipped one."""
    from tests.aws.test_quotas import answer_quotas

    ec2, run, calls = next_run(aws_session, monkeypatch, "run-next-4")
    asked = answer_quotas(monkeypatch, {"L-DB2E81BA": 0.0, "L-417A185B": 64.0})
    run.vcpus = {"g6.xlarge": 4, "p3.2xlarge": 8}
    t = AwsTarget(
        run,
        "g5.xlarge",
        JOB,
        "aws-g5.xlarge",
        1.006,
        alternatives=[("g6.xlarge", 0.805, "x86_64"), ("p3.2xlarge", 3.06, "x86_64")],
    )
    t.start()
    assert t.error is None and t.instance_type == "p3.2xlarge" and t.instance_id
    assert "g6.xlarge" not in {p["InstanceType"] for p in calls}  # skipped before any launch
    assert asked == ["L-DB2E81BA", "L-417A185B"]
    skipped = next(n for n in t.notices if n.startswith("--fallback next skipped g6.xlarge"))
    assert '"Running On-Demand G and VT instances" in us-east-1 is 0' in skipped
    assert "--quota-code L-DB2E81BA" in skipped
    run.terminate_run()
    assert live_instances(ec2) == []
