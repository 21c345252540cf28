"""What every command shares: the parser class, the consoles, JSON output, argument types, the
output flags (--format, --out-file, --group-by, --all, --max-rows), the bench progress line and the
plan printout."""

from __future__ import annotations

import argparse
import functools
import os
import re
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.errors import ExitCode, InputError, RunError
from planner.report.answers import (
    answers_text,
    failed_lines,
    recommendation_text,
    task_choice_lines,
)
from planner.report.export import csv_text, table_text
from planner.report.plan import (
    DEFAULT_GROUP_BY,
    PLAN_COLUMNS,
    plan_table,
    shown_line,
    shown_options,
)
from planner.report.plan_csv import PLAN_CSV_COLUMNS, plan_csv_rows
from planner.report.remarks import words
from planner.report.terse import TERSE_ROWS, said_lines, terse_answer, terse_footer, terse_title
from planner.report.text import escape, progress_text, to_json
from planner.service import (
    ENV_NAME,
    SCRIPT_CAP_EXTRA_SECONDS,
    UNSTEADY_EXTENSION,
    PlannerService,
    ScriptEnv,
    ScriptWorkload,
    is_script,
)
from planner.service.inputs import check_out_file, parse_flag, shown_path

if TYPE_CHECKING:
    from planner.service import PlanDocument, PlannerService, Progress, Workload


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
    if (
        hasattr(args, "group_by") and args.group_by is None
    ):  # `prices --cpu`: no GPU to group by, each type once
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
        out.print(t)


def print_shown(args: argparse.Namespace, shown: Any) -> None:
    """'Shown N of M options; --all for every row' under a grouped table (on stderr beside csv or markdown)."""
    line = shown_line(shown)
    if not line:
        return
    if args.format == "table":
        stdout().print(line, highlight=False, markup=False)
    else:
        stderr().print(line, highlight=False, markup=False)


def print_plan(doc: PlanDocument, args: argparse.Namespace, saved: bool = False) -> None:
    """The plan on stdout. table: the terse answer (report.terse.terse_answer), the grouped table (at most TERSE_ROWS
    rows unless the rows were asked for), one line of warnings; --explain: the table with its legend, the headline's
    reasoning and both answers whole; --verbose: every warning and note. JSON: every option; csv, markdown: the table
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
            out.print(plan_table(doc, width=out.width, wide=args.wide, options=options))
            print_shown(args, shown)
            out.print(recommendation_text(doc), highlight=False)
            for line in failed_lines(doc) + answers_text(doc) + task_choice_lines(doc):
                out.print(line, highlight=False)
        else:
            for line in head:
                out.print(line, highlight=False)
            table = plan_table(doc, width=out.width, wide=args.wide, options=options, terse=True)
            out.print(table)
            dropped = [
                c for c in PLAN_COLUMNS if c not in {str(col.header) for col in table.columns}
            ]
            for line in terse_footer(
                doc, shown, dropped, out.width, verbose=getattr(args, "verbose", False)
            ):
                out.print(line, highlight=False)
        if explain or getattr(args, "verbose", False):
            for line in said_lines(doc, terse=not explain):
                out.print(line, highlight=False)
    elif (
        args.format == "csv"
    ):  # data: every option, numbers in SI units (the grouped view is for people)
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


SCREEN_RESERVE = (
    3  # a terminal's lines the plan leaves: the command typed, make's echo of it, the next prompt
)


def _terse_rows(doc: PlanDocument, head: list[str], out: Any) -> int:
    """How many rows the terse table shows: TERSE_ROWS, fewer on a terminal too short for them with `head` (the
    answer's lines) above and the lines below (the answer, at the top, must stay on the screen: issue 40), and never
    fewer than three."""
    if not out.is_terminal:
        return TERSE_ROWS
    from math import ceil

    from rich.text import Text

    width = max(out.width, 20)
    used = sum(max(1, ceil(Text.from_markup(line).cell_len / width)) for line in head)
    used += (
        2 + 4 + (3 if doc.suggested_benchmarks else 0)
    )  # the footer's two lines; the table's blank lines, header
    # and rule; a paid benchmark's command
    return max(3, min(TERSE_ROWS, out.height - SCREEN_RESERVE - used))


def say_before_measuring(
    service: PlannerService,
    args: argparse.Namespace,
    workload: Workload,
    then: str = "",
    predict_only: bool = False,
    estimate: bool = False,
) -> None:
    """What the measurement will do, said on stderr before it starts: a script's run here and where it is stopped
    (with --predict-only, its trace on the stand-in alone), or, for an estimate, that it measures a spec in fp32 where
    this CPU would emulate its precision (bench, validate and run measure the spec's own). Raises InputError (a script
    that is not there)."""
    if not isinstance(workload, ScriptWorkload):
        if (
            estimate
            and not predict_only
            and (emulated := service.workloads.emulated_here(workload.spec))
        ):
            stderr().print(f"[yellow]note[/]: {escape(emulated)}", highlight=False)
    elif predict_only:
        service.workloads.check_script(workload.path, workload.workdir)
        stderr().print(
            f"tracing {escape(workload.path)} on a stand-in GPU only (--predict-only): nothing of it runs here",
            highlight=False,
        )
    else:
        _say_script_cap(service, workload, args.seconds, then)


def _say_script_cap(
    service: PlannerService, script: ScriptWorkload, seconds: float, then: str = ""
) -> None:
    """Say, before it starts, what a script's measurement will do and where it is stopped (a script that is not
    there is refused first: InputError)."""
    service.workloads.check_script(script.path, script.workdir)
    running = " ".join([script.path, *script.args]) + (
        f" in {Path(script.workdir).resolve()}" if script.workdir else ""
    )
    epoch = (
        "; longer while an epoch under way can end before the cap: --epochs counts steps from a whole one"
        if script.epochs
        else ""
    )
    if service.workloads.traced_first(script.path):
        stderr().print(
            f"{escape(script.path)} names CUDA: it is traced on a stand-in GPU first, and not run here if that "
            "trace says its step is too slow for this CPU.",
            highlight=False,
        )
    stderr().print(
        f"Running {escape(running)} here, unchanged: {seconds:g} s of training steps (at least 20; up to "
        f"{UNSTEADY_EXTENSION * seconds:g} s while the step time has not settled{epoch}). It is stopped, with "
        f"everything it started, at {seconds + SCRIPT_CAP_EXTRA_SECONDS:g} s if not finished"
        + (f"; {then}." if then else "."),
        highlight=False,
    )  # a terminal wraps it at words; a pipe keeps it one line


def check_script_flags(args: argparse.Namespace, flags: tuple[str, ...]) -> None:
    """Refuse the spec-only flags a script cannot honour, and two lengths of its run."""
    defaults = {"out": None, "device": "auto", "threads": None, "sweep": False, "processes": 1}
    given = [
        f"--{name.replace('_', '-')}"
        for name in flags
        if getattr(args, name, None) != defaults[name]
    ]
    if given == ["--threads"]:
        raise InputError(
            f"--threads {args.threads}: not for a training script (the planner does not change its code)",
            hint=f"set the script's threads in its environment: OMP_NUM_THREADS={args.threads} planner ... (the "
            "launcher and torch honour it)",
        )
    if given == ["--out"]:
        raise InputError(
            "--out: not for a training script's bench",
            hint="write its result with --json --out-file FILE",
        )
    if given:
        raise InputError(
            f"{', '.join(given)}: not for a training script (it picks its own device, threads and batch)",
            hint="give them to a spec, or set them in the script's own arguments after --",
        )
    check_one_length(args)


def check_one_length(args: argparse.Namespace) -> None:
    """A script's whole run has one length: --total-steps or --epochs, not both."""
    if args.total_steps and args.epochs:
        raise InputError(
            "--total-steps and --epochs: give one length of the whole run, not both",
            hint="--total-steps N (optimizer steps) or --epochs N (DataLoader epochs)",
        )


SCRIPT_ONLY = (
    ("total_steps", "--total-steps"),
    ("epochs", "--epochs"),
    ("workdir", "--workdir"),
    ("requirements", "--requirements"),
    ("env", "--env"),
    ("secret", "--secret"),
    ("script_args", "arguments after --"),
)


def refuse_script_flags(
    args: argparse.Namespace, spec: str | None, but: tuple[str, ...] = ()
) -> None:
    """A spec given what only a training script takes: InputError naming exactly those given (`but`: the
    command's own flags of the same name, as validate's --epochs for a spec)."""
    given = [flag for name, flag in SCRIPT_ONLY if name not in but and getattr(args, name, None)]
    if given:
        raise InputError(
            f"{', '.join(given)}: {'is' if len(given) == 1 else 'are'} for a training script (.py) or a "
            f"SkyPilot task, not {spec or 'a spec'}",
            hint="leave them out for a spec (its run is its train.epochs, in "
            "its own folder); a script takes them: `planner COMMAND train.py [--total-steps N | --epochs N] "
            "[--workdir DIR] -- ARGS`",
        )


def open_workload(
    service: PlannerService,
    args: argparse.Namespace,
    script_refuses: tuple[str, ...] = (),
    spec_takes: tuple[str, ...] = (),
) -> Workload:
    """The workload the command names, as the service opens it (a spec loaded and checked; a script with its
    arguments, length, folder and environment; a SkyPilot task as the script it runs), after refusing the flags its
    kind does not take: `script_refuses`, the spec-only flags given to a script; `spec_takes`, the command's own flags
    of a script flag's name (validate's --epochs). Raises InputError, SpecError."""
    if is_script(args.spec):
        check_script_flags(args, script_refuses)
    else:
        refuse_script_flags(args, args.spec, spec_takes)
    task = getattr(args, "task", None)
    return service.workloads.open(
        args.spec,
        getattr(args, "script_args", None) or [],
        getattr(args, "total_steps", None),
        getattr(args, "epochs", None),
        getattr(args, "workdir", None),
        getattr(args, "script_env", None),
        task.origin if task is not None else None,
        getattr(args, "requirements", None),
    )


def env_pairs(values: list[str] | None, flag: str) -> dict[str, str]:
    """`--env NAME=VALUE` / `--env NAME` (its value from this environment, as sky launch takes it), in order: the
    last one given for a name wins. InputError naming the flag and the value."""
    pairs: dict[str, str] = {}
    for value in values or []:
        name, eq, given = value.partition("=")
        if not ENV_NAME.match(name):
            raise InputError(
                f"{flag} {value}: {name or 'the name'} is not an environment variable's name",
                hint=f"{flag} NAME=VALUE, NAME of letters, digits and _ (not starting with a digit)",
            )
        if not eq and name not in os.environ:
            raise InputError(
                f"{flag} {name}: not set in your environment, to take its value from",
                hint=f"give its value: {flag} {name}=VALUE, or export {name} first",
            )
        pairs[name] = given if eq else os.environ[name]
    return pairs


def settle_script_env(args: argparse.Namespace) -> None:
    """`args.script_env` (a ScriptEnv) from --env and --secret (a task's envs and secrets are read with them:
    take_task), said on stderr by name when there is one."""
    if not hasattr(args, "env") or hasattr(args, "script_env"):
        return
    args.script_env = ScriptEnv.of(env_pairs(args.env, "--env"), env_pairs(args.secret, "--secret"))
    if str(getattr(args, "spec", "") or "").endswith(
        ".py"
    ):  # a spec refuses them (its command says so)
        _say_env(args)


def _say_env(args: argparse.Namespace) -> None:
    """Refuse a secret's value in the script's arguments (a shell's `-- --token $HF_TOKEN`); say the env by name."""
    leaked = args.script_env.leaked_in(getattr(args, "script_args", None) or [])
    if leaked is not None:
        raise InputError(
            f"arguments after --: one holds the value of the secret {leaked}, which the planner would print, "
            "journal and send to instances",
            hint=f"read it in the script from the environment "
            f'(os.environ["{leaked}"]): the planner sets it there, here only',
        )
    for line in words(args.script_env.said()):
        note(line)
        args.task_said = [*(getattr(args, "task_said", None) or []), line]


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


def _given(argv: set[str], flag: str) -> bool:
    """Whether `flag` is on the command line (`--region X` or `--region=X`)."""
    return flag in argv or any(a.startswith(flag + "=") for a in argv)


def take_task(args: argparse.Namespace, argv: list[str] | None = None) -> None:
    """`planner COMMAND task.yaml [-- ARGS]`: a SkyPilot task read as the training script it runs
    (resolved by PlannerService.workloads.open_task): the arguments become those of `planner COMMAND WORKDIR/SCRIPT.py --workdir WORKDIR
    [--requirements FILE] -- TASK_ARGS ARGS`, said on stderr with what of the task is not used. Its resources' region
    and use_spot price the plan, as `sky launch` reads them, unless --region or --purchase is in `argv` (the command
    line: a config file's default is under the task's). A workload spec is left as it is."""
    spec = getattr(args, "spec", None)
    if not spec or not str(spec).endswith((".yaml", ".yml")):
        return
    opened = PlannerService().workloads.open_task(
        spec,
        env_pairs(getattr(args, "env", None), "--env"),
        env_pairs(getattr(args, "secret", None), "--secret"),
        getattr(args, "workdir", None),
    )
    if opened is None:
        return
    task = opened.task
    args.task_file, args.task = spec, task
    args.spec, args.workdir = opened.script, opened.workdir
    args.script_args = [*task.args, *getattr(args, "script_args", [])]
    if opened.requirements and hasattr(args, "requirements") and not args.requirements:
        args.requirements = opened.requirements
    shown = " ".join(shlex.quote(a) for a in [args.spec, *args.script_args])
    head = (
        f"{task.source}: SkyPilot task{f' {task.name}' if task.name else ''}: runs `python {shown}` in its workdir "
        f"{opened.workdir}"
        + (
            f", with setup's requirements {args.requirements}"
            if getattr(args, "requirements", None) and task.requirements
            else ""
        )
    )
    given, said = set(argv or []), list[str]()
    if opened.region and hasattr(args, "region") and not _given(given, "--region"):
        try:
            args.region = parse_flag("--region", opened.region)
        except ValueError as exc:
            raise InputError(
                f"{task.source}: resources.region: {exc}",
                hint="write an AWS region such as us-east-1 (or infra: aws/us-east-1), or pass --region",
            ) from None
        said.append(
            f"{task.source}: resources: priced in {args.region}, the task's region (--region overrides it)"
        )
    if opened.purchase and hasattr(args, "purchase") and not _given(given, "--purchase"):
        args.purchase = opened.purchase
        said.append(
            f"{task.source}: resources: use_spot: {'true' if opened.purchase == 'spot' else 'false'}: priced "
            f"{args.purchase} (--purchase overrides it)"
        )
    task_said = [head, *words(task.notes), *said]
    args.task_said = (
        task_said  # the TUI shows them too (this line is gone once it takes the screen)
    )
    stderr().print(head, markup=False, highlight=False, soft_wrap=True)
    for line in task_said[1:]:
        note(line)
    if hasattr(args, "env"):
        args.script_env = ScriptEnv.of(task.envs, task.secrets)
        _say_env(args)
