"""The spec as a form, generated from the pydantic models of planner/workload/spec.py. Design
notes: docs/reference/modules.md (planner/tui/form.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Input, Label, Select

from planner.tui.messages import FieldEdited, KindChosen
from planner.tui.typed import planner_app

if TYPE_CHECKING:
    from planner.service import SpecFields

NO_SELECTION = Select.NULL


def field_text(value: Any) -> str:
    """A value as the form shows it: lists as "20, 5"."""
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def typed_value(text: str) -> Any:
    """What the user typed, as YAML would read it: numbers, lists of numbers, else the text;
    an empty field is None (the field is removed, and validation names it if it is required)."""
    text = text.strip()
    if not text:
        return None
    if "," in text or text.startswith("["):
        return [typed_value(part) for part in text.strip("[]").split(",") if part.strip()]
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


class SpecForm(VerticalScroll):
    DEFAULT_CSS = """
    SpecForm { height: 1fr; padding: 0 1; }
    SpecForm Label { margin-top: 1; color: $text-muted; }
    SpecForm Input, SpecForm Select { width: 100%; }
    """

    def __init__(self) -> None:
        super().__init__(id="spec-form")
        self.data: dict[str, Any] = {}
        self._form: SpecFields | None = None
        self._shown: dict[str, Any] = {}  # widget id -> the value it shows as far as the YAML knows

    def compose(self) -> ComposeResult:
        return iter(())  # built from the editor's YAML each time it is shown (rebuild)

    def _schema(self) -> SpecFields:
        if self._form is None:
            self._form = planner_app(self).service.workloads.spec_form()
        return self._form

    def kind(self) -> str:
        model = self.data.get("model") or {}
        kind = model.get("kind")
        return kind if isinstance(kind, str) and kind in self._schema().kinds else "mlp"

    def _fields(self) -> ComposeResult:
        """The form's labels and fields; `_shown` learns the value each field starts with."""
        data, schema, kind = self.data, self._schema(), self.kind()
        self._shown = {"f-name": field_text(data.get("name")), "f-model-kind": kind}
        yield Label("name")
        yield Input(field_text(data.get("name")), id="f-name")
        yield Label("model.kind")
        yield Select(
            [(k, k) for k in schema.kinds], value=kind, id="f-model-kind", allow_blank=False
        )
        for field in [*schema.kinds[kind], *schema.sections]:
            section, name, widget_id = field.section, field.name, f"f-{field.section}-{field.name}"
            found = data.get(section)
            section_data: dict[str, Any] = found if isinstance(found, dict) else {}
            current = section_data.get(name, None if field.required else field.default)
            label = f"{section}.{name}" + (" (comma-separated)" if field.is_list else "")
            yield Label(
                label + ("" if field.required else f"  default {field_text(field.default) or '-'}")
            )
            if field.choices:
                value = str(current) if str(current) in field.choices else NO_SELECTION
                self._shown[widget_id] = value
                yield Select(
                    [(c, c) for c in field.choices], value=value, id=widget_id, allow_blank=True
                )
            else:
                # defaults are said in the label, not written
                shown = field_text(section_data.get(name))
                self._shown[widget_id] = shown
                yield Input(shown, id=widget_id, classes="list" if field.is_list else "")

    async def rebuild(self, data: dict[str, Any]) -> None:
        self.data = data
        await self.remove_children()
        await self.mount_all(list(self._fields()))

    def _edited(self, widget_id: str, value: Any) -> bool:
        """Whether `value` is an edit: it differs from what the widget last showed."""
        if self._shown.get(widget_id, object()) == value:
            return False
        self._shown[widget_id] = value
        return True

    @staticmethod
    def path_of(widget_id: str) -> tuple[str, ...]:
        key = widget_id[2:]  # "f-train-epochs" -> ("train", "epochs"); "f-name" -> ("name",)
        section, _, field = key.partition("-")
        return (section,) if not field else (section, field)

    async def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if not self._edited(event.select.id or "", event.value):
            return
        if event.select.id == "f-model-kind":
            if event.value != self.kind():
                self.post_message(KindChosen(str(event.value)))
                data = dict(self.data, model={"kind": event.value})
                await self.rebuild(data)  # another kind has other fields
            return
        value = None if event.value is NO_SELECTION else event.value
        self.post_message(FieldEdited(self.path_of(event.select.id or ""), value))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if not self._edited(event.input.id or "", event.value):
            return
        value = typed_value(event.value)
        if event.input.has_class("list") and value is not None and not isinstance(value, list):
            value = [value]  # "16" in a list field is the list [16]
        self.post_message(FieldEdited(self.path_of(event.input.id or ""), value))
