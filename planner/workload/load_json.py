"""A spec's JSON read safely (planner/workload/load.py reads its file and its YAML): depth and duplicate keys found
by a flat scan before json.loads (which never recurses past MAX_DEPTH, and keeps a duplicate's last value silently),
numbers bounded in length; every problem a SpecError naming its line."""

from __future__ import annotations

import json
import re
from typing import Any

from planner.errors import SpecError
from planner.workload.limits import MAX_DEPTH, MAX_NUMBER_CHARS, brief, cut

# Strings (with escapes) and the punctuation that opens, closes or keys an object.
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:]')


def _json_structure_problem(text: str) -> tuple[int, str] | None:
    """Depth and duplicate keys, found by a flat scan of the tokens, so json.loads never recurses
    past MAX_DEPTH and a duplicate is named with its line (json itself keeps the last silently)."""
    stack: list[
        dict[str, int] | None
    ] = []  # per open object its keys and their offsets; None for arrays
    last_string: tuple[str, int] | None = None
    for match in _JSON_TOKEN.finditer(text):
        token, at = match.group(), match.start()
        if token in "{[":
            if len(stack) >= MAX_DEPTH:
                return at, f"nested more than {MAX_DEPTH} levels deep; a spec is 3 levels deep"
            stack.append({} if token == "{" else None)
        elif token in "}]":
            if stack:
                stack.pop()
        elif token == ":":
            keys = stack[-1] if stack else None
            if keys is not None and last_string is not None:
                key, key_at = last_string
                if key in keys:
                    return key_at, (
                        f"duplicate key {brief(key, 40)} (first on line {_line(text, keys[key])}); "
                        "each key may appear once"
                    )
                keys[key] = key_at
        last_string = None
        if token.startswith('"'):
            try:
                last_string = (json.loads(token), at)
            except ValueError:
                pass  # a bad escape: json.loads reports it with its position below
    return None


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


class _NumberTooLong(ValueError):
    pass


def _json_number(parse: Any) -> Any:
    def bounded(literal: str) -> Any:
        if len(literal) > MAX_NUMBER_CHARS:
            raise _NumberTooLong(
                f"a number written with {len(literal):,} characters; no field of a spec needs more than 20"
            )
        return parse(literal)

    return bounded


def load_json(text: str, source: str) -> Any:
    found = _json_structure_problem(text)
    if found:
        raise SpecError(f"{source} (line {_line(text, found[0])}): {found[1]}")
    try:
        return json.loads(text, parse_int=_json_number(int), parse_float=_json_number(float))
    except json.JSONDecodeError as exc:
        raise SpecError(
            f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except _NumberTooLong as exc:
        raise SpecError(f"{source}: {exc}") from None
    except (
        ValueError,
        RecursionError,
    ) as exc:  # not reachable (depth is checked above); never a crash
        raise SpecError(f"{source}: not valid JSON ({cut(str(exc))})") from None
