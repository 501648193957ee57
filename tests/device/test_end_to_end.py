"""End to end through real processes and sockets, one scripted synthetic game per game.

``tableref camera`` (its own process: the renderer's scripted game -> tracker -> vision ->
observations on a ZeroMQ socket) and ``tableref referee --listen`` (another process:
judging, events as JSONL). The script has hands passing between the moves, an illegal
change put back and a win. The referee's events are compared with the script's
(``device.demo.compare``): no false event ever (an announced move, violation, correction
or result the script does not have there); and exactly the script's events, where the
vision pipeline can see everything the rules need (see the reasons below where not).

Each game is seen as its demo sees it (``DEMO_VIEWS``; a second camera facing the first
from the north where ``DEMO_SECOND`` names its view: ``--second-camera synthetic``, the
two readings fused). A game whose reader is not in ``vision.observe.READERS`` is skipped
with that reason.
The 3andC game runs by default (~15 s); the others are slow (``pytest -m slow``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from device.demo import (
    DEMO_PLIES,
    DEMO_SECOND,
    DEMO_SEEDS,
    DEMO_VIEWS,
    compare,
    script_events,
    scripted_positions,
)
from tests.device.processes import stop_process
from tests.device.service_helpers import ipc_dir

ROOT = Path(__file__).resolve().parents[2]
FAST_GAMES = {"esoloe-3andc"}

#: why a game's announced events are not exactly the script's yet, as measured through the
#: processes (docs/device.md "The demo"): vision's limits, no false event in either; the
#: causes as traced. At 249ae23 (2026-11-26 09:50 UTC, issue #7) 3andC, Neunfeld, Tyr and
#: Cubes announce exactly their scripts' events (Neunfeld 0 of 10 at a3560f2). Tic-tac-toe
#: seen overhead alone announced 6 of 7 (not its win: a side-view line from the east whose
#: deciding face, the a2 cube's east one, overhead does not see); with the demo's second
#: camera (DEMO_SECOND: oblique, facing the first from the north) it is exact. e-SOLO-e at
#: a slant announced 5 of 7 (the illegal change 'unclear') until a152cb1 and 8d8f495
#: (field b's doubt listed, the referee weighing it); exact since
NOT_EXACT: dict[str, str] = {}
#: where the referee announced an event the script does not have (a known fault, measured)
FALSE_EVENTS: dict[str, str] = {}


def _game_params():
    from rules import GAME_IDS

    params = []
    for game in GAME_IDS:
        marks = [] if game in FAST_GAMES else [pytest.mark.slow]
        if game in FALSE_EVENTS:
            marks.append(pytest.mark.xfail(reason=FALSE_EVENTS[game], strict=False))
        params.append(pytest.param(game, id=game, marks=marks))
    return params


def _start(args: list[str], log: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "device.cli", *args], cwd=ROOT,
                            stdout=open(log.with_suffix(".out"), "w"),  # noqa: SIM115
                            stderr=open(log.with_suffix(".err"), "w"))  # noqa: SIM115


def _wait(check, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


def play(game: str, tmp_path: Path, seed: int, plies: int, positions: int) -> list[dict]:
    """The referee process's events for the scripted game seen by the camera process."""
    sockets = ipc_dir()
    address = f"ipc://{sockets}/obs"
    referee = _start(["referee", "--listen", address, "--json", "--table", "t1",
                      "--record", str(tmp_path / "games"), "--heartbeat-ms", "200"],
                     tmp_path / "referee")
    camera = _start(["camera", "--game", game, "--table", "t1", "--publish", address,
                     "--source", "synthetic", "--seed", str(seed), "--plies", str(plies),
                     "--view", DEMO_VIEWS.get(game, "overhead"),
                     *(["--second-camera", "synthetic", "--second-view", DEMO_SECOND[game]]
                       if game in DEMO_SECOND else []),
                     "--fps", "4", "--settle-s", "1", "--wait-subscriber", "30"],
                    tmp_path / "camera")
    err = tmp_path / "camera.err"
    try:
        # about 14 frames a position, each drawn and some read: generous on a loaded machine
        ended = _wait(lambda: "the source ended" in err.read_text() or camera.poll() is not None,
                      60 + 15 * positions)
        assert ended and camera.poll() is None, err.read_text()
        time.sleep(1.5)  # the last observation's way to the referee and its judgement
    finally:
        camera_status, referee_status = stop_process(camera), stop_process(referee)
        shutil.rmtree(sockets, ignore_errors=True)
    assert camera_status == 0, err.read_text()
    assert referee_status == 0, (tmp_path / "referee.err").read_text()
    assert "Traceback" not in err.read_text() + (tmp_path / "referee.err").read_text()
    lines = (tmp_path / "referee.out").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.parametrize("game", _game_params())
def test_a_scripted_game_through_camera_and_referee_processes(game, tmp_path):
    from vision.observe import READERS

    if game not in READERS:
        pytest.skip(f"vision.observe has no reader for {game!r} yet (READERS: "
                    f"{', '.join(READERS)})")
    seed, plies = DEMO_SEEDS[game], DEMO_PLIES.get(game, 12)
    script = script_events(game, seed, plies)
    kinds = [e["event"] for e in script]
    assert {"move", "violation", "corrected"} <= set(kinds) and kinds[-1] == "win", kinds
    seen = play(game, tmp_path, seed, plies, len(scripted_positions(game, seed, plies)))
    matched, missed, false, late = compare(script, seen)
    assert not false, f"false events: {false}"
    if missed or late or any(e["event"] == "unclear" for e in seen):
        what = (f"not announced: {[(e['event'], e.get('move')) for e in missed]}; "
                f"late: {[e.get('move') for e in late]}; "
                f"unclear: {sum(e['event'] == 'unclear' for e in seen)}")
        if game in NOT_EXACT:
            pytest.xfail(f"{NOT_EXACT[game]} ({what})")
        pytest.fail(f"the events differ from the script's: {what}")
