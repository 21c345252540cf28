"""The hosted catalog: every AWS instance type in every region from a public file, no credentials.

By default SkyPilot's AWS catalog (`DEFAULT_CATALOG_URL`, rebuilt by SkyPilot from AWS's public price
list and spot price history): one row per instance type and availability zone, the columns of
`RAW_COLUMNS`. `catalog_location` says which file to read — `PLANNER_CATALOG_URL` (a mirror's
http(s) URL, a file path or a file:// URL), else the configured value (the config file's
`catalog_url`, when the caller has one), else the default — and every message names that setting.

`refresh_from_catalog` reads the whole file, checks every row, aggregates zones to regions with the
bundled snapshot's rules (`aggregate`), merges the result over the snapshot and writes the price
cache. Nothing is written unless the whole file reads well: an unreachable server, an HTTP error, a
broken or truncated file leave the cache and the snapshot as they were.

    PlannerError
    ├── CatalogFetchError     the file could not be used this time (server down, HTTP 404, bad
    │                         columns, a price that is not a number, cut short): warn, keep the prices
    └── InputError
        └── CatalogSettingError   the setting cannot name a readable file (not a URL or path we
                                  read, no such file, a directory, no permission): exit 2

`python -m pricing.hosted --snapshot pricing/data/aws_prices.csv RAW.csv...` builds the bundled
snapshot from raw rows with the same rules (pricing/data/SOURCE.md).
"""

from __future__ import annotations

import argparse
import ast
import csv
import datetime as dt
import http.client
import io
import math
import os
import re
import statistics
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from planner.errors import InputError, PlannerError
from pricing.catalog import (
    ACCELERATOR,
    COLUMNS,
    load_gpu_specs,
    load_snapshot,
    merge_live,
    typed,
    write_cache,
)

DEFAULT_CATALOG_URL = (
    "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/aws/vms.csv"
)
CATALOG_URL_ENV = "PLANNER_CATALOG_URL"
CONFIG_KEY = "catalog_url"  # the config file's name for the same setting
RAW_COLUMNS = (
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "GpuInfo",
    "Price",
    "SpotPrice",
    "Region",
    "AvailabilityZone",
    "Arch",
)
TIMEOUT_SECONDS = 60.0
MAX_BYTES = 256 * 2**20  # SkyPilot's AWS file is ~4 MB; a source this large is not a price catalog
MAX_PROBLEMS_SHOWN = 5

# Regular availability-zone ids (use1-az1, apne1-az4). Local Zones (use1-atl2-az1) and Wavelength
# zones are left out: their spot prices are not representative of the region (pricing/data/SOURCE.md).
REGULAR_ZONE = re.compile(r"[a-z]+[0-9]+-az[0-9]+")
REGION_FORM = re.compile(r"[a-z]{2}(-[a-z]+)+-\d{1,2}")
INSTANCE_TYPE_FORM = re.compile(r"[a-z0-9][a-z0-9-]{0,39}\.[a-z0-9-]{1,40}")


class CatalogFetchError(PlannerError):
    title = "catalog refresh failed"


class CatalogSettingError(InputError):
    title = "bad catalog setting"


@dataclass(frozen=True)
class CatalogLocation:
    """Where the hosted catalog is read from, and the setting that said so (named in every message)."""

    value: str
    setting: str  # "PLANNER_CATALOG_URL", "catalog_url (config)" or "default"

    @property
    def label(self) -> str:
        """How the prices' source is shown: SkyPilot's catalog by name, any other source by its address."""
        return "SkyPilot's public AWS catalog" if self.value == DEFAULT_CATALOG_URL else self.value

    def fix(self) -> str:
        where = f"set {CATALOG_URL_ENV} to an https:// URL, a file path or a file:// URL of a catalog with SkyPilot's columns"
        if self.setting == "default":
            return f"check this machine's network (a proxy: HTTPS_PROXY), or {where} (a mirror or a downloaded copy)"
        return f"{where}, or unset it for the default ({DEFAULT_CATALOG_URL})"


def catalog_location(
    configured: str | None = None, environ: dict[str, str] | None = None
) -> CatalogLocation:
    """THE catalog URL setting: `PLANNER_CATALOG_URL` when set, else `configured` (the config file's
    `catalog_url`), else SkyPilot's AWS catalog."""
    env = os.environ if environ is None else environ
    if env.get(CATALOG_URL_ENV, "").strip():
        return CatalogLocation(env[CATALOG_URL_ENV].strip(), CATALOG_URL_ENV)
    if configured and configured.strip():
        return CatalogLocation(configured.strip(), f"{CONFIG_KEY} (config)")
    return CatalogLocation(DEFAULT_CATALOG_URL, "default")


# ----------------------------------------------------------------------------- reading the file


def read_source(
    location: CatalogLocation, timeout: float = TIMEOUT_SECONDS, max_bytes: int = MAX_BYTES
) -> bytes:
    """The file's bytes. CatalogSettingError when the value cannot name something readable,
    CatalogFetchError when it names it but it cannot be had now."""
    value = location.value
    parts = urllib.parse.urlsplit(value)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https"):
        if not parts.hostname:
            raise _setting(location, "an http(s) URL needs a host")
        return _read_url(location, timeout, max_bytes)
    if scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise _setting(
                location, f"a file:// URL names a file on this machine, not on {parts.netloc!r}"
            )
        path = Path(urllib.request.url2pathname(parts.path))
    elif scheme and len(scheme) > 1:  # one letter: a Windows drive, a path
        raise _setting(
            location, f"{scheme}:// is not read (only https://, http://, file:// and file paths)"
        )
    else:
        path = Path(value).expanduser()
    return _read_file(location, path, max_bytes)


def _setting(location: CatalogLocation, why: str) -> CatalogSettingError:
    return CatalogSettingError(
        f"{location.setting}: {location.value!r}: {why}", hint=location.fix()
    )


def _fetch(location: CatalogLocation, why: str, hint: str | None = None) -> CatalogFetchError:
    return CatalogFetchError(
        f"{location.value} ({location.setting}): {why}",
        hint=hint or f"try again later, or {location.fix()}",
    )


def _read_url(location: CatalogLocation, timeout: float, max_bytes: int) -> bytes:
    request = urllib.request.Request(
        location.value, headers={"User-Agent": "cloud-planner", "Accept-Encoding": "identity"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - the scheme is checked above
            declared = response.headers.get("Content-Length")
            data = response.read(max_bytes + 1)
    except urllib.error.HTTPError as exc:
        hint = f"check the address; {location.fix()}" if exc.code in (401, 403, 404, 410) else None
        raise _fetch(location, f"the server answered HTTP {exc.code} {exc.reason}", hint) from None
    except urllib.error.URLError as exc:
        raise _fetch(location, f"cannot be reached ({exc.reason})") from None
    except http.client.IncompleteRead as exc:
        raise _fetch(
            location, f"the download was cut short after {len(exc.partial):,} bytes"
        ) from None
    except (TimeoutError, OSError, http.client.HTTPException) as exc:
        raise _fetch(location, f"the download failed ({type(exc).__name__}: {exc})") from None
    if len(data) > max_bytes:
        raise _fetch(
            location, f"larger than {max_bytes // 2**20} MiB: not a price catalog", location.fix()
        )
    if declared and declared.isdigit() and int(declared) != len(data):
        raise _fetch(
            location, f"the download was cut short: {len(data):,} of {int(declared):,} bytes"
        )
    return data


def _read_file(location: CatalogLocation, path: Path, max_bytes: int) -> bytes:
    try:
        if path.is_dir():
            raise _setting(location, "is a directory, not a catalog file")
        if path.exists() and not path.is_file():  # a FIFO or a device would block or never end
            raise _setting(location, "is not a regular file")
        with path.open("rb") as f:
            data = f.read(max_bytes + 1)
    except FileNotFoundError:
        raise _setting(location, "no such file") from None
    except PermissionError:
        raise _setting(location, "this user may not read it") from None
    except OSError as exc:
        raise _setting(location, f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise _fetch(
            location, f"larger than {max_bytes // 2**20} MiB: not a price catalog", location.fix()
        )
    return data


# ----------------------------------------------------------------------------- checking the rows


@dataclass(frozen=True)
class ZoneRow:
    """One row of the file: an instance type in one availability zone (None: the field is empty)."""

    instance_type: str
    region: str
    zone: str
    accelerator: str
    accelerator_count: float | None
    vcpus: float | None
    memory_gib: float | None
    gpu_info: str
    price: float | None
    spot_price: float | None
    arch: str


def parse_rows(data: bytes, location: CatalogLocation) -> list[ZoneRow]:
    """Every row of the file, checked; CatalogFetchError naming the first problems (line, column,
    value) when any row is broken: a file that is wrong in one place is not trusted in the others."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _fetch(
            location, f"not UTF-8 text (byte {exc.start:,}): not a CSV catalog", location.fix()
        ) from None
    if not text.strip():
        raise _fetch(location, "the file is empty", location.fix())
    reader = csv.reader(io.StringIO(text), strict=True)
    try:
        header = [h.strip() for h in next(reader)]
    except csv.Error as exc:
        raise _fetch(location, f"line 1: not CSV ({exc})", location.fix()) from None
    missing = [c for c in RAW_COLUMNS if c not in header]
    if missing:
        raise _fetch(
            location,
            f"not a catalog with SkyPilot's AWS columns: missing {', '.join(missing)} "
            f"(it has: {', '.join(header[:15]) or 'nothing'})",
            location.fix(),
        )
    at = {c: header.index(c) for c in RAW_COLUMNS}
    problems: list[str] = []
    rows: list[ZoneRow] = []
    seen: dict[tuple[str, str], ZoneRow] = {}
    line = short_at = 1
    try:
        for fields in reader:
            line = reader.line_num
            if not fields:
                continue
            if len(fields) != len(header):
                problems.append(f"line {line}: {len(fields)} fields, the header has {len(header)}")
                short_at = line
                continue
            row = _zone_row(fields, at, line, problems)
            if row is None:
                continue
            key = (row.instance_type, row.zone)
            if key in seen:
                if seen[key] != row:
                    problems.append(
                        f"line {line}: {row.instance_type} in {row.zone} a second time, with other values"
                    )
                continue
            seen[key] = row
            rows.append(row)
    except csv.Error as exc:
        problems.append(f"line {reader.line_num}: {exc}")
    if not text.endswith(("\n", "\r")):
        raise _fetch(
            location,
            f"cut short: the file ends inside line {line} (no final line break)",
            "download it again; a file written by hand must end with a line break",
        )
    if problems and short_at == line > 1:  # the last row lacks fields: most likely a file cut short
        problems[-1] += " (the last row: the file looks cut short)"
    if problems:
        shown = "; ".join(problems[:MAX_PROBLEMS_SHOWN])
        more = (
            f" (and {len(problems) - MAX_PROBLEMS_SHOWN:,} more)"
            if len(problems) > MAX_PROBLEMS_SHOWN
            else ""
        )
        raise _fetch(
            location,
            f"{len(problems):,} broken row(s), nothing used: {shown}{more}",
            location.fix(),
        )
    if not rows:
        raise _fetch(location, "no rows after the header", location.fix())
    return rows


def _zone_row(
    fields: list[str], at: dict[str, int], line: int, problems: list[str]
) -> ZoneRow | None:
    def text(column: str) -> str:
        return fields[at[column]].strip()

    def number(column: str) -> float | None:
        raw = text(column)
        if not raw:
            return None
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < 0:
            problems.append(f"line {line}: {column} {raw[:40]!r} is not a number of at least 0")
            return None
        return value

    before = len(problems)
    itype, region, zone = text("InstanceType"), text("Region"), text("AvailabilityZone")
    if not INSTANCE_TYPE_FORM.fullmatch(itype):
        problems.append(
            f"line {line}: InstanceType {itype[:40]!r} is not an instance type like g5.xlarge"
        )
    if not REGION_FORM.fullmatch(region):
        problems.append(f"line {line}: Region {region[:40]!r} is not a region like us-east-1")
    if not zone:
        problems.append(f"line {line}: AvailabilityZone is empty")
    row = ZoneRow(
        itype,
        region,
        zone,
        text("AcceleratorName"),
        number("AcceleratorCount"),
        number("vCPUs"),
        number("MemoryGiB"),
        text("GpuInfo"),
        number("Price"),
        number("SpotPrice"),
        text("Arch"),
    )
    return row if len(problems) == before else None


# ----------------------------------------------------------------------------- zones -> regions


@dataclass
class Aggregated:
    """The region rows (the snapshot's columns) and what was left out, with why."""

    frame: pd.DataFrame
    rows_read: int
    left_out: dict[str, list[str]] = field(default_factory=dict)  # why -> "type in region"
    # on-demand differed across zones: median used
    zone_price_differs: list[str] = field(default_factory=list)

    def summary(self) -> str:
        types, regions = self.frame["instance_type"].nunique(), self.frame["region"].nunique()
        text = f"{types:,} instance types in {regions} regions ({self.rows_read:,} zone rows)"
        for why, items in sorted(self.left_out.items()):
            text += f"; {len(items):,} left out ({why}: {', '.join(items[:3])}{', ...' if len(items) > 3 else ''})"
        return text


def aggregate(rows: list[ZoneRow], source: str = "catalog", as_of: str = "") -> Aggregated:
    """One row per (instance type, region), as pricing/data/SOURCE.md says the snapshot was made:
    on-demand = the region's price (identical across its zones; the median if they ever differ),
    spot min / median over the zones with a spot price, Local Zones left out, `zones` = zones used,
    GPU memory per GPU = GpuInfo's SizeInMiB / 1024. A fact the file does not give stays unknown
    (empty); a row without vCPUs or memory cannot be predicted and is left out, and said so."""
    known_gpus = set(load_gpu_specs()["gpu_name"].astype(str))
    groups: dict[tuple[str, str], list[ZoneRow]] = {}
    for r in rows:
        groups.setdefault((r.instance_type, r.region), []).append(r)
    out, result = [], Aggregated(pd.DataFrame(columns=COLUMNS), len(rows))
    for (itype, region), zone_rows in sorted(groups.items()):
        name = f"{itype} in {region}"
        use = [r for r in zone_rows if REGULAR_ZONE.fullmatch(r.zone)]
        if not use:
            result.left_out.setdefault("only in Local Zones", []).append(name)
            continue
        vcpus = next((r.vcpus for r in use if r.vcpus is not None), None)
        memory = next((r.memory_gib for r in use if r.memory_gib is not None), None)
        if vcpus is None or memory is None or vcpus < 1:
            result.left_out.setdefault("no vCPUs or memory given", []).append(name)
            continue
        prices = sorted({r.price for r in use if r.price is not None})
        if len(prices) > 1:
            result.zone_price_differs.append(name)
        spots = [r.spot_price for r in use if r.spot_price is not None]
        first = use[0]
        count = next((r.accelerator_count for r in use if r.accelerator_count is not None), None)
        gpu = (
            GpuInfo.read(next((r.gpu_info for r in use if r.gpu_info), "")) if count else GpuInfo()
        )
        name, gpus, other = accelerator_facts(first.accelerator, count, gpu, known_gpus)
        out.append(
            {
                "instance_type": itype,
                "region": region,
                "vcpus": vcpus,
                "memory_gib": memory,
                "arch": first.arch,
                "gpu_name": name,
                "gpu_count": gpus,
                "gpu_memory_gib": gpu.memory_gib if gpus else None,
                "ondemand_usd_per_hour": statistics.median(prices) if prices else None,
                "spot_usd_per_hour_min": min(spots) if spots else None,
                "spot_usd_per_hour_median": statistics.median(spots) if spots else None,
                "zones": len(use),
                "source": source,
                "as_of": as_of,
                ACCELERATOR: other,
            }
        )
    result.frame = typed(pd.DataFrame(out, columns=COLUMNS + [ACCELERATOR]))
    return result


@dataclass(frozen=True)
class GpuInfo:
    """What the GpuInfo column (a Python literal of describe_instance_types' GpuInfo) says of one GPU."""

    maker: str | None = None
    memory_gib: float | None = None  # per GPU, to two decimals
    partition: float = 1.0  # GpuPartitionSize: under 1 on fractional GPUs (g6f)

    @classmethod
    def read(cls, text: str) -> GpuInfo:
        """None for what the text does not say (empty, unreadable, missing keys): never guessed."""
        if not text:
            return cls()
        try:
            first = ast.literal_eval(text)["Gpus"][0]
        except (
            ValueError,
            SyntaxError,
            TypeError,
            KeyError,
            IndexError,
            MemoryError,
            RecursionError,
        ):
            return cls()
        if not isinstance(first, dict):
            return cls()
        mib = (
            (first.get("MemoryInfo") or {}).get("SizeInMiB")
            if isinstance(first.get("MemoryInfo"), dict)
            else None
        )
        partition = first.get("GpuPartitionSize", 1.0)
        return cls(
            str(first["Manufacturer"]) if first.get("Manufacturer") else None,
            round(float(mib) / 1024.0, 2) if isinstance(mib, (int, float)) and mib > 0 else None,
            float(partition) if isinstance(partition, (int, float)) and 0 < partition <= 1 else 1.0,
        )


def accelerator_facts(
    name: str, count: float | None, gpu: GpuInfo, known_gpus: set[str]
) -> tuple[str, int, str]:
    """(gpu_name, gpu_count, accelerator) of a row. A GPU is what PyTorch runs on with CUDA: GpuInfo
    says NVIDIA (or, without GpuInfo, the name is a GPU of gpu_specs.csv); a fraction of one (g6f) is
    named with its share, one GPU, and has no spec. Any other accelerator (AWS Neuron, Gaudi, AMD)
    keeps its facts in `accelerator` and leaves a CPU instance to the planner."""
    if not count:
        return "", 0, ""
    name = name or "unnamed accelerator"
    nvidia = gpu.maker.upper() == "NVIDIA" if gpu.maker else name in known_gpus
    if not nvidia:
        return "", 0, f"{name} x{count:g}" + (f" ({gpu.maker})" if gpu.maker else "")
    share = gpu.partition if gpu.partition < 1 else count if count < 1 else 1.0
    if share < 1:
        return f"{name} ({share:g} of one)", 1, ""
    return name, int(count), ""


# ----------------------------------------------------------------------------- the refresh


def refresh_from_catalog(
    location: CatalogLocation | None = None,
    directory: Path | None = None,
    now: dt.datetime | None = None,
    timeout: float = TIMEOUT_SECONDS,
) -> Aggregated:
    """Read the hosted catalog, merge its rows over the bundled snapshot and write the price cache.
    Raises CatalogSettingError (exit 2) or CatalogFetchError (nothing written: the cache stays)."""
    location = location or catalog_location()
    now = now or dt.datetime.now(dt.timezone.utc)
    rows = parse_rows(read_source(location, timeout), location)
    found = aggregate(rows, "catalog", now.isoformat(timespec="seconds"))
    merged = merge_live(load_snapshot(), found.frame)
    write_cache(
        merged,
        now,
        sorted(found.frame["region"].unique()),
        directory,
        source="catalog",
        label=location.label,
        url=location.value,
        summary=found.summary(),
    )
    return found


# ----------------------------------------------------------------------------- the bundled snapshot


def _fmt(value: object, digits: int = 6) -> str:
    """A number as the snapshot writes it: at most `digits` decimals, no trailing zeros, '' when unknown."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    x = round(float(value), digits)  # type: ignore[arg-type]
    return str(int(x)) if x == int(x) else f"{x:.{digits}f}".rstrip("0").rstrip(".")


def write_snapshot(frame: pd.DataFrame, path: Path) -> None:
    """The snapshot's CSV: its twelve columns, numbers as aggregate.py wrote them."""
    others = bool(frame[ACCELERATOR].astype(bool).any())  # written only when some row has one
    with path.open("w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        # source and as_of are the loader's
        out.writerow(COLUMNS[:-2] + ([ACCELERATOR] if others else []))
        for r in frame.sort_values(["instance_type", "region"]).to_dict("records"):
            out.writerow(
                [
                    r["instance_type"],
                    r["region"],
                    _fmt(r["vcpus"]),
                    _fmt(r["memory_gib"]),
                    r["arch"],
                    r["gpu_name"],
                    _fmt(r["gpu_count"]) if r["gpu_count"] else "",
                    _fmt(r["gpu_memory_gib"], 2),
                    _fmt(r["ondemand_usd_per_hour"]),
                    _fmt(r["spot_usd_per_hour_min"]),
                    _fmt(r["spot_usd_per_hour_median"]),
                    _fmt(r["zones"]),
                ]
                + ([r[ACCELERATOR]] if others else [])
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pricing.hosted",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("raw", nargs="+", help="files of per-zone rows with SkyPilot's AWS columns")
    parser.add_argument("--snapshot", required=True, type=Path, help="the snapshot CSV to write")
    args = parser.parse_args(argv)
    rows: list[ZoneRow] = []
    for raw in args.raw:
        location = CatalogLocation(raw, "argument")
        rows += parse_rows(read_source(location), location)
    by_zone: dict[tuple[str, str], ZoneRow] = {}
    for r in rows:  # the files may overlap; where they do, they must agree
        if by_zone.setdefault((r.instance_type, r.zone), r) != r:
            raise SystemExit(f"the files disagree on {r.instance_type} in {r.zone}")
    found = aggregate(list(by_zone.values()), "snapshot")
    write_snapshot(found.frame, args.snapshot)
    print(f"wrote {args.snapshot}: {len(found.frame)} rows, {found.summary()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
