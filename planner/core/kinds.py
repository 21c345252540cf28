"""The closed sets of words a plan is made of, each defined once as a Literal type (checked by mypy
where the code names one, and by the plan document's converter where JSON names one) with the
tuple of its values for argparse choices, selects and journal checks."""

from __future__ import annotations

from typing import Literal, get_args

from planner.units import OBJECTIVES, Objective  # what the user types: the units' closed sets
from pricing.facts import PURCHASES, Purchase  # the data layer's: how an instance is bought

Device = Literal["cpu", "cuda"]
Source = Literal["measured", "predicted"]
Billing = Literal["local", "ec2"]  # this machine at the user's price, or EC2's per-second billing
Verdict = Literal[
    "clear", "likely", "too_close", "only_option", "deadline_missed", "nothing_fits", "failed"
]
AnswerName = Literal["here", "rent"]
ChoiceBasis = Literal["compared", "deadline", "alone"]  # how the headline chose here or rent
# why a paid benchmark of an instance is suggested (the first six) or skipped (the rest)
ChoiceReason = Literal[
    "reference",
    "too_close",
    "recommended",
    "unpredicted",
    "straddles",
    "beats",
    "data_parallel",
    "does_not_fit",
    "same_gpu",
    "too_slow",
    "cpu_no_better",
]
ChoiceLimit = Literal["max_instances", "budget"]  # what left a wanted benchmark out

DEVICES: tuple[Device, ...] = get_args(Device)
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)

__all__ = [
    "AnswerName",
    "Billing",
    "ChoiceBasis",
    "ChoiceLimit",
    "ChoiceReason",
    "DEVICES",
    "Device",
    "OBJECTIVES",
    "Objective",
    "PURCHASES",
    "Purchase",
    "Source",
    "VERDICTS",
    "Verdict",
]
