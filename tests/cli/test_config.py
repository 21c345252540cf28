"""`planner config` and its precedence: a flag wins over the file, the file over the environment, the
environment over the built-in defaults; every value held to its flag's rule; `--profile` anywhere."""

from __future__ import annotations

import json

from tests.cli.helpers import planner
from tests.conftest import EXAMPLES


def estimate_options(env: dict, *flags: str) -> dict:
    r = planner(
        "estimate", EXAMPLES / "surface-mlp.yaml", "--predict-only", "--json", *flags, env=env
    )
    assert r.code == 0, r.err
    return json.loads(r.out)["plan_options"]


def test_the_file_sets_defaults_a_flag_wins_and_show_says_where_each_comes_from(tmp_path):
    env = {
        "PLANNER_CONFIG": str(tmp_path / "config.toml"),
        "AWS_REGION": "us-west-2",
        "AWS_DEFAULT_REGION": None,
    }
    assert estimate_options(env)["region"] == "us-west-2"  # the environment, without a file
    assert planner("config", "set", "region", "eu-west-1", env=env).code == 0
    assert planner("config", "set", "time_value", "20", env=env).code == 0
    options = estimate_options(env)
    assert (
        options["region"] == "eu-west-1" and options["time_value_per_hour"] == 20.0
    )  # the file over the environment
    assert (
        estimate_options(env, "--region", "us-east-1")["region"] == "us-east-1"
    )  # the flag over the file
    shown = planner("config", "show", env=env).out
    assert (
        "region        eu-west-1  (file" in shown
        and "purchase      on-demand  (built-in default)" in shown
    )
    assert planner("config", "path", env=env).out.strip() == str(tmp_path / "config.toml")
    assert planner("config", "unset", "region", env=env).code == 0
    assert estimate_options(env)["region"] == "us-west-2"


def test_bad_values_are_refused_when_set_and_when_read(tmp_path):
    path = tmp_path / "config.toml"
    env = {"PLANNER_CONFIG": str(path)}
    r = planner("config", "set", "purchase", "spotty", env=env)
    assert r.code == 2 and "config purchase: 'spotty': must be one of on-demand, spot" in r.err
    path.write_text('region = "mars-1"\n')
    r = planner("prices", env=env)
    assert r.code == 2 and "region = 'mars-1'" in r.err and "Traceback" not in r.err
    path.write_text("region = [\n")
    r = planner("prices", env=env)
    assert r.code == 2 and "not TOML" in r.err


def test_profile_is_taken_anywhere_on_the_line_as_the_aws_cli_takes_it(tmp_path):
    env = {"PLANNER_CONFIG": str(tmp_path / "none.toml")}
    assert estimate_options(env, "--profile", "research")[
        "region"
    ]  # accepted after the subcommand's own flags
    r = planner(
        "ls", "--profile", "research", env={**env, "HOME": str(tmp_path), "AWS_PROFILE": None}
    )
    assert (
        "The config profile (research) could not be found" in r.err
    )  # it reached boto3, as AWS_PROFILE does
    r = planner("--profile", "bad name!", "prices", env=env)
    assert r.code == 2 and "--profile 'bad name!'" in r.err
