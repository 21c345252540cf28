"""A script that stops without training says the script's own reason, not only the planner's guess."""

from __future__ import annotations

import textwrap

from tests.cli.helpers import planner


def test_a_script_that_exits_for_want_of_gpus_shows_its_own_line(tmp_path):
    (tmp_path / "ddp.py").write_text(
        textwrap.dedent("""
        import sys, torch
        if torch.cuda.device_count() < 2:
            print("Unable to locate sufficient 2 gpus to run this example. Exiting.")
            sys.exit(0)
    """)
    )
    r = planner("estimate", tmp_path / "ddp.py", "--total-steps", "10", "--seconds", "1")
    assert r.code == 1 and "finished without a training step" in r.err
    assert "Unable to locate sufficient 2 gpus" in r.err and "Traceback" not in r.err


def test_a_script_that_reads_its_input_is_told_it_has_none(tmp_path):
    (tmp_path / "ask.py").write_text("import torch\nname = input('run name? ')\n")
    r = planner("estimate", tmp_path / "ask.py", "--total-steps", "10", "--seconds", "1")
    assert r.code == 1 and "EOFError" in r.err and "runs a script with none" in r.err


def test_a_script_whose_parser_refuses_its_command_line_is_told_where_its_arguments_go(tmp_path):
    """A trial: `planner estimate mlp_lr.py --epochs 20` for a script that requires --lr showed argparse's complaint
    and no word that a script's own arguments go after --. A failure after a step is not an argument's."""
    (tmp_path / "lr.py").write_text(
        "import argparse, torch\np = argparse.ArgumentParser()\np.add_argument('--lr', required=True)\n"
        "p.parse_args()\n"
    )
    r = planner("estimate", tmp_path / "lr.py", "--total-steps", "10", "--seconds", "1")
    assert r.code == 1 and "the following arguments are required: --lr" in r.err, r.err
    assert (
        "to fix: give the script its own arguments after --" in r.err and "-- --lr VALUE" in r.err
    )
    # a value it refused was given, after -- (a review: that was told to put it after --)
    (tmp_path / "bad.py").write_text(
        "import argparse, torch\np = argparse.ArgumentParser()\np.add_argument('--lr', type=float)\n"
        "p.parse_args()\n"
    )
    r = planner(
        "estimate", tmp_path / "bad.py", "--total-steps", "10", "--seconds", "1", "--", "--lr", "x"
    )
    assert r.code == 1 and "invalid float value" in r.err and "arguments after" not in r.err, r.err


def test_the_service_measures_with_its_default_options_when_given_none(tmp_path):
    """`bench` and `validate` take `options=None` as BenchOptions() (a script's 10 s): a script that fails before its
    first step is refused with its own error through that default, as from the command line."""
    import pytest

    from planner.errors import RunError
    from planner.service import PlannerService

    (tmp_path / "broken.py").write_text("raise SystemExit('no data here')\n")
    service = PlannerService()
    workload = service.workloads.open(str(tmp_path / "broken.py"), total_steps=10)
    for use in (service.bench, service.validate):
        with pytest.raises(RunError, match="no data here"):
            use(workload)
