"""`planner prices` and the TUI's Targets table in words: the price rows (pricing/rows.py) as a table and as JSON,
which rows the grouped table shows, a row's GPU cells, and why nothing matched."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from planner.core.shown import DEFAULT_GROUP_BY, GroupBy, Shown
from planner.report.text import money_text

if TYPE_CHECKING:
    from rich.table import Table

    from pricing.gpus import NoMatch
    from pricing.rows import PriceList, PriceRow


def prices_json(prices: PriceList) -> dict[str, Any]:
    """`planner prices --json`: where the prices come from and every row (nothing found: `instances: []`)."""
    return {
        "source": prices.source,
        "as_of": prices.as_of,
        "note": prices.note,
        "instances": [row.to_json() for row in prices.rows],
    }


def _money(value: float | None) -> str:
    """A price cell: four decimals under $1 (0.5260), '-' when not offered (the caption says so)."""
    return money_text(value, unit="", precise_below=1)


def shown_prices(
    rows: Sequence[PriceRow],
    group_by: GroupBy = DEFAULT_GROUP_BY,
    max_rows: int | None = None,
    by_region: bool = False,
) -> tuple[list[PriceRow], Shown]:
    """The catalog rows a table shows, in the rows' order (their sort), and how many of how many: by default the
    cheapest of each GPU model at each GPU count (every 4- and 8-GPU machine a model comes in) and the cheapest CPU;
    `instance`: the cheapest of each instance type; `none`: every row. `by_region`: the cheapest of each in every
    region (`--all-regions`)."""
    chosen: list[int] = []
    seen: set[tuple[object, ...]] = set()
    for i, r in enumerate(rows):
        if group_by == "none":
            key: tuple[object, ...] = (i,)
        elif group_by == "instance":
            key = (r.instance_type,)
        else:
            key = (r.gpu_name or "", r.gpu_count) if r.gpu_count else ("cpu",)
        key += (r.region,) if by_region else ()
        if key not in seen:
            seen.add(key)
            chosen.append(i)
    if max_rows is not None:
        chosen = chosen[:max_rows]
    return [rows[i] for i in chosen], Shown(tuple(chosen), len(rows))


def prices_table(
    prices: PriceList,
    rows: Sequence[PriceRow],
    purchase: str = "on-demand",
    region: str | None = None,
) -> Table:
    """The rows as a table; `region`: the one region the user asked for (--region), named in the title instead of
    a column (None: every row says its region, also when they happen to share one)."""
    from rich import box
    from rich.table import Table

    one_region = region is not None
    title = f"AWS instances in {region}" if one_region else "AWS instances"
    t = Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        caption=f"Source: {prices.source}, as of {prices.as_of}; {prices.note}.\n"
        "Prices in USD per hour; spot is the median over the region's zones ('-': not offered)."
        + _unknown_facts_caption(rows),
        caption_justify="left",
    )
    any_gpu = any(r.gpu_count for r in rows)
    columns = [("instance", "left"), ("vCPUs", "right"), ("GiB", "right")]
    columns += [("GPU", "left"), ("GPU GB", "right")] if any_gpu else []
    columns += [("on-demand", "right"), ("spot", "right")]
    columns += [] if one_region else [("region", "left")]
    table_rows = []
    for r in rows:
        gpu, gpu_mem = gpu_cells(r)
        cells = [r.instance_type, f"{r.vcpus}", f"{r.memory_gib:g}"]
        cells += [gpu, gpu_mem] if any_gpu else []
        cells += [_money(r.ondemand_usd_per_hour), _money(r.spot_usd_per_hour_median)]
        table_rows.append([*cells, *([] if one_region else [r.region])])
    for i, (name, justify) in enumerate(columns):
        # never a number, a name or a region cut short on a narrow terminal: a table wider than it wraps
        whole = max([len(name), *(len(row[i]) for row in table_rows)])
        t.add_column(
            name,
            justify="right" if justify == "right" else "left",
            no_wrap=True,
            min_width=whole,
            style="bold" if name == purchase else None,
        )
    for row in table_rows:
        t.add_row(*row)
    return t


def no_prices_text(found: NoMatch) -> str:
    """Why `planner prices` lists nothing, in a line or two: the count or memory the GPU never comes with and what
    it does, or the regions it is priced in instead ("no 8x H100 in eu-west-1; it is priced in us-east-1, ...")."""
    asked, gpu = found.asked, found.gpu
    if found.why == "count" and asked is not None:
        wanted = _span(asked.count_min, asked.count_max)
        if gpu:
            return (
                f"no instance has {wanted} {gpu}; {gpu} comes {_either(found.counts)} per instance"
            )
        return f"no instance has {wanted} GPUs; they come {_either(found.counts)} per instance"
    if found.why == "memory":
        wanted = _span(found.memory_min_gb, found.memory_max_gb, " GB")
        if gpu:
            return f"no {gpu} has {wanted} per GPU; {gpu} has {_either(found.memory_gb, ' GB')} per GPU"
        sizes = found.memory_gb
        return (
            f"no GPU has {wanted}; the catalog's GPUs have {_span(sizes[0], sizes[-1], ' GB')} each"
        )
    if found.why == "region":
        regions = found.regions
        where = ", ".join(regions[:4]) + (
            f" and {len(regions) - 4} more" if len(regions) > 4 else ""
        )
        if asked is None:
            return (
                f"no instance in {found.region} matches these filters; some in {where} do "
                "(--all-regions instead of --region lists them)"
            )
        single = asked.count_min is not None and asked.count_min == asked.count_max
        what = f"{asked.count_min}x {gpu}" if gpu and single else gpu or f"GPU {asked.text}"
        return (
            f"no {what} in {found.region}; it is priced in {where} "
            f"(planner prices {asked.text} --all-regions)"
        )
    return "no instance matches these filters"


def _span(low: float | None, high: float | None, unit: str = "") -> str:
    """A range asked for in words: "3", "2 to 4", "30 GB or more", "at most 4"."""
    if low is not None and high is not None:
        return f"{low:g}{unit}" if low == high else f"{low:g} to {high:g}{unit}"
    return f"{low:g}{unit} or more" if low is not None else f"at most {high:g}{unit}"


def _either(values: tuple[float, ...], unit: str = "") -> str:
    """The values the catalog has, in words: "1 or 8", "1, 4 or 8", "40 or 80 GB"."""
    words = [f"{v:g}" for v in values]
    return (", ".join(words[:-1]) + " or " if len(words) > 1 else "") + words[-1] + unit


def gpu_cells(row: PriceRow) -> tuple[str, str]:
    """A catalog row's GPU ("4x A10G", "-" for none) and each GPU's memory in the vendor's GB ("24"; "?" when the
    catalog lacks it)."""
    if not row.gpu_count:
        return "-", "-"
    memory = row.gpu_memory_gb
    return f"{row.gpu_count}x {row.gpu_name}", "?" if memory is None else f"{memory:.4g}"


def _unknown_facts_caption(rows: Sequence[PriceRow]) -> str:
    """The rows' models the device model lacks facts for (their `facts_note`), named once under the table."""
    unknown = [r for r in rows if r.facts_note]

    def names(items: Iterable[str]) -> str:
        found = sorted(set(items))
        return ", ".join(found[:8]) + (f" and {len(found) - 8} more" if len(found) > 8 else "")

    gpus = [r.gpu_name or "" for r in unknown if r.gpu_count]
    others = [r.accelerator.split(" x")[0] for r in unknown if r.accelerator]
    cpus = [r.family for r in unknown if "no sourced processor" in (r.facts_note or "")]
    text = ""
    if gpus:
        text += f"\nNo spec, priced but not predicted: {names(gpus)}."
    if others:
        text += f"\nNot NVIDIA GPUs, planned as CPU instances: {names(others)}."
    if cpus:
        text += f"\nNo sourced processor facts, predicted at this machine's per-core speed: {names(cpus)}."
    return text
