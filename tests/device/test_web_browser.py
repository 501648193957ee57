"""The live page in a real browser (headless Chromium): it draws the board and the lists.

Slow (a browser start): run with ``pytest -m slow``. Chromium is Debian's ``chromium``
package; where it is missing, the test installs it only when TABLEREF_INSTALL_CHROMIUM=1
and it runs as root with apt-get, and skips otherwise, saying why.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from rules.registry import get_game
from tests.device.service_helpers import ipc_dir, running_service

pytestmark = pytest.mark.slow


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("TABLEREF_INSTALL_CHROMIUM") != "1":
        pytest.skip("Chromium is not installed (apt install chromium, or set "
                    "TABLEREF_INSTALL_CHROMIUM=1 to let this test install it)")
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        pytest.skip("Chromium is not installed and cannot be installed here (needs root "
                    "and apt-get)")
    try:
        subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", "chromium"],
                       check=True, timeout=900, capture_output=True)
    except (subprocess.SubprocessError, OSError) as err:
        pytest.skip(f"Chromium could not be installed: {err}")
    return shutil.which("chromium") or pytest.skip("chromium still not found after install")


def observation(seq: int, state) -> dict:
    return {"schema": "tableref/observation/1", "table": "t1", "game": "neunfeld", "seq": seq,
            "time": 1763805600.0 + seq, "stable": True, "confidence": 1.0,
            "position": state.position.to_json(), "player_names": ["Ann", "Bob"]}


def test_the_page_draws_the_board_and_the_moves_in_chromium(tmp_path):
    browser = chromium()
    state = get_game("neunfeld").initial_state()
    with running_service(ipc_dir()) as run:
        run.send(observation(1, state))
        notations = []
        for seq in range(2, 5):
            move = next(iter(state.legal_moves))
            notations.append((str(move), ["Ann", "Bob"][state.turn]))
            state = state.apply(move)
            run.send(observation(seq, state))
        assert run.wait_for(lambda: run.out.getvalue().count("ply ") >= 3)
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--timeout=5000",
               f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", run.service.web.url]
        dom = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
    assert 'class="board"' in dom
    assert dom.count('class="pawn"') == 2 and dom.count('class="die"') == 3
    for notation, who in notations:
        assert f"<li>{notation}  ({who})</li>" in dom
    assert f"{['Ann', 'Bob'][state.turn]} to move (ply 4)" in dom
    assert "table t1" in dom and "ply 3: " in dom  # the table button, the last events
