"""A terminal resized while the Targets pane is shown: its catalog is rebuilt for the new width after the resize is
laid out (rebuilt during it, the columns kept their old widths: 'c6i.xlar', '$/h 0.1')."""

from __future__ import annotations

import asyncio
import re

from planner.tui.app import PlannerApp
from tests.conftest import ROOT
from tests.tui.helpers import started, wait_for


def screen_text(app) -> str:
    return re.sub(r"<[^>]+>", "", app.export_screenshot()).replace("&#160;", " ")


def test_the_targets_table_keeps_whole_cells_after_a_resize():
    async def scenario():
        app = PlannerApp(str(ROOT / "examples" / "surface-mlp.yaml"), estimate_on_open=False)
        async with started(app, (80, 24)) as pilot:
            await wait_for(pilot, lambda: app.spec is not None, timeout=30)
            await pilot.press("2")
            await pilot.pause(0.5)
            for size in ((120, 40), (80, 24), (130, 40)):
                await pilot.resize_terminal(*size)
                await pilot.pause(0.8)
                row = next(line for line in screen_text(app).splitlines() if " c6i.xlar" in line)
                assert " c6i.xlarge " in row and "0.1700" in row, (size, row)

    asyncio.run(scenario())
