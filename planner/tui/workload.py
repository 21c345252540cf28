"""Workload pane: the spec as a form or as YAML (f toggles), validated as you type with the CLI's
messages; load and save; `planner check`'s summary (parameters, FLOPs, memory) live."""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, ContentSwitcher, Input, Static, TextArea

from planner.errors import PlannerError
from planner.tui.form import SpecForm
from planner.tui.messages import FormEdited, SpecChanged


class WorkloadPane(Vertical):
    DEFAULT_CSS = """
    WorkloadPane #spec-views { width: 3fr; }
    WorkloadPane #spec-side { width: 2fr; padding: 0 1; }
    WorkloadPane #spec-status.invalid { color: $error; }
    WorkloadPane #spec-status.valid { color: $success; }
    WorkloadPane #file-row { height: 3; }
    WorkloadPane #spec-path { width: 1fr; }
    """

    def __init__(self, path: str | None = None):
        super().__init__(id="workload")
        self.path = path

    def compose(self) -> ComposeResult:
        with Horizontal(id="file-row"):
            yield Input(self.path or "spec.yaml", id="spec-path", placeholder="spec file")
            yield Button("Load", id="load")
            yield Button("Save", id="save")
            yield Button("Form/YAML (f)", id="toggle-view")
        with Horizontal():
            with ContentSwitcher(initial="spec-editor", id="spec-views"):
                yield TextArea("", language="yaml", id="spec-editor", show_line_numbers=True)
                yield SpecForm()
            with Vertical(id="spec-side"):
                yield Static("", id="spec-status")
                yield Static("", id="spec-summary")

    def on_mount(self) -> None:
        if self.path and Path(self.path).exists():
            self.load(self.path)

    def load(self, path: str) -> None:
        try:
            self.query_one("#spec-editor", TextArea).text = Path(path).read_text()
            self.path = path
        except OSError as exc:
            self.app.notify(f"cannot read {path}: {exc}", severity="error")

    async def toggle_view(self) -> None:
        import yaml

        switcher = self.query_one("#spec-views", ContentSwitcher)
        if switcher.current == "spec-form":
            switcher.current = "spec-editor"
            return
        try:
            data = yaml.safe_load(self.query_one("#spec-editor", TextArea).text) or {}
        except yaml.YAMLError:
            self.app.notify("the YAML does not parse: fix it in the editor first", severity="error")
            return
        await self.query_one(SpecForm).rebuild(data if isinstance(data, dict) else {})
        switcher.current = "spec-form"

    def on_form_edited(self, message: FormEdited) -> None:
        import yaml

        self.query_one("#spec-editor", TextArea).text = yaml.safe_dump(message.data, sort_keys=False)

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        path = self.query_one("#spec-path", Input).value.strip()
        if event.button.id == "toggle-view":
            await self.toggle_view()
        elif event.button.id == "load":
            self.load(path)
        elif event.button.id == "save":
            Path(path).write_text(self.query_one("#spec-editor", TextArea).text)
            self.path = path
            self.app.notify(f"saved {path}")

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.validate(event.text_area.text)

    @work(exclusive=True, thread=True)
    def validate(self, text: str) -> None:
        from planner.report import check_lines

        base = Path(self.path).parent if self.path else None
        try:
            spec, fp = self.app.service.check_text(text, self.path or "<editor>", base)
        except PlannerError as exc:
            self.app.call_from_thread(self._show, exc.render(), "", False, None, text)
            return
        summary = "\n".join(check_lines(spec, fp))
        self.app.call_from_thread(self._show, f"valid: {spec.name} ({spec.model.kind}, {spec.task})", summary, True, spec, text)

    def _show(self, status: str, summary: str, ok: bool, spec, text: str) -> None:
        from rich.text import Text

        widget = self.query_one("#spec-status", Static)
        widget.update(Text(status))  # plain text: field paths like hidden[1] are not markup
        widget.set_classes("valid" if ok else "invalid")
        self.query_one("#spec-summary", Static).update(Text(summary))
        self.post_message(SpecChanged(spec, text))
