"""Reading a workload spec safely: the file, its text, and the YAML or JSON in it, all bounded.

Everything here runs before pydantic sees a value, so that no input (a FIFO, /dev/zero, a binary
file, a YAML alias bomb, 100,000 nested brackets, a 5,000-digit number, duplicate keys) can hang
the planner, exhaust its memory, or escape as anything but a `SpecError` with a line to act on.
The limits and why they are what they are: planner/workload/limits.py.
"""

from __future__ import annotations

import json
import os
import stat
from itertools import islice
from typing import Any

from planner.core.formats import human_bytes
from planner.errors import SpecError
from planner.workload.limits import (
    MAX_DEPTH,
    MAX_SPEC_BYTES,
    MAX_VALUES,
    brief,
    cut,
)

_SIZE_TEXT = f"{MAX_SPEC_BYTES // 1024} KiB"
_FILE_HINT = (
    "give the path of a workload spec (YAML or JSON), e.g. examples/surface-mlp.yaml, or of a training script "
    "(.py), e.g. examples/scripts/convnet.py"
)


# ----------------------------------------------------------------------------- the file

_NOT_A_FILE = [
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
]


def _too_big(shown: str, size: str) -> SpecError:
    return SpecError(
        f"{shown}: is {size}; a spec file is at most {_SIZE_TEXT}",
        hint="a workload spec is a few lines of YAML or JSON; see examples/surface-mlp.yaml",
    )


def read_regular_file(path: str | os.PathLike[str], limit: int) -> tuple[os.stat_result, bytes]:
    """The status of the file at `path` and, when it is a regular file of at most `limit` bytes, at most
    `limit` + 1 of its bytes (else b"": the caller refuses it by its status). Looks before it reads: a
    FIFO or a device is never opened (stat), and the open is non-blocking and re-checked with fstat in
    case the path changed in between. Raises OSError, and ValueError for a NUL in the path."""
    info, chunks = os.stat(path), []
    if stat.S_ISREG(info.st_mode) and info.st_size <= limit:
        fd = os.open(
            path,
            os.O_RDONLY
            | getattr(os, "O_NONBLOCK", 0)
            | getattr(os, "O_NOCTTY", 0)
            | getattr(os, "O_CLOEXEC", 0),
        )
        try:
            info, left = os.fstat(fd), limit + 1
            while stat.S_ISREG(info.st_mode) and left > 0 and (chunk := os.read(fd, left)):
                chunks.append(chunk)
                left -= len(chunk)
        finally:
            os.close(fd)
    return info, b"".join(chunks)


def read_spec_file(path: str | os.PathLike[str]) -> str:
    """The text of the spec file at `path`: a regular file of at most MAX_SPEC_BYTES, read bounded
    whatever the file claims (read_regular_file); the bytes must be UTF-8 text."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise SpecError(f"{brief(path)}: not a file path", hint=_FILE_HINT)
    text = os.fsdecode(path)
    # a NUL or an escape, visibly
    shown = cut(text if text.isprintable() else json.dumps(text)[1:-1])
    try:
        info, data = read_regular_file(path, MAX_SPEC_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        raise SpecError(f"{shown}: no such file", hint=_FILE_HINT) from None
    except PermissionError:
        raise SpecError(
            f"{shown}: permission denied", hint="check the file's permissions (it must be readable)"
        ) from None
    except OSError as exc:  # a name too long, a symlink loop, an I/O error
        raise SpecError(
            f"{shown}: cannot read it ({exc.strerror or type(exc).__name__})", hint=_FILE_HINT
        ) from None
    except ValueError:  # os.stat: embedded null byte
        raise SpecError(
            f"{shown}: not a usable path (it contains a NUL character)", hint=_FILE_HINT
        ) from None
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _NOT_A_FILE if test(info.st_mode)), "a special file")
        journal = stat.S_ISDIR(info.st_mode) and (
            os.path.isfile(os.path.join(text, "spec.json"))
            or os.path.isfile(os.path.join(text, "script.json"))
        )
        raise SpecError(
            f"{shown}: is {kind}, not a spec file or a training script",
            hint=f"a saved run is planned again with: planner plan {shown}"
            if journal
            else _FILE_HINT,
        )
    if info.st_size > MAX_SPEC_BYTES:
        raise _too_big(shown, human_bytes(info.st_size))
    if len(data) > MAX_SPEC_BYTES:
        raise _too_big(shown, f"more than {_SIZE_TEXT}")
    return decode_spec_bytes(data, shown)


def decode_spec_bytes(data: bytes, source: str) -> str:
    """UTF-8 text (a BOM is allowed), or a SpecError saying where the file stops being text."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise SpecError(
            f"{source}: is UTF-16 text; a spec is UTF-8", hint="save the spec as UTF-8 text"
        )
    if b"\x00" in data:
        raise SpecError(
            f"{source}: is a binary file (it contains NUL bytes), not YAML or JSON text",
            hint="give a YAML or JSON spec saved as UTF-8 text",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SpecError(
            f"{source}: is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line})",
            hint="save the spec as UTF-8 text",
        ) from None


def check_text(text: str, source: str) -> None:
    """The same size and text rules for a spec given as a string (the TUI's editor)."""
    if len(text) > MAX_SPEC_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_SPEC_BYTES:
        raise _too_big(source, f"more than {_SIZE_TEXT}")
    if "\x00" in text:
        raise SpecError(
            f"{source}: contains a NUL character; a spec is YAML or JSON text",
            hint="give a YAML or JSON spec saved as UTF-8 text",
        )


# ----------------------------------------------------------------------------- YAML


def load_yaml(text: str, source: str) -> Any:
    import yaml  # lazy: keeps `planner --help` light

    loader = None
    try:
        from planner.workload.yaml_loader import BoundedSafeLoader

        loader = BoundedSafeLoader(text)  # the reader checks every character here
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = (
            getattr(exc, "problem", None) or (str(exc).splitlines() or [type(exc).__name__])[0]
        )
        if mark is not None and mark.index >= len(text.rstrip()):
            # PyYAML puts the end on the line after the last one (a trial read "line 6" of a 5-line file)
            where = " (at the end of the file)"
            problem = problem.replace("but got '<stream end>'", "but the file ended")
        # where the construct it was reading began ('while parsing a flow sequence' at line 5): an unclosed [ is
        # found lines later, and the fix is where it opened (a trial)
        began, context = getattr(exc, "context_mark", None), getattr(exc, "context", None)
        last = min(mark.line + 1, len(text.splitlines()) or 1) if mark else 0
        lines = f" at line {last}" if mark else ""
        if began is not None and context and mark is not None and began.line < mark.line:
            problem = f"{problem} ({context} that began at line {began.line + 1})"
            if (
                began.line + 1 < last
            ):  # not when the line after it is the end of the file, past the last one
                lines = f" at lines {began.line + 1}-{last}"
        what = " (a workload spec or a SkyPilot task is a YAML mapping)"
        if mark is not None and problem.startswith("mapping values are not allowed"):
            what = _second_colon(text, mark.line, mark.column) or what
        if getattr(exc, "refused", False):
            raise SpecError(f"{source}{where}: {cut(problem)}") from None
        raise SpecError(
            f"{source}: not valid YAML{where}: {cut(problem)}",
            hint=f"fix the YAML{lines}{what}",
        ) from None
    except RecursionError:  # not reachable with MAX_DEPTH; kept so no input can escape as a crash
        raise SpecError(f"{source}: not valid YAML: nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()


def _second_colon(text: str, line: int, column: int) -> str:
    """More of where to look for PyYAML's 'mapping values are not allowed here' at `line`, `column` (0-based): a key
    before it on the same line (`model: kind: mlp`); a key with a value on the line above, this one indented under it
    (`model: mlp` then `  input_size: 2`); or text without a key above running on into it (a trial: a stray 'Z' before
    line 1's comment was reported at line 2)."""
    rows = text.splitlines()
    if line < len(rows) and ":" in rows[line][:column]:
        return (
            " (a value holding ': ' needs quotes; a nested key goes on a line of its own, indented)"
        )
    above = [
        (i, row.split(" #")[0])
        for i, row in enumerate(rows[:line])
        if row.strip() and not row.lstrip().startswith("#")
    ]
    if not above:
        return ""
    number, row = above[-1]
    if ":" in row and row.split(":", 1)[1].strip():
        return (
            f" (line {number + 1} gives its key a value and line {line + 1} is indented under it: a key holds a "
            "value or nested keys, not both; check the indentation)"
        )
    return f" or line {number + 1} above it (text without a key runs on into line {line + 1})"


# ----------------------------------------------------------------------------- any parsed value


def structure_problem(data: Any) -> str | None:
    """For data that did not come through the loaders above (a journal, a test, an API caller):
    the same depth and value budget, walked without recursion, and text keys only. Returns one
    problem line `path: what is wrong`, or None."""
    stack: list[tuple[Any, int, str]] = [(data, 0, "")]
    values = 0
    while stack:
        value, depth, where = stack.pop()
        values += 1
        if values > MAX_VALUES:
            return f"{where or '(top level)'}: more than {MAX_VALUES:,} values in the spec; a spec has a few dozen"
        if isinstance(value, dict):
            items = list(islice(value.items(), MAX_VALUES))
        elif isinstance(value, (list, tuple)):
            items = list(enumerate(islice(value, MAX_VALUES)))
        else:
            continue
        if depth >= MAX_DEPTH:
            return f"{where or '(top level)'}: nested more than {MAX_DEPTH} levels deep; a spec is 3 levels deep"
        for key, item in reversed(items):
            if isinstance(value, dict):
                if not isinstance(key, str):
                    return f'{where or "(top level)"}: key {brief(key, 40)} is not text; keys are field names such as "epochs"'
                path = f"{where}.{cut(key, 40)}" if where else cut(key, 40)
            else:
                path = f"{where}[{key}]"
            stack.append((item, depth + 1, path))
    return None
