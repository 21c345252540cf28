"""`python -m tests.aws.faults ARGS...` is `planner ARGS...` with faults at its AWS boundary.

Before the planner starts, `botocore.client.BaseClient._make_api_call` is wrapped (the aws-sdk-pandas
way): every call is logged to PLANNER_FAULT_LOG (one operation name a line, when it is set), and the
rules in PLANNER_FAULTS (a JSON list) apply to the calls they name:

    {"op": "TerminateInstances", "code": "InternalError"}            every call fails
    {"op": "DescribeInstances", "code": "RequestLimitExceeded", "times": 1, "after": 2}
                                                                       the 3rd call fails, once
    {"op": "TerminateInstances", "delay": 3}                          every call takes 3 s longer
    {"op": "GetServiceQuota", "answer": {"Quota": {"Value": 0.0}}}    AWS's answer where moto has none
    {"op": "RunInstances", "code": "InsufficientInstanceCapacity", "params": {"InstanceType": "g5.xlarge"}}
                                                                       only the calls with those parameters

An injected error stands for a call that failed after botocore's own retries: it is raised above
them, once per call. Nothing of the planner is patched; the planner runs as `planner` would.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any

FAULTS_ENV, LOG_ENV = "PLANNER_FAULTS", "PLANNER_FAULT_LOG"


def install(rules: list[dict[str, Any]], log: str | None = None) -> None:
    import botocore.client
    from botocore.exceptions import ClientError

    real = botocore.client.BaseClient._make_api_call
    lock = threading.Lock()
    seen: dict[str, int] = {}

    def call(self, operation: str, params: dict[str, Any]):
        with lock:
            n = seen[operation] = seen.get(operation, 0) + 1
            if log:
                with open(log, "a") as f:
                    f.write(operation + "\n")
        for rule in rules:
            if rule["op"] != operation or any(
                params.get(k) != v for k, v in rule.get("params", {}).items()
            ):
                continue
            after, times = rule.get("after", 0), rule.get("times")
            if n <= after or (times is not None and n > after + times):
                continue
            if rule.get("delay"):
                time.sleep(rule["delay"])
            if rule.get("code"):
                raise ClientError(
                    {"Error": {"Code": rule["code"], "Message": "injected fault"}}, operation
                )
            if "answer" in rule:
                return rule["answer"]
        return real(self, operation, params)

    botocore.client.BaseClient._make_api_call = call


def main(argv: list[str]) -> int:
    install(json.loads(os.environ.get(FAULTS_ENV, "[]")), os.environ.get(LOG_ENV))
    from planner.cli import main as planner

    return planner(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
