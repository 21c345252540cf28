"""Moto for the AWS tests: in-process (fake credentials, no endpoint override, a boto3 session), and
one server for the whole session that a `planner` subprocess reaches through AWS_ENDPOINT_URL (its
tests tell their instances apart by run id)."""

from __future__ import annotations

import os

import boto3
import pytest
from moto import mock_aws

from tests.aws.helpers import FAKE_ENV, free_port


@pytest.fixture
def aws_session(monkeypatch):
    for k, v in FAKE_ENV.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    with mock_aws():
        yield boto3.Session(region_name="us-east-1")


@pytest.fixture(scope="session")
def endpoint():
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture
def env(endpoint, tmp_path):
    """The environment of a `planner` subprocess that talks to the moto server."""
    return {
        **os.environ,
        **FAKE_ENV,
        "AWS_ENDPOINT_URL": endpoint,
        "PLANNER_CACHE_DIR": str(tmp_path / "cache"),
        "COLUMNS": "140",
        "PYTHONUNBUFFERED": "1",
    }
