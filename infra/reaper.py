"""Find and terminate planner-managed instances that outlived their purpose; the names they carry.
Design notes: docs/reference/modules.md (infra/reaper.py)."""

from __future__ import annotations

import datetime as dt
from typing import Any

TAG_MANAGED, TAG_RUN, TAG_EXPIRES = "planner:managed", "planner:run-id", "planner:expires-at"
LIVE_STATES = ["pending", "running", "stopping", "stopped"]  # billed, or able to be
STACK_NAME = "cloud-planner"  # the infra stack (PLANNER_STACK_NAME overrides where it is looked up)
SECURITY_GROUP_NAME = "cloud-planner-bench"


def parse_time(text: str) -> dt.datetime | None:
    try:
        t = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    return t if t.tzinfo else t.replace(tzinfo=dt.timezone.utc)


def managed_instances(ec2: Any, run_id: str | None = None) -> list[dict[str, Any]]:
    filters = [
        {"Name": f"tag:{TAG_MANAGED}", "Values": ["true"]},
        {"Name": "instance-state-name", "Values": LIVE_STATES},
    ]
    if run_id:
        filters.append({"Name": f"tag:{TAG_RUN}", "Values": [run_id]})
    found = []
    for page in ec2.get_paginator("describe_instances").paginate(Filters=filters):
        for reservation in page["Reservations"]:
            found += reservation["Instances"]
    return found


def is_expired(instance: dict[str, Any], now: dt.datetime) -> bool:
    """Past its expiry. A managed instance whose expiry tag is missing or unreadable counts as expired:
    nothing the planner launches lacks it, so such an instance has lost its guard."""
    expires = parse_time(
        next((t["Value"] for t in instance.get("Tags", []) if t["Key"] == TAG_EXPIRES), "")
    )
    return expires is None or expires <= now


def reap(
    ec2: Any, now: dt.datetime | None = None, run_id: str | None = None, dry_run: bool = False
) -> list[dict[str, Any]]:
    """Terminate expired managed instances (all of `run_id`'s when given). Returns what it took."""
    now = now or dt.datetime.now(dt.timezone.utc)
    doomed = [i for i in managed_instances(ec2, run_id) if run_id or is_expired(i, now)]
    if doomed and not dry_run:
        ids = [i["InstanceId"] for i in doomed]
        for start in range(0, len(ids), 500):
            ec2.terminate_instances(InstanceIds=ids[start : start + 500])
    return doomed


def lambda_handler(event: dict | None = None, context: Any = None) -> dict[str, Any]:
    """The scheduled reaper (infra/): terminate expired planner-managed instances in this region."""
    import boto3

    taken = reap(boto3.client("ec2"))
    return {"terminated": [i["InstanceId"] for i in taken]}
