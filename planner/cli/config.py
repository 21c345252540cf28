"""`planner config show|set|unset|path` (the file's defaults are applied under the flags by
planner/cli/parsers, with `--profile NAME` anywhere on a command line)."""

from __future__ import annotations

import argparse

from planner.cli.common import stderr, stdout
from planner.errors import ExitCode, InputError
from planner.service.config import KEYS, config_path, explain, set_value, unset_value


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
