"""The EC2 vCPU quotas a launch counts against, read before anything starts. Design notes:
docs/reference/modules.md (infra/quotas.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from infra.aws import (
    ACCESS_DENIED_CODES,
    QUOTA_CODES,
    client,
    error_code,
    explain_aws_error,
    group_quota_name,
    quota_group,
)


@dataclass(frozen=True)
class QuotaCheck:
    """One quota a launch counts against: its value and what runs in it now (None: not read, `problem` says why),
    and the vCPUs the launch adds."""

    name: str
    code: str
    region: str
    needed: int
    types: tuple[str, ...]
    limit: float | None = None
    used: int | None = None
    problem: str = ""

    @property
    def over(self) -> bool:
        return (
            self.limit is not None
            and self.used is not None
            and self.used + self.needed > self.limit
        )

    def line(self) -> str:
        if self.limit is None or self.used is None:
            return f'quota "{self.name}" not read ({self.problem}): a launch over it fails with VcpuLimitExceeded'
        return (
            f'quota "{self.name}": {self.limit:g} vCPUs, {self.used} in use, this launch {self.needed} '
            f"({', '.join(self.types)})" + (": OVER" if self.over else "")
        )

    def over_text(self) -> str:
        """Why EC2 would refuse the launch (when `over`): the quota, its value, what runs in it, what the launch needs."""
        return (
            f'the vCPU quota "{self.name}" in {self.region} is {self.limit:g} with {self.used} in use, and '
            f"{', '.join(self.types)} {'needs' if len(self.types) == 1 else 'need'} {self.needed}"
        )

    def raise_request(self) -> str:
        want = max(int(self.needed + (self.used or 0)), 1)
        return (
            f"aws service-quotas request-service-quota-increase --service-code ec2 --quota-code {self.code} "
            f"--desired-value {want} --region {self.region} (or the Service Quotas console: Amazon EC2 > {self.name})"
        )


def _problem(exc: Exception, doing: str = "") -> str:
    """Why a quota was not read, and what grants it when it was a permission ("access denied (...); grant
    servicequotas:GetServiceQuota ...")."""
    found = explain_aws_error(exc, doing)
    denied = error_code(exc) in ACCESS_DENIED_CODES and found.hint
    return f"{found.message}; {found.hint}" if denied else found.message


def running_vcpus(ec2: Any, vcpus_of: dict[str, int]) -> dict[tuple[str, str], int]:
    """vCPUs of the pending and running instances in the region, by (quota group, purchase): an instance's own
    CpuOptions (cores x threads), else `vcpus_of` its type."""
    used: dict[tuple[str, str], int] = {}
    pages = ec2.get_paginator("describe_instances").paginate(
        Filters=[{"Name": "instance-state-name", "Values": ["pending", "running"]}]
    )
    for page in pages:
        for reservation in page.get("Reservations", []):
            for inst in reservation.get("Instances", []):
                group = quota_group(inst["InstanceType"])
                if group is None:
                    continue
                cpu = inst.get("CpuOptions") or {}
                n = cpu.get("CoreCount", 0) * cpu.get("ThreadsPerCore", 0) or vcpus_of.get(
                    inst["InstanceType"], 0
                )
                key = (group, "spot" if inst.get("InstanceLifecycle") == "spot" else "on-demand")
                used[key] = used.get(key, 0) + n
    return used


def check_quotas(
    session: Any,
    region: str,
    launch: dict[str, int],
    purchase: str,
    vcpus_of: dict[str, int] | None = None,
) -> list[QuotaCheck]:
    """The quotas a launch of `launch` (instance type -> vCPUs) as `purchase` counts against in `region`, each read
    with what runs in it now (an instance's vCPUs: its CpuOptions, else `vcpus_of` its type, e.g. the catalog's); a
    quota or the usage that cannot be read has its `problem` (no exception)."""
    needs: dict[str, list[str]] = {}
    for instance_type in launch:
        group = quota_group(instance_type)
        if group is not None:
            needs.setdefault(group, []).append(instance_type)
    if not needs:
        return []
    used: dict[tuple[str, str], int] | None = None
    usage_problem = ""
    try:
        used = running_vcpus(
            client(session, "ec2", region, attempts=2), {**(vcpus_of or {}), **launch}
        )
    except Exception as exc:  # noqa: BLE001 - said in the check's line
        usage_problem = _problem(exc, "reading the instances running now: ")
    quotas = client(session, "service-quotas", region, attempts=2) if used is not None else None
    out = []
    for group, types in needs.items():
        code, name = QUOTA_CODES[(group, purchase)], group_quota_name(group, purchase)
        needed = sum(launch[t] for t in types)
        if quotas is None:
            out.append(QuotaCheck(name, code, region, needed, tuple(types), problem=usage_problem))
            continue
        try:
            limit = float(
                quotas.get_service_quota(ServiceCode="ec2", QuotaCode=code)["Quota"]["Value"]
            )
        except Exception as exc:  # noqa: BLE001 - a warning: the launch goes on
            out.append(
                QuotaCheck(
                    name,
                    code,
                    region,
                    needed,
                    tuple(types),
                    problem=_problem(exc),
                )
            )
            continue
        out.append(
            QuotaCheck(
                name,
                code,
                region,
                needed,
                tuple(types),
                limit,
                (used or {}).get((group, purchase), 0),
            )
        )
    return out
