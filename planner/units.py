"""The units people type (durations, flag numbers, AWS names), parsed finite and in a stated range (ValueError says
what is accepted); a value read back from a journal is held to its flag's range (`Range.holds`)."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, get_args

_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(min|sec|d|h|m|s)?", re.IGNORECASE)
_SCALE = {"d": 86400, "h": 3600, "m": 60, "min": 60, "s": 1, "sec": 1, None: 1}
# A deadline or a wait past a year is a typo: prices, instances and the planner's own run journal
# would not outlive it, and 1e400 seconds used to come back as inf.
MAX_DURATION_SECONDS = 366 * 86400
_MAX_TEXT = 40  # characters of a number or a duration worth reading


def parse_duration(text: str, max_seconds: float = MAX_DURATION_SECONDS) -> float:
    """Seconds in `text` (more than 0, at most `max_seconds`); ValueError says the accepted forms."""
    forms = "a duration like 4h, 90m, 1h30m or 2d"
    if not isinstance(text, str) or len(text) > _MAX_TEXT:
        raise ValueError(f"must be {forms}, got {_shown(text)}")
    if re.search(
        r"\d\s+\d", text
    ):  # '30 1h' would read as 301h: each number with its unit ('1h 30m')
        raise ValueError(f"must be {forms}, got {_shown(text)}: give every number its unit")
    cleaned = text.strip().lower().replace(" ", "")
    if cleaned.startswith(
        "-"
    ):  # '-5', '-1h': a duration below 0, said as what it is ('-5xyz' is no duration)
        try:
            parse_duration(cleaned[1:], max_seconds)
        except ValueError:
            raise ValueError(f"must be {forms}, got {_shown(text)}") from None
        raise ValueError(f"must be more than 0 ({forms}), got {_shown(text)}")
    pos, total, parts, bare = 0, 0.0, 0, False
    while pos < len(cleaned):
        m = _DURATION.match(cleaned, pos)
        if not m or m.end() == pos:
            break
        total += float(m.group(1)) * _SCALE[m.group(2)]
        pos, parts, bare = m.end(), parts + 1, bare or m.group(2) is None
    if not cleaned or pos != len(cleaned):
        raise ValueError(f"must be {forms}, got {_shown(text)}")
    if (
        bare and parts > 1
    ):  # '1h30' is not 1h + 30 s: a number alone is seconds only when it is the whole value
        raise ValueError(f"must be {forms}, got {_shown(text)}: give every number its unit")
    if total <= 0:
        raise ValueError(f"must be more than 0 ({forms}), got {_shown(text)}")
    if not total <= max_seconds:  # also catches inf and nan
        raise ValueError(f"must be at most {_human_duration(max_seconds)}, got {_shown(text)}")
    return total


def duration_text(seconds: float) -> str:
    """A duration as parse_duration reads it back: 600 -> '10m', 5400 -> '1h30m', 2.5 -> '2.5s'."""
    if seconds != int(seconds):
        return f"{seconds:g}s"
    left, parts = int(seconds), []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if left >= size:
            parts.append(f"{left // size}{unit}")
            left %= size
    return "".join(parts) or "0s"


def _shown(text: object) -> str:
    if not isinstance(text, str):
        return type(text).__name__
    if len(text) > _MAX_TEXT:  # cut before repr, and after: escapes can make it 10x longer
        text = text[: _MAX_TEXT - 3] + "..."
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:56] + "...'"


def _num(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


def _human_duration(seconds: float) -> str:
    for unit, scale in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= scale and seconds % scale == 0:
            return f"{seconds / scale:,.0f} {unit}"
    return f"{seconds:g} seconds"


# ----------------------------------------------------------------------------- the flags' ranges


@dataclass(frozen=True)
class Range:
    """The numbers a flag accepts: finite, from `low` to `high` (above `low` when `low_open`)."""

    low: float
    high: float
    unit: str = ""
    low_open: bool = False
    whole: bool = False

    def parse(self, text: str) -> float:
        """The number typed as `text` (an int when `whole`), held to the range; ValueError saying what is accepted."""
        try:
            value = (
                (int if self.whole else float)(text.strip())
                if isinstance(text, str) and len(text) <= _MAX_TEXT
                else None
            )
        except ValueError:
            value = None
        if value is None or not self.holds(value):
            raise ValueError(f"must be {self.describe()}, got {_shown(text)}")
        return value

    def holds(self, value: object) -> bool:
        """Whether a value read back (a run journal's JSON) is in range: a real number, not a bool,
        finite (a 400-digit integer is compared as an integer, never converted to a float)."""
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or (self.whole and not isinstance(value, int))
        ):
            return False
        if isinstance(value, float) and not math.isfinite(value):
            return False
        return self.low <= value <= self.high and not (self.low_open and value == self.low)

    def describe(self) -> str:
        kind = "a whole number" if self.whole else "a number"
        text = (
            f"{kind} above {_num(self.low)} and at most {_num(self.high)}"
            if self.low_open
            else f"{kind} between {_num(self.low)} and {_num(self.high)}"
        )
        return text + (f" ({self.unit})" if self.unit else "")


# Why these: a bench longer than an hour measures nothing a shorter one misses; no instance costs
# $10,000 an hour (the largest are about $100); a bench budget of $1,000 is a typo's worth of
# instances; an instance's dead-man switch past a day defeats its purpose; polling faster than 20
# times a second is throttled by AWS, slower than 10 minutes misses results; 64 instances at once is
# above any account's default vCPU quota for GPU instances.
BENCH_SECONDS = Range(0, 3_600, "seconds", low_open=True)
USD_PER_HOUR = Range(0, 10_000, "USD per hour")
BENCH_BUDGET_USD = Range(0, 1_000, "USD", low_open=True)
MAX_PRICE_USD_PER_HOUR = Range(0, 10_000, "USD per hour", low_open=True)
GPU_MEMORY_GB = Range(0, 10_000, "GB", low_open=True)  # per GPU, as its vendor states it
BENCH_MINUTES = Range(0, 1_440, "minutes", low_open=True)
POLL_SECONDS = Range(0.05, 600, "seconds")
MAX_INSTANCES = Range(1, 64, "instances at once", whole=True)
THREADS = Range(1, 1_024, "threads", whole=True)
# data-parallel ranks of one bench: more than any instance's GPUs
PROCESSES = Range(1, 64, "processes", whole=True)
TOTAL_STEPS = Range(1, 10**12, "optimizer steps", whole=True)  # a script's whole run
MAX_ROWS = Range(1, 100_000, "rows", whole=True)  # a table's rows (--max-rows)
EPOCHS = Range(1, 10_000_000, "epochs", whole=True)  # a spec's train.epochs has the same range
DEADLINE_SECONDS = Range(0, MAX_DURATION_SECONDS, "seconds", low_open=True)


# ----------------------------------------------------------------------------- AWS names


@dataclass(frozen=True)
class Name:
    """Text that names something in AWS, in AWS's own format: a pattern, a length, an example.
    Checked before any call, so a typo costs a message, not a round trip or a botocore error."""

    what: str
    pattern: str
    example: str
    rule: str
    max_length: int
    problem: Callable[[str], str | None] | None = None  # rules a pattern says badly

    def parse(self, text: str) -> str:
        if not self.holds(text):
            extra = (
                self.problem(text)
                if self.problem and isinstance(text, str) and len(text) <= self.max_length
                else None
            )
            raise ValueError(
                f"must be {self.what} like {self.example} ({extra or self.rule}), got {_shown(text)}"
            )
        return text

    def holds(self, value: object) -> bool:
        return (
            isinstance(value, str)
            and len(value) <= self.max_length
            and re.fullmatch(self.pattern, value) is not None
            and not (self.problem and self.problem(value))
        )


def _bucket_problem(name: str) -> str | None:
    """S3's rules beyond the characters (docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html)."""
    if ".." in name or ".-" in name or "-." in name:
        return "no two dots in a row, and no dot next to a dash"
    if re.fullmatch(r"\d+\.\d+\.\d+\.\d+", name):
        return "not an IP address"
    if name.startswith(("xn--", "sthree-", "amzn-s3-demo-")) or name.endswith(
        ("-s3alias", "--ol-s3", ".mrap", "--x-s3")
    ):
        return (
            "no prefix xn--, sthree- or amzn-s3-demo-, no suffix -s3alias, --ol-s3, .mrap or --x-s3"
        )
    return None


def _region_problem(name: str) -> str | None:
    """ "US-EAST-1", "us_east_1", "us east 1": the region meant, when the form is all that is off."""
    meant = re.sub(r"[\s_]+", "-", name.strip().lower())
    if meant != name and re.fullmatch(_REGION_FORM, meant):
        return f'did you mean "{meant}"?'
    return None


_REGION_FORM = r"[a-z]{2}(-[a-z]+)+-\d{1,2}"
_HEX = "8 or 17 hexadecimal digits"
REGION = Name(
    "an AWS region",
    _REGION_FORM,
    "us-east-1",
    "two letters, a dash, a direction, a dash and a number, as eu-west-2 and ap-southeast-1",
    32,
    _region_problem,
)


def parse_regions(text: str) -> str:
    """A plan's --region: one region, a comma-separated list (each instance type priced in the cheapest of them) or
    `all` (every region of the price data)."""
    from pricing.facts import ALL_REGIONS

    if text.strip().lower() == ALL_REGIONS:
        return ALL_REGIONS
    parts = [part.strip() for part in text.split(",")]
    if len(parts) > 1 and ALL_REGIONS in (part.lower() for part in parts):
        raise ValueError(
            f"all is every region on its own, not one of a list, got {_shown(text)}; give --region all, "
            "or the regions: us-east-1,us-west-2"
        )
    if len(parts) > 1 and not all(parts):
        raise ValueError(
            f"must be AWS regions separated by commas, like us-east-1,us-west-2, or all, got {_shown(text)}"
        )
    try:
        return ",".join(dict.fromkeys(REGION.parse(part) for part in parts))
    except ValueError as exc:
        raise ValueError(f"{exc}; several: us-east-1,us-west-2; every region: all") from None


AMI_ID = Name(
    "an AMI id", r"ami-([0-9a-f]{8}|[0-9a-f]{17})", "ami-0123456789abcdef0", f"ami- and {_HEX}", 21
)
SUBNET_ID = Name(
    "a subnet id",
    r"subnet-([0-9a-f]{8}|[0-9a-f]{17})",
    "subnet-0123456789abcdef0",
    f"subnet- and {_HEX}",
    24,
)
VPC_ID = Name(
    "a VPC id", r"vpc-([0-9a-f]{8}|[0-9a-f]{17})", "vpc-0123456789abcdef0", f"vpc- and {_HEX}", 21
)
BUCKET = Name(
    "an S3 bucket name",
    r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]",
    "my-planner-results",
    "3 to 63 lowercase letters, digits, dots and dashes; a letter or digit first and last",
    63,
    _bucket_problem,
)
STACK_NAME = Name(
    "a CloudFormation stack name",
    r"[A-Za-z][A-Za-z0-9-]{0,127}",
    "cloud-planner",
    "a letter, then letters, digits and dashes; at most 128 characters",
    128,
)
RUN_ID = Name(
    "a run id",
    r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}",
    "20261121T180000Z-1a2b3c4d",
    "letters, digits, dots, dashes, underscores and colons; at most 128 characters",
    128,
)
AMI_TYPE = Name(
    "a Deep Learning AMI type",
    r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}",
    "oss-nvidia-driver-gpu-pytorch-2.9-ubuntu-24.04",
    "letters, digits, dots, dashes and underscores; at most 128 characters",
    128,
)
ARCH = Name(
    "an architecture",
    r"[a-z0-9_]{1,16}",
    "x86_64 or arm64",
    "lowercase letters, digits and underscores",
    16,
)
INSTANCE_TYPE = Name(
    "an instance type",
    r"[a-z0-9-]{1,20}\.[a-z0-9-]{1,20}",
    "g5.xlarge",
    "family.size in lowercase letters, digits and dashes",
    41,
)
TARGETS = Name(
    "a list of targets",
    r"[A-Za-z0-9.:_, -]{1,1000}",
    "local,aws:g5.xlarge",
    "local, auto and aws:INSTANCE_TYPE separated by commas; at most 1,000 characters",
    1000,
)
UTC_TIME = Name(
    "a UTC time",
    r"[0-9][0-9T:.+Z -]{0,39}",
    "2026-11-21T18:00:00Z",
    "an ISO-8601 date and time",
    40,
)

_RATE = re.compile(r"rate\((\d{1,6}) (minute|minutes|hour|hours|day|days)\)")
_CRON = re.compile(r"cron\([0-9A-Za-z*?,/#-]{1,40}( [0-9A-Za-z*?,/#-]{1,40}){5}\)")


def parse_schedule(text: str) -> str:
    """An EventBridge schedule expression: rate(N unit) with a whole N of at least 1 (AWS wants
    "1 minute" but "5 minutes"), or cron( ) with its six fields."""
    forms = 'an EventBridge schedule like "rate(10 minutes)" or "cron(0/10 * * * ? *)"'
    rate = _RATE.fullmatch(text) if isinstance(text, str) and len(text) <= 256 else None
    if rate:
        n, unit = int(rate.group(1)), rate.group(2)
        if n == 0:
            raise ValueError(f"must be {forms} with a rate of at least 1, got {_shown(text)}")
        if (n == 1) == unit.endswith("s"):  # AWS refuses "rate(1 minutes)" and "rate(5 minute)"
            fix = f"rate(1 {unit.rstrip('s')})" if n == 1 else f"rate({n} {unit}s)"
            raise ValueError(
                f'must be {forms}; write "{fix}" (AWS wants the singular for 1 only), got {_shown(text)}'
            )
        return text
    if isinstance(text, str) and len(text) <= 256 and _CRON.fullmatch(text):
        return text
    raise ValueError(f"must be {forms}, got {_shown(text)}")


# ----------------------------------------------------------------------------- closed sets

Objective = Literal["cheapest", "fastest", "deadline"]  # what a plan minimizes (--objective)
OBJECTIVES: tuple[Objective, ...] = get_args(Objective)
GroupBy = Literal["gpu", "instance", "none"]  # which rows a table shows (--group-by)
GROUP_BY: tuple[GroupBy, ...] = get_args(GroupBy)
DEFAULT_GROUP_BY: GroupBy = "gpu"


# ----------------------------------------------------------------------------- paths

NAME_MAX = 255  # bytes in one file name on Linux and macOS file systems
PATH_MAX = 4_096


def shown_path(path: str) -> str:
    """A path as a message shows it: printable, at most 120 characters."""
    text = path if path.isprintable() else repr(path)[1:-1]
    return text if len(text) <= 120 else text[:80] + "..." + text[-37:]


def path_problem(path: str) -> str | None:
    """What makes `path` unusable as a name before the file system is asked (NUL, lengths)."""
    if not path:
        return "is empty"
    if "\x00" in path:
        return "contains a NUL character"
    try:
        raw = os.fsencode(path)
    except UnicodeError:
        return "is not a valid file name on this system"
    if len(raw) >= PATH_MAX:
        return f"is {len(raw):,} bytes long; a path is at most {PATH_MAX - 1:,}"
    longest = max((len(part) for part in raw.split(b"/")), default=0)
    if longest > NAME_MAX:
        return f"has a file or directory name of {longest:,} bytes; at most {NAME_MAX}"
    return None
