"""The Textual app: five panes over PlannerService (Workload, Targets, Run, Results, Instances) and the routes
between them (attributes down, messages up). Its keys are in BINDINGS, the footer, `?` and the palette (docs/guides/
tui.md); what it does per kind of workload is planner/tui/kinds.py's; quitting, and the signals that quit, are
planner/tui/quitting.py's."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.lazy import Lazy
from textual.widgets import Footer, Header, TabbedContent, TabPane

from planner.errors import PlannerError
from planner.service import (
    PlannerService,
    ScriptEnv,
    ScriptLength,
    TaskOrigin,
)
from planner.tui.answers import Answers
from planner.tui.commands import PANES, PlannerCommands
from planner.tui.dialogs import OpenRun, RunLength
from planner.tui.instances import InstancesPane
from planner.tui.kinds import KIND_ACTIONS, Shown, SpecShown, shown_for
from planner.tui.launching import request_run
from planner.tui.messages import (
    EstimateDone,
    LaunchNotice,
    PlanShown,
    PlanStatus,
    RunFinished,
    RunResult,
    SpecChanged,
    SpecLoaded,
    TargetsChanged,
)
from planner.tui.quitting import Quitting
from planner.tui.results import ResultsPane
from planner.tui.run import RunPane
from planner.tui.saved_run import open_saved
from planner.tui.targets import TargetsPane
from planner.tui.workload import WorkloadPane

if TYPE_CHECKING:
    from planner.service import Workload

FOCUS_ON_SHOW = {
    "workload": "#workload",
    "targets": "#catalog",
    "run": "#states",
    "results": "#options",
    "instances": "#instance-table",
}


def after_panes(action: Callable[[PlannerApp], None]) -> Callable[[PlannerApp], None]:
    """An action that needs every pane: a key typed before the panes after the first frame are mounted acts once
    they are (a few frames), instead of being lost."""

    @functools.wraps(action)
    def deferred(app: PlannerApp) -> None:
        if app.panes_mounted:
            action(app)
        else:
            app.when_panes_mounted(action, app)

    return deferred


class PlannerApp(Quitting, App):
    TITLE = "cloud-planner"
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {PlannerCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (34, "-tall")]
    # focus is set per pane (action_show): the single-key bindings work from the start
    AUTO_FOCUS = None
    BINDINGS = [
        *[
            Binding(f"f{i}", f"show('{pane}')", pane.title(), show=False, priority=True)
            for i, pane in enumerate(PANES, 1)
        ],
        *[
            Binding(str(i), f"show('{pane}')", pane.title(), show=False)
            for i, pane in enumerate(PANES, 1)
        ],  # tabs say 1-5
        Binding("r", "run", "Run"),
        Binding("ctrl+r", "run", "Run", show=False, priority=True),  # also from inside the editor
        Binding("e", "estimate", "Estimate", show=False),
        Binding("o", "open_run", "Open run", show=False),
        # a script's whole run, planned for another length (footer: a script only)
        Binding("s", "length", "Steps"),
        Binding("f", "toggle_form", "Form/YAML", show=False),
        Binding("ctrl+t", "toggle_theme", "Theme", show=False),
        Binding("question_mark", "toggle_help", "Keys", key_display="?"),
        Binding("escape", "hide_help", "Close keys", show=False),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(
        self,
        spec_path: str | None = None,
        service: PlannerService | None = None,
        runs_dir: Path | None = None,
        bench_seconds: float = 10.0,
        region: str = "us-east-1",
        ami: str | None = None,
        estimate_seconds: float = 5.0,
        estimate_on_open: bool = True,
        runs_folder: Path | None = None,
        script_args: list[str] | None = None,
        total_steps: int | None = None,
        epochs: int | None = None,
        workdir: str | None = None,
        said: list[str] | None = None,
        script_env: ScriptEnv | None = None,
        purchase: str = "on-demand",
        task: TaskOrigin | None = None,
    ):
        """`runs_dir`: the next run's journal (as `planner run --out`) while it is new or empty; other
        runs journal in `runs_folder` (None: planner-runs/), where `o` looks for saved runs. A script's
        `workdir`: the folder it runs in and ships (--workdir; None: its own). `said`: what the command line said before
        the app took the screen (a SkyPilot task read as its script, and what of it is not used), shown as notices.
        `script_env`: set in the script's environment (--env, --secret, a task's envs and secrets). `task`: the SkyPilot
        task the script came from (its resources' choice is priced under the plan)."""
        super().__init__()
        # set as the app quits: a measurement of this machine in progress ends at once
        self.leaving = threading.Event()
        self.service = service or PlannerService()
        path = Path(spec_path) if spec_path else None
        # `planner tui RUN_DIR`
        self.open_at_start = str(path) if path is not None and path.is_dir() else None
        # `planner tui train.py -- ARGS`: the user's script, measured here as a local run, then planned; a spec
        # edited (a saved run opened, `o`, or a spec loaded sets it again)
        self.shown: Shown = shown_for(
            None if self.open_at_start else spec_path,
            script_args,
            total_steps,
            epochs,
            workdir,
            script_env,
            task,
        )
        # the command line's --env/--secret: a saved run opened takes its secrets
        self.given_env = script_env
        self.spec_path = self.shown.editing(None if self.open_at_start else spec_path)
        self.runs_dir, self.runs_folder = runs_dir, runs_folder
        self.bench_seconds, self.estimate_seconds = bench_seconds, estimate_seconds
        self.region, self.purchase, self.ami = region, purchase, ami
        self.spec = None
        self.spec_text = ""
        self.targets: list[str] = ["local"]
        # False: only `e` estimates (tests pin screens without a live bench)
        self.estimate_on_open = estimate_on_open
        self._estimate_when_valid = False  # a spec was just opened: estimate it once it validates
        self._run_after_estimate = False  # `r` while the estimate measured: run when it is done
        self._unplanned: str | None = None  # a script's run measured without a length: `s` plans it
        self.said = list(said or [])

    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(initial="tab-workload"):
            with TabPane("1 Workload", id="tab-workload"):
                yield WorkloadPane(self.spec_path)
            # the panes not shown first are mounted after the first frame (Textual's Lazy): it paints sooner
            with TabPane("2 Targets", id="tab-targets"):
                yield Lazy(TargetsPane())
            with TabPane("3 Run", id="tab-run"):
                yield Lazy(RunPane())
            with TabPane("4 Results", id="tab-results"):
                yield Lazy(ResultsPane())
            with TabPane("5 Instances", id="tab-instances"):
                yield Lazy(InstancesPane())
        yield Footer(show_command_palette=False)  # its keys whole at 80 columns; ? lists ctrl+p

    def on_mount(self) -> None:
        self.route_signals()
        for line in self.said:
            self.notify(line, timeout=20)
        self.query_one("#workload").focus()
        self.when_panes_mounted(self._start)
        self._warm()

    @work(thread=True, group="warm")
    def _warm(self) -> None:
        """The libraries the spec and the price table need (pydantic's models, pandas: ~1.4 s on a busy machine),
        imported beside the event loop once the first frame is up, so that keys do not wait on them."""
        try:
            self.service.account.regions()
            self.service.workloads.check_text("", "spec.yaml")
        except PlannerError:
            pass  # an empty spec is not one: only its imports were wanted

    def _start(self) -> None:
        if self.open_at_start:
            self.open_run(self.open_at_start)
        else:
            self.shown.start(self)

    @property
    def panes_mounted(self) -> bool:
        """Whether the lazily mounted panes (all but Workload: mounted after the first frame) are there."""
        return bool(self.query(InstancesPane))

    def when_panes_mounted(self, callback: Callable[..., object], *args: object) -> None:
        """`callback(*args)` once every pane is mounted (at once when they are)."""
        if self.panes_mounted:
            callback(*args)
        else:
            self.call_after_refresh(self.when_panes_mounted, callback, *args)

    @property
    def run_pane(self) -> RunPane:
        return self.query_one(RunPane)

    @property
    def workload_pane(self) -> WorkloadPane:
        return self.query_one(WorkloadPane)

    # ------------------------------------------------------------------ panes and focus

    def action_show(self, pane: str) -> None:
        tabs = self.query_one(TabbedContent)
        self.screen.set_focus(None)  # a focused widget of the old pane would pull its tab back
        tabs.active = f"tab-{pane}"
        self.call_after_refresh(self._focus, pane)

    def _focus(self, pane: str) -> None:
        if not self.panes_mounted:  # a key typed as the first frame painted: once its pane is there
            self.when_panes_mounted(self._focus, pane)
            return
        self.query_one(
            FOCUS_ON_SHOW[pane]
        ).focus()  # a table or the pane: arrows and the single keys work

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-instances":
            self.query_one(InstancesPane).action_load()  # the account's state when the pane opens

    def action_toggle_help(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_hide_help(self) -> None:
        self.action_hide_help_panel()

    # ------------------------------------------------------------------ the question

    @property
    def results(self) -> ResultsPane:
        return self.query_one(ResultsPane)

    def on_spec_loaded(self, message: SpecLoaded) -> None:
        # a spec is the workload now (loaded, or a saved spec run opened): `r` runs it
        self.shown = SpecShown()
        self._estimate_when_valid = message.estimate and self.estimate_on_open

    def on_spec_changed(self, message: SpecChanged) -> None:
        self.spec, self.spec_text = message.spec, message.text
        self.sub_title = f"{message.spec.name}" if message.spec else "spec not valid"
        if message.spec is not None and self._estimate_when_valid:
            self._estimate_when_valid = False
            self.action_estimate()
        else:  # an invalid spec too: the plan shown is of the last valid one
            self.results.mark_stale(message.spec)

    @after_panes
    def action_estimate(self) -> None:
        workload = self.workload()
        if self.query_one(RunPane).running:
            self.notify("a run is measuring this machine: estimate after it", severity="warning")
        elif workload is None:
            self.notify("the spec is not valid yet: see the Workload pane", severity="error")
        elif self.results.estimate(workload, self.estimate_seconds):
            self.shown.measuring(self)

    def on_estimate_done(self, message: EstimateDone) -> None:
        self.shown.found(self)
        if self._run_after_estimate:
            self._run_after_estimate = False
            self.action_run()

    def on_plan_shown(self, message: PlanShown) -> None:
        for answers in self.query("#workload-answers").results(
            Answers
        ):  # the plan flows down to every view
            answers.doc = message.doc
        if message.doc is None:
            return
        self.region, self.purchase = message.doc.options.region, message.doc.options.purchase
        for targets in self.query(TargetsPane):  # none while the app closes
            targets.show_plan(message.doc, message.fresh)

    def on_plan_status(self, message: PlanStatus) -> None:
        for answers in self.query("#workload-answers").results(Answers):
            answers.status = message.text

    def on_targets_changed(self, message: TargetsChanged) -> None:
        self.targets = message.targets

    def on_launch_notice(self, message: LaunchNotice) -> None:
        for pane in self.query(TargetsPane):  # none while the app closes
            pane.note_launch(message.label, message.text)

    @after_panes
    def action_run(self) -> None:
        request_run(self)

    def workload(self) -> Workload | None:
        """What the app plans, as the service takes it: the script as it stands (its length may have been given since
        it opened), or the spec as last validated (None: not valid yet)."""
        return self.shown.workload(self)

    def on_run_result(self, message: RunResult) -> None:
        self.results.run_result(message.label, message.measured)

    def on_run_finished(self, message: RunFinished) -> None:
        if self.quitting is not None:  # a quit waited for the run's cleanup: it is done
            self._quit(self.quitting)
            return
        self.results.run_finished(message.doc.run_dir if message.doc is not None else None)
        if message.doc is not None:
            self.action_show("results")

    @after_panes
    def action_cancel(self) -> None:
        self.query_one(RunPane).action_cancel()

    @after_panes
    def action_open_run(self) -> None:
        folder = self.runs_folder or "planner-runs"

        def opened(path: str | None) -> None:
            if path:
                self.open_run(path)

        self.push_screen(
            OpenRun(self.service.journals.saved_runs(self.runs_folder), str(folder)), opened
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # a spec's run is its train.epochs (no `s`); a script is planned as it is: no form, nothing to save
        return action not in KIND_ACTIONS or action in self.shown.actions

    @after_panes
    def action_length(self) -> None:
        """A script's whole run, planned for another length (the measurement made, not measured again): a saved or
        finished run's from its journal, an estimate's from its measurement."""
        self.shown.ask_length(self, self.results.run_dir or self._unplanned)

    def ask_length(
        self,
        why: str,
        length: ScriptLength | None,
        plan: Callable[[ScriptLength], object],
        run_dir: str | None = None,
    ) -> None:
        """Ask for a script run's length (its measurement cannot know it, or `s`), then `plan` it (a saved run's
        open_run asks again when it cannot plan it: `run_dir`, which `s` asks for again until one plans it)."""
        self._unplanned = run_dir

        def given(length: ScriptLength | None) -> None:
            if length is None:
                self.screen.set_focus(None)  # `s` reaches the app, not a text field
                return
            plan(length)

        self.push_screen(RunLength(why, length), given)

    def open_path(self, path: str) -> None:
        """A file typed in the Workload pane's path field: a spec into the editor; a training script measured and
        planned (planner/tui/kinds.py)."""
        shown_for(path).open(self, path)

    def open_run(self, run_dir: str, length: ScriptLength | None = None) -> None:
        """Show a saved run: its plan and its workload (planner/tui/saved_run.py)."""
        open_saved(self, run_dir, length)

    # ------------------------------------------------------------------ editing, theme

    def action_save(self) -> None:
        self.query_one(WorkloadPane).save()

    async def action_toggle_form(self) -> None:
        self.action_show("workload")
        await self.query_one(WorkloadPane).toggle_view()

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.theme != "textual-light" else "textual-dark"
