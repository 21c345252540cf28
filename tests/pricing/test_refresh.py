"""Live refresh: EC2 calls against moto, the Price List API through a botocore Stubber (moto has no
pricing API) fed a response with the real structure; fallbacks when AWS cannot be asked."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import boto3
import botocore.client
import pytest
from botocore.exceptions import ClientError
from botocore.stub import Stubber
from moto import mock_aws

from pricing.aws import PriceRefreshError, latest_spot_by_zone, ondemand_price, refresh
from pricing.catalog import hourly_price, load_catalog, load_snapshot
from tests.cli.helpers import planner

RECORDED = json.loads((Path(__file__).parent / "data" / "get_products.json").read_text())
NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def aws_env(monkeypatch):
    for k, v in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)


class StubbedPricingSession:
    """A boto3 session whose `pricing` client answers from the recorded responses; every other
    service is the real boto3 client (served by moto)."""

    def __init__(self, expected_types: list[str]):
        self.session = boto3.Session(region_name="us-east-1")
        self.pricing = self.session.client("pricing", region_name="us-east-1")
        self.stubber = Stubber(self.pricing)
        for itype in expected_types:
            filters = [
                {"Type": "TERM_MATCH", "Field": f, "Value": v}
                for f, v in (
                    ("instanceType", itype),
                    ("regionCode", "us-east-1"),
                    ("operatingSystem", "Linux"),
                    ("tenancy", "Shared"),
                    ("preInstalledSw", "NA"),
                    ("capacitystatus", "Used"),
                )
            ]
            self.stubber.add_response(
                "get_products", RECORDED[itype], {"ServiceCode": "AmazonEC2", "Filters": filters}
            )
        self.stubber.activate()

    def client(self, service, **kwargs):
        return self.pricing if service == "pricing" else self.session.client(service, **kwargs)


def test_ondemand_price_walks_the_ondemand_term_not_reserved():
    assert ondemand_price(RECORDED["g5.xlarge"]["PriceList"][0]) == 0.987
    assert ondemand_price(json.dumps({"terms": {"Reserved": {}}})) is None


def test_latest_spot_price_per_zone():
    t0, t1 = NOW - dt.timedelta(hours=2), NOW - dt.timedelta(minutes=5)
    history = [
        {"AvailabilityZone": "us-east-1a", "Timestamp": t0, "SpotPrice": "0.50"},
        {"AvailabilityZone": "us-east-1a", "Timestamp": t1, "SpotPrice": "0.40"},
        {"AvailabilityZone": "us-east-1b", "Timestamp": t0, "SpotPrice": "0.45"},
    ]
    assert latest_spot_by_zone(history) == {"us-east-1a": 0.40, "us-east-1b": 0.45}


@mock_aws
def test_refresh_writes_live_rows_in_the_snapshot_schema(aws_env, tmp_path):
    session = StubbedPricingSession(["c7i.xlarge", "g5.xlarge"])
    merged = refresh(
        ["us-east-1"], ["c7i.xlarge", "g5.xlarge"], session=session, directory=tmp_path, now=NOW
    )
    session.stubber.assert_no_pending_responses()

    catalog = load_catalog(directory=tmp_path, now=NOW + dt.timedelta(hours=1))
    assert catalog.note == "live prices fetched 1.0 h ago"
    df = catalog.frame
    assert hourly_price(df, "g5.xlarge", "us-east-1") == 0.987
    assert hourly_price(df, "c7i.xlarge", "us-east-1") == 0.1777
    g5 = df[(df["instance_type"] == "g5.xlarge") & (df["region"] == "us-east-1")].iloc[0]
    # moto serves 0.00001 $/h in every zone of us-east-1, and real instance facts
    assert g5["spot_usd_per_hour_min"] == g5["spot_usd_per_hour_median"] == 0.00001
    assert (
        g5["zones"] >= 3 and g5["gpu_name"] == "A10G" and g5["gpu_count"] == 1 and g5["vcpus"] == 4
    )
    assert g5["source"] == "aws-live" and g5["as_of"] == "2026-11-21T12:00:00+00:00"
    # rows not refreshed keep the snapshot's price and say so
    other = df[(df["instance_type"] == "g5.xlarge") & (df["region"] == "eu-west-1")].iloc[0]
    assert other["source"] == "snapshot" and other["ondemand_usd_per_hour"] == 1.123
    assert len(merged) == len(
        load_snapshot()
    )  # every snapshot row kept, the refreshed ones replaced


def inject(monkeypatch, operation: str, code: str):
    """Fault at the boundary: one AWS operation answers with `code`."""
    real = botocore.client.BaseClient._make_api_call

    def fake(self, op, params):
        if op == operation:
            raise ClientError({"Error": {"Code": code, "Message": "injected"}}, op)
        return real(self, op, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", fake)


@mock_aws
def test_access_denied_names_the_missing_permission(aws_env, monkeypatch, tmp_path):
    inject(monkeypatch, "GetProducts", "AccessDeniedException")
    with pytest.raises(PriceRefreshError) as info:
        refresh(["us-east-1"], ["c7i.xlarge"], directory=tmp_path, now=NOW)
    assert "access denied" in info.value.message and "pricing:GetProducts" in info.value.hint
    assert not (tmp_path / "aws_prices.csv").exists()  # nothing half-written


@mock_aws
def test_throttling_after_retries_is_a_clear_message(aws_env, monkeypatch, tmp_path):
    inject(monkeypatch, "DescribeSpotPriceHistory", "RequestLimitExceeded")
    with pytest.raises(PriceRefreshError, match="throttled"):
        refresh(
            ["us-east-1"],
            ["c7i.xlarge"],
            session=StubbedPricingSession(["c7i.xlarge"]),
            directory=tmp_path,
            now=NOW,
        )


NO_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": None,
    "AWS_SECRET_ACCESS_KEY": None,
    "AWS_SESSION_TOKEN": None,
    "AWS_PROFILE": None,
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
    "AWS_CONFIG_FILE": "/nonexistent",
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_REGION": "us-east-1",
}


def test_cli_refresh_without_credentials_falls_back_to_the_snapshot(tmp_path):
    env = {**NO_CREDENTIALS, "PLANNER_CACHE_DIR": str(tmp_path)}
    r = planner(
        "prices",
        "--region",
        "us-east-1",
        "--gpu",
        "--refresh",
        "--source",
        "aws",
        "--json",
        env=env,
        timeout=120,
    )
    assert r.code == 0, r.err
    assert "no AWS credentials found" in r.err and "Traceback" not in r.err
    data = json.loads(r.out)
    assert data["as_of"] == "2025 H2" and len(data["instances"]) >= 10


def test_cli_prices_acceptance(tmp_path):
    env = {"PLANNER_CACHE_DIR": str(tmp_path)}
    r = planner("prices", "--region", "us-east-1", "--gpu", "--json", env=env)
    assert r.code == 0
    data = json.loads(r.out)
    assert data["source"] == "AWS prices, snapshot of 2025 H2 (SkyPilot catalog)"
    assert len(data["instances"]) >= 10
    g4 = next(i for i in data["instances"] if i["instance_type"] == "g4dn.xlarge")
    assert (
        g4["ondemand_usd_per_hour"] == 0.526
        and g4["spot_usd_per_hour_min"] == 0.2
        and g4["gpu_name"] == "T4"
    )

    r = planner("prices", "--region", "mars-1", env=env)
    assert r.code == 2 and "us-east-1" in r.err and "Traceback" not in r.err

    r = planner("prices", "--region", "us-east-1", "--gpu", "--max-price", "1.5", "--json", env=env)
    prices = [i["ondemand_usd_per_hour"] for i in json.loads(r.out)["instances"]]
    assert prices and max(prices) <= 1.5

    r = planner("prices", "--region", "us-east-1", "--cpu", env=env)
    assert (
        r.code == 0
        and "snapshot of 2025 H2" in r.out
        and "c7i.xlarge" in r.out
        and "g5" not in r.out
    )


def test_cli_refresh_with_an_unknown_profile_is_a_clear_warning(tmp_path):
    env = {**NO_CREDENTIALS, "AWS_PROFILE": "nobody", "PLANNER_CACHE_DIR": str(tmp_path)}
    r = planner(
        "prices", "--region", "us-east-1", "--refresh", "--source", "aws", env=env, timeout=120
    )
    assert r.code == 0 and "nobody" in r.err and "Traceback" not in r.err
