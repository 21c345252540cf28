"""`planner ...`: the headless front end. Design notes: docs/reference/modules.md
(planner/cli/__init__.py)."""

from __future__ import annotations

import contextlib
import errno
import os
import sys

from planner.cli.parsers import apply_defaults, build_parser, handler, take_profile
from planner.errors import ExitCode, PlannerError

__all__ = ["build_parser", "error_text", "main"]


def error_text(exc: PlannerError) -> str:
    """The error as `render` writes it; on a terminal, its hint wrapped between words (a terminal would cut a
    command in it mid-word), continued under itself. In a pipe it stays one line, whole for a program to read."""
    text = exc.render()
    if not exc.hint or not sys.stderr.isatty():
        return text
    import shutil
    import textwrap

    width = shutil.get_terminal_size((80, 24)).columns
    head, _, hint = text.rpartition("\n")
    return (
        head
        + "\n"
        + textwrap.fill(
            hint,
            width=max(width - 1, 40),
            subsequent_indent="    ",
            break_long_words=False,
            break_on_hyphens=False,
        )
    )


def _stdout_closed() -> bool:
    """Whether stdout is a pipe whose reader has gone (poll reports an error on its writing end): an EPIPE from it is
    the reader's choice; one from another pipe is not."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(ev & select.POLLERR for _, ev in poller.poll(0))
    except (OSError, ValueError, AttributeError):
        return False


def _refused(exc: PlannerError, as_json: bool) -> int:
    """A use case's refusal on stderr (and as JSON on stdout when a program asked for JSON). Returns its exit code."""
    sys.stderr.write(error_text(exc) + "\n")
    if as_json:
        from planner.cli.common import print_json

        error = {"title": exc.title, "message": exc.message, "hint": exc.hint}
        print_json({"error": {**error, "exit_code": int(exc.exit_code)}})
    return int(exc.exit_code)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        argv, profile = take_profile(argv)  # --profile NAME anywhere, as the AWS CLI takes it
        apply_defaults(parser, profile)  # the config file's defaults, under the flags
    except PlannerError as exc:
        sys.stderr.write(error_text(exc) + "\n")
        return int(exc.exit_code)
    # after --: a training script's own arguments, as torchrun
    cut = argv.index("--") if "--" in argv else len(argv)
    parser.argv = argv[:cut]  # type: ignore[attr-defined]  # a misspelled flag is matched against its command's
    args = parser.parse_args(argv[:cut])
    args.script_args = argv[cut + 1 :]
    run = handler(args)
    if run is None:
        parser.print_help(sys.stderr)
        return ExitCode.BAD_INPUT
    # after parsing: `planner --help` has exited by now
    from planner.cli.common import run_with_out_file, settle_output
    from planner.cli.env import settle_script_env
    from planner.cli.workload import take_task

    try:
        settle_output(args)
        take_task(args, argv[:cut])  # a SkyPilot task YAML: the script it runs, in its workdir
        settle_script_env(args)  # --env, --secret (a task's envs and secrets are read with it)
        code = run_with_out_file(run, args)
        sys.stdout.flush()  # a closed pipe fails here, not at the interpreter's exit
        return code
    except PlannerError as exc:
        return _refused(exc, getattr(args, "json", False))
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except Exception as exc:
        if os.environ.get("PLANNER_DEBUG") and not isinstance(exc, OSError):
            raise
        return _failed(exc)


def _failed(exc: Exception) -> int:
    """An exception no use case turned into a PlannerError: a closed pipe or a full disk said in one line (a closed
    stdout not at all), a bug in one line with the traceback on request (PLANNER_DEBUG=1). Returns the exit code."""
    if isinstance(exc, OSError) and exc.errno == errno.EPIPE and _stdout_closed():
        # the reader stopped (`| head`): nothing to say; exit 1 as rich does, and no second error at exit
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return int(ExitCode.RUNTIME_FAILURE)
    if isinstance(exc, OSError) and exc.errno in (errno.EPIPE, errno.ENOSPC, errno.EIO):
        # another pipe closed under us, a full disk
        sys.stderr.write(f"error: cannot write the output ({exc.strerror})\n")
        return int(ExitCode.RUNTIME_FAILURE)
    # a bug: say so in one line; the traceback on request
    if os.environ.get("PLANNER_DEBUG"):
        raise exc
    sys.stderr.write(
        f"internal error: {type(exc).__name__}: {exc}\n"
        "  this is a bug in cloud-planner; run again with PLANNER_DEBUG=1 for the traceback\n"
    )
    return int(ExitCode.RUNTIME_FAILURE)
