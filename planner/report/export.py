"""A table as CSV or markdown (`--format csv|markdown`): the same column names and cells a person reads in
the terminal, as plain text — from the rich Table the fronts print, so no table is written twice. CSV by
the standard library's csv module; markdown a plain pipe table. `--format json` is each command's own
JSON, which keeps every row and the numbers unrounded."""

from __future__ import annotations

import csv
import io
from typing import Any

FORMATS = ("table", "json", "csv", "markdown")
TABLE_FORMATS = (
    "csv",
    "markdown",
)  # a table's rows as text: what --group-by and --max-rows apply to, as to "table"


def plain(cell: Any) -> str:
    """A cell as the terminal shows it, without styles: markup read ('[red]failed[/]' -> 'failed'), escapes
    undone; text that is not valid markup as it is."""
    from rich.errors import MarkupError
    from rich.text import Text

    if isinstance(cell, Text):
        return cell.plain
    if not isinstance(cell, str):
        return str(cell)
    try:
        return Text.from_markup(cell).plain
    except MarkupError:
        return cell


def table_cells(table) -> tuple[list[str], list[list[str]]]:
    """A rich Table's column names and rows, as plain text."""
    columns = [plain(column.header) for column in table.columns]
    cells = [[plain(cell) for cell in column.cells] for column in table.columns]
    return columns, [list(row) for row in zip(*cells)]


def csv_text(columns: list[str], rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return out.getvalue()


def _md(cell: str) -> str:
    return " ".join(cell.split()).replace("\\", "\\\\").replace("|", "\\|")


def markdown_text(columns: list[str], rows: list[list[str]], right: tuple[bool, ...] = ()) -> str:
    """A pipe table; `right`: which columns are right-aligned (numbers)."""
    rule = ["---:" if i < len(right) and right[i] else "---" for i in range(len(columns))]
    lines = ["| " + " | ".join(_md(c) for c in columns) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def table_text(table, fmt: str) -> str:
    """`table` (a rich Table) as `fmt`: 'csv' or 'markdown'."""
    columns, rows = table_cells(table)
    if fmt == "csv":
        return csv_text(columns, rows)
    if fmt == "markdown":
        return markdown_text(
            columns, rows, tuple(column.justify == "right" for column in table.columns)
        )
    raise ValueError(f"not a table format: {fmt!r} (one of {', '.join(TABLE_FORMATS)})")


__all__ = [
    "FORMATS",
    "TABLE_FORMATS",
    "csv_text",
    "markdown_text",
    "plain",
    "table_cells",
    "table_text",
]
