"""Pure: which GPUs a user asks for, written as `sky gpus list` and `dstack offer --gpu` read it.
Design notes: docs/reference/modules.md (pricing/gpus.py)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from planner.errors import InputError, did_you_mean

EXAMPLES = "A100, H100:8, L4:1..4, 24GB..80GB"
_COUNT = re.compile(r"\d{1,4}")  # a GPU count: a longer number is not one (and not parsed)
_MEMORY = re.compile(r"\d{1,6}(?:\.\d{1,6})?GB", re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
_NEGATIVE = re.compile(r"-\d+(?:\.\d+)?(?:GB)?", re.IGNORECASE)  # -5GB, -2: below zero


@dataclass(frozen=True)
class GpuFilter:
    """GPUs asked for: a model (None: any), a count range and a memory range per GPU (GB), each end optional."""

    name: str | None = None
    count_min: int | None = None
    count_max: int | None = None
    memory_min_gb: float | None = None
    memory_max_gb: float | None = None
    text: str = ""  # as the user wrote it

    def matches(self, gpu_name: str, count: int, memory_gb: float | None) -> bool:
        if count <= 0:
            return False
        if self.name is not None and not name_matches(self.name, gpu_name):
            return False
        if self.count_min is not None and count < self.count_min:
            return False
        if self.count_max is not None and count > self.count_max:
            return False
        if self.memory_min_gb is not None and (memory_gb is None or memory_gb < self.memory_min_gb):
            return False
        return not (
            self.memory_max_gb is not None and (memory_gb is None or memory_gb > self.memory_max_gb)
        )


@dataclass(frozen=True)
class NoMatch:
    """Why no instance matches a price query, as facts (the report words them): the filter that leaves nothing, and
    what the catalog has instead. `why`: "count" (the model never comes with that many GPUs), "memory" (nor with that
    much memory per GPU), "region" (priced elsewhere only), "other" (the other filters together)."""

    why: Literal["count", "memory", "region", "other"]
    asked: GpuFilter | None = None  # the GPU filter (None: none given)
    gpu: str | None = None  # the model asked for as the catalog spells it (None: any GPU)
    # memory per GPU asked for: the filter's and --min-gpu-memory's
    memory_min_gb: float | None = None
    memory_max_gb: float | None = None
    region: str | None = None  # --region as given
    counts: tuple[int, ...] = ()  # the GPUs per instance the model (any GPU) comes with, any region
    memory_gb: tuple[float, ...] = ()  # each GPU's memory, the model's variants (every GPU's)
    regions: tuple[str, ...] = ()  # "region": where the rest of the query is priced, cheapest first


def name_matches(asked: str, gpu_name: str) -> bool:
    """'A100' is the A100 and the A100-80GB; 'L4' is not the L40S; case does not matter."""
    asked, gpu = asked.lower(), gpu_name.lower()
    return gpu == asked or gpu.split("-")[0] == asked


def _cut(text: str, most: int = 60) -> str:
    """`text` quoted, shortened past `most` characters."""
    return repr(text if len(text) <= most else text[: most - 3] + "...")


def parse_gpu_filter(text: str, known: Iterable[str], field: str = "GPU") -> GpuFilter:
    """`text` as a GpuFilter. Raises InputError naming the field, the value and the form (an unknown model: the close
    names)."""
    known = sorted(set(known))
    said = _cut(text)  # a pasted page is not echoed whole
    name = None
    counts: tuple[int | None, int | None] | None = None
    memory: tuple[float | None, float | None] | None = None
    for token in [t.strip() for t in text.split(":")]:
        ends = token.split("..", 1)
        ranged = len(ends) == 2
        if not token or not any(ends):
            raise InputError(f"{field} {said}: an empty part", hint=f"write it as {EXAMPLES}")
        negative = next((e for e in ends if _NEGATIVE.fullmatch(e)), None)
        if negative is not None:  # -5GB, -2: a size or a count below zero
            raise InputError(
                f"{field} {said}: "
                + (
                    f"a GPU's memory must be more than 0 GB, got {negative}"
                    if negative.upper().endswith("GB")
                    else f"a GPU count must be at least 1, got {negative}"
                ),
                hint=f"write it as {EXAMPLES}",
            )
        if all(_COUNT.fullmatch(e) or not e for e in ends):
            if counts is not None:
                raise InputError(f"{field} {said}: two GPU counts", hint=f"write it as {EXAMPLES}")
            low, high = (int(e) if e else None for e in (ends[0], ends[-1]))
            counts = (low, high) if ranged else (low, low)
        elif all(_MEMORY.fullmatch(e) or not e for e in ends):
            if memory is not None:
                raise InputError(
                    f"{field} {said}: two memory sizes", hint=f"write it as {EXAMPLES}"
                )
            low_m, high_m = (float(e[:-2]) if e else None for e in (ends[0], ends[-1]))
            memory = (low_m, high_m) if ranged else (low_m, low_m)
        elif not ranged and _NAME.fullmatch(token):
            if name is not None and not any(name_matches(token, k) for k in known):
                raise InputError(  # H100:a: a count meant, not a second model
                    f"{field} {said}: the count after ':' must be a whole number or a range like "
                    f"1..4, got {_cut(token)}",
                    hint=f"write it as {EXAMPLES}",
                )
            if name is not None:
                raise InputError(
                    f"{field} {said}: two GPU models",
                    hint="give one model; compare them with `planner prices --gpu`",
                )
            if not any(name_matches(token, k) for k in known):
                raise InputError(
                    f"{field} {said}: no GPU named {_cut(token)} in the catalog{did_you_mean(token.upper(), known)}",
                    hint="the catalog's GPUs: " + ", ".join(known),
                )
            name = token
        else:
            raise InputError(
                f"{field} {said}: {_cut(token)} is neither a GPU model, a count (8, 1..4) nor a memory size "
                "(24GB, 40GB..80GB)",
                hint=f"write it as {EXAMPLES}",
            )
    c_low, c_high = counts or (None, None)
    m_low, m_high = memory or (None, None)
    below_one = [c for c in (c_low, c_high) if c is not None and c < 1]
    if below_one:
        raise InputError(
            f"{field} {said}: a GPU count must be at least 1, got {below_one[0]}",
            hint=f"write it as {EXAMPLES}",
        )
    if c_low is not None and c_high is not None and c_high < c_low:
        raise InputError(
            f"{field} {said}: the count range's low end comes first",
            hint=f"write it as {c_high}..{c_low}",
        )
    if m_low is not None and m_high is not None and m_high < m_low:
        raise InputError(
            f"{field} {said}: the memory range's low end comes first",
            hint=f"write it as {EXAMPLES}",
        )
    if m_high is not None and m_high <= 0:
        raise InputError(
            f"{field} {said}: a GPU's memory must be more than 0 GB",
            hint=f"write it as {EXAMPLES}",
        )
    return GpuFilter(name, c_low, c_high, m_low, m_high, text)


GIB_TO_GB = 2**30 / 1e9


def vendor_gb(sheet_gb: float | None, catalog_gib: float | None) -> float | None:
    """A GPU's memory as its vendor states it (GB): its sheet's figure, else the catalog's GiB converted (rounded)."""
    if sheet_gb:
        return float(sheet_gb)
    if catalog_gib is None or catalog_gib != catalog_gib:  # NaN: not in the catalog
        return None
    return float(round(catalog_gib * GIB_TO_GB))
