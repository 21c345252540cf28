"""Hardware facts as the data tables state them (pricing/data/*.csv, the catalog): what a GPU, a
processor, an instance and its interconnect are. The data layer owns these types; the device model
(planner/core/predict) reads them and the catalog (pricing/catalog.py) builds them. Pure: no I/O."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, get_args

Purchase = Literal["on-demand", "spot"]  # how an instance is bought: the price the plan uses
PURCHASES: tuple[Purchase, ...] = get_args(Purchase)
# a plan's --region: every region of the price data, each instance type in its cheapest
ALL_REGIONS = "all"


def is_many_regions(region: str | None) -> bool:
    """A plan over several regions (`all`, or a comma-separated list): each instance type priced in its cheapest."""
    return region is not None and (region == ALL_REGIONS or "," in region)


@dataclass(frozen=True)
class GpuSpec:
    name: str
    memory_gib: float
    bandwidth_gbps: float
    fp32_tflops: float | None
    tensor_tflops: dict[str, float | None]  # dense, by precision: tf32, bf16, fp16
    generation: str = ""  # volta | turing | ampere | ada | hopper ("": inferred from the figures)
    sm_count: int | None = None
    tdp_watts: float | None = None  # the board's power limit
    base_clock_mhz: float | None = None
    boost_clock_mhz: float | None = None  # the clock the sheet's TFLOPS assume
    # precisions a published training measurement backs; None: not said
    published: tuple[str, ...] | None = None

    @property
    def arch(self) -> str:
        if self.generation:
            return self.generation
        # Rows without a generation (older tables): bf16 tensor cores mean Ampere or later.
        return "ampere" if _num(self.tensor_tflops.get("bf16")) else "volta"

    def peak_flops(self, math_or_precision: str) -> float | None:
        """Peak FLOP/s of a math mode (`math_mode`) or, for compatibility, a precision."""
        key = math_or_precision
        if key in ("fp32", "bf16-emulated"):
            tflops = _num(self.fp32_tflops)
        else:
            tflops = _num(self.tensor_tflops.get(key))
        return None if tflops is None else tflops * 1e12


def _num(value: float | int | str | None) -> float | None:
    if value is None or value == "":
        return None
    v = float(value)
    return None if math.isnan(v) else v


def gpu_spec_from_row(row: dict) -> GpuSpec:
    """A GpuSpec from one row of pricing/data/gpu_specs.csv or gpu_parts.csv (as a dict; NaN/empty = unknown)."""
    sm = _num(row.get("sm_count"))
    published = row.get("published_training")
    return GpuSpec(
        str(row.get("gpu_name") or row.get("part")),
        float(row.get("memory_gib") or 0.0),
        float(row["memory_bandwidth_gbps"]),
        _num(row.get("fp32_tflops")),
        {
            "tf32": _num(row.get("tf32_tensor_tflops_dense")),
            "bf16": _num(row.get("bf16_tensor_tflops_dense")),
            "fp16": _num(row.get("fp16_tensor_tflops_dense")),
        },
        str(row.get("generation") or "").lower() if _num_or_str(row.get("generation")) else "",
        int(sm) if sm else None,
        _num(row.get("tdp_watts")),
        _num(row.get("base_clock_mhz")),
        _num(row.get("boost_clock_mhz")),
        (tuple(str(published).split()) if _num_or_str(published) else ())
        if "published_training" in row
        else None,
    )


def _num_or_str(value) -> bool:  # noqa: ANN001 - NaN from pandas, str, None
    return isinstance(value, str) and bool(value)


AMX_BF16_FLOPS_PER_CYCLE = 1024  # per core, Sapphire Rapids AMX (bf16 TMUL: 512 FMA per cycle)


@dataclass(frozen=True)
class CpuFacts:
    """Per-core facts of one processor (a catalog family or this machine)."""

    name: str
    clock_ghz: float
    vector_bits: int  # widest usable SIMD width (512 AVX-512, 256 AVX2/SVE-256, 128 NEON/SVE-128)
    fma_units: int = 2  # SIMD FMA pipes per core
    bf16: bool = False  # bf16 dot-product instructions (AVX512_BF16, SVE/NEON BF16)
    amx: bool = False  # Intel AMX tiles (bf16 matmuls)
    ipc: float = 1.0  # scalar speed per GHz relative to a current x86 core (1 unless sourced)
    memory_gbps_per_core: float | None = None

    def flops_per_cycle(self, precision: str) -> float:
        fp32 = 2.0 * self.fma_units * self.vector_bits / 32
        if precision == "bf16":
            if self.amx:
                return float(AMX_BF16_FLOPS_PER_CYCLE)
            if self.bf16:
                return 2.0 * fp32  # two bf16 products per fp32 lane
        return fp32  # fp32, tf32 (no TF32 units on CPUs), fp16 autocast and emulated bf16


@dataclass(frozen=True)
class Interconnect:
    """One row of pricing/data/interconnects.csv: how an instance's GPUs talk to each other and to
    other instances. `nvlink_gbps` maps a GPU count to the bidirectional NVLink GB/s per GPU a ring of
    that many GPUs can use (one entry, key 0, when every count gets the same, as on NVSwitch)."""

    instance_type: str
    gpus: int
    kind: str  # "nvswitch" | "nvlink" | "pcie"
    nvlink_gbps: dict[int, float]
    pcie_gen: int | None
    network_gbps: float | None  # None: not sourced
    efa: bool | None  # None: not sourced

    def nvlink_for(self, gpus: int) -> float | None:
        if not self.nvlink_gbps:
            return None
        if 0 in self.nvlink_gbps:
            return self.nvlink_gbps[0]
        fitting = [k for k in self.nvlink_gbps if k >= gpus]
        return self.nvlink_gbps[min(fitting)] if fitting else None


def interconnect_from_row(row: dict) -> Interconnect:
    """An Interconnect from one row of pricing/data/interconnects.csv (a dict; NaN/empty = unknown).
    `nvlink_gbps_per_gpu` is "600" (any count) or "2:100 4:200 8:300" (per ring size)."""

    def num(key: str) -> float | None:
        value = row.get(key)
        if value is None or value == "" or (isinstance(value, float) and math.isnan(value)):
            return None
        return float(value)

    text = row.get("nvlink_gbps_per_gpu")
    nvlink: dict[int, float] = {}
    if isinstance(text, str) and text.strip():
        for part in text.split():
            count, _, value = part.rpartition(":")
            nvlink[int(count) if count else 0] = float(value)
    elif (single := num("nvlink_gbps_per_gpu")) is not None:
        nvlink[0] = single  # a single number read as a float
    gen, efa = num("pcie_gen"), num("efa")
    return Interconnect(
        str(row["instance_type"]),
        int(row["gpus"]),
        str(row["interconnect"]),
        nvlink,
        int(gen) if gen is not None else None,
        num("network_gbps"),
        None if efa is None else bool(efa),
    )


@dataclass(frozen=True)
class InstanceFacts:
    """One catalog row: an instance type in a region, what it has and what it costs."""

    instance_type: str
    region: str
    vcpus: int
    memory_gib: float
    arch: str
    gpu_name: str  # "" for CPU instances
    gpu_count: int
    gpu_memory_gib: float | None  # per GPU
    ondemand_usd_per_hour: float | None
    spot_usd_per_hour_median: float | None  # None: spot not offered

    @property
    def family(self) -> str:
        return self.instance_type.split(".")[0]

    def price(self, purchase: str) -> float | None:
        """The hourly price the plan uses: on-demand, or the median spot price over zones."""
        return (
            self.ondemand_usd_per_hour if purchase == "on-demand" else self.spot_usd_per_hour_median
        )
