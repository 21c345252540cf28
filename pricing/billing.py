"""The billing model, in one place: what a given number of seconds on an option costs. Design
notes: docs/reference/modules.md (pricing/billing.py)."""

from __future__ import annotations

import math

MINIMUM_BILLED_SECONDS = 60
EBS_GP3_USD_PER_GB_MONTH = 0.08
HOURS_PER_MONTH = 730
DEFAULT_ROOT_VOLUME_GB = 100  # the AWS Deep Learning AMIs' default root volume


def billed_seconds(seconds: float) -> int:
    """Seconds AWS bills for an instance that ran `seconds`: whole seconds, at least 60."""
    return max(MINIMUM_BILLED_SECONDS, math.ceil(max(0.0, seconds)))


def root_volume_usd_per_hour(
    gb: float = DEFAULT_ROOT_VOLUME_GB, usd_per_gb_month: float = EBS_GP3_USD_PER_GB_MONTH
) -> float:
    return gb * usd_per_gb_month / HOURS_PER_MONTH


def instance_cost(
    usd_per_hour: float, seconds: float, root_volume_gb: float = DEFAULT_ROOT_VOLUME_GB
) -> float:
    """Billed cost of one EC2 instance alive for `seconds` (instance + its root volume)."""
    hourly = usd_per_hour + root_volume_usd_per_hour(root_volume_gb)
    return hourly * billed_seconds(seconds) / 3600.0
