"""`--fallback next`'s ranking (planner.core.plan.next_best): the plan's best rented instances after the one that had
no capacity, of its kind, none already in the run, best first."""

from __future__ import annotations

from planner.core.decide import decide
from planner.core.plan import Option, next_best


def rented(itype: str, device: str, price: float, seconds: float, fits: bool = True) -> Option:
    return Option(
        f"aws:{itype}",
        device,
        "predicted",
        price,
        billing="ec2",
        instance_type=itype,
        train_seconds=seconds,
        train_seconds_low=seconds * 0.9,
        train_seconds_high=seconds * 1.1,
        fits=fits,
        gpus_used=1 if device == "cuda" else None,
    )


def test_the_next_best_are_of_the_same_kind_in_rank_order_without_the_runs_own_or_what_cannot_run():
    plan = decide(
        [
            Option(
                "local",
                "cpu",
                "measured",
                0.0,
                train_seconds=9000.0,
                train_seconds_low=8000.0,
                train_seconds_high=10000.0,
            ),
            rented("g5.xlarge", "cuda", 1.0, 600.0),
            rented("g4dn.xlarge", "cuda", 0.5, 1500.0),
            rented("g6.xlarge", "cuda", 0.8, 700.0),
            rented("p5.48xlarge", "cuda", 98.0, 100.0, fits=True),
            rented("g6e.xlarge", "cuda", 1.8, 500.0, fits=False),
            rented("c7i.xlarge", "cpu", 0.18, 7000.0),
            rented("c6i.xlarge", "cpu", 0.17, 8000.0),
        ],
        "cheapest",
    )
    by_cost = sorted(
        ("g4dn.xlarge", "g6.xlarge", "p5.48xlarge"),
        key=lambda t: next(o.cost_usd for o in plan.options if o.instance_type == t),
    )
    assert (
        next_best(plan, "g5.xlarge", "cuda", set()) == by_cost
    )  # GPUs only, the one that cannot fit left out
    assert (
        next_best(plan, "g5.xlarge", "cuda", {"g6.xlarge"}, count=1)
        == [t for t in by_cost if t != "g6.xlarge"][:1]
    )
    assert next_best(plan, "c7i.xlarge", "cpu", set()) == [
        "c6i.xlarge"
    ]  # this machine is not rented
