"""Nightly scout: a report of opportunities and risks nobody acted on (S-0 … S-8)."""
