"""Run ``tableref referee`` / ``tableref games`` in a subprocess, with the test game known.

``python -m tests.referee.cli referee ...`` registers the line game of fakegame.py in the
registry, then runs the subcommand as device/cli.py would.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from importlib import import_module
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
COMMANDS = {"referee": "device.referee_cmd", "games": "device.games_cmd"}


def main(argv: list[str]) -> int:
    from rules import registry

    registry._GAMES.setdefault("line", ("tests.referee.fakegame", "LineGame"))
    module = import_module(COMMANDS[argv[0]])
    parser = argparse.ArgumentParser(prog=f"tableref {argv[0]}")
    module.add_arguments(parser)
    try:
        return module.run(parser.parse_args(argv[1:]))
    except KeyboardInterrupt:
        return 130


def tableref(*args: str, stdin: bytes | None = None, timeout: float = 30, **kw):
    """Runs a subcommand in a subprocess; returns the CompletedProcess (bytes)."""
    return subprocess.run(
        [sys.executable, "-m", "tests.referee.cli", *map(str, args)],
        input=stdin, capture_output=True, cwd=REPO, timeout=timeout, **kw,
    )


def popen(*args: str, **kw) -> subprocess.Popen:
    """The subcommand in a child process whose SIGINT is the default (Python's
    KeyboardInterrupt), whatever the test run inherited: a run started in the background by
    a non-interactive shell ignores SIGINT, its children too, and the tests that stop a
    ``--follow`` referee with SIGINT then waited for ever (session 11, reproduced)."""
    import signal

    return subprocess.Popen(
        [sys.executable, "-m", "tests.referee.cli", *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **kw,
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


def real_tableref(*args: str, stdin: bytes | None = None, timeout: float = 60):
    """The installed entry point's code path (``python -m device.cli``), real games only."""
    return subprocess.run(
        [sys.executable, "-m", "device.cli", *map(str, args)],
        input=stdin, capture_output=True, cwd=REPO, timeout=timeout,
    )
