"""The plan on stdout: the terse answer and its table, --explain's reasoning, or the data formats."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from planner.cli.common import (
    print_json,
    print_lines,
    print_shown,
    print_table,
    print_whole,
    stderr,
    stdout,
    wrapped,
)
from planner.report.answers import (
    answers_text,
    failed_lines,
    recommendation_text,
    task_choice_lines,
)
from planner.report.export import csv_text
from planner.report.footer import said_lines, terse_footer
from planner.report.plan import PLAN_COLUMNS, plan_table, shown_options
from planner.report.plan_csv import PLAN_CSV_COLUMNS, plan_csv_rows
from planner.report.terse import TERSE_ROWS, careful_option, terse_answer, terse_title
from planner.report.text import escape
from planner.report.title import plan_title

if TYPE_CHECKING:
    from rich.console import Console

    from planner.report.plan import Shown
    from planner.service import PlanDocument, RankedOption


def print_plan(doc: PlanDocument, args: argparse.Namespace, saved: bool = False) -> None:
    """The plan on stdout. table: the terse answer (report.terse.terse_answer), the grouped table (at most TERSE_ROWS
    rows unless the rows were asked for), one line of warnings; --explain: the same answer first, then the table with
    its legend, the headline's reasoning and both answers whole; --verbose: every warning and note. JSON: every option; csv, markdown: the table
    alone, every column. `saved`: the plan was just written to its run's plan.json (`planner plan`), said on
    stderr."""
    if args.format == "json":
        print_json(doc)
        return
    explain = getattr(args, "explain", False)
    terse = args.format == "table" and not explain
    head = (
        [terse_title(doc), *terse_answer(doc)]
        + [f"  {line.strip()}" for line in task_choice_lines(doc) + failed_lines(doc)]
        if terse
        else []
    )  # the lines above the terse table
    cap = (
        _terse_rows(doc, head, stdout())
        if terse and getattr(args, "rows_defaulted", False)
        else None
    )
    options, shown = shown_options(doc, args.group_by, args.max_rows or cap)
    if args.format == "table":
        out = stdout()
        if explain:
            _print_explained(out, doc, args, options, shown)
        else:
            _print_terse(out, doc, args, head, options, shown)
        if explain or getattr(args, "verbose", False):
            for line in said_lines(doc, terse=not explain):
                out.print(line, highlight=False)
    # data: every option, numbers in SI units (the grouped view is for people)
    elif args.format == "csv":
        sys.stdout.write(csv_text(list(PLAN_CSV_COLUMNS), plan_csv_rows(doc)))
    else:
        print_table(args, plan_table(doc, wide=True, options=options, note_width=10_000))
        print_shown(args, shown)
    if doc.run_dir:
        run_dir = escape(doc.run_dir)
        then = (
            "this plan saved as its plan.json"
            if saved
            else f"re-plan with `planner plan {run_dir}`"
        )
        stderr().print(f"run journal: {run_dir}  ({then})", highlight=False)


def _print_explained(
    out: Console,
    doc: PlanDocument,
    args: argparse.Namespace,
    options: list[RankedOption],
    shown: Shown,
) -> None:
    """--explain: the answer first, as without it; then the table with its legend and the reasoning."""
    print_lines(out, [plan_title(doc)])
    # a busy measurement named once: left to the reasoning below when it names the same one
    busy = careful_option(doc)
    said = busy is not None and f"Careful: {busy.target} " in recommendation_text(doc)
    print_lines(out, terse_answer(doc, careful=not said, detail=True))
    print_whole(
        out, plan_table(doc, width=out.width, wide=args.wide, options=options, titled=False)
    )
    print_shown(args, shown)
    out.print(recommendation_text(doc), highlight=False)
    for line in failed_lines(doc) + answers_text(doc) + task_choice_lines(doc):
        out.print(line, highlight=False)


def _print_terse(
    out: Console,
    doc: PlanDocument,
    args: argparse.Namespace,
    head: list[str],
    options: list[RankedOption],
    shown: Shown,
) -> None:
    """The terse answer, the grouped table and its one-line footer."""
    print_lines(out, head)
    table = plan_table(doc, width=out.width, wide=args.wide, options=options, terse=True)
    print_whole(out, table)
    dropped = [c for c in PLAN_COLUMNS if c not in {str(col.header) for col in table.columns}]
    for line in terse_footer(
        doc, shown, dropped, out.width, verbose=getattr(args, "verbose", False)
    ):
        out.print(line, highlight=False)


# a terminal's lines the plan leaves: the command typed, make's echo of it, the next prompt
SCREEN_RESERVE = 3


def _terse_rows(doc: PlanDocument, head: list[str], out: Any) -> int:
    """How many rows the terse table shows: TERSE_ROWS, fewer on a terminal too short for them with `head` (the
    answer's lines) above and the lines below (the answer, at the top, must stay on the screen: issue 40), and never
    fewer than three."""
    if not out.is_terminal:
        return TERSE_ROWS
    from rich.text import Text

    width = max(out.width, 20)
    # the head's lines as print_lines wraps them
    used = sum(len(wrapped(Text.from_markup(line), width)) for line in head)
    # the footer's two lines; the table's blank lines, header and rule; a paid benchmark's command
    used += 2 + 4 + (3 if doc.suggested_benchmarks else 0)
    return max(3, min(TERSE_ROWS, out.height - SCREEN_RESERVE - used))
