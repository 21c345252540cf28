"""Pure: how long a gradient all-reduce takes on an instance's GPU interconnect, or across
instances. Design notes: docs/reference/modules.md (planner/core/predict/fabric.py)."""

from __future__ import annotations

from dataclasses import dataclass

from planner.core.remarks import NoBandwidth
from pricing.facts import Interconnect as Interconnect
from pricing.facts import interconnect_from_row as interconnect_from_row

NVLINK_LINK_BYTES = {
    "volta": 20.0e9,
    "ampere": 20.0e9,
    "ada": 20.0e9,
    "hopper": 20.6e9,
}  # achievable, per link
NVLINK_BIDIR_PER_LINK = 50.0  # GB/s both ways per NVLink (gen 2-4)
AMPERE_BUS_CAP = 235.0e9  # NCCL's tuning model caps compute capability 8.0 rings here
PCIE_X16_BYTES = {3: 16 * 60 / 80 * 1e9, 4: 16 * 120 / 80 * 1e9, 5: 16 * 240 / 80 * 1e9}
NET_EFFICIENCY = 12.0 / 12.5  # NCCL: 12 GB/s per 100 Gbit/s (12.5 GB/s line rate)
BASE_LATENCY = 8.4e-6
HOP_LATENCY = {"nvlink": 3.4e-6, "nvswitch": 3.4e-6, "pcie": 5.7e-6, "net": 9.6e-6}
RING_PLATEAU = 1.9


@dataclass(frozen=True)
class Fabric:
    """What one all-reduce of a data-parallel job crosses."""

    ranks: int
    bus_bytes_per_second: float
    kind: str  # nvlink | nvswitch | pcie | net | measured
    hop_latency: float = 0.0  # per ring step inside an instance
    base_latency: float = BASE_LATENCY
    instances: int = 1
    net_hop_latency: float = HOP_LATENCY["net"]

    @classmethod
    def measured(cls, ranks: int, bus_bytes_per_second: float, latency_seconds: float) -> Fabric:
        """From a measured all-reduce (the bench's loopback fit): a fixed latency, no per-hop term."""
        return cls(ranks, bus_bytes_per_second, "measured", 0.0, latency_seconds)

    def describe(self) -> str:
        where = f"{self.instances} instances over the network" if self.instances > 1 else self.kind
        return f"{where}, {self.bus_bytes_per_second / 1e9:.3g} GB/s bus bandwidth"


def allreduce_seconds(nbytes: float, fabric: Fabric) -> float:
    """One ring all-reduce of `nbytes` on every rank (0 for a single rank or an empty buffer)."""
    n = fabric.ranks
    if n <= 1 or nbytes <= 0:
        return 0.0
    steps = 2 * (n - 1)
    inter = 2 * (fabric.instances - 1)
    latency = (
        fabric.base_latency + (steps - inter) * fabric.hop_latency + inter * fabric.net_hop_latency
    )
    if fabric.instances > 1:
        latency *= RING_PLATEAU
    return latency + 2 * (n - 1) / n * nbytes / fabric.bus_bytes_per_second


def intra_bus_bytes(link: Interconnect, gpus: int, generation: str) -> tuple[float, str] | None:
    """(achievable bus bandwidth of a ring of `gpus` GPUs inside the instance, link kind), or None
    when the row lacks the figure."""
    if link.kind in ("nvlink", "nvswitch"):
        gbps = link.nvlink_for(gpus)
        if gbps is None:
            return None
        bus = (
            gbps
            / NVLINK_BIDIR_PER_LINK
            * NVLINK_LINK_BYTES.get(generation, NVLINK_LINK_BYTES["ampere"])
        )
        if generation == "ampere":
            bus = min(bus, AMPERE_BUS_CAP)
        return bus, link.kind
    if link.pcie_gen in PCIE_X16_BYTES:
        return PCIE_X16_BYTES[link.pcie_gen], "pcie"
    return None


def fabric_for(
    link: Interconnect, generation: str, gpus: int, instances: int = 1
) -> Fabric | NoBandwidth:
    """The fabric of `gpus` GPUs per instance on `instances` instances, or why it cannot be modelled."""
    intra = intra_bus_bytes(link, gpus, generation)
    if intra is None:
        return NoBandwidth(link.instance_type, link.kind, gpus)
    bus, kind = intra
    hop = HOP_LATENCY[kind]
    if instances <= 1:
        return Fabric(gpus, bus, kind, hop)
    if not link.network_gbps:
        return NoBandwidth(link.instance_type, "network")
    net = link.network_gbps / 8 * 1e9 * NET_EFFICIENCY
    return Fabric(gpus * instances, min(bus, net), "net", hop, instances=instances)
