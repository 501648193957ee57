"""Benchmarks: ``make bench`` (``python -m bench``) prints one table per module.

A bench module defines ``TITLE`` (str) and ``measure() -> list[dict]``: one dict a row,
the same keys in each row (the table's columns, in insertion order).
"""
