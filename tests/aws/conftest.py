"""In-process moto for the AWS tests: fake credentials, no endpoint override, a boto3 session."""

from __future__ import annotations

import boto3
import pytest
from moto import mock_aws

from tests.aws.helpers import FAKE_ENV


@pytest.fixture
def aws_session(monkeypatch):
    for k, v in FAKE_ENV.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    with mock_aws():
        yield boto3.Session(region_name="us-east-1")
