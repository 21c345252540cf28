"""What every command shares: the parser class, the consoles, JSON output, argument types, the
output flags (--format, --out-file, --group-by, --all, --max-rows), the bench progress line and the
plan printout."""

from __future__ import annotations

import argparse
import functools
import os
import re
import sys
from typing import TYPE_CHECKING, Any

from planner.errors import ExitCode, InputError, RunError
from planner.report.export import table_text
from planner.report.plan import (
    DEFAULT_GROUP_BY,
    shown_line,
)
from planner.report.text import escape, progress_text, to_json, wrapped
from planner.service.inputs import check_out_file, parse_flag, shown_path

if TYPE_CHECKING:
    from planner.service import PlanDocument, Progress


@functools.cache
def _console_class():
    from rich.console import Console
    from rich.errors import MarkupError

    class PlainWhenNotMarkup(Console):
        """A rich Console whose print() shows text as typed when it is not valid markup: a spec path
        or a journal's device name with "[/x]" in it would otherwise raise MarkupError (an internal
        error for a legal file name). What the planner writes escapes such text (`escape`); this is
        the net under what it misses."""

        def print(self, *objects: Any, **kwargs: Any) -> None:
            try:
                super().print(*objects, **kwargs)
            except MarkupError:
                markup, self._markup = self._markup, False  # table cells read the console's setting
                try:
                    super().print(*objects, **{**kwargs, "markup": False})
                finally:
                    self._markup = markup

    return PlainWhenNotMarkup


def pipe_width() -> int:
    """A pipe has no width: COLUMNS when it is a sensible number (20 to 1,000), else 150 columns,
    beats truncated values in a log or a file. (COLUMNS=abc or 10**9 is not worth a crash or a
    gigabyte of padding.)"""
    text = os.environ.get("COLUMNS", "").strip()
    return min(max(int(text), 20), 1_000) if text.isdigit() and len(text) < 10 else 150


class TrimmedLines:
    """A stream that drops the spaces rich pads a line with (a table's cells, a title justified to the
    table's width) before its end: piped or written to a file, a line is as long as its text."""

    def __init__(self, stream: Any):
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(re.sub(r" +\n", "\n", text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def stdout():
    if sys.stdout.isatty():
        return _console_class()(soft_wrap=False)
    return _console_class()(soft_wrap=False, width=pipe_width(), file=TrimmedLines(sys.stdout))


_TERMINAL_STDERR: list[
    Any
] = []  # one console for the terminal: a progress line's spinner is cleared before each print


def stderr():
    """The console for messages: on a terminal one shared console (its live status line and the messages
    printed under it do not overwrite each other); in a pipe or a log, lines are not wrapped (a command in a
    message stays whole)."""
    if sys.stderr.isatty():
        if not _TERMINAL_STDERR:
            _TERMINAL_STDERR.append(_console_class()(stderr=True))
        return _TERMINAL_STDERR[0]
    return _console_class()(file=TrimmedLines(sys.stderr), soft_wrap=True)


def warn(text: str) -> None:
    stderr().print(f"[yellow]warning[/]: {escape(text)}", highlight=False)


def note(text: str) -> None:
    """How something was made (not a caveat: that is `warn`)."""
    stderr().print(f"[dim]note: {escape(text)}[/]", highlight=False)


def print_json(data: Any) -> None:
    """Strict JSON (no NaN or Infinity: null plus a note), which every parser accepts."""
    sys.stdout.write(to_json(data) + "\n")


def default_region() -> str:
    """AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1, held to --region's format."""
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        value = os.environ.get(name)
        if value:
            try:
                return parse_flag("--region", value)
            except ValueError as exc:
                raise InputError(
                    f"the environment variable {name}: {exc}",
                    hint=f"fix or unset {name}, or pass --region",
                ) from None
    return "us-east-1"


class BenchProgress:
    """A rich status line on stderr: phase, elapsed seconds, current step time."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.status: Any = None  # a rich Status while the line is shown

    def __enter__(self) -> BenchProgress:
        if self.enabled:
            self.status = stderr().status("starting the bench ...")
            self.status.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.status is not None:
            self.status.__exit__(*exc)

    def __call__(self, label: str, event: Progress) -> None:
        if self.status is None:
            return

        self.status.update(escape(f"[{label}] {progress_text(event)}"))


def progress() -> BenchProgress:
    return BenchProgress(enabled=sys.stderr.isatty())


# ----------------------------------------------------------------------------- output flags


def settle_output(args: argparse.Namespace) -> None:
    """One format from --format and --json; --all with --group-by or --max-rows is refused, not guessed."""
    if not hasattr(args, "format"):
        return
    if args.json and args.format not in (None, "json"):
        raise InputError(
            f"--json and --format {args.format}: two formats",
            hint="--json is --format json; give one of them",
        )
    args.format = "json" if args.json else args.format or "table"
    args.json = args.format == "json"
    if getattr(args, "all", False):
        given = [
            f
            for f, v in (("--group-by", args.group_by), ("--max-rows", args.max_rows))
            if v is not None
        ]
        if given:
            raise InputError(
                f"--all and {' and '.join(given)}: --all shows every row",
                hint=f"give --all, or {' and '.join(given)} without it",
            )
        args.group_by = "none"
    args.rows_defaulted = (
        getattr(args, "group_by", None) is None and getattr(args, "max_rows", None) is None
    )
    # `prices --cpu`: no GPU to group by, each type once
    if hasattr(args, "group_by") and args.group_by is None:
        args.group_by = (
            "instance"
            if getattr(args, "cpu", False) and args.command == "prices"
            else DEFAULT_GROUP_BY
        )


def run_with_out_file(handler: Any, args: argparse.Namespace) -> int:
    """The command, its stdout written to --out-file PATH when given (the path checked before any work;
    the file written when the command has finished)."""
    path = getattr(args, "out_file", None)
    if path is None:
        return int(handler(args))
    target = check_out_file(path, "--out-file", example="output.txt")
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = int(handler(args))
    text = buffer.getvalue()
    if text or code == ExitCode.OK:
        try:
            target.write_text(text)
        except (
            OSError
        ) as exc:  # it was writable before the work; a full disk or a removed directory since
            raise RunError(
                f"--out-file {shown_path(path)}: cannot write it ({exc.strerror or exc})",
                hint="write it somewhere else",
            ) from None
    return code


def print_table(args: argparse.Namespace, *tables: Any) -> None:
    """Tables in the format asked for: rich tables (table), or their columns and rows (csv, markdown: one
    after the other, a blank line between)."""
    if args.format in ("csv", "markdown"):
        sys.stdout.write("\n".join(table_text(t, args.format) for t in tables))
        return
    out = stdout()
    for t in tables:
        # a table whose every cell stays on one line (prices) is never cut: one with text to wrap wraps it
        if all(c.no_wrap for c in t.columns):
            print_whole(out, t)
        else:
            out.print(t)


def print_whole(out: Any, table: Any) -> None:
    """The table at its own width when that is wider than the terminal (`--wide`: every column whole, the terminal
    wrapping its lines rather than Rich cutting its numbers), else at the terminal's."""
    from rich.measure import Measurement

    need = Measurement.get(out, out.options.update(max_width=10_000), table).maximum
    if need <= out.width:
        out.print(table)
        return
    saved = out._width  # None: detected from the terminal, as it stays
    out.width = need  # Console.print(width=) never passes the console's own
    try:
        out.print(table, crop=False)
    finally:
        out._width = saved


def print_shown(args: argparse.Namespace, shown: Any) -> None:
    """'N of M rows shown; --all for every row' under a grouped table (on stderr beside csv or markdown)."""
    line = shown_line(shown)
    if not line:
        return
    if args.format == "table":
        stdout().print(line, highlight=False, markup=False)
    else:
        stderr().print(line, highlight=False, markup=False)


def check_chart(path: str | None) -> str | None:
    """`--chart FILE`: its format, the extra that draws it and the path, checked before any work."""
    if path is None:
        return None
    from planner.report.chart_file import chart_format

    fmt = chart_format(path)
    check_out_file(path, "--chart")
    return fmt


def write_chart(doc: PlanDocument, path: str | None) -> None:
    if path is None:
        return
    from planner.report.chart_file import write_chart as draw

    data = draw(doc, path)
    shown = f"{len(data.points)} options" if data else "no option to draw"
    stderr().print(
        f"chart: {escape(path)} ({shown}; the headline {escape(doc.recommendation.target or 'none')} marked)",
        highlight=False,
    )


def print_lines(out: Any, lines: list[str]) -> None:
    """Markup lines at the terminal's width, wrapped between words but never between a number and its unit (a
    trial: '... up to 162' / 's)' at 80 columns), as `wrapped` cuts them."""
    from rich.text import Text

    for line in lines:
        for part in wrapped(Text.from_markup(line), out.width):
            out.print(part, highlight=False)
