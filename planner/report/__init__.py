"""Render for people (rich markup and tables) and programs (strict JSON): plan.py the plan, tables.py
the other tables, text.py the words every front shares. No rule lives here."""

from planner.report.plan import (  # noqa: F401 - the fronts' names
    PLAN_COLUMNS, VERDICT_TITLES, answers_text, device_text, failed_lines, plan_answers, plan_row,
    plan_table, plan_title, predicted_footer, recommendation_text, reference_caption, unterminated_lines,
)
from planner.report.tables import (  # noqa: F401
    INSTANCE_COLUMNS, bench_json, bench_table, check_lines, check_summary, check_table, instance_row, instances_table,
    prices_json, prices_table, sweep_table,
)
from planner.report.text import (  # noqa: F401
    escape, human_bytes, human_count, label_target, money_text, progress_text, range_text, seconds_text, short, to_json,
)
