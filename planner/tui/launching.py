"""The TUI's `r`: a run of the targets picked, refused before anything is launched as `planner run` refuses it, and
confirmed with its bill when it rents; started on the Run pane."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from planner.errors import PlannerError
from planner.tui.dialogs import ConfirmLaunch
from planner.tui.run import RunPane

if TYPE_CHECKING:
    from planner.service import AwsOptions, LaunchPreview
    from planner.tui.app import PlannerApp


def _preview(app: PlannerApp, rented: list[str], aws: AwsOptions) -> LaunchPreview | None:
    """What the run would launch and bill; None, said, when `planner run` would refuse it (its guards, no AWS
    credentials, the account's quotas)."""
    try:
        preview = app.service.launch_preview(rented, aws)
    except PlannerError as exc:
        app.notify(exc.render(), severity="error")
        return None
    problem = app.service.account.credentials_problem()
    if problem is not None:  # refused before asking, as `planner run` refuses it
        app.notify(
            f"the instances picked need AWS credentials: {problem}; or unpick them to measure here only",
            severity="error",
            timeout=30,
        )
        return None
    refusal = preview.quota_refusal()
    if refusal is not None:  # the account's state, not the user's input: no "bad input:" title
        app.notify(f"{refusal.message}\nto fix: {refusal.hint}", severity="error", timeout=30)
        return None
    return preview


def request_run(app: PlannerApp) -> None:
    """`r`: the run of the targets picked (this machine first), refused as `planner run` refuses it (an invalid
    spec, a run under way, what-if fields, the launch's guards and quotas, no AWS credentials), confirmed when it
    rents; after the estimate when one is measuring."""
    run, results = app.query_one(RunPane), app.results
    if run.running:
        app.notify("a run is already in progress", severity="warning")
        return
    workload = app.workload()
    if workload is None:
        app.notify("the spec is not valid yet: see the Workload pane", severity="error")
        return
    if results.estimating:  # two benches at once would disturb each other: the run waits
        app._run_after_estimate = True
        app.notify("the estimate is measuring this machine: the run starts when it is done")
        run.say(
            "waiting: the estimate is measuring this machine; the run starts when it is done "
            "(two measurements at once would disturb each other)"
        )
        return
    try:
        options = results.plan_options()
    except (PlannerError, ValueError) as exc:  # the what-if fields
        app.notify(exc.render() if isinstance(exc, PlannerError) else str(exc), severity="error")
        return
    from planner.service import AwsOptions, parse_targets

    out = app.runs_dir
    if out is None or (Path(out).exists() and any(Path(out).iterdir())):
        out = app.service.journals.new_run_dir(workload.stem, app.runs_folder)
    aws = AwsOptions(
        region=options.region, purchase=options.purchase, ami=app.ami, poll_seconds=2.0
    )
    # every other instance is predicted from here
    targets = list(dict.fromkeys(["local", *app.targets]))
    rented = parse_targets(",".join(targets)).aws_types
    if not rented:
        start_run(app, out, aws, targets, options)
        return
    preview = _preview(app, rented, aws)
    if preview is None:
        return

    def answer(launch: bool | None) -> None:
        if launch:
            start_run(app, out, aws, targets, options)
        else:
            app.notify("nothing launched")

    app.push_screen(ConfirmLaunch(preview.lines()), answer)


def start_run(app: PlannerApp, out, aws, targets: list[str], options) -> None:
    """The run of `targets` (confirmed when it rents), on the Run pane: the user's script measured here again and
    on the instances picked, or the spec."""
    from planner.service import BenchOptions, parse_targets

    run, results = app.query_one(RunPane), app.results
    app.action_show("run")
    workload = app.workload()
    assert workload is not None
    results.run_started(workload)
    bench = BenchOptions(seconds=app.bench_seconds)
    run.start(
        workload.name,
        targets,
        lambda callbacks, cancel: app.service.run(
            workload,
            parse_targets(",".join(targets)),
            options,
            bench,
            Path(out),
            callbacks,
            aws,
            cancel=cancel,
        )[0],
    )
