"""The user's defaults: a TOML file (`planner config path`; PLANNER_CONFIG points elsewhere).
Design notes: docs/reference/modules.md (planner/service/config.py)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from planner.errors import InputError
from planner.service.flags import PURCHASES, parse_flag

# a value of the file, as its key's rule reads it: a region, purchase, profile or URL; a price or a number of seconds
ConfigValue = str | float

PROFILE = re.compile(r"^[A-Za-z0-9_.+@-]{1,64}$")


def _purchase(text: str) -> str:
    if text not in PURCHASES:
        raise ValueError(f"must be one of {', '.join(PURCHASES)}")
    return text


def _profile(text: str) -> str:
    if not PROFILE.match(text):
        raise ValueError("must be an AWS profile name (letters, digits and _.+@-, at most 64)")
    return text


def _url(text: str) -> str:
    if not text or any(c.isspace() for c in text):
        raise ValueError("must be an https:// URL, a file:// URL or a file path, without spaces")
    return text


@dataclass(frozen=True)
class Key:
    name: str
    flag: str  # the flag it is the default of ("" when it has none)
    dest: str  # argparse's dest for that flag
    parse: Callable[[str], ConfigValue]
    help: str


KEYS = {
    k.name: k
    for k in (
        Key(
            "region",
            "--region",
            "region",
            lambda v: parse_flag("--region", v),
            "AWS region of prices and instances",
        ),
        Key("purchase", "--purchase", "purchase", _purchase, "on-demand or spot"),
        Key(
            "time_value",
            "--time-value",
            "time_value",
            lambda v: parse_flag("--time-value", v),
            "USD per hour of your waiting (the headline's here-vs-rent rule)",
        ),
        Key(
            "local_price",
            "--local-price",
            "local_price",
            lambda v: parse_flag("--local-price", v),
            "USD per hour this machine costs you",
        ),
        Key(
            "seconds",
            "--seconds",
            "seconds",
            lambda v: parse_flag("--seconds", v),
            "seconds of steps a measurement takes",
        ),
        Key(
            "bench_budget",
            "--bench-budget",
            "bench_budget",
            lambda v: parse_flag("--bench-budget", v),
            "USD cap on the worst-case cost of paid benchmarks",
        ),
        Key("profile", "--profile", "profile", _profile, "AWS profile (as AWS_PROFILE)"),
        Key(
            "catalog_url",
            "",
            "",
            _url,
            "the hosted price catalog to refresh from (as PLANNER_CATALOG_URL)",
        ),
    )
}


def config_path() -> Path:
    """PLANNER_CONFIG, else platformdirs' user config folder for cloud-planner."""
    if os.environ.get("PLANNER_CONFIG"):
        return Path(os.environ["PLANNER_CONFIG"])
    from platformdirs import user_config_dir

    return Path(user_config_dir("cloud-planner")) / "config.toml"


def _checked(path: Path, name: str, value: object) -> ConfigValue:
    key = KEYS.get(name)
    if key is None:
        raise InputError(f"{path}: unknown key {name!r}", hint=f"the keys are: {', '.join(KEYS)}")
    try:
        return key.parse(str(value))
    except ValueError as exc:
        raise InputError(
            f"{path}: {name} = {value!r}: {exc}",
            hint=f"planner config set {name} VALUE, or edit the file",
        ) from None


def read_config(path: Path | None = None) -> dict[str, ConfigValue]:
    """The file's values, each checked by its flag's rule; {} when there is no file."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    path = path or config_path()
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read it ({exc})", hint="fix or remove the file") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(
            f"{path}: not TOML ({exc})", hint="fix it, or remove it and use `planner config set`"
        ) from None
    return {name: _checked(path, name, value) for name, value in data.items()}


def config_text(values: dict[str, ConfigValue], name: str) -> str | None:
    """A text key's value (region, purchase, profile, catalog_url); None when the file does not set it."""
    value = values.get(name)
    return None if value is None else str(value)


def set_value(name: str, value: str, path: Path | None = None) -> Path:
    """Check `value` by its key's rule and write it into the file (the other keys kept)."""
    path = path or config_path()
    if name not in KEYS:
        raise InputError(f"config: unknown key {name!r}", hint=f"the keys are: {', '.join(KEYS)}")
    try:
        KEYS[name].parse(value)
    except ValueError as exc:
        raise InputError(f"config {name}: {value!r}: {exc}", hint=KEYS[name].help) from None
    values = {**read_config(path), name: value}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # TOML basic strings
        path.write_text("".join(f"{k} = {json.dumps(str(v))}\n" for k, v in values.items()))
    except OSError as exc:
        raise InputError(
            f"{path}: cannot write it ({exc.strerror or exc})",
            hint="set PLANNER_CONFIG to a writable file",
        ) from None
    return path


def unset_value(name: str, path: Path | None = None) -> Path:
    path = path or config_path()
    values = read_config(path)
    values.pop(name, None)
    path.write_text("".join(f"{k} = {json.dumps(str(v))}\n" for k, v in values.items()))
    return path


def explain(path: Path | None = None) -> list[tuple[str, str, str]]:
    """(key, value, where it comes from) for every key: the file, the environment, or the built-in default
    (a flag on a command line wins over all three)."""
    path = path or config_path()
    values = read_config(path)
    env = {
        "region": os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION"),
        "profile": os.environ.get("AWS_PROFILE"),
        "catalog_url": os.environ.get("PLANNER_CATALOG_URL"),
    }
    builtin = {
        "region": "us-east-1",
        "purchase": "on-demand",
        "time_value": "5 (the headline's default)",
        "local_price": "0",
        "seconds": "the command's (estimate 5, bench and run 10)",
        "bench_budget": "2",
        "profile": "default",
        "catalog_url": "SkyPilot's hosted AWS catalog",
    }
    rows = []
    for name in KEYS:
        if name in values:
            rows.append((name, str(values[name]), f"file {path}"))
        elif env.get(name):
            var = {
                "region": "AWS_REGION" if os.environ.get("AWS_REGION") else "AWS_DEFAULT_REGION",
                "profile": "AWS_PROFILE",
                "catalog_url": "PLANNER_CATALOG_URL",
            }[name]
            rows.append((name, str(env[name]), f"environment {var}"))
        else:
            rows.append((name, builtin[name], "built-in default"))
    return rows
