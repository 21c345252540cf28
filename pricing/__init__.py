"""Prices and instance facts are data: a bundled, dated snapshot and an optional live refresh."""
