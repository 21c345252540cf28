"""Live refresh: today's AWS prices and instance facts, cached in the snapshot's schema. Design
notes: docs/reference/modules.md (pricing/aws.py)."""

from __future__ import annotations

import datetime as dt
import json
import statistics
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from infra.aws import AwsError, client, explain_aws_error, session_or_default
from pricing.catalog import COLUMNS, load_snapshot, merge_live, write_cache

PRICING_REGION = "us-east-1"  # the Price List Query API endpoint (also ap-south-1, eu-central-1)
ONDEMAND_FILTERS = {
    "operatingSystem": "Linux",
    "tenancy": "Shared",
    "preInstalledSw": "NA",
    "capacitystatus": "Used",
}


class PriceRefreshError(AwsError):
    title = "price refresh failed"


SNAPSHOT_MEANWHILE = "; the bundled snapshot is used meanwhile"


def _explain(exc: Exception, doing: str) -> PriceRefreshError:
    return explain_aws_error(exc, doing, PriceRefreshError, SNAPSHOT_MEANWHILE)  # type: ignore[return-value]


def ondemand_price(price_item: str | dict) -> float | None:
    """The hourly USD on-demand price in one PriceList item (a JSON string), or None."""
    item = json.loads(price_item) if isinstance(price_item, str) else price_item
    for term in (item.get("terms", {}).get("OnDemand") or {}).values():
        for dim in (term.get("priceDimensions") or {}).values():
            usd = (dim.get("pricePerUnit") or {}).get("USD")
            if (
                usd is not None
                and str(dim.get("unit", "")).lower().startswith("hr")
                and float(usd) > 0
            ):
                return float(usd)
    return None


def fetch_ondemand(pricing_client: Any, instance_type: str, region: str) -> float | None:
    filters = [
        {"Type": "TERM_MATCH", "Field": "instanceType", "Value": instance_type},
        {"Type": "TERM_MATCH", "Field": "regionCode", "Value": region},
    ]
    filters += [{"Type": "TERM_MATCH", "Field": k, "Value": v} for k, v in ONDEMAND_FILTERS.items()]
    prices = []
    for page in pricing_client.get_paginator("get_products").paginate(
        ServiceCode="AmazonEC2", Filters=filters
    ):
        prices += [
            p for p in (ondemand_price(item) for item in page.get("PriceList", [])) if p is not None
        ]
    return min(prices) if prices else None


def latest_spot_by_zone(history: Iterable[dict]) -> dict[str, float]:
    latest: dict[str, tuple[dt.datetime, float]] = {}
    for entry in history:
        zone, when, price = entry["AvailabilityZone"], entry["Timestamp"], float(entry["SpotPrice"])
        if zone not in latest or when > latest[zone][0]:
            latest[zone] = (when, price)
    return {zone: price for zone, (_, price) in latest.items()}


def fetch_spot(ec2_client: Any, instance_type: str, now: dt.datetime) -> dict[str, float]:
    history: list[dict] = []
    paginator = ec2_client.get_paginator("describe_spot_price_history")
    for page in paginator.paginate(
        InstanceTypes=[instance_type],
        ProductDescriptions=["Linux/UNIX"],
        StartTime=now - dt.timedelta(hours=6),
        EndTime=now,
    ):
        history += page.get("SpotPriceHistory", [])
    return latest_spot_by_zone(history)


def _describe_types(ec2_client: Any, instance_types: list[str]) -> list[dict]:
    """describe_instance_types fails as a whole when one type is not offered in the region; then
    ask one by one and leave out the types the region does not have."""
    from botocore.exceptions import ClientError

    try:
        return ec2_client.describe_instance_types(InstanceTypes=instance_types)["InstanceTypes"]
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "InvalidInstanceType":
            raise
    found = []
    for itype in instance_types:
        try:
            found += ec2_client.describe_instance_types(InstanceTypes=[itype])["InstanceTypes"]
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "InvalidInstanceType":
                raise
    return found


def fetch_facts(ec2_client: Any, instance_types: list[str]) -> dict[str, dict]:
    facts: dict[str, dict] = {}
    for start in range(0, len(instance_types), 100):
        for it in _describe_types(ec2_client, instance_types[start : start + 100]):
            gpus = (it.get("GpuInfo") or {}).get("Gpus") or []
            arch = it.get("ProcessorInfo", {}).get("SupportedArchitectures", ["x86_64"])
            facts[it["InstanceType"]] = {
                "vcpus": it["VCpuInfo"]["DefaultVCpus"],
                "memory_gib": it["MemoryInfo"]["SizeInMiB"] / 1024,
                "arch": "arm64" if "arm64" in arch else arch[0],
                "gpu_name": gpus[0]["Name"] if gpus else "",
                "gpu_count": sum(g.get("Count", 0) for g in gpus),
                "gpu_memory_gib": round(gpus[0]["MemoryInfo"]["SizeInMiB"] / 1024, 2)
                if gpus
                else None,
            }
    return facts


def refresh(
    regions: list[str],
    instance_types: list[str] | None = None,
    session: Any = None,
    directory: Path | None = None,
    now: dt.datetime | None = None,
) -> pd.DataFrame:
    """Fetch live rows for `regions` (default instance types: the snapshot's), merge them over the
    snapshot, and write the cache. Returns the merged frame."""
    now = now or dt.datetime.now(dt.timezone.utc)
    snapshot = load_snapshot()
    types = instance_types or sorted(snapshot["instance_type"].unique())
    try:
        session = session_or_default(session)
        pricing_client = client(session, "pricing", PRICING_REGION)
    except Exception as exc:  # noqa: BLE001 - profile/config problems: a clear message
        raise _explain(exc, "connecting to AWS") from None
    rows = []
    for region in regions:
        ec2 = client(session, "ec2", region)
        try:
            facts = fetch_facts(ec2, types)
        except Exception as exc:  # noqa: BLE001 - mapped to a clear message
            raise _explain(exc, f"reading instance types in {region}") from None
        for itype in types:
            if itype not in facts:
                continue  # not offered in this region
            try:
                ondemand = fetch_ondemand(pricing_client, itype, region)
                spot = fetch_spot(ec2, itype, now)
            except Exception as exc:  # noqa: BLE001
                raise _explain(exc, f"fetching prices of {itype} in {region}") from None
            if ondemand is None:
                continue
            spots = list(spot.values())
            rows.append(
                {
                    "instance_type": itype,
                    "region": region,
                    **facts[itype],
                    "ondemand_usd_per_hour": ondemand,
                    "spot_usd_per_hour_min": min(spots) if spots else None,
                    "spot_usd_per_hour_median": statistics.median(spots) if spots else None,
                    "zones": len(spots),
                    "source": "aws-live",
                    "as_of": now.isoformat(timespec="seconds"),
                }
            )
    live = pd.DataFrame(rows, columns=COLUMNS)
    merged = merge_live(snapshot, live) if not live.empty else snapshot
    write_cache(merged, now, regions, directory)
    return merged
