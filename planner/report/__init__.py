"""Render for people (rich markup and tables) and programs (strict JSON): plan.py the plan, tables.py
the other tables, text.py the words every front shares. No rule lives here."""
