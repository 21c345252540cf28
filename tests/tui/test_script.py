"""The TUI opens a user's training script: estimated as a spec is (measured here unchanged, free, the measurement kept
in memory), its source shown read-only with what the launcher found, every instance planned from it, the what-if
controls and `s` (its length) re-planning it without measuring again; `r` runs it from the Run pane, journaled and
re-planned."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Static, TextArea

from planner.service import ScriptWorkload
from planner.tui.app import PlannerApp
from planner.tui.results import ResultsPane
from planner.tui.run import RunPane
from planner.tui.targets import TargetsPane
from tests.conftest import EXAMPLES
from tests.tui.helpers import started, text_of, wait_for


def test_a_script_is_measured_shown_read_only_and_planned_and_its_what_ifs_replan(tmp_path):
    script = str(EXAMPLES / "scripts" / "reinforce.py")

    async def scenario():
        app = PlannerApp(
            script,
            script_args=["--episodes", "100000"],
            total_steps=2000,
            estimate_seconds=1,
            bench_seconds=1,
            runs_folder=tmp_path,
        )
        async with started(app, (120, 40)) as pilot:
            results = app.query_one(ResultsPane)
            await wait_for(pilot, lambda: results.doc is not None, timeout=120)
            doc = results.doc
            assert doc.workload.kind == "script" and doc.workload.total_steps == 2000
            assert any(
                o.device == "cuda" and o.source == "predicted" for o in doc.plan.options
            )  # every instance
            editor = app.query_one("#spec-editor", TextArea)
            assert editor.read_only and "class CartPole" in editor.text
            assert (
                not app.query_one("#save").display and not app.query_one("#toggle-view").display
            )  # planned as it is
            await wait_for(  # what the launcher found, shown once the estimate is done
                pilot,
                lambda: "step boundary" in str(app.query_one("#spec-summary", Static).render()),
                timeout=10,
            )
            found = str(app.query_one("#spec-summary", Static).render())
            assert "step boundary: optimizer steps" in found and "outside PyTorch" in found
            assert not list(tmp_path.glob("*"))  # an estimate, as a spec's: nothing journaled
            app.query_one(
                "#region-whatif"
            ).value = "us-west-2"  # a what-if re-plans the measured script
            await wait_for(pilot, lambda: results.doc.options.region == "us-west-2", timeout=60)
            first = results.doc.run_dir
            assert app.sub_title.startswith("reinforce.py --episodes 100000: ")
            assert app.sub_title.endswith(" optimizer steps planned")  # the length the plan is of
            # here only: the picks follow the what-if's suggestions, which would add rented instances
            app.query_one(TargetsPane).action_local_only()
            await pilot.press("r")  # the Run pane runs the script here
            rows = app.query_one(
                RunPane
            ).rows  # its row shows the measurement's progress as it goes
            await wait_for(
                pilot,
                lambda: "local" in rows and "measuring: " in rows["local"].progress,
                timeout=60,
            )
            await wait_for(
                pilot,
                lambda: results.doc is not None and results.doc.run_dir not in (None, first),
                timeout=120,
            )
            assert app.query_one(RunPane).rows["local-cpu"].state == "done"
            doc = results.doc
            assert (
                doc.workload.kind == "script" and doc.options.region == "us-west-2"
            )  # the what-if's region kept
            assert [o.source for o in doc.plan.options if o.target == "local"] == ["measured"]
            assert (
                len(list(tmp_path.glob("*-reinforce/script.json"))) == 1
            )  # the run journaled in the runs folder
            assert app.sub_title.startswith(
                "reinforce.py --episodes 100000: "
            )  # its name as the user gave it, not a path
            await pilot.press("o")  # the picker offers the script's run, by its name and arguments
            await pilot.pause(0.3)
            listed = app.screen.query_one("#run-list")
            assert listed.option_count == 1 and "reinforce.py --episodes 100000" in str(
                listed.get_option_at_index(0).prompt
            )

    asyncio.run(scenario())


def test_a_script_run_without_a_length_answers_per_1000_steps_and_plans_the_measurement_for_one_given(
    tmp_path,
):
    """Its measurement was journaled (no --total-steps, no DataLoader): the TUI answers per 1,000 steps and says `s`
    gives the length; a length given plans the run without measuring again and is kept as the run's; `s` plans
    another (a what-if, not kept)."""
    import json
    import shutil

    from textual.widgets import Input

    from planner.tui.dialogs import RunLength
    from tests.conftest import ROOT

    run = shutil.copytree(ROOT / "tests/cli/fixtures/run-reinforce-no-length", tmp_path / "run")
    job = json.loads((run / "script.json").read_text())
    (run / "script.json").write_text(
        json.dumps(
            {
                **job,
                "path": str(EXAMPLES / "scripts" / "reinforce.py"),
                "env": {"LR": "0.1"},
                "secret_names": ["HF_TOKEN", "WANDB_API_KEY"],
            }
        )
    )

    async def scenario():
        from planner.service import ScriptEnv

        app = PlannerApp(
            str(run), script_env=ScriptEnv(secrets={"HF_TOKEN": "hf_given"})
        )  # `planner tui RUN_DIR --secret`
        async with started(app, (80, 24)) as pilot:
            results = app.query_one(ResultsPane)
            await wait_for(pilot, lambda: results.doc is not None, timeout=30)
            assert results.doc.workload.total_steps == 1000 and not isinstance(
                app.screen, RunLength
            )
            assert results.answers.status.startswith("no run length given: planned per 1,000 steps")
            # its envs from the journal, the session's secret kept, the one not given said (never journaled)
            script = app.workload()
            assert isinstance(script, ScriptWorkload) and script.env == ScriptEnv(
                {"LR": "0.1"}, {"HF_TOKEN": "hf_given"}
            )
            # the notice is posted beside the plan, not before it: waited for (a loaded CI run read it too early)
            await wait_for(
                pilot,
                lambda: any(
                    "(WANDB_API_KEY) were never journaled" in n.message for n in app._notifications
                ),
                timeout=30,
            )
            assert (
                app.sub_title == "reinforce.py --episodes 100000: per 1,000 steps (its length: s)"
            )
            await pilot.press("s")
            await wait_for(pilot, lambda: isinstance(app.screen, RunLength), timeout=10)
            assert "how long is the whole run?" in str(
                app.screen.query_one("#length-why", Static).render()
            )
            await pilot.press("escape")  # put off: `s` asks again (the measurement is kept)
            assert not isinstance(app.screen, RunLength)
            await pilot.press("s")
            await wait_for(pilot, lambda: isinstance(app.screen, RunLength), timeout=10)
            await pilot.press("enter")  # nothing typed: said, not planned
            assert "give one" in str(app.screen.query_one("#length-error", Static).render())
            app.screen.query_one("#length-steps", Input).value = "0"
            await pilot.press("enter")  # out of range: the flag's own rule
            said = str(app.screen.query_one("#length-error", Static).render())
            assert (
                said.startswith("total steps: must be a whole number between 1 and")
                and "got '0'" in said
            )
            app.screen.query_one("#length-steps", Input).value = ""
            app.screen.query_one("#length-epochs", Input).value = "3"
            await pilot.press(
                "enter"
            )  # no DataLoader epoch was seen: asked again, why said, nothing kept
            await wait_for(
                pilot,
                lambda: (
                    isinstance(app.screen, RunLength)
                    and "iterated no DataLoader"
                    in str(app.screen.query_one("#length-why", Static).render())
                ),
                timeout=10,
            )
            assert json.loads((run / "script.json").read_text())["epochs"] is None
            app.screen.query_one("#length-epochs", Input).value = ""
            app.screen.query_one("#length-steps", Input).value = "2000"
            await pilot.press("enter")
            await wait_for(
                pilot,
                lambda: results.doc is not None and results.doc.workload.total_steps == 2000,
                timeout=60,
            )
            assert (
                results.doc.workload.total_steps == 2000
                and json.loads((run / "script.json").read_text())["total_steps"] == 2000
            )
            await pilot.press("s")  # another length: planned from the same measurement
            await wait_for(pilot, lambda: isinstance(app.screen, RunLength), timeout=10)
            assert (
                app.screen.query_one("#length-steps", Input).value == "2000"
            )  # the length planned now
            app.screen.query_one("#length-steps", Input).value = "6000"
            await pilot.press("enter")
            await wait_for(
                pilot,
                lambda: results.doc is not None and results.doc.workload.total_steps == 6000,
                timeout=60,
            )
            script = app.workload()  # what `r` would run with
            assert isinstance(script, ScriptWorkload) and script.total_steps == 6000
            assert app.sub_title == "reinforce.py --episodes 100000: 6,000 optimizer steps planned"
            assert (
                json.loads((run / "script.json").read_text())["total_steps"] == 2000
            )  # the run's own is kept
            assert (
                not (run / "results" / "local-cpu.json").read_text() == ""
            )  # nothing measured again

    asyncio.run(scenario())


def test_a_script_estimated_without_a_length_answers_per_1000_steps_and_s_plans_the_measurement_for_one(
    tmp_path,
):
    """Issue 39 and 41: a script estimated in the TUI with no length answers per 1,000 steps, as the CLI does; `s`
    plans the same measurement for the length given (nothing measured again, nothing journaled), and that length is
    the script's from then on (what `r` would run)."""
    from textual.widgets import Input

    from planner.tui.dialogs import RunLength

    async def scenario():
        app = PlannerApp(
            str(EXAMPLES / "scripts" / "reinforce.py"),
            script_args=["--episodes", "100000"],
            estimate_seconds=1,
            runs_folder=tmp_path,
        )
        async with started(app, (80, 24)) as pilot:
            results = app.query_one(ResultsPane)
            await wait_for(pilot, lambda: results.doc is not None, timeout=120)
            assert results.doc.workload.total_steps == 1000
            await wait_for(pilot, lambda: "per 1,000" in app.sub_title, timeout=10)
            assert (
                app.sub_title == "reinforce.py --episodes 100000: per 1,000 steps (its length: s)"
            )
            measured = results.results["local-cpu"]
            await pilot.press("s")
            await wait_for(pilot, lambda: isinstance(app.screen, RunLength), timeout=10)
            app.screen.query_one("#length-steps", Input).value = "3000"
            await pilot.press("enter")
            await wait_for(
                pilot,
                lambda: results.doc is not None and results.doc.workload.total_steps == 3000,
                timeout=60,
            )
            script = app.workload()  # what `r` runs
            assert isinstance(script, ScriptWorkload) and script.total_steps == 3000
            assert results.results["local-cpu"] is measured  # the same measurement
            assert app.sub_title == "reinforce.py --episodes 100000: 3,000 optimizer steps planned"
            assert not list(tmp_path.glob("*"))

    asyncio.run(scenario())


def test_what_the_command_line_said_before_the_app_took_the_screen_is_shown_in_it():
    """`planner tui task.yaml`: the task read as its script, and what of it is not used, printed before the app
    starts (and hidden by it), are notices in the app."""
    said = [
        "t.yaml: SkyPilot task x: runs `python t.py` in its workdir .",
        "t.yaml: resources (accelerators: L4) do not narrow the plan",
    ]

    async def scenario():
        app = PlannerApp(str(EXAMPLES / "surface-mlp.yaml"), estimate_on_open=False, said=said)
        async with started(app, (120, 40)) as pilot:
            await pilot.pause(0.2)
            shown = [n.message for n in app._notifications]
            assert all(line in shown for line in said)

    asyncio.run(scenario())


def test_a_spec_loaded_after_a_script_is_what_r_runs(tmp_path):
    """The app holds one workload: once a spec is loaded in the Workload pane (or a saved spec run opened) after a
    script, the spec is what `r` runs and `e` estimates; the script is no longer held."""
    from planner.service import ScriptWorkload, SpecWorkload
    from planner.tui.workload import WorkloadPane

    async def scenario():
        app = PlannerApp(
            str(EXAMPLES / "scripts" / "convnet.py"),
            total_steps=100,
            estimate_seconds=1,
            bench_seconds=1,
            runs_folder=tmp_path,
        )
        async with started(app, (120, 40)) as pilot:
            assert isinstance(app.workload(), ScriptWorkload) and app.workload().total_steps == 100
            app.query_one(WorkloadPane).load(str(EXAMPLES / "small-cnn.yaml"), estimate=False)
            await wait_for(pilot, lambda: app.spec is not None, timeout=60)
            workload = app.workload()
            assert isinstance(workload, SpecWorkload) and workload.spec.name == "small-cnn"

    asyncio.run(scenario())


def test_a_script_typed_in_the_path_field_is_measured_and_planned_not_edited(tmp_path):
    """The Workload pane's path field takes a training script as the command line does: Load measures and plans it
    (it was refused with a notice); one that is not there is named and the spec stays."""
    from textual.widgets import Input

    from planner.service import ScriptWorkload, SpecWorkload

    script = tmp_path / "train.py"
    script.write_text("print('no training here')\n")

    async def scenario():
        app = PlannerApp(
            str(EXAMPLES / "small-cnn.yaml"), estimate_on_open=False, runs_folder=tmp_path
        )
        async with started(app, (120, 40)) as pilot:
            await wait_for(pilot, lambda: app.spec is not None, timeout=60)
            field = app.query_one("#spec-path", Input)
            field.value = str(tmp_path / "missing.py")
            await pilot.click("#load")
            await pilot.pause(0.3)
            assert isinstance(app.workload(), SpecWorkload)
            assert any("missing.py" in n.message for n in app._notifications)
            field.value = str(script)
            await pilot.click("#load")
            await wait_for(pilot, lambda: isinstance(app.workload(), ScriptWorkload), timeout=30)
            assert app.workload().path == str(script) and app.workload().args == ()
            assert app.query_one("#spec-editor", TextArea).read_only
            assert not app.check_action("save", ())

    asyncio.run(scenario())


def test_a_script_typed_while_the_spec_is_estimated_waits_and_one_typed_after_a_saved_run_is_its_own(
    tmp_path,
):
    """A review: a script typed while the spec's estimate measured took the spec's results as its own (and `r` then
    ran the script); one typed after a saved run was opened left that run's directory, so `s` re-planned the old
    run. Now the first is refused until the estimate ends, and the second starts from nothing of the run."""
    import shutil

    from planner.service import ScriptWorkload, SpecWorkload

    script = tmp_path / "train.py"
    script.write_text("print('no training here')\n")
    run = tmp_path / "run"
    shutil.copytree(Path(__file__).parent / "fixtures" / "run-surface-mlp", run)

    async def scenario():
        app = PlannerApp(
            str(EXAMPLES / "small-cnn.yaml"), estimate_on_open=False, runs_folder=tmp_path
        )
        async with started(app, (120, 40)) as pilot:
            await wait_for(pilot, lambda: app.spec is not None, timeout=60)
            app.results.estimating = True  # the spec's estimate measuring
            app.open_path(str(script))
            await pilot.pause(0.2)
            assert isinstance(app.workload(), SpecWorkload)
            assert any("open it after" in n.message for n in app._notifications)
            app.results.estimating = False
            app.open_run(str(run))
            await wait_for(pilot, lambda: app.results.run_dir == str(run), timeout=60)
            app.open_path(str(script))  # as the path field's Load does (tested above)
            await wait_for(pilot, lambda: isinstance(app.workload(), ScriptWorkload), timeout=30)
            assert app.results.run_dir is None and app._unplanned is None

    asyncio.run(scenario())


def test_a_script_that_fails_says_so_where_the_answer_goes_not_measuring_forever(tmp_path):
    """A trial: a script raising at import left 'measuring it here ...' in the Workload pane and 'No plan yet' in the
    answers, its traceback only in a toast that went. The failure stays where the answer goes."""
    script = tmp_path / "broken.py"
    script.write_text("import torch\nraise RuntimeError('no dataset here')\n")

    async def scenario():
        app = PlannerApp(str(script), total_steps=100, estimate_seconds=1, runs_folder=tmp_path)
        async with started(app, (80, 24)) as pilot:
            results = app.query_one(ResultsPane)
            # the answers and the Workload pane are told in turn (a busy machine shows the one before the other)
            await wait_for(
                pilot,
                lambda: (
                    "the estimate failed" in text_of(app, "#answers")
                    and "the estimate failed"
                    in str(app.query_one("#spec-summary", Static).render())
                ),
                120,
            )
            said = " ".join(text_of(app, "#answers").split())
            # the error, not a dangling ':', and where the script raised it (the toast with its traceback goes)
            assert "RuntimeError: no dataset here (broken.py, line 2) (e tries again)" in said, said
            found = str(app.query_one("#spec-summary", Static).render())
            assert "measuring it here" not in found and "the estimate failed" in found
            assert results.doc is None and not results.estimating

    asyncio.run(scenario())


def test_another_workloads_estimate_does_not_show_the_previous_answer_while_it_measures(tmp_path):
    """A trial: a script typed in the path field was measured under the spec's answer ('Train here: 41.7 s ...'),
    which read as the script's. Another workload's estimate clears the plan shown; the same spec's keeps it."""
    import shutil

    from planner.service import ScriptWorkload

    script = tmp_path / "train.py"
    script.write_text("raise SystemExit('no training here')\n")
    run = tmp_path / "run"
    shutil.copytree(Path(__file__).parent / "fixtures" / "run-surface-mlp", run)

    async def scenario():
        app = PlannerApp(str(run), estimate_on_open=False, runs_folder=tmp_path)
        async with started(app, (120, 40)) as pilot:
            results = app.query_one(ResultsPane)
            await wait_for(pilot, lambda: results.doc is not None, timeout=60)
            results.estimate(ScriptWorkload(str(script)), 1)
            assert results.doc is None  # at once; the Workload pane's copy by message
            answers = app.query_one("#workload-answers")
            await wait_for(pilot, lambda: answers.doc is None, timeout=30)
            await wait_for(pilot, lambda: not results.estimating, timeout=60)

    asyncio.run(scenario())


def test_an_estimate_refused_by_the_what_if_controls_does_not_say_it_is_measuring(tmp_path):
    """A trial: with a what-if value the plan refuses, `e` said "measuring it here ..." in the Workload pane for
    ever while nothing ran. Now the estimate is refused, said, and the pane keeps what it showed."""
    script = str(EXAMPLES / "scripts" / "convnet.py")

    async def scenario():
        app = PlannerApp(
            script, script_args=["--epochs", "1"], estimate_seconds=1, runs_folder=tmp_path
        )
        async with started(app, (120, 40)) as pilot:
            results = app.query_one(ResultsPane)
            # opened, a script is measured at once: then refused
            await wait_for(pilot, lambda: results.doc is not None, timeout=120)
            await pilot.pause(0.3)
            app._notifications.clear()
            before = text_of(app, "#spec-summary")
            app.query_one("#local-price").value = "-1"
            app.action_estimate()
            await wait_for(pilot, lambda: app._notifications, timeout=10)
            said = [n.message for n in app._notifications]
            assert any("local $/h: must be a number" in m for m in said), said
            assert not results.estimating and text_of(app, "#spec-summary") == before
            assert "measuring it here" not in text_of(app, "#spec-summary")

    asyncio.run(scenario())
