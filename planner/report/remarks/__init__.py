"""The words of the plan's remarks (planner.core.remarks): one function per kind, so the CLI, the TUI, the chart and
the JSON's `text` say each fact the same way."""

from planner.report.remarks import bench as bench
from planner.report.remarks import plan as plan
from planner.report.remarks import rows as rows
from planner.report.remarks import script as script
from planner.report.remarks.base import note_text, remark_json, word, words

__all__ = ["note_text", "remark_json", "word", "words"]
