"""Run the benchmarks and print their tables: ``python -m bench [NAME ...]``."""

from __future__ import annotations

import argparse
import platform
import sys
import time
from importlib import import_module

# module names under bench/, in the order they print
MODULES = ["rules_bench", "vision_bench", "render_bench", "models_bench", "device_bench",
           "calibration_bench"]


def format_table(title: str, rows: list[dict]) -> str:
    if not rows:
        return f"## {title}\n(no rows)\n"
    cols = list(rows[0])
    cells = [[_fmt(r.get(c, "")) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    line = "| " + " | ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)) + " |"
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    body = [
        "| " + " | ".join(v.rjust(w) for v, w in zip(row, widths, strict=True)) + " |"
        for row in cells
    ]
    return "\n".join([f"## {title}", "", line, rule, *body, ""])


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 100 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("names", nargs="*", help=f"modules to run (default all: {MODULES})")
    args = parser.parse_args(argv)
    names = args.names or MODULES
    unknown = [n for n in names if n not in MODULES]
    if unknown:
        parser.error(f"unknown benchmark {unknown[0]!r} (known: {', '.join(MODULES)})")
    print(f"# tableref benchmarks on {platform.node()} ({platform.machine()}, "
          f"Python {platform.python_version()})\n")
    for name in names:
        module = import_module(f"bench.{name}")
        start = time.perf_counter()
        print(format_table(module.TITLE, module.measure()))
        print(f"({name}: {time.perf_counter() - start:.1f} s)\n", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
