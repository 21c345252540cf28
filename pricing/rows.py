"""Pure: a price list as typed rows (`planner prices`, the TUI's Targets table). The catalog is a pandas frame
inside `pricing/catalog.py`; what leaves it for the fronts is these rows, read once (`catalog.price_rows`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from pricing.gpus import NoMatch


@dataclass(frozen=True)
class PriceRow:
    """One instance type in one region. Memory: `memory_gib` the instance's; `gpu_memory_gib` each GPU's as AWS
    states it (MiB / 1024), `gpu_memory_gb` as its vendor does (None: no GPU, or unknown). Prices in USD per hour
    (None: not offered); spot over the region's `zones`. `accelerator`: an accelerator that is not an NVIDIA GPU
    ("Inferentia2 x1"; None: none). `price_usd_per_hour`: the query's purchase option's. `facts_note`: what the
    device model lacks to predict the row (None: nothing)."""

    instance_type: str
    region: str
    vcpus: int
    memory_gib: float
    arch: str
    gpu_name: str | None
    gpu_count: int
    gpu_memory_gib: float | None
    gpu_memory_gb: float | None
    ondemand_usd_per_hour: float | None
    spot_usd_per_hour_min: float | None
    spot_usd_per_hour_median: float | None
    zones: int
    source: str
    as_of: str
    accelerator: str | None
    price_usd_per_hour: float | None
    facts_note: str | None

    @property
    def family(self) -> str:
        """'c7i' of c7i.xlarge."""
        return self.instance_type.split(".")[0]

    def to_json(self) -> dict[str, object]:
        """The row as `planner prices --json` writes it (the price of the query's purchase is its own column)."""
        data: dict[str, object] = asdict(self)
        del data["price_usd_per_hour"]
        return data


@dataclass(frozen=True)
class PriceList:
    """A price query's rows in the order asked for, where the prices come from, and why nothing matched when
    nothing did (`no_match`; None when rows were found)."""

    source: str
    as_of: str
    note: str
    rows: tuple[PriceRow, ...]
    no_match: NoMatch | None = None
