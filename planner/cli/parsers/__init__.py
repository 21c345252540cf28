"""The command line: every command's arguments (one module per family of commands, beside the module
that handles them), the config file's defaults under the flags, `--profile NAME` anywhere. Light:
`planner --help` imports this package and no use case; each command names its handler as
"module:function" in planner/cli, imported when the command runs (`handler`)."""

from __future__ import annotations

import argparse
import importlib
import os
from collections.abc import Callable

from planner import __version__
from planner.cli.parsers import account, measure, plan
from planner.cli.parsers.shared import Parser
from planner.errors import InputError
from planner.service.config import KEYS, config_text, read_config


def build_parser() -> Parser:
    parser = Parser(
        prog="planner",
        description="Measure a training workload on CPUs and GPUs, predict the full run, and decide where to train it.",
    )
    parser.add_argument("--version", action="version", version=f"cloud-planner {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    # the main question first (`planner --help` lists them in this order), then measuring, prices, the account
    plan.add_estimate_parser(sub)
    plan.add_run_parser(sub)
    plan.add_plan_parser(sub)
    account.add_tui_parser(sub)
    measure.add_parsers(sub)
    measure.add_validate_parser(sub)
    account.add_prices_parser(sub)
    plan.add_calibrate_parser(sub)
    account.add_account_parsers(sub)
    account.add_config_parser(sub)
    account.add_completion_parser(sub)
    return parser


def handler(args: argparse.Namespace) -> Callable[[argparse.Namespace], int] | None:
    """The function that runs the parsed command ("run:cmd_run": planner.cli.run.cmd_run), imported now."""
    named = getattr(args, "handler", None)
    if named is None:
        return None
    module, _, name = named.partition(":")
    found: Callable[[argparse.Namespace], int] = getattr(
        importlib.import_module(f"planner.cli.{module}"), name
    )
    return found


def take_profile(argv: list[str]) -> tuple[list[str], str | None]:
    """`--profile NAME` / `--profile=NAME` anywhere before `--`, removed from argv and checked."""
    cut = argv.index("--") if "--" in argv else len(argv)
    head, tail = argv[:cut], argv[cut:]
    for i, arg in enumerate(head):
        if arg == "--profile" or arg.startswith("--profile="):
            name = (
                arg.split("=", 1)[1] if "=" in arg else (head[i + 1] if i + 1 < len(head) else "")
            )
            rest = head[:i] + head[i + (1 if "=" in arg else 2) :]
            try:
                return rest + tail, str(KEYS["profile"].parse(name))
            except ValueError as exc:
                raise InputError(
                    f"--profile {name!r}: {exc}",
                    hint="give a profile of ~/.aws/config, as the AWS CLI takes it",
                ) from None
    return argv, None


def apply_defaults(parser: argparse.ArgumentParser, profile: str | None) -> None:
    """The config file's values as the defaults of every subcommand's flags they stand for (a flag given on
    the command line still wins); the AWS profile as the environment boto3 reads (--profile wins, then a set
    AWS_PROFILE, then the file). The catalog's URL the service reads from the file itself."""
    values = read_config()
    saved = config_text(values, "profile")
    if profile or saved:
        os.environ["AWS_PROFILE"] = profile or os.environ.get("AWS_PROFILE") or saved or ""
    defaults = {
        KEYS[name].dest: value
        for name, value in values.items()
        if KEYS[name].dest and name != "profile"
    }
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                known = {a.dest for a in sub._actions}
                sub.set_defaults(
                    **{dest: value for dest, value in defaults.items() if dest in known}
                )
