"""Prices and the AWS account: the catalog (bundled or refreshed), planner-managed instances with
their age, expiry and cost so far, terminate, reap, and the account stack (infra).

Every AWS call goes through the service's boto3 session (None: standard configuration) and
`infra.aws`'s client factory; every failure is explained by `infra.aws.explain_aws_error`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Callable

from planner.errors import PlannerError


@dataclass(frozen=True)
class PriceQuery:
    region: str | None = None
    gpu: bool | None = None  # True: GPU only, False: CPU only
    arch: str | None = None
    min_gpu_memory_gib: float | None = None
    max_price: float | None = None
    purchase: str = "on-demand"
    sort: str = "price"


def catalog(session: Any, refresh_regions: list[str] | None = None, warn: Callable[[str], None] | None = None):
    """The price catalog; with `refresh_regions`, fetch live prices first and fall back to the
    cache or the bundled snapshot (with a warning) when AWS cannot be asked."""
    from pricing.catalog import load_catalog

    if refresh_regions:
        from pricing.aws import PriceRefreshError, refresh

        try:
            refresh(refresh_regions, session=session)
        except PriceRefreshError as exc:
            if warn:
                warn(exc.render())
    return load_catalog()


def prices(session: Any, query: PriceQuery, refresh: bool = False, warn: Callable[[str], None] | None = None):
    """(catalog, matching rows sorted) for `planner prices` and the TUI's target table. The rows
    carry `price_usd_per_hour`: the price of the query's purchase option."""
    from pricing.catalog import check_region, filter_instances, price_column, regions, sort_instances

    found = catalog(session, None, warn)
    if query.region:
        check_region(found.frame, query.region)  # before any network call
    if refresh:
        found = catalog(session, [query.region] if query.region else regions(found.frame), warn)
    rows = filter_instances(found.frame, region=query.region, gpu=query.gpu, arch=query.arch,
                            min_gpu_memory_gib=query.min_gpu_memory_gib, max_price=query.max_price,
                            purchase=query.purchase)
    rows = sort_instances(rows, query.sort, query.purchase)
    return found, rows.assign(price_usd_per_hour=rows[price_column(query.purchase)])


def _ec2(session: Any, region: str):
    from infra.aws import client

    return client(session, "ec2", region)


def _explain(exc: Exception, doing: str) -> PlannerError:
    from infra.aws import explain_aws_error

    return exc if isinstance(exc, PlannerError) else explain_aws_error(exc, doing)


def instances(session: Any, region: str, now: dt.datetime | None = None) -> list[dict[str, Any]]:
    """Planner-managed instances in `region` that are billed or could be: id, type, state, run,
    age, expiry (and whether it passed), cost so far at the catalog's price."""
    from infra.reaper import TAG_EXPIRES, TAG_RUN, is_expired, managed_instances
    from pricing.billing import instance_cost
    from pricing.catalog import hourly_price, load_catalog

    try:
        found = managed_instances(_ec2(session, region))
    except Exception as exc:  # noqa: BLE001 - explained in one message
        raise _explain(exc, "listing instances") from None
    now = now or dt.datetime.now(dt.timezone.utc)
    frame = load_catalog().frame if found else None
    rows = []
    for i in found:
        tags = {t["Key"]: t["Value"] for t in i.get("Tags", [])}
        age = (now - i["LaunchTime"]).total_seconds()
        spot = i.get("InstanceLifecycle") == "spot"
        try:
            cost = instance_cost(hourly_price(frame, i["InstanceType"], region, "spot" if spot else "on-demand"), age)
        except PlannerError:
            cost = None
        rows.append({"instance_id": i["InstanceId"], "instance_type": i["InstanceType"], "state": i["State"]["Name"],
                     "run_id": tags.get(TAG_RUN), "age_seconds": age, "expires_at": tags.get(TAG_EXPIRES),
                     "expired": is_expired(i, now), "cost_so_far_usd": cost})
    return rows


def terminate(session: Any, region: str, instance_ids: list[str]) -> None:
    try:
        _ec2(session, region).terminate_instances(InstanceIds=instance_ids)
    except Exception as exc:  # noqa: BLE001
        raise _explain(exc, "terminating " + ", ".join(instance_ids)) from None


def reap(session: Any, region: str, at: str | None = None, run_id: str | None = None,
         dry_run: bool = False) -> list[dict[str, Any]]:
    """Terminate planner-managed instances past their expiry (all of `run_id`'s when given);
    `at` judges expiry as of that UTC time. Returns what was (or would be) terminated."""
    from infra.reaper import parse_time
    from infra.reaper import reap as reap_instances

    now = None
    if at:
        now = parse_time(at)
        if now is None:
            from planner.errors import InputError

            raise InputError(f"--at: must be a UTC time like 2026-11-21T18:00:00Z, got {at!r}")
    try:
        return reap_instances(_ec2(session, region), now=now, run_id=run_id, dry_run=dry_run)
    except Exception as exc:  # noqa: BLE001
        raise _explain(exc, "reaping instances") from None


def infra(session: Any, action: str, region: str, stack_name: str, vpc: str | None = None,
          schedule: str | None = None) -> Any:
    """The account stack: "template" (rendered JSON), "policy" (the user policy), "deploy" and
    "status" (the stack description, or None), "delete" (whether it existed)."""
    from infra import stack

    if action == "template":
        return stack.render_template()
    if action == "policy":
        return stack.user_policy()
    try:
        from infra.aws import session_or_default

        session = session_or_default(session)
        if action == "deploy":
            return stack.deploy(session, region, stack_name, vpc, schedule)
        if action == "delete":
            return stack.delete(session, region, stack_name)
        return stack.stack(session, region, stack_name)
    except Exception as exc:  # noqa: BLE001
        raise _explain(exc, f"infra {action}") from None
