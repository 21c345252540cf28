"""`--chart FILE`: the TUI's chart as a file — SVG, PNG, or a self-contained HTML page (the
headline, both answers and the SVG inline, no script). Design notes: docs/reference/modules.md
(planner/report/chart_file.py)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.errors import InputError, RunError
from planner.report.answers import answers_text, headline_label, recommendation_text
from planner.report.chart import TOP, ChartData, chart_data
from planner.report.plan import device_text
from planner.report.text import money_text, seconds_text
from planner.units import shown_path

if TYPE_CHECKING:
    from planner.core.document import PlanDocument

FORMATS = ("svg", "png", "html")
INSTALL = "pip install 'cloud-planner[chart]'"
COLORS = {"chosen": "#d99a00", "measured": "#2a9d3a", "predicted": "#1b8fb3"}
BREAK_EVEN_COLOR = "#d62728"
NOTE = (
    "Bars: each option's interval. Free options sit on the $0 line. Red line: break-even, the reference CPU "
    "option's cost; a GPU below it pays for itself. Numbers: the plan table's #."
)


def chart_format(path: str, flag: str = "--chart") -> str:
    """The format `path` asks for by its extension (svg, png or html), once its extension is known and
    the optional extra that draws it is installed; InputError naming the value and the fix otherwise."""
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        shown = f"'.{suffix}'" if suffix else "no extension"
        raise InputError(
            f"{flag} {shown_path(path)}: unknown chart format ({shown}); accepted: "
            + ", ".join(f".{f}" for f in FORMATS),
            hint=f"name the file with one of them, e.g. {flag} plan.svg",
        )
    try:
        import matplotlib  # noqa: F401 - only whether it is there
    except ImportError:
        raise InputError(
            f"{flag} {shown_path(path)}: drawing a chart needs matplotlib, the optional extra "
            "'chart', which is not installed",
            hint=INSTALL,
        ) from None
    return suffix


def write_chart(doc: PlanDocument, path: str, top: int = TOP) -> ChartData | None:
    """Draw `doc`'s chart into `path` in the format its extension names; the chart's data (None: no
    option to draw; the file then says so)."""
    fmt = chart_format(path)
    data = chart_data(doc, top)
    body = _figure(doc, data, "png" if fmt == "png" else "svg")
    if fmt == "html":
        body = _page(doc, body)
    try:
        with open(path, "wb") as out:
            out.write(body)
    except OSError as exc:
        raise RunError(
            f"--chart {shown_path(path)}: cannot write the chart ({exc.strerror or exc})",
            hint="give a path you may write to",
        ) from None
    return data


def _figure(doc: PlanDocument, data: ChartData | None, fmt: str) -> bytes:
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(
        {"svg.fonttype": "none", "svg.hashsalt": "cloud-planner", "font.size": 9}
    ):
        fig = Figure(figsize=(11, 6.2), layout="constrained")
        plot, key = fig.subplots(1, 2, width_ratios=[3, 1.25])
        fig.suptitle(
            f"{doc.workload.name}: training time against cost", x=0.01, ha="left", fontweight="bold"
        )
        plot.set_title(headline_label(doc), loc="left", color=COLORS["chosen"], fontweight="bold")
        key.set_axis_off()
        if data is None:
            plot.set_axis_off()
            plot.text(
                0.5,
                0.5,
                "no option has a training time and a cost to draw",
                ha="center",
                transform=plot.transAxes,
            )
        else:
            _draw(plot, data)
            _key(key, doc, data)
            _legend(key, data)
            fig.draw_without_rendering()  # the final layout, which the rank labels' overlap test reads
            _ranks(plot, data)
        buffer = io.BytesIO()
        fig.savefig(buffer, format=fmt, dpi=150, metadata={"Date": None} if fmt == "svg" else {})
    return buffer.getvalue()


def _draw(plot: Any, data: ChartData) -> None:
    for p in data.points:  # the intervals first, the markers over them
        color = COLORS[p.kind]
        if p.x_bar:
            plot.plot(p.x_bar, [p.y, p.y], color=color, linewidth=1, alpha=0.7)
        if p.y_bar:
            plot.plot([p.x, p.x], p.y_bar, color=color, linewidth=1, alpha=0.7)
    if data.break_even is not None:
        plot.axhline(data.break_even, color=BREAK_EVEN_COLOR, linewidth=1.2)
    for p in sorted(data.points, key=lambda p: p.kind == "chosen"):  # the headline's star on top
        color = COLORS[p.kind]
        if p.kind == "chosen":
            plot.plot(
                [p.x],
                [p.y],
                marker="*",
                markersize=17,
                color=color,
                markeredgecolor="black",
                markeredgewidth=0.6,
            )
            plot.annotate(
                p.option.target,
                (p.x, p.y),
                xytext=(10, 10),
                textcoords="offset points",
                color="black",
                fontweight="bold",
                arrowprops={"arrowstyle": "-", "color": "0.4", "linewidth": 0.6},
            )
        else:
            plot.plot(
                [p.x],
                [p.y],
                marker="o",
                markersize=6,
                color=color,
                markerfacecolor=color if p.kind == "measured" else "white",
            )
    x0, x1, y0, y1 = data.box
    plot.set_xlim(x0, x1)
    plot.set_ylim(y0, y1)
    plot.set_xticks(*data.x_ticks(10, fine=True))
    plot.set_yticks(*data.y_ticks(10, fine=True))
    plot.set_xlabel(data.x_label)
    plot.set_ylabel(data.y_label)
    plot.grid(True, color="0.9")


def _legend(key: Any, data: ChartData) -> None:
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], marker="o", linestyle="", color=COLORS["measured"], label="measured"),
        Line2D(
            [],
            [],
            marker="o",
            linestyle="",
            color=COLORS["predicted"],
            markerfacecolor="white",
            label="predicted",
        ),
        Line2D(
            [],
            [],
            marker="*",
            linestyle="",
            markersize=12,
            color=COLORS["chosen"],
            markeredgecolor="black",
            label="recommended",
        ),
        Line2D([], [], color="0.4", label="interval"),
    ]
    if data.break_even is not None:
        handles.append(Line2D([], [], color=BREAK_EVEN_COLOR, label="break-even"))
    key.legend(handles=handles, loc="lower left", fontsize=8, frameon=False)


def _ranks(plot: Any, data: ChartData) -> None:
    """Each point's rank right of it, unless it would overlap a label already placed (the best ranks
    first), as the TUI places them; the key beside the chart lists every one."""
    to_screen = plot.transData.transform
    taken: list[tuple[float, float, float, float]] = []
    for p in sorted(data.points, key=lambda p: p.option.rank or 1e9):
        if p.kind == "chosen":
            continue  # named by its own label
        x, y = to_screen((p.x, p.y))
        box = (x + 5, y - 2, x + 5 + 7 * len(p.label), y + 12)
        if any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in taken):
            continue
        taken.append(box)
        plot.annotate(
            p.label,
            (p.x, p.y),
            xytext=(5, 2),
            textcoords="offset points",
            fontsize=7,
            color=COLORS[p.kind],
        )


def _key(key: Any, doc: PlanDocument, data: ChartData) -> None:
    """The options drawn, as the plan table names them: #, target, device, training time, cost."""
    cost = "cost+wait" if doc.plan.time_value_per_hour else "cost"  # what the y axis shows
    rows = [f"{'#':>3}  {'target':<19} {'device':<14} {'time':>8} {cost:>9}"]
    colors = ["black"]
    for p in sorted(data.points, key=lambda p: p.option.rank or 1e9):
        o = p.option
        rows.append(
            f"{p.label:>3}  {o.target[:19]:<19} {device_text(o)[:14]:<14} {seconds_text(o.train_seconds):>8} "
            f"{money_text(o.point_cost, precise_below=1):>9}"  # $0.013 and $0.023 apart, as the table has them
        )
        colors.append(COLORS[p.kind])
    for i, (row, color) in enumerate(zip(rows, colors)):
        key.text(
            0,
            1 - i * 0.04,
            row,
            family="monospace",
            fontsize=7,
            color=color,
            va="top",
            transform=key.transAxes,
        )
    notes = [NOTE]
    if doc.prices is not None:
        notes.append(f"Prices: {doc.prices.source}, as of {doc.prices.as_of}.")
    key.text(
        0,
        1 - (len(rows) + 1) * 0.04,
        "\n".join(_wrap(n, 58) for n in notes),
        fontsize=7,
        color="0.3",
        va="top",
        transform=key.transAxes,
    )


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width))


def _page(doc: PlanDocument, svg: bytes) -> bytes:
    """A self-contained HTML page: the title, the headline and both answers as the CLI prints them,
    the chart's SVG inline, the note; no script, nothing fetched."""
    import html

    from rich.text import Text

    text = svg.decode("utf-8")
    inline = text[text.find("<svg") :]  # without the XML declaration and DOCTYPE
    title = f"{doc.workload.name}: training time against cost"
    said = [
        Text.from_markup(markup.strip()).plain
        for markup in (recommendation_text(doc), *answers_text(doc))
    ]
    paragraphs = "\n".join(f"<p>{html.escape(line)}</p>" for line in said)
    page = (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
        "<style>body{font-family:sans-serif;max-width:70rem;margin:1rem auto;padding:0 1rem;color:#222}"
        "svg{width:100%;height:auto}p{line-height:1.4}</style>\n</head>\n<body>\n"
        f"<h1>{html.escape(title)}</h1>\n{paragraphs}\n{inline}\n<p><small>{html.escape(NOTE)}</small></p>\n"
        "</body>\n</html>\n"
    )
    return page.encode("utf-8")
