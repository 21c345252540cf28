"""`planner config show|set|unset|path`, the file's defaults applied under the flags, and `--profile NAME`
anywhere on a command line (as the AWS CLI takes it)."""

from __future__ import annotations

import argparse
import os

from planner.cli.common import stderr, stdout
from planner.errors import ExitCode, InputError
from planner.service.config import KEYS, config_path, explain, read_config, set_value, unset_value


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
                return rest + tail, KEYS["profile"].parse(name)
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
    if profile or values.get("profile"):
        os.environ["AWS_PROFILE"] = profile or (os.environ.get("AWS_PROFILE") or values["profile"])
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


def cmd_config(args: argparse.Namespace) -> int:
    if args.action == "path":
        stdout().print(str(config_path()), highlight=False, markup=False)
    elif args.action == "set":
        if args.key is None or args.value is None:
            raise InputError(
                "planner config set KEY VALUE: give both", hint=f"the keys are: {', '.join(KEYS)}"
            )
        path = set_value(args.key, args.value)
        stderr().print(f"{args.key} = {args.value} (in {path})", highlight=False, markup=False)
    elif args.action == "unset":
        if args.key is None:
            raise InputError(
                "planner config unset KEY: give the key", hint=f"the keys are: {', '.join(KEYS)}"
            )
        unset_value(args.key)
    else:
        out = stdout()
        width = max(len(k) for k in KEYS)
        for name, value, where in explain():
            out.print(f"{name:<{width}}  {value}  ({where})", highlight=False, markup=False)
        out.print(
            "a flag on the command line wins over all of these", highlight=False, markup=False
        )
    return ExitCode.OK


def add_config_parser(sub) -> None:
    p = sub.add_parser(
        "config",
        help="defaults for region, purchase, time value, local price, bench budget, AWS profile",
        description="Defaults kept in a TOML file (`planner config path`; PLANNER_CONFIG points elsewhere). "
        "A flag wins over the file, the file over the environment (AWS_REGION, AWS_PROFILE). "
        "Keys: " + "; ".join(f"{k.name}: {k.help}" for k in KEYS.values()),
    )
    p.add_argument("action", choices=("show", "set", "unset", "path"), nargs="?", default="show")
    p.add_argument("key", nargs="?", choices=list(KEYS))
    p.add_argument("value", nargs="?")
    p.set_defaults(handler=cmd_config)
