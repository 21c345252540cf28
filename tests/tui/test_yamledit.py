"""The user's YAML survives the form: an edit changes that field's line and nothing else (comments,
order, flow lists, indentation), an edit to the same value changes nothing at all."""

from __future__ import annotations

import difflib

import pytest

from planner.tui.yamledit import YAMLError, load, plain, same, set_field, set_kind
from tests.conftest import EXAMPLES
from tests.tui.helpers import COMMENTED


def changed_lines(before: str, after: str) -> list[str]:
    return [
        line for line in difflib.ndiff(before.splitlines(), after.splitlines()) if line[:1] in "+-"
    ]


def test_an_edit_changes_only_its_line_and_keeps_comments_and_flow_lists():
    after = set_field(COMMENTED, ("train", "epochs"), 40)
    assert changed_lines(COMMENTED, after) == [
        "-   epochs: 20        # enough for a first look",
        "+   epochs: 40        # enough for a first look",
    ]
    after = set_field(COMMENTED, ("model", "hidden"), [32, 8])
    assert changed_lines(COMMENTED, after) == [
        "-   hidden: [20, 5]   # two layers",
        "+   hidden: [32, 8]   # two layers",
    ]
    after = set_field(COMMENTED, ("name",), "renamed")  # the comment keeps its column
    assert changed_lines(COMMENTED, after) == [
        "- name: commented   # what I call it",
        "+ name: renamed     # what I call it",
    ]


@pytest.mark.parametrize(
    "path, value",
    [
        (("train", "epochs"), 20),
        (("model", "hidden"), [20, 5]),
        (("name",), "commented"),
        (("data", "samples"), 4000),
    ],
)
def test_setting_the_value_a_field_has_returns_the_text_itself(path, value):
    assert set_field(COMMENTED, path, value) is COMMENTED


def test_five_is_not_five_point_oh_nor_true():
    assert same(5, 5) and same([20, 5], [20, 5])
    assert not same(5, 5.0) and not same(1, True) and not same([20, 5], [20, 5.0])
    assert (
        set_field(COMMENTED, ("train", "epochs"), 20.0) != COMMENTED
    )  # the user asked for a float


def test_a_new_field_joins_its_section_and_a_new_section_the_end():
    after = set_field(COMMENTED, ("train", "optimizer"), "sgd")
    assert changed_lines(COMMENTED, after) == ["+   optimizer: sgd"]
    assert after.index("optimizer: sgd") > after.index("epochs: 20")
    after = set_field("name: x\n", ("train", "epochs"), 3)
    assert after == "name: x\ntrain:\n  epochs: 3\n"


def test_a_new_list_is_written_flow_and_a_block_list_stays_block():
    after = set_field("model:\n  kind: mlp\n", ("model", "hidden"), [8, 4])
    assert "hidden: [8, 4]" in after
    block = "model:\n  kind: mlp\n  hidden:\n  - 20\n  - 5\nname: x\n"
    after = set_field(block, ("model", "hidden"), [32, 8])
    assert after == "model:\n  kind: mlp\n  hidden:\n  - 32\n  - 8\nname: x\n"


def test_the_files_own_indentation_is_kept():
    four = "name: x\nmodel:\n    kind: mlp\n    hidden:\n      - 20\n      - 5\n"
    assert changed_lines(four, set_field(four, ("name",), "y")) == ["- name: x", "+ name: y"]


def test_none_removes_the_field_and_only_it():
    after = set_field(COMMENTED, ("model", "outputs"), None)
    assert changed_lines(COMMENTED, after) == ["-   outputs: 1"]
    after = set_field(
        COMMENTED, ("data", "samples"), None
    )  # a section's last field: the section stays, empty
    assert sorted(changed_lines(COMMENTED, after)) == sorted(
        ["- data:", "-   samples: 4000", "+ data: {}"]
    )
    assert (
        set_field(COMMENTED, ("train", "precision"), None) is COMMENTED
    )  # not there: nothing to remove
    assert set_field(COMMENTED, ("absent", "field"), None) is COMMENTED


def test_another_kind_drops_the_old_kinds_fields_and_keeps_the_rest():
    after = set_kind(COMMENTED, "rnn")
    data = plain(load(after))
    assert data["model"] == {"kind": "rnn"}
    assert data["train"] == {"batch_size": 400, "epochs": 20}
    assert "# enough for a first look" in after and after.startswith(
        "# a spec with the user's own comments"
    )
    assert set_kind(COMMENTED, "mlp") is COMMENTED


def test_every_example_round_trips_untouched():
    for path in sorted(EXAMPLES.glob("*.yaml")):
        text = path.read_text()
        data = plain(load(text))
        if isinstance(data.get("train"), dict) and "epochs" in data["train"]:
            assert set_field(text, ("train", "epochs"), data["train"]["epochs"]) is text, path.name
            edited = set_field(text, ("train", "epochs"), data["train"]["epochs"] + 1)
            assert len(changed_lines(text, edited)) == 2, path.name


def test_text_that_does_not_parse_is_an_error_not_a_rewrite():
    with pytest.raises(YAMLError):
        set_field("name: [unclosed\n", ("name",), "x")
