"""What every command shares: the parser class, the consoles, JSON output, argument types, the
bench progress line and the plan printout."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from planner.errors import ExitCode


class Parser(argparse.ArgumentParser):
    """argparse exits 2 on usage errors already; keep its message short and point to --help."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(ExitCode.BAD_INPUT, f"{self.prog}: error: {message}\n  (see {self.prog} --help)\n")


def stdout():
    from rich.console import Console

    # A pipe has no width: COLUMNS when set, else 150 columns, beats truncated values in a log or a file.
    width = None if sys.stdout.isatty() else int(os.environ.get("COLUMNS") or 150)
    return Console(soft_wrap=False, width=width)


def stderr():
    from rich.console import Console

    return Console(stderr=True)


def warn(text: str) -> None:
    stderr().print(f"[yellow]warning[/]: {text}", highlight=False)


def print_json(data: Any) -> None:
    """Strict JSON (no NaN or Infinity: null plus a note), which every parser accepts."""
    from planner.report import to_json

    sys.stdout.write(to_json(data) + "\n")


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def duration(text: str) -> float:
    from planner.service import parse_duration

    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def default_region() -> str:
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"


class BenchProgress:
    """A rich status line on stderr: phase, elapsed seconds, current step time."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.status = None

    def __enter__(self) -> "BenchProgress":
        if self.enabled:
            self.status = stderr().status("starting the bench ...")
            self.status.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.status is not None:
            self.status.__exit__(*exc)

    def __call__(self, label: str, event: dict[str, Any]) -> None:
        if self.status is None:
            return
        from planner.report import seconds_text

        kind = event.get("event")
        if kind == "built":
            text = "warming up"
        elif kind == "warmup":
            text = f"warming up: {seconds_text(event.get('step_seconds'))}/step"
        elif kind == "measure":
            text = (f"measuring: {event.get('steps', 0):,} steps, {seconds_text(event.get('step_seconds'))}/step "
                    f"+-{event.get('rel_ci', 0):.1%}")
        elif kind == "sweep":
            text = "batch-size sweep"
        else:
            text = str(kind)
        elapsed = event.get("seconds")
        self.status.update(f"[{label}] {text}" + (f"  ({elapsed:.0f} s)" if elapsed else ""))


def progress() -> BenchProgress:
    return BenchProgress(enabled=sys.stderr.isatty())


def print_plan(doc: dict[str, Any], as_json: bool, wide: bool = False) -> None:
    """The plan: its table (fitted to the terminal unless `wide`), the headline, both answers, and
    what the measurements warned about — all on stdout: they are the plan."""
    from planner.report import answers_text, plan_table, recommendation_text

    if as_json:
        print_json(doc)
        return
    out = stdout()
    out.print(plan_table(doc, width=out.width, wide=wide))
    out.print(recommendation_text(doc), highlight=False)
    for line in answers_text(doc):
        out.print(line, highlight=False)
    for warning in doc.get("warnings", []):
        out.print(f"[yellow]warning[/]: {warning}", highlight=False)
    if doc.get("run_dir"):
        stderr().print(f"run journal: {doc['run_dir']}  (re-plan with `planner plan {doc['run_dir']}`)", highlight=False)


def plan_arguments(p: argparse.ArgumentParser, defaults: bool) -> None:
    p.add_argument("--objective", choices=("cheapest", "fastest", "deadline"), default="cheapest" if defaults else None,
                   help="what to minimize (default cheapest; --deadline alone means cheapest within it)")
    p.add_argument("--deadline", type=duration, metavar="DURATION", help="finish within this time, e.g. 4h, 90m, 1h30m")
    p.add_argument("--time-value", type=non_negative_float, metavar="USD_PER_HOUR",
                   help="what an hour of your waiting is worth; added to each option's cost")
    p.add_argument("--local-price", type=non_negative_float, metavar="USD_PER_HOUR", default=0.0 if defaults else None,
                   help="hourly cost of this machine (amortized hardware, power); default 0")
    p.add_argument("--wide", action="store_true", help="show every column of the plan, however wide the terminal")
