"""Pure: what a SkyPilot task's `resources` ask for (accelerators, instance types, vCPUs, also in `any_of` and
`ordered`; where and how it would be bought), read as SkyPilot reads them, refused by field where SkyPilot would
refuse them too (planner/core/task.py reads the rest of the task)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from planner.errors import InputError

if TYPE_CHECKING:
    from pricing.facts import InstanceFacts

# `L4`, `A100-80GB:8`
ACCELERATOR = re.compile(r"^\s*([A-Za-z][\w.-]*)\s*(?::\s*(\d+(?:\.\d+)?))?\s*$")
CPUS = re.compile(r"^\s*(\d+)\s*(\+?)\s*$")  # `4`, `8+`
CHOICE_KEYS = (
    "accelerators",
    "instance_type",
    "cpus",
)  # what a task's resources choose an instance by


@dataclass(frozen=True)
class Accelerator:
    """One accelerator choice of a task: `L4:1` (SkyPilot's names, as the price catalog has them)."""

    name: str
    count: int = 1

    def __str__(self) -> str:
        return f"{self.name}:{self.count}"


@dataclass(frozen=True)
class TaskAsks:
    """What a task's `resources` ask for (SkyPilot's rule: an instance with exactly that accelerator and count, that
    instance type, at least / exactly that many vCPUs; several choices, as `any_of`, `ordered` or an accelerator
    list, are any of them), as written (`written`), and where and how it would be bought (`region`, `use_spot`;
    `cloud` other than AWS is said, as the planner prices AWS only)."""

    written: str = ""
    accelerators: list[Accelerator] = field(default_factory=list)
    instance_types: list[str] = field(default_factory=list)
    cpus: int | None = None
    cpus_or_more: bool = True
    region: str | None = None
    use_spot: bool | None = None
    cloud: str | None = None

    @property
    def chooses(self) -> bool:
        """Whether it names instances (an accelerator, an instance type, a vCPU count), not only where to buy."""
        return bool(self.accelerators or self.instance_types or self.cpus)

    def matches(self, facts: InstanceFacts) -> bool:
        """Whether an instance is one the task asks for."""
        if self.instance_types and facts.instance_type in self.instance_types:
            return True
        if self.accelerators:
            if any(
                facts.gpu_name.lower() == a.name.lower() and facts.gpu_count == a.count
                for a in self.accelerators
            ):
                return self._cpus_ok(facts)
            return False
        return (
            not self.instance_types
            and self.cpus is not None
            and not facts.gpu_name
            and self._cpus_ok(facts)
        )

    def _cpus_ok(self, facts: InstanceFacts) -> bool:
        if self.cpus is None:
            return True
        return facts.vcpus >= self.cpus if self.cpus_or_more else facts.vcpus == self.cpus


def task_asks(resources: Any, source: str) -> TaskAsks | None:
    """A task's `resources` as TaskAsks (None: none given). InputError naming the field for a value SkyPilot would
    refuse too (an accelerator count that is not a whole number, `cpus: many`, `use_spot: maybe`)."""
    if resources is None or resources == {}:
        return None
    if not isinstance(resources, dict):
        raise InputError(
            f"{source}: resources: must be a mapping (`resources: {{accelerators: L4:1}}`), got "
            f"{type(resources).__name__}",
            hint="write resources as SkyPilot does: `resources:` then "
            "`accelerators: L4:1` indented under it",
        )
    choices = [
        resources,
        *[
            _choice(c, f"{source}: resources.{k}", k)
            for k in ("any_of", "ordered")
            for c in _list(resources.get(k), f"{source}: resources.{k}")
        ],
    ]
    accelerators: list[Accelerator] = []
    instance_types: list[str] = []
    cpus: tuple[int, bool] | None = None
    for choice in choices:
        accelerators += _accelerators(choice.get("accelerators"), source)
        itype = choice.get("instance_type")
        if itype is not None:
            instance_types.append(str(itype))
        if choice.get("cpus") is not None and cpus is None:
            cpus = _cpus(choice["cpus"], source)
    infra = str(resources.get("infra") or "")
    parts = infra.split("/") if infra else []
    cloud = str(resources.get("cloud") or (parts[0] if parts else "")).lower() or None
    region = resources.get("region") or (parts[1] if len(parts) > 1 and parts[1] != "*" else None)
    spot = resources.get("use_spot")
    if spot is not None and not isinstance(spot, bool):
        raise InputError(
            f"{source}: resources.use_spot: must be true or false, got {spot!r}",
            hint="write `use_spot: true` to price spot instances, as sky launch buys them",
        )
    written = ", ".join(
        f"{k}: {show_value(resources[k])}"
        for k in (*CHOICE_KEYS, "any_of", "ordered")
        if k in resources
    )
    return TaskAsks(
        written,
        list(dict.fromkeys(accelerators)),
        list(dict.fromkeys(instance_types)),
        cpus[0] if cpus else None,
        cpus[1] if cpus else True,
        str(region) if region else None,
        spot,
        cloud,
    )


def _list(value: Any, field_name: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(
            f"{field_name}: must be a list of resources, got {type(value).__name__}",
            hint="e.g. `any_of: [{accelerators: L4:1}, {accelerators: A10G:1}]`",
        )
    return value


def _choice(value: Any, field_name: str, key: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(
            f"{field_name}: each choice must be a mapping, got {value!r}",
            hint=f"e.g. `{key}: [{{accelerators: L4:1}}, {{accelerators: A10G:1}}]`",
        )
    return value


def _accelerators(value: Any, source: str) -> list[Accelerator]:
    """`L4`, `L4:1`, `{L4: 1, A10G: 1}`, `[L4:1, A10G:1]`: any of them."""
    if value is None:
        return []
    pairs: list[tuple[Any, Any]]
    if isinstance(value, dict):
        pairs = [(k, 1 if v is None else v) for k, v in value.items()]
    elif isinstance(value, (list, set)):
        pairs = [(v, None) for v in value]
    else:
        pairs = [(value, None)]
    out = []
    for name, count in pairs:
        text = str(name) if count is None else f"{name}:{count}"
        m = ACCELERATOR.match(text)
        if (
            m is None
            or (m.group(2) is not None and float(m.group(2)) != int(float(m.group(2))))
            or (m.group(2) is not None and int(float(m.group(2))) < 1)
        ):
            raise InputError(
                f"{source}: resources.accelerators: {text!r} is not an accelerator and a whole count",
                hint="write it as SkyPilot does: `accelerators: L4:1` (or `{L4: 1, A10G: 1}` for either)",
            )
        out.append(Accelerator(m.group(1), int(float(m.group(2) or 1))))
    return out


def _cpus(value: Any, source: str) -> tuple[int, bool]:
    m = CPUS.match(str(value))
    if m is None or int(m.group(1)) < 1:
        raise InputError(
            f"{source}: resources.cpus: {value!r} is not a vCPU count",
            hint="write `cpus: 4` (exactly 4 vCPUs) or `cpus: 4+` (at least 4), as SkyPilot reads it",
        )
    return int(m.group(1)), bool(m.group(2))


def show_value(value: Any) -> str:
    """A YAML value as the task wrote it, in flow style: `{L4: 1}`, `[L4:1, A10G:1]`."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {show_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(show_value(v) for v in value) + "]"
    return str(value)
