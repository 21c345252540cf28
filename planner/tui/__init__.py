"""`planner tui`: the Textual front end. A thin shell over planner.service; no planning logic here."""
