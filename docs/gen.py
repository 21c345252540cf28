"""`make docs`: regenerate every sample output and the CLI reference, then build the site with --strict.

- The CLI reference (docs/reference/cli.md) is written from the planner's own argparse parser.
- Every block between `<!-- generated: COMMAND -->` and `<!-- end generated -->` in README.md and docs/**/*.md
  is replaced by COMMAND's real output. COMMAND is `[cd DIR &&] [NAME=VALUE ...] planner ARGS... [2>&1]`:
  stdout alone (the plan), or with `2>&1` stderr too (progress, errors, a dry run); a command that fails
  without `2>&1` stops the generator. Each runs at COLUMNS=100 with no config file, no AWS credentials and an
  empty price cache, so it shows the bundled snapshot and the built-in defaults.
- Each page under benchmarks/results/*.md gets a page in docs/benchmarks/results/ that includes it.

    python docs/gen.py                 everything, then mkdocs build --strict
    python docs/gen.py --only bench    only the blocks whose command contains "bench"
    python docs/gen.py --no-run        the CLI reference and the benchmark pages only (no command is run)
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CLI_PAGE = DOCS / "reference" / "cli.md"
RESULTS = ROOT / "benchmarks" / "results"
RESULT_PAGES = DOCS / "benchmarks" / "results"
WIDTH = 100  # the terminal width every sample and the reference are written for
BLOCK = re.compile(
    r"^<!-- generated: (?P<command>.+?) -->\n(?P<body>.*?)^<!-- end generated -->$", re.M | re.S
)
ENV_WORD = re.compile(r"^[A-Z_][A-Z0-9_]*=")
# what a developer's shell may hold that would change a sample: credentials, a region, a config, a cache
CLEARED = (
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_ENDPOINT_URL",
    "PLANNER_CATALOG_URL",
    "PLANNER_STACK_NAME",
    "PLANNER_PRICE_MAX_AGE_HOURS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "PLANNER_DEBUG",
)


@dataclass
class Command:
    """A marker's command: where it runs, what it adds to the environment, the planner's arguments."""

    text: str
    argv: list[str]
    cwd: str = "."
    env: dict[str, str] = field(default_factory=dict)
    with_stderr: bool = False

    @property
    def planner_args(self) -> list[str]:
        """The arguments the planner's parser reads: a script's own arguments (after --) are the script's."""
        return self.argv[: self.argv.index("--")] if "--" in self.argv else self.argv


def parse_command(text: str) -> Command:
    """`[cd DIR &&] [NAME=VALUE ...] planner ARGS... [2>&1]`; anything else is refused."""
    words = shlex.split(text)
    cwd = "."
    if words[:1] == ["cd"]:
        if len(words) < 4 or words[2] != "&&":
            raise ValueError(f"{text!r}: write `cd DIR && planner ...`")
        cwd, words = words[1], words[3:]
    env = {}
    while words and ENV_WORD.match(words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    with_stderr = words[-1:] == ["2>&1"]
    if with_stderr:
        words = words[:-1]
    if words[:1] != ["planner"] or any(w in ("|", ">", "<", ";", "&&", "||") for w in words):
        raise ValueError(f"{text!r}: a generated block runs one planner command")
    return Command(text, words[1:], cwd, env, with_stderr)


def blocks(path: Path) -> list[tuple[Command, str]]:
    """Each generated block of a page: its command and what it holds now."""
    return [(parse_command(m["command"]), m["body"]) for m in BLOCK.finditer(path.read_text())]


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


# --- the CLI reference -----------------------------------------------------------------------------------------


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            found += [(name, helps.get(name, ""), sub) for name, sub in action.choices.items()]
    return found


def cli_reference() -> str:
    """docs/reference/cli.md as the parser describes the commands now (every command's usage and options)."""
    from planner.cli import build_parser

    fixed = {
        "COLUMNS": str(WIDTH),
        "NO_COLOR": "1",
    }  # argparse wraps at the terminal's width (and colours from 3.14)
    saved = {name: os.environ.get(name) for name in fixed}
    os.environ.update(fixed)
    try:
        parser = build_parser()
        lines = [
            "# CLI reference",
            "",
            "Every command's `--help`, written from the planner's own parser by `make docs` (`docs/gen.py`); "
            "do not edit by hand. Exit codes, for every command: `0` success, `1` runtime failure, `2` bad input "
            "or usage; `planner run` also `3` (a plan, but a target failed or was cut short by a spot reclaim, or an instance could not be "
            "terminated) and `128 + N` when stopped by signal N.",
            "",
        ]
        lines += ["## planner", "", "```text", parser.format_help().rstrip(), "```", ""]

        def walk(p: argparse.ArgumentParser, depth: int) -> None:
            for _name, summary, sub in _subcommands(p):
                lines.extend([f"{'#' * depth} {sub.prog}", ""])
                if summary:
                    lines.extend([summary[0].upper() + summary[1:] + ".", ""])
                lines.extend(["```text", sub.format_help().rstrip(), "```", ""])
                walk(sub, depth + 1)

        walk(parser, 2)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return "\n".join(line.rstrip() for line in lines).rstrip() + "\n"


# --- the benchmark results' pages ------------------------------------------------------------------------------


RESULT_WRITERS = {  # the first prefix a result's name starts with
    "accuracy-2026-11-30.md": "benchmarks/accuracy.py (its output saved by hand, before --out)",
    "accuracy": "benchmarks/accuracy.py --out",
    "device": "benchmarks/device.py report",
    "multinode": "benchmarks/multinode.py --out",
    "scripts": "benchmarks/scripts.py",
}


def result_page(result: Path) -> str:
    writer = next(
        (w for prefix, w in RESULT_WRITERS.items() if result.name.startswith(prefix)),
        "its benchmark",
    )
    beside = (
        " (the CSV and the raw measurements lie beside it)"
        if result.with_suffix(".csv").exists()
        else ""
    )
    return (
        f"# {result.stem}\n\n"
        f"Written by `{writer}` into `benchmarks/results/{result.name}`, included here as it is"
        f"{beside}. What the check is: [Benchmarks](../index.md).\n\n"
        f'--8<-- "benchmarks/results/{result.name}"\n'
    )


def write_result_pages() -> list[Path]:
    RESULT_PAGES.mkdir(parents=True, exist_ok=True)
    written = []
    for result in sorted(RESULTS.glob("*.md")):
        page = RESULT_PAGES / result.name
        page.write_text(result_page(result))
        written.append(page)
    return written


# --- running the samples ---------------------------------------------------------------------------------------


def machine_note() -> str:
    """The date and the machine a sample was taken on: the numbers are that machine's, at that load."""
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{time.strftime('%Y-%m-%d', time.gmtime())}, {os.cpu_count()} CPUs ({cpu}), load average {load:.1f} before"


def run(command: Command) -> tuple[str, int, float]:
    """The command's output as a reader would see it at a 100-column terminal; its exit code; its seconds."""
    with tempfile.TemporaryDirectory(prefix="planner-docs-") as tmp:
        env = {k: v for k, v in os.environ.items() if k not in CLEARED}
        env.update(
            {
                "COLUMNS": str(WIDTH),
                "LINES": "40",
                "NO_COLOR": "1",
                "TERM": "dumb",
                "PYTHONUNBUFFERED": "1",
                "PLANNER_CONFIG": f"{tmp}/config.toml",
                "PLANNER_CACHE_DIR": f"{tmp}/cache",
                "AWS_CONFIG_FILE": f"{tmp}/aws-config",
                "AWS_SHARED_CREDENTIALS_FILE": f"{tmp}/aws-credentials",
                "PYTHONPATH": str(ROOT),
            }
        )
        env.update(command.env)
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "planner.cli", *command.argv],
            cwd=ROOT / command.cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if command.with_stderr else subprocess.PIPE,
            text=True,
            timeout=300,
        )
        seconds = time.monotonic() - start
    out = proc.stdout.replace(str(ROOT) + "/", "").replace(str(ROOT), ".")
    if "internal error:" in out:  # the planner's own bug (a user's script's traceback is a sample)
        raise SystemExit(f"{command.text}: crashed\n{out}")
    if proc.returncode != 0 and not command.with_stderr:
        raise SystemExit(
            f"{command.text}: exit {proc.returncode} (add 2>&1 to the marker to show an error)\n"
            f"{out}{proc.stderr or ''}"
        )
    return out, proc.returncode, seconds


def render(command: Command, out: str, code: int, note: str) -> str:
    body = "\n".join(line.rstrip() for line in out.rstrip().splitlines())
    fence = "````" if "```" in body else "```"
    exit_note = f", exit {code}" if code else ""
    return (
        f"{fence}console\n$ {command.text.removesuffix(' 2>&1')}\n{body}\n{fence}\n\n"
        f"*Generated by `make docs`: {note}{exit_note}.*\n\n"
    )


def regenerate(path: Path, only: str | None) -> list[tuple[str, float]]:
    text = path.read_text()
    timings: list[tuple[str, float]] = []

    def replace(match: re.Match[str]) -> str:
        command = parse_command(match["command"])
        if only is not None and only not in command.text:
            return match[0]
        note = machine_note()  # before the command: the load it ran beside
        out, code, seconds = run(command)
        timings.append((command.text, seconds))
        print(f"  {seconds:5.1f} s  {command.text}", flush=True)
        return f"<!-- generated: {match['command']} -->\n{render(command, out, code, note)}<!-- end generated -->"

    new = BLOCK.sub(replace, text)
    if new != text:
        path.write_text(new)
    return timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--only", metavar="TEXT", help="regenerate only the blocks whose command contains TEXT"
    )
    parser.add_argument(
        "--no-run", action="store_true", help="run no command: the reference and result pages only"
    )
    parser.add_argument(
        "--no-build", action="store_true", help="do not run mkdocs build --strict at the end"
    )
    args = parser.parse_args(argv)
    start = time.monotonic()
    sys.path.insert(0, str(ROOT))
    CLI_PAGE.parent.mkdir(parents=True, exist_ok=True)
    CLI_PAGE.write_text(cli_reference())
    print(f"wrote {CLI_PAGE.relative_to(ROOT)}")
    for page in write_result_pages():
        print(f"wrote {page.relative_to(ROOT)}")
    if not args.no_run:
        for path in pages():
            if BLOCK.search(path.read_text()):
                print(f"{path.relative_to(ROOT)}:", flush=True)
                regenerate(path, args.only)
    if not args.no_build:
        # not -q: mkdocs 1.6 does not count the warnings it does not print, and --strict would pass them
        subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict"],
            cwd=ROOT,
            check=True,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        )
        print("mkdocs build --strict: site/")
    print(f"make docs: {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
