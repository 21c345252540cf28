"""Workload pane: the spec as YAML or as a form (f toggles), validated as you type with the CLI's
messages (PlannerService.check_text); load and save; `planner check`'s summary (parameters, FLOPs,
memory) and the estimate's answer beside it.

The YAML is the user's: the form's edits change only the field edited (planner/tui/yamledit.py),
toggling without an edit changes nothing, and `dirty` says whether the editor differs from the file.
"""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, ContentSwitcher, Input, Static, TextArea

from planner.errors import PlannerError
from planner.report.remarks import words
from planner.report.tables import check_lines
from planner.service import ScriptEnv, TaskOrigin
from planner.service.inputs import check_spec_file
from planner.tui import yamledit
from planner.tui.answers import Answers
from planner.tui.form import SpecForm
from planner.tui.messages import FieldEdited, KindChosen, SpecChanged, SpecLoaded
from planner.tui.typed import planner_app


class WorkloadPane(Vertical, can_focus=True):
    DEFAULT_CSS = """
    WorkloadPane #file-row { height: 3; }
    WorkloadPane #spec-path { width: 1fr; }
    WorkloadPane #file-row Button { min-width: 8; }
    WorkloadPane #spec-body { height: 1fr; }
    WorkloadPane #spec-views { width: 1fr; }
    /* half the width (a trial: at 120x40 the answer had 48 columns beside a spec's 70 mostly blank ones); its
       scrollbar's columns kept, so the answer is cut once, at the width it is shown at */
    WorkloadPane #spec-side { width: 1fr; padding: 0 1; scrollbar-gutter: stable; }
    WorkloadPane #spec-status.invalid { color: $error; }
    WorkloadPane #spec-status.valid { color: $success; }
    WorkloadPane #spec-summary { margin-top: 1; }
    """
    BINDINGS = [
        Binding("f", "toggle_form", "Form/YAML"),
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("e", "app.estimate", "Estimate"),
        # the editor and the fields keep every other key
        Binding("escape", "leave_editor", "Leave the field", show=False),
        # back into the spec after esc (a trial: it took Tab x5)
        Binding("enter", "edit", "Edit"),
    ]

    def action_leave_editor(self) -> None:
        self.focus()  # the pane: its single keys (f, e) and the app's work again

    def action_edit(self) -> None:
        """Into the spec again: the editor, or the form's first field when the form is shown."""
        switcher = self.query_one("#spec-views", ContentSwitcher)
        fields = self.query_one(SpecForm).query("Input, Select")
        if switcher.current == "spec-form" and fields:
            fields.first().focus()
        else:
            self.editor.focus()

    def __init__(self, path: str | None = None):
        super().__init__(id="workload")
        self.path = path
        self.saved_text = ""  # the file's text as last loaded or saved

    def compose(self) -> ComposeResult:
        with Horizontal(id="file-row"):
            # empty with a placeholder (a trial read a pre-filled 'spec.yaml' as a file it had opened); Save
            # writes spec.yaml when it is left empty
            yield Input(
                self.path or "",
                id="spec-path",
                placeholder="a spec, a script or a run folder",
            )
            yield Button("Load", id="load")
            yield Button("Save", id="save")
            yield Button("Form/YAML", id="toggle-view")
        with Horizontal(id="spec-body"):
            with ContentSwitcher(initial="spec-editor", id="spec-views"):
                yield TextArea("", language="yaml", id="spec-editor", show_line_numbers=True)
                yield SpecForm()
            with VerticalScroll(id="spec-side"):  # the answer first: at 80x24 it is on screen
                yield Static("", id="spec-status")
                yield Answers(compact=True, id="workload-answers")
                yield Static("", id="spec-summary")

    def on_mount(self) -> None:
        if self.path and Path(self.path).is_file():
            # after the first frame: reading the spec imports its models (pydantic: ~0.9 s on a busy machine)
            self.query_one("#workload-answers", Answers).status = f"reading {self.path} ..."
            planner_app(self).when_panes_mounted(self.load, self.path)

    def show_script(
        self,
        script: str,
        args: list[str],
        rows: list[tuple[str, str]] | None,
        shown: str | None = None,
        workdir: str | None = None,
        task: TaskOrigin | None = None,
        env: ScriptEnv | None = None,
    ) -> None:
        """A user's training script: its source, read-only (it is planned unchanged: edit it in your editor),
        its arguments, the folder it runs in when not its own (--workdir), the SkyPilot task it came from and what
        its resources pick, its environment by name (`env`: a secret's value is never shown), and what the launcher
        found in it (None: still measuring)."""
        from rich.text import Text

        self._script_shown(True)
        try:
            source = Path(script).read_text(errors="replace")
        except OSError as exc:
            source = f"# cannot read {script}: {exc.strerror or exc}"
        self.path, self.saved_text = None, source
        self.query_one("#spec-path", Input).value = shown or script
        self.editor.language = "python"
        self.editor.read_only = True
        self.editor.text = source
        status = self.query_one("#spec-status", Static)
        where = f" in {workdir}" if workdir else ""
        status.update(
            Text(
                f"script: {' '.join([shown or script, *args])}{where} (read-only: it is planned unchanged)"
            )
        )
        status.set_classes("valid")
        found = "\n".join(
            [
                *(f"{what}: {value}" for what, value in _given(task, env)),
                *(
                    ["measuring it here ..."]
                    if rows is None
                    else [f"{what}: {value}" for what, value in rows]
                ),
            ]
        )
        self.query_one("#spec-summary", Static).update(Text(found))

    def _script_shown(self, shown: bool) -> None:
        """A script is planned as it is: no Save, no form (their keys leave the footer too)."""
        for button in ("#save", "#toggle-view"):
            self.query_one(button, Button).display = not shown
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # only from inside a field or the editor: elsewhere escape is the app's
        if action == "leave_editor":
            focused = self.screen.focused
            return isinstance(focused, (Input, TextArea)) and self in focused.ancestors
        # the pane's own key: a field takes enter itself (the footer said Edit over it); a script is not edited here
        if action == "edit":
            return self.screen.focused is self and not self.editor.read_only
        # a script is planned as it is: no form, nothing to save (the app's rule, by its workload's kind)
        return planner_app(self).check_action(action, parameters)

    @property
    def editor(self) -> TextArea:
        return self.query_one("#spec-editor", TextArea)

    @property
    def dirty(self) -> bool:
        return self.editor.text != self.saved_text

    def load(self, path: str, estimate: bool = True) -> None:
        """A spec file into the editor (validated, then estimated when `estimate`)."""
        self._script_shown(False)
        self.editor.read_only = False
        self.editor.language = "yaml"
        try:
            text = check_spec_file(path)  # a FIFO, a device or a huge file is refused, not read
        except PlannerError as exc:
            self.app.notify(exc.message.splitlines()[0], severity="error")
            return
        self.path, self.saved_text = path, text
        self.query_one("#spec-path", Input).value = path
        self.editor.text = text
        answers = self.query_one("#workload-answers", Answers)
        if answers.status.startswith("reading "):  # the estimate says what it does next
            answers.status = ""
        self.post_message(SpecLoaded(path, estimate))

    def save(self) -> None:
        """The editor's spec written to the path field's file (a script has no Save: check_action). An empty field
        saves to spec.yaml, said in the field, unless that file exists (a review: the empty field overwrote it)."""
        field = self.query_one("#spec-path", Input)
        path = field.value.strip()
        if not path:
            if Path("spec.yaml").exists():
                self.app.notify(
                    "spec.yaml exists here: type the path to save to in the path field",
                    severity="warning",
                )
                field.focus()
                return
            path = field.value = "spec.yaml"
        try:
            Path(path).write_text(self.editor.text)
        except OSError as exc:
            self.app.notify(f"cannot write {path}: {exc.strerror or exc}", severity="error")
            return
        self.path, self.saved_text = path, self.editor.text
        self.app.notify(f"saved {path}")

    def action_save(self) -> None:
        self.save()

    async def action_toggle_form(self) -> None:
        await self.toggle_view()

    async def toggle_view(self) -> None:
        """The spec's form or its YAML (a script has no form: check_action)."""
        switcher = self.query_one("#spec-views", ContentSwitcher)
        if switcher.current == "spec-form":
            switcher.current = "spec-editor"
            self.focus()  # the pane, not a field: a second `f` toggles back instead of typing an f
            return
        try:
            data = yamledit.plain(yamledit.load(self.editor.text))
        except yamledit.YAMLError:
            self.app.notify("the YAML does not parse: fix it in the editor first", severity="error")
            return
        form = self.query_one(SpecForm)
        await form.rebuild(data if isinstance(data, dict) else {})
        switcher.current = "spec-form"
        self.focus()  # tab goes on into the fields

    def _edit(self, new_text: str) -> None:
        if new_text is not self.editor.text and new_text != self.editor.text:
            self.editor.text = new_text

    def on_field_edited(self, message: FieldEdited) -> None:
        try:
            self._edit(yamledit.set_field(self.editor.text, message.path, message.value))
        except yamledit.YAMLError:
            self.app.notify("the YAML does not parse: fix it in the editor first", severity="error")

    def on_kind_chosen(self, message: KindChosen) -> None:
        try:
            self._edit(yamledit.set_kind(self.editor.text, message.kind))
        except yamledit.YAMLError:
            self.app.notify("the YAML does not parse: fix it in the editor first", severity="error")

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "toggle-view":
            await self.toggle_view()
        elif event.button.id == "load":
            self._open(self.query_one("#spec-path", Input).value.strip())
        elif event.button.id == "save":
            self.save()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "spec-path":
            self._open(event.value.strip())

    def _open(self, path: str) -> None:
        """The path field's file opened, and the focus off the field: the app's keys (1-5, q) and the footer's work
        again (a trial pressed 4 after Load and typed it into the path)."""
        if not path:
            self.app.notify(
                "type the path of a spec, a training script or a run folder", severity="warning"
            )
            return
        self.focus()
        planner_app(self).open_path(path)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if not self.editor.read_only:  # a script shown read-only is not a spec: nothing to validate
            self.validate(event.text_area.text)

    @work(exclusive=True, thread=True, group="validate")
    def validate(self, text: str) -> None:
        if not text.strip():  # nothing to check yet: say what to do, not that a file is empty
            hint = (
                "no spec yet: type one here, or esc then f for a form (examples/ has complete ones)"
            )
            self.app.call_from_thread(self._show, hint, "", None, None, text)
            return
        base = Path(self.path).parent if self.path else None
        try:
            spec, fp = planner_app(self).service.workloads.check_text(
                text, self.path or "the editor (not saved)", base
            )
        except PlannerError as exc:
            self.app.call_from_thread(self._show, exc.render(), "", False, None, text)
            return
        summary = "\n".join(check_lines(spec, fp))
        self.app.call_from_thread(
            self._show,
            f"valid: {spec.name} ({spec.model.kind}, {spec.task})",
            summary,
            True,
            spec,
            text,
        )

    def _show(self, status: str, summary: str, ok: bool | None, spec, text: str) -> None:
        from rich.text import Text

        if text != self.editor.text:
            return  # the user typed on: a newer validation follows
        widget = self.query_one("#spec-status", Static)
        widget.update(Text(status))  # plain text: field paths like hidden[1] are not markup
        widget.set_classes("" if ok is None else "valid" if ok else "invalid")
        self.query_one("#spec-summary", Static).update(Text(summary))
        self.post_message(SpecChanged(spec, text))


def _given(task: TaskOrigin | None, env: ScriptEnv | None) -> list[tuple[str, str]]:
    """What the user gave a script besides its arguments: the SkyPilot task it came from (and what its resources
    pick), its environment by name (a secret's value is never shown)."""
    given = []
    if task is not None:
        picks = f" (resources: {task.asks.written})" if task.asks and task.asks.written else ""
        given.append(("SkyPilot task", task.source + picks))
    given += [
        ("environment", line.removeprefix("the script's environment: "))
        for line in (words(env.said()) if env else [])
    ]
    return given
