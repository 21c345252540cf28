"""The price catalog: a fixed-schema DataFrame, where it came from, and query functions on it.
Design notes: docs/reference/modules.md (pricing/catalog.py)."""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from planner.errors import CatalogLookupError, InputError, did_you_mean
from pricing.facts import (
    PURCHASES,
    CpuFacts,
    InstanceFacts,
    gpu_spec_from_row,
    interconnect_from_row,
)
from pricing.gpus import GpuFilter, NoMatch, name_matches
from pricing.rows import PriceRow

COLUMNS = [
    "instance_type",
    "region",
    "vcpus",
    "memory_gib",
    "arch",
    "gpu_name",
    "gpu_count",
    "gpu_memory_gib",
    "ondemand_usd_per_hour",
    "spot_usd_per_hour_min",
    "spot_usd_per_hour_median",
    "zones",
    "source",
    "as_of",
]
# An accelerator that is not an NVIDIA GPU (AWS Neuron, Gaudi, AMD): its facts ("Inferentia2 x1"), kept
# beside the columns above; such an instance is a CPU instance to the planner (PyTorch on CUDA).
ACCELERATOR = "accelerator"
SNAPSHOT_SOURCE = "AWS prices, snapshot of 2025 H2 (SkyPilot catalog)"
SNAPSHOT_AS_OF = "2025 H2"
LIVE_SOURCE = "AWS Price List API and spot price history (live refresh)"
DEFAULT_MAX_AGE_HOURS = 24.0


@dataclass(frozen=True)
class Catalog:
    frame: pd.DataFrame
    source: str
    as_of: str
    note: str


def typed(df: pd.DataFrame) -> pd.DataFrame:
    """The frame in the catalog's schema: COLUMNS in order, numbers as numbers (NaN: unknown or not offered)."""
    df = df.copy()
    for col in (
        "vcpus",
        "memory_gib",
        "gpu_count",
        "gpu_memory_gib",
        "ondemand_usd_per_hour",
        "spot_usd_per_hour_min",
        "spot_usd_per_hour_median",
        "zones",
    ):
        df[col] = pd.to_numeric(df[col], errors="coerce")
    df["gpu_count"] = df["gpu_count"].fillna(0).astype(int)
    if ACCELERATOR not in df:
        df[ACCELERATOR] = ""
    for col in ("gpu_name", "arch", "source", "as_of", ACCELERATOR):
        df[col] = df[col].astype(object).fillna("").astype(str)
    return df[COLUMNS + [ACCELERATOR]].reset_index(drop=True)


DATA_DIR = Path(__file__).resolve().parent / "data"


def load_snapshot() -> pd.DataFrame:
    df = pd.read_csv(DATA_DIR / "aws_prices.csv", dtype={"gpu_name": str})
    df["source"], df["as_of"] = "snapshot", SNAPSHOT_AS_OF
    return typed(df)


def load_gpu_specs() -> pd.DataFrame:
    return pd.read_csv(DATA_DIR / "gpu_specs.csv")


def gpu_specs_by_name() -> dict:
    """gpu_name -> planner.core.predict.GpuSpec for every row of gpu_specs.csv (generation, TF32 included): read once
    per process (the TUI's Targets pane asks on every refresh), a copy each call."""
    return dict(_gpu_specs_by_name())


@functools.cache
def _gpu_specs_by_name() -> dict:
    return {str(r["gpu_name"]): gpu_spec_from_row(r) for r in load_gpu_specs().to_dict("records")}


def gpu_parts_by_name() -> dict:
    """Published part name (each alias of gpu_parts.csv's `published_names`) -> GpuSpec: the parts the
    published measurements were taken on (an A10 for the A10G, an 80 GB PCIe A100 for the A100, ...),
    so the device model is scored on the part measured, with its own power limit and clocks."""
    frame = pd.read_csv(DATA_DIR / "gpu_parts.csv")
    out = {}
    for row in frame.to_dict("records"):
        spec = gpu_spec_from_row(row)
        for alias in str(row["published_names"]).split("|"):
            out[alias.strip()] = spec
    return out


def load_interconnects() -> pd.DataFrame:
    """Per multi-GPU instance type: GPU interconnect (PCIe, NVLink, NVSwitch), NVLink bandwidth, PCIe
    generation, network bandwidth and EFA, with sources (pricing/data/interconnects.csv)."""
    return pd.read_csv(
        DATA_DIR / "interconnects.csv", dtype={"nvlink_gbps_per_gpu": str, "instance_type": str}
    )


def interconnects_by_type() -> dict:
    """instance_type -> planner.core.predict.fabric.Interconnect for every row of interconnects.csv."""
    return {
        str(r["instance_type"]): interconnect_from_row(r)
        for r in load_interconnects().to_dict("records")
    }


def load_cpu_specs() -> pd.DataFrame:
    """Per instance family (c6i, c7i, m7i, c7a, c7g, c8g): processor, clock, vector width, FMA units,
    bf16/AMX support, memory, with sources (pricing/data/cpu_specs.csv)."""
    return pd.read_csv(DATA_DIR / "cpu_specs.csv", dtype={"family": str})


def cpu_facts_by_family() -> dict:
    """family -> planner.core.predict.CpuFacts for every row of cpu_specs.csv with a known clock."""
    out = {}
    for r in load_cpu_specs().to_dict("records"):
        if r.get("clock_ghz") != r.get("clock_ghz"):  # NaN: not sourced
            continue
        mem = r.get("memory_gbps_per_core")
        out[str(r["family"])] = CpuFacts(
            str(r["processor"]),
            float(r["clock_ghz"]),
            int(r["vector_bits"]),
            int(r["fma_units"]),
            bool(int(r["bf16"])),
            bool(int(r["amx"])),
            memory_gbps_per_core=None if mem != mem else float(mem),
        )
    return out


def facts_notes(df: pd.DataFrame) -> pd.Series:
    """Per row, what the device model lacks to predict the instance ('' when nothing), so a catalog
    that lists every instance type says which it cannot predict instead of guessing: a GPU or other
    accelerator without a row in gpu_specs.csv is priced, not predicted; a CPU family without sourced
    processor facts (cpu_specs.csv) is predicted at this machine's per-core speed; an accelerator that is
    not an NVIDIA GPU (the `accelerator` column) leaves a CPU instance to the planner."""
    gpus = set(load_gpu_specs()["gpu_name"].astype(str))
    cpus = set(cpu_facts_by_family())

    def note(count: int, name: str, itype: str, other: str) -> str:
        if count:
            return (
                ""
                if name in gpus
                else f"no spec for GPU {name} (pricing/data/gpu_specs.csv): priced, not predicted"
            )
        family = itype.split(".")[0]
        notes = [f"its {other} is not an NVIDIA GPU: planned as a CPU instance"] if other else []
        if family not in cpus:
            notes.append(
                f"no sourced processor facts for {family} (pricing/data/cpu_specs.csv): predicted at this "
                "machine's per-core speed"
            )
        return "; ".join(notes)

    others = df[ACCELERATOR] if ACCELERATOR in df else [""] * len(df)
    return pd.Series(
        [
            note(c, n, t, o)
            for c, n, t, o in zip(df["gpu_count"], df["gpu_name"], df["instance_type"], others)
        ],
        index=df.index,
        dtype=object,
    )


def _cpuinfo(given: str | None) -> str | None:
    """/proc/cpuinfo's text (or the given text); None where there is none (macOS, Windows)."""
    if given is not None:
        return given
    try:
        # PLANNER_CPUINFO: another processor's file, as the bench reads it (runner/bench/procfs.cpuinfo_path)
        return Path(os.environ.get("PLANNER_CPUINFO") or "/proc/cpuinfo").read_text()
    except OSError:
        return None


def local_cpu_flags(cpuinfo: str | None = None) -> set[str] | None:
    """This machine's CPU feature flags from /proc/cpuinfo (x86 `flags`, Arm `Features`); None when it cannot be read."""
    import re

    cpuinfo = _cpuinfo(cpuinfo)
    if cpuinfo is None:
        return None
    line = re.search(r"^(?:flags|Features)\s*:\s*(.+)$", cpuinfo, re.M)
    return set(line.group(1).split()) if line else None


def local_cpu_facts(cpuinfo: str | None = None) -> CpuFacts | None:
    """This machine's CpuFacts, read from /proc/cpuinfo (or the given text): model name, clock,
    SIMD width and bf16/AMX flags. FMA units are not visible there: 2 is assumed (every current
    server core). None when /proc/cpuinfo cannot be read (macOS, Windows)."""
    import re

    cpuinfo = _cpuinfo(cpuinfo)
    if cpuinfo is None:
        return None
    name = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    mhz = re.search(r"^cpu MHz\s*:\s*([\d.]+)$", cpuinfo, re.M)
    at = re.search(r"@\s*([\d.]+)\s*GHz", name.group(1)) if name else None
    flags = local_cpu_flags(cpuinfo) or set()
    clock = float(at.group(1)) if at else (float(mhz.group(1)) / 1000 if mhz else None)
    if clock is None:
        return None
    if "avx512f" in flags:
        bits = 512
    elif "avx2" in flags or "sve" in flags:
        bits = 256
    else:
        bits = 128
    bf16 = bool(flags & {"avx512_bf16", "bf16", "svebf16"})
    return CpuFacts(
        name.group(1).strip() if name else "this machine", clock, bits, 2, bf16, "amx_bf16" in flags
    )


def cache_dir() -> Path:
    override = os.environ.get("PLANNER_CACHE_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("cloud-planner"))


def cache_paths(directory: Path | None = None) -> tuple[Path, Path]:
    d = directory or cache_dir()
    return d / "aws_prices.csv", d / "aws_prices.meta.json"


def max_age_hours() -> float:
    text = os.environ.get("PLANNER_PRICE_MAX_AGE_HOURS")
    if not text:
        return DEFAULT_MAX_AGE_HOURS
    try:
        return float(text)
    except ValueError:
        raise InputError(
            f"PLANNER_PRICE_MAX_AGE_HOURS: must be a number of hours, got {text!r}"
        ) from None


def load_catalog(
    max_age: float | None = None, directory: Path | None = None, now: dt.datetime | None = None
) -> Catalog:
    """The live cache when fresh enough, else the bundled snapshot; `note` says which."""
    max_age = max_age_hours() if max_age is None else max_age
    snapshot = load_snapshot()
    csv_path, meta_path = cache_paths(directory)
    if not (csv_path.exists() and meta_path.exists()):
        return Catalog(
            snapshot,
            SNAPSHOT_SOURCE,
            SNAPSHOT_AS_OF,
            "bundled snapshot (no live prices cached; `planner prices --refresh` fetches them)",
        )
    try:
        meta = json.loads(meta_path.read_text())
        fetched = dt.datetime.fromisoformat(meta["fetched_at"])
        cached = typed(pd.read_csv(csv_path, dtype={"gpu_name": str}))
    except (ValueError, KeyError, OSError, pd.errors.ParserError) as exc:
        return Catalog(
            snapshot,
            SNAPSHOT_SOURCE,
            SNAPSHOT_AS_OF,
            f"bundled snapshot (the price cache is unreadable: {exc})",
        )
    age_h = ((now or dt.datetime.now(dt.timezone.utc)) - fetched).total_seconds() / 3600
    if age_h > max_age:
        return Catalog(
            snapshot,
            SNAPSHOT_SOURCE,
            SNAPSHOT_AS_OF,
            f"bundled snapshot (cached live prices are {age_h:.0f} h old, older than {max_age:g} h; `planner prices --refresh` updates them)",
        )
    if meta.get("source") == "catalog":  # pricing/hosted.py's refresh
        return Catalog(
            cached,
            f"AWS prices from {meta.get('label') or meta.get('url')} (hosted catalog)",
            meta["fetched_at"],
            f"hosted catalog read {age_h:.1f} h ago: {meta.get('summary', '')}".rstrip(": "),
        )
    return Catalog(
        cached, LIVE_SOURCE, meta["fetched_at"], f"live prices fetched {age_h:.1f} h ago"
    )


def write_cache(
    frame: pd.DataFrame,
    fetched_at: dt.datetime,
    regions: list[str],
    directory: Path | None = None,
    **about: str,
) -> Path:
    """The price cache `load_catalog` reads: the frame, and beside it when and what was fetched
    (`about`: the hosted catalog's source, label, url and summary). Each file is replaced whole."""
    csv_path, meta_path = cache_paths(directory)
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = csv_path.with_suffix(".tmp")
    frame.to_csv(tmp, index=False)
    tmp.replace(csv_path)
    meta_tmp = meta_path.with_suffix(".tmp")
    meta_tmp.write_text(
        json.dumps(
            {"fetched_at": fetched_at.isoformat(timespec="seconds"), "regions": regions, **about},
            indent=2,
        )
    )
    meta_tmp.replace(meta_path)
    return csv_path


def merge_live(snapshot: pd.DataFrame, live: pd.DataFrame) -> pd.DataFrame:
    """Live rows replace the snapshot's rows for the same (instance type, region)."""
    keys = set(zip(live["instance_type"], live["region"]))
    kept = snapshot[[k not in keys for k in zip(snapshot["instance_type"], snapshot["region"])]]
    return (
        typed(pd.concat([kept, live], ignore_index=True))
        .sort_values(["instance_type", "region"])
        .reset_index(drop=True)
    )


# ----------------------------------------------------------------------------- queries (frame first)


def regions(df: pd.DataFrame) -> list[str]:
    return sorted(df["region"].unique())


def check_region(df: pd.DataFrame, region: str) -> str:
    """`region` when the price data has it (each of a list; `all`: every region)."""
    known = regions(df)
    for one in region_list(df, region):
        if one not in known:
            raise CatalogLookupError(
                f"region {one!r} is not in the price data{did_you_mean(one, known)}",
                hint=f"use one of: {', '.join(known)}",
            )
    return region


def region_list(df: pd.DataFrame, region: str) -> list[str]:
    """The regions a plan's --region names: one, a comma-separated list, or `all` (every region of the data)."""
    from pricing.facts import ALL_REGIONS

    return regions(df) if region == ALL_REGIONS else region.split(",")


def cheapest_regions(rows: pd.DataFrame, purchase: str = "on-demand") -> pd.DataFrame:
    """One row per instance type: the region where `purchase` is cheapest (a region without that price last; ties:
    the region's name), in the frame's order of instance types."""
    if rows.empty:
        return rows
    ordered = rows.sort_values(
        [price_column(purchase), "region"], na_position="last", kind="stable"
    )
    best = ordered.drop_duplicates("instance_type", keep="first")
    order = {t: i for i, t in enumerate(dict.fromkeys(rows["instance_type"]))}
    return best.iloc[sorted(range(len(best)), key=lambda i: order[best["instance_type"].iloc[i]])]


def check_instance_type(df: pd.DataFrame, instance_type: str) -> str:
    known = sorted(df["instance_type"].unique())
    if instance_type not in known:
        raise CatalogLookupError(
            f"instance type {instance_type!r} is not in the price data{did_you_mean(instance_type, known)}",
            hint="`planner prices` lists the known instance types",
        )
    return instance_type


def instance_row(df: pd.DataFrame, instance_type: str, region: str) -> pd.Series:
    check_instance_type(df, instance_type)
    check_region(df, region)
    rows = df[(df["instance_type"] == instance_type) & (df["region"] == region)]
    if rows.empty:
        offered = sorted(df.loc[df["instance_type"] == instance_type, "region"])
        raise CatalogLookupError(
            f"{instance_type} is not offered in {region}",
            hint=f"it is offered in: {', '.join(offered)}",
        )
    return rows.iloc[0]


def instance_facts(df: pd.DataFrame, instance_type: str, region: str) -> dict:
    row = instance_row(df, instance_type, region)
    return {
        "instance_type": instance_type,
        "region": region,
        "vcpus": int(row["vcpus"]),
        "memory_gib": float(row["memory_gib"]),
        "arch": row["arch"],
        "gpu_name": row["gpu_name"] or None,
        "gpu_count": int(row["gpu_count"]),
        "gpu_memory_gib": None if pd.isna(row["gpu_memory_gib"]) else float(row["gpu_memory_gib"]),
    }


def price_column(purchase: str) -> str:
    if purchase not in PURCHASES:
        raise InputError(f"--purchase: must be one of {' | '.join(PURCHASES)}, got {purchase!r}")
    # Spot plans use the median over zones: the minimum is one lucky zone, rarely where capacity is.
    return "ondemand_usd_per_hour" if purchase == "on-demand" else "spot_usd_per_hour_median"


def hourly_price(
    df: pd.DataFrame, instance_type: str, region: str, purchase: str = "on-demand"
) -> float:
    row = instance_row(df, instance_type, region)
    value = row[price_column(purchase)]
    # e.g. p5e.48xlarge: the source gives no on-demand price
    if pd.isna(value) and purchase == "on-demand":
        raise CatalogLookupError(
            f"{instance_type} has no on-demand price in {region}",
            hint="use --purchase spot, or another instance type",
        )
    if pd.isna(value):
        raise CatalogLookupError(
            f"{instance_type} has no spot price in {region} (spot is not offered there)",
            hint="use --purchase on-demand, or another region",
        )
    return float(value)


def with_vendor_gb(df: pd.DataFrame) -> pd.DataFrame:
    """The rows with `gpu_memory_gb`: each GPU's memory as its vendor states it (pricing/gpus.vendor_gb: the A10G's
    24 GB where AWS reports 22,888 MiB), None for a CPU-only row."""
    from pricing.gpus import vendor_gb

    sheets = {
        name: spec.memory_gib for name, spec in gpu_specs_by_name().items()
    }  # the sheets' figures are GB
    gb = [
        vendor_gb(sheets.get(str(name)), _number(gib)) if count else None
        for name, count, gib in zip(df["gpu_name"], df["gpu_count"], df["gpu_memory_gib"])
    ]
    return df.assign(gpu_memory_gb=pd.Series(gb, index=df.index, dtype="float64"))


def filter_instances(
    df: pd.DataFrame,
    region: str | None = None,
    gpu: bool | None = None,
    arch: str | None = None,
    min_gpu_memory_gb: float | None = None,
    max_price: float | None = None,
    purchase: str = "on-demand",
    gpus: GpuFilter | None = None,
) -> pd.DataFrame:
    """Rows matching every given filter; `gpu=True` GPU only, `gpu=False` CPU only; `min_gpu_memory_gb` and `gpus`
    (a model, a count, memory per GPU) on each GPU's memory in the vendor's GB (the rows get `gpu_memory_gb`)."""
    out = with_vendor_gb(df)
    if region is not None:
        check_region(df, region)
        wanted = region_list(df, region)
        out = out[out["region"].isin(wanted)]
        if len(wanted) > 1:  # several regions: each instance type where `purchase` is cheapest
            out = cheapest_regions(out, purchase)
    if gpu is not None:
        out = out[(out["gpu_count"] > 0) == gpu]
    if arch is not None:
        known = sorted(df["arch"].unique())
        if arch not in known:
            raise InputError(f"--arch: must be one of {' | '.join(known)}, got {arch!r}")
        out = out[out["arch"] == arch]
    if min_gpu_memory_gb is not None:
        out = out[out["gpu_memory_gb"].fillna(0) >= min_gpu_memory_gb]
    if gpus is not None:
        keep = [
            gpus.matches(str(name), int(count or 0), _number(gb))
            for name, count, gb in zip(out["gpu_name"], out["gpu_count"], out["gpu_memory_gb"])
        ]
        out = out[pd.Series(keep, index=out.index, dtype=bool)]
    if max_price is not None:
        out = out[out[price_column(purchase)] <= max_price]
    return out


def no_match(
    df: pd.DataFrame,
    region: str | None = None,
    gpu: bool | None = None,
    arch: str | None = None,
    min_gpu_memory_gb: float | None = None,
    max_price: float | None = None,
    purchase: str = "on-demand",
    gpus: GpuFilter | None = None,
) -> NoMatch:
    """Why `filter_instances` with these arguments finds nothing, from what the catalog has: the GPU model (any GPU
    when none is named) never comes with the count asked, nor with the memory per GPU asked; or it is priced only
    outside `region`; else "other"."""
    asked_min = [
        m for m in (gpus.memory_min_gb if gpus else None, min_gpu_memory_gb) if m is not None
    ]
    memory = (max(asked_min) if asked_min else None, gpus.memory_max_gb if gpus else None)
    out = with_vendor_gb(df)
    supply = out[out["gpu_count"] > 0]
    name = gpus.name if gpus else None
    if name is not None:
        supply = supply[[name_matches(name, str(g)) for g in supply["gpu_name"]]]
        name = min((str(g) for g in supply["gpu_name"]), key=len, default=name).split("-")[0]
    counts = tuple(sorted({int(c) for c in supply["gpu_count"]}))
    sizes = tuple(sorted({float(m) for m in supply["gpu_memory_gb"].dropna()}))
    # the facts of every answer below
    facts = NoMatch("other", gpus, name, *memory, region=region, counts=counts, memory_gb=sizes)

    def within(value: float, low: float | None, high: float | None) -> bool:
        return (low is None or value >= low) and (high is None or value <= high)

    if gpu is not False and counts:
        if gpus and not any(within(c, gpus.count_min, gpus.count_max) for c in counts):
            return replace(facts, why="count")
        if memory != (None, None) and not any(within(m, *memory) for m in sizes):
            return replace(facts, why="memory")
    if region is not None:
        elsewhere = filter_instances(
            df, None, gpu, arch, min_gpu_memory_gb, max_price, purchase, gpus
        )  # every region
        if not elsewhere.empty:
            cheapest = elsewhere.groupby("region")[price_column(purchase)].min()
            ordered = cheapest.sort_values(na_position="last", kind="stable").index
            return replace(facts, why="region", regions=tuple(str(r) for r in ordered))
    return facts


def sort_instances(
    df: pd.DataFrame, by: str = "price", purchase: str = "on-demand"
) -> pd.DataFrame:
    price = price_column(purchase)
    if by == "gpu-memory":
        total = df["gpu_memory_gib"].fillna(0) * df["gpu_count"]
        return (
            df.assign(_total=total)
            .sort_values(["_total", price], ascending=[False, True])
            .drop(columns="_total")
        )
    return df.sort_values([price, "instance_type", "region"], na_position="last")


# ----------------------------------------------------------------------------- typed rows for the planner


def _number(value) -> float | None:
    return None if pd.isna(value) else float(value)


def instances(
    df: pd.DataFrame,
    region: str | None = None,
    gpu: bool | None = None,
    purchase: str = "on-demand",
) -> list[InstanceFacts]:
    """The rows as planner.core.candidates.InstanceFacts (the pure core's type), in the frame's order (several regions:
    each instance type in the one where `purchase` is cheapest)."""
    rows = filter_instances(df, region=region, gpu=gpu, purchase=purchase)
    return [
        InstanceFacts(
            r["instance_type"],
            r["region"],
            int(r["vcpus"]),
            float(r["memory_gib"]),
            r["arch"],
            r["gpu_name"] or "",
            int(r["gpu_count"]),
            _number(r["gpu_memory_gib"]),
            _number(r["ondemand_usd_per_hour"]),
            _number(r["spot_usd_per_hour_median"]),
        )
        for r in rows.to_dict("records")
    ]  # not iterrows: ten times faster on a catalog of every instance type


def price_rows(df: pd.DataFrame, purchase: str) -> tuple[PriceRow, ...]:
    """The frame's rows (filter_instances': with `gpu_memory_gb`) as typed rows: NaN and '' read as None, the
    price of `purchase` beside the others, what the device model lacks for each (facts_notes)."""

    def text(value: Any) -> str | None:
        return None if value is None or value != value or value == "" else str(value)

    price = price_column(purchase)
    return tuple(
        PriceRow(
            instance_type=str(r["instance_type"]),
            region=str(r["region"]),
            vcpus=int(r["vcpus"]),
            memory_gib=r["memory_gib"],  # an int where the catalog has one (8, not 8.0)
            arch=str(r["arch"]),
            gpu_name=text(r["gpu_name"]),
            gpu_count=int(r["gpu_count"] or 0),
            gpu_memory_gib=_number(r["gpu_memory_gib"]),
            gpu_memory_gb=_number(r.get("gpu_memory_gb")),
            ondemand_usd_per_hour=_number(r["ondemand_usd_per_hour"]),
            spot_usd_per_hour_min=_number(r["spot_usd_per_hour_min"]),
            spot_usd_per_hour_median=_number(r["spot_usd_per_hour_median"]),
            zones=int(r["zones"]),
            source=str(r["source"]),
            as_of=str(r["as_of"]),
            accelerator=text(r.get(ACCELERATOR)),
            price_usd_per_hour=_number(r[price]),
            facts_note=text(note),
        )
        for r, note in zip(df.to_dict("records"), facts_notes(df))
    )  # not iterrows: ten times faster on a catalog of every instance type (as `instances`)
