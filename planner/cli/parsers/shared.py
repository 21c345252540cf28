"""What every command's parser shares: the parser class (short usage errors, "did you mean", no
abbreviated flags), the flags' argparse types (the service's rule for each value) and the argument
groups several commands take. Light: `planner --help` imports this and no use case."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from planner.errors import ExitCode
from planner.report.export import FORMATS
from planner.service.flags import GROUP_BY, OBJECTIVES, flag_range, parse_flag


def _asks_json(argv: list[str]) -> bool:
    """Whether the command line (before `--`: a script's own arguments are not the planner's) asks for JSON."""
    own = argv[: argv.index("--")] if "--" in argv else argv
    return (
        "--json" in own
        or "--format=json" in own
        or any(a == "--format" and b == "json" for a, b in zip(own, own[1:]))
    )


class Parser(argparse.ArgumentParser):
    """argparse exits 2 on usage errors already; keep its message short and point to --help. No abbreviated
    flags (as the AWS CLI): `planner estimate train.py --epoch 3` meant for the script must not become the
    planner's --epochs; a misspelled flag gets "did you mean" instead."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def commands(self) -> dict[str, argparse.ArgumentParser]:
        """The planner's commands and their parsers, as --help lists them ({} for a command's own parser)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return dict(action.choices)
        return {}

    def command(self) -> argparse.ArgumentParser | None:
        """The subcommand's parser the command line names (None: none, or this is one): argparse reports a
        subcommand's leftover words from the top parser, which should not show `planner`'s own usage."""
        argv = getattr(self, "argv", sys.argv[1:])
        commands = self.commands()
        return next((commands[a] for a in argv if a in commands), None)

    def commands_with(self, option: str) -> list[str]:
        """The commands that take flag `option` (`--secret`: run, estimate, ...), in the order --help lists them."""
        return [
            name
            for name, sub in self.commands().items()
            if any(option in a.option_strings for a in sub._actions)
        ]

    def error(self, message: str) -> None:  # type: ignore[override]
        shown = (self.command() if "unrecognized arguments" in message else None) or self
        shown.print_usage(sys.stderr)
        script = "unrecognized arguments" in message and any(
            a.endswith(".py") for a in sys.argv[1:]
        )
        command = shown.prog if shown is not self else "planner bench"
        hint = (
            f"  (a training script's own arguments go after --: {command} train.py -- --lr 0.1)\n"
            if script
            else ""
        )
        hint += self.did_you_mean(message, strict=script)
        # a program asked for JSON: it gets the usage error as JSON too, as every other error
        if _asks_json(sys.argv[1:]):
            import json

            fix = (
                "; ".join(line.strip(" ()") for line in hint.splitlines() if line.strip())
                or f"see {shown.prog} --help"
            )
            sys.stdout.write(
                json.dumps(
                    {
                        "error": {
                            "title": "usage error",
                            "message": shown_message(message),
                            "hint": fix,
                            "exit_code": int(ExitCode.BAD_INPUT),
                        }
                    },
                    indent=2,
                )
                + "\n"
            )
        self.exit(
            ExitCode.BAD_INPUT,
            f"{shown.prog}: error: {shown_message(message)}\n{hint}  (see {shown.prog} --help)\n",
        )

    def did_you_mean(self, message: str, strict: bool = False) -> str:
        """For a misspelled flag (--regoin), the flags of this command it is closest to; for a misspelled command or
        choice (estimte), the choices it is closest to. `strict`: only a plainly close flag (a script's own
        --hidden is more likely than the planner's --wide)."""
        import difflib

        missing = re.match(r"argument (--[\w-]+): expected one argument", message)
        if missing:  # `--deadline -5m`: argparse reads a value starting with '-' as a flag
            argv = getattr(self, "argv", sys.argv[1:])
            after = argv[argv.index(missing.group(1)) + 1 :] if missing.group(1) in argv else []
            if after and re.match(r"-\.?\d", after[0]):
                flag = missing.group(1)
                return f"  ({flag} {after[0]}: a negative value, which {flag} does not take)\n"
            return ""
        choice = re.match(
            r"argument ([^:]+): invalid choice: '([^']*)' \(choose from (.*)\)", message
        )
        if choice:  # argparse quotes the choices before Python 3.12.8, not after
            options = re.findall(r"'([^']*)'", choice.group(3)) or [
                c.strip() for c in choice.group(3).split(",")
            ]
            close = difflib.get_close_matches(choice.group(2), options, n=2, cutoff=0.6)
            return f"  ({choice.group(2)}: did you mean {' or '.join(close)}?)\n" if close else ""
        if "unrecognized arguments" not in message:
            return ""
        # the subcommand's own flags (argparse reports them from the top parser, whose --version the command lacks)
        command = self.command()
        parsers = [command] if command is not None else [self]
        known = [
            o for p in parsers for a in p._actions for o in a.option_strings if o.startswith("--")
        ]
        lines = []
        for typed in re.findall(r"(--[A-Za-z][\w-]*)", message.split(":", 1)[-1]):
            close = difflib.get_close_matches(typed, known, n=2, cutoff=0.6)
            ratios = [difflib.SequenceMatcher(None, typed, c).ratio() for c in close]
            # a far second guess is noise
            close = [c for c, r in zip(close, ratios) if r >= ratios[0] - 0.1]
            owners = self.commands_with(typed) if command is not None else []
            prog = command.prog if command is not None else self.prog
            name = prog.removeprefix("planner ") if command is not None else ""
            if not owners and typed[2:] in self.commands():  # a command typed as a flag: --reap
                lines.append(f"  ({typed[2:]} is a command: planner {typed[2:]})\n")
                continue
            if name in owners:  # typed before the command, which takes it
                lines.append(f"  ({typed} goes after the command: {prog} ... {typed})\n")
                continue
            if owners:  # a real flag of other commands: whose it is, and a near name here only if plainly one
                lines.append(
                    f"  ({typed} is a flag of planner {', '.join(owners)}, not of {prog})\n"
                )
            if owners or strict:
                close = [
                    c
                    for c, r in zip(close, ratios)
                    if r >= 0.85 or c.startswith(typed) or typed.startswith(c)
                ]
            if close:
                lines.append(f"  ({typed}: did you mean {' or '.join(close)}?)\n")
        return "".join(lines)


def shown_message(message: str, word: int = 80, total: int = 1_000) -> str:
    """argparse's message with what the user typed made safe to print: it quotes an invalid choice
    or an unrecognized argument whole (70,000 characters, or a terminal escape sequence)."""
    message = "".join(c if c.isprintable() or c == "\n" else repr(c)[1:-1] for c in message)
    message = re.sub(
        rf"\S{{{word + 1},}}", lambda m: m.group(0)[: word - 20] + "..." + m.group(0)[-1], message
    )
    return message if len(message) <= total else message[: total - 3] + "..."


def flag(name: str):
    """The argparse `type=` of flag `name`: the service's rule for its values (a number finite and in
    range, a duration, an AWS name in AWS's format; planner/service/inputs.py). A value outside it
    is argparse's usage error: exit 2 with the range and the value, before any work."""

    def convert(text: str):
        try:
            return parse_flag(name, text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    # argparse names the type in some messages
    convert.__name__ = name.lstrip("-").replace("-", "_")
    return convert


def ranged(name: str, text: str) -> str:
    """`text` with the accepted range appended, for --help."""
    found = flag_range(name)
    return f"{text}; {found}" if found else text


def output_arguments(p: argparse.ArgumentParser, json_help: str = "print one JSON object") -> None:
    """--format, --json (= --format json) and --out-file, for a command that prints a table."""
    p.add_argument(
        "--format",
        choices=FORMATS,
        help="table (default), json (= --json), csv or markdown: the table's "
        "columns and rows as plain text",
    )
    p.add_argument("--json", action="store_true", help=f"{json_help} (= --format json)")
    p.add_argument(
        "--out-file",
        metavar="PATH",
        help="write the output to PATH instead of stdout (checked before any work)",
    )


def rows_arguments(p: argparse.ArgumentParser, plan: bool = True) -> None:
    """--group-by, --all and --max-rows: which rows a table (and csv, markdown) shows; JSON keeps every one."""
    best, kept = (
        ("best", ", with the rows the plan names and this machine's") if plan else ("cheapest", "")
    )
    p.add_argument(
        "--group-by",
        choices=GROUP_BY,
        help=f"which rows the table shows (JSON has every one): gpu "
        f"(default): the {best} of each GPU model and of each GPU count and the {best} CPU{kept}; "
        f"instance: the {best} of each instance type; none: every row",
    )
    p.add_argument("--all", action="store_true", help="show every row (= --group-by none)")
    p.add_argument(
        "--max-rows",
        type=flag("--max-rows"),
        metavar="N",
        help=ranged(
            "--max-rows", "at most N rows" + (", the ones the plan names first" if plan else "")
        ),
    )


def plan_arguments(p: argparse.ArgumentParser, defaults: bool) -> None:
    p.add_argument(
        "--objective",
        choices=OBJECTIVES,
        default="cheapest" if defaults else None,
        help="what to minimize (default cheapest; --deadline alone means cheapest within it)",
    )
    p.add_argument(
        "--deadline",
        type=flag("--deadline"),
        metavar="DURATION",
        help="finish within this time, e.g. 4h, 90m, 1h30m; a bare number is seconds (at most 366 days)",
    )
    p.add_argument(
        "--time-value",
        type=flag("--time-value"),
        metavar="USD_PER_HOUR",
        help=ranged(
            "--time-value",
            "what an hour of your waiting is worth; added to each option's cost. Not given, $5/h"
            " weighs only training here against renting, and the instances rank by cost alone",
        ),
    )
    p.add_argument(
        "--local-price",
        type=flag("--local-price"),
        metavar="USD_PER_HOUR",
        default=0.0 if defaults else None,
        help=ranged(
            "--local-price", "hourly cost of this machine (amortized hardware, power); default 0"
        ),
    )
    p.add_argument(
        "--wide",
        action="store_true",
        help="show every column of the plan, however wide the terminal",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="the reasoning whole: the rule's arithmetic, the close calls, what a paid benchmark would settle, the "
        "table's legend",
    )
    p.add_argument(
        "-v", "--verbose", action="store_true", help="every warning and note of the measurements"
    )
    rows_arguments(p)


def region_argument(
    p, text: str = "AWS region (default: AWS_REGION, else us-east-1)", many: bool = False
) -> None:
    """--region; `many`: a plan's, which also takes a comma-separated list or `all` (each instance type priced in the
    cheapest of them, the answer naming its region)."""
    convert = flag("--regions") if many else flag("--region")
    convert.__name__ = "region"
    p.add_argument(
        "--region",
        type=convert,
        help=text
        + (
            "; several (us-east-1,us-west-2) or all: each instance type in "
            "its cheapest, the answer naming the region"
            if many
            else ""
        ),
    )


def threads_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--threads",
        type=flag("--threads"),
        help=ranged(
            "--threads",
            "torch CPU threads of this machine's bench (default: as many as the CPUs free "
            "when it starts; a script: OMP_NUM_THREADS=N before the command)",
        ),
    )


def script_length_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--total-steps",
        type=flag("--total-steps"),
        metavar="N",
        help=ranged("--total-steps", "a script's whole run, in optimizer steps"),
    )
    p.add_argument(
        "--epochs",
        type=flag("--epochs"),
        metavar="N",
        help=ranged(
            "--epochs",
            "a script's whole run, in DataLoader epochs (counted in steps from one epoch seen)",
        ),
    )
    workdir_argument(p)


def workdir_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workdir",
        metavar="DIR",
        help="the folder a script runs in, and that ships whole to an instance "
        "(default: the script's own folder); it must hold the script. As SkyPilot's workdir: relative paths "
        "in the script's arguments are relative to it",
    )
    env_arguments(p)


def env_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--env",
        action="append",
        metavar="NAME[=VALUE]",
        help="set NAME in a script's environment, here and "
        "on instances (over a SkyPilot task's envs, as sky launch --env); NAME alone takes its value from yours. "
        "Repeat it for several",
    )
    p.add_argument(
        "--secret",
        action="append",
        metavar="NAME[=VALUE]",
        help="set NAME in a script's environment here "
        "only: never journaled or uploaded (as sky launch --secret); NAME alone takes its value from yours",
    )


def chart_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--chart",
        metavar="FILE",
        help="also draw the plan's chart (training time against cost, log axes, "
        "intervals, the break-even line, the headline marked) into FILE: .svg, .png or .html "
        "(needs the extra: pip install 'cloud-planner[chart]')",
    )
