"""The live page in a real browser (headless Chromium): it draws the board and the lists,
and an open page updates itself when a move is judged (Server-Sent Events; driven over
Chromium's DevTools pipe, no extra package).

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


class DevTools:
    """Chromium driven over ``--remote-debugging-pipe`` (fds 3 and 4, JSON messages ending
    in NUL): enough of the DevTools protocol to open a page and evaluate in it."""

    def __init__(self, browser: str, profile: str):
        import itertools

        self._to_child, self._to_us = os.pipe(), os.pipe()
        cmd = (f'exec "$0" --headless --no-sandbox --disable-gpu --remote-debugging-pipe '
               f'--user-data-dir="$1" about:blank 3<&{self._to_child[0]} 4>&{self._to_us[1]}')
        self.proc = subprocess.Popen(
            ["bash", "-c", cmd, browser, profile], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(self._to_child[0], self._to_us[1]))
        os.close(self._to_child[0])
        os.close(self._to_us[1])
        self._ids, self._buffer, self.session = itertools.count(1), b"", None

    def call(self, method: str, timeout: float = 20.0, **params):
        import json
        import select
        import time

        msg_id = next(self._ids)
        msg = {"id": msg_id, "method": method, "params": params}
        if self.session is not None:
            msg["sessionId"] = self.session
        os.write(self._to_child[1], json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == msg_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._to_us[0]], [], [], left)[0]:
                raise TimeoutError(f"{method}: no answer from Chromium")
            chunk = os.read(self._to_us[0], 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk

    def open(self, url: str) -> None:
        target = self.call("Target.createTarget", url=url)["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]

    def html(self) -> str:
        result = self.call("Runtime.evaluate", expression="document.body.innerHTML")
        return result["result"].get("value", "")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        os.close(self._to_child[1])
        os.close(self._to_us[0])


def test_the_open_page_updates_itself_on_a_move(tmp_path):
    import time

    browser = chromium()
    state = get_game("neunfeld").initial_state()
    with running_service(ipc_dir()) as run:
        run.send(observation(1, state))
        move = next(iter(state.legal_moves))
        assert run.wait_for(lambda: run.service.live.snapshot()["tables"])
        tools = DevTools(browser, str(tmp_path / "profile"))
        try:
            tools.open(run.service.web.url)
            deadline = time.monotonic() + 20
            while 'class="board"' not in (page := tools.html()) and (
                    time.monotonic() < deadline):
                time.sleep(0.2)
            assert 'class="board"' in page
            assert f"{['Ann', 'Bob'][state.turn]} to move (ply 1)" in page
            assert str(move) not in page
            after = state.apply(move)
            run.send(observation(2, after))  # the page is not reloaded
            deadline = time.monotonic() + 10
            while f"<li>{move}  (Ann)</li>" not in (page := tools.html()) and (
                    time.monotonic() < deadline):
                run.camera.pump()
                time.sleep(0.2)
        finally:
            tools.close()
    assert f"<li>{move}  (Ann)</li>" in page
    assert f"{['Ann', 'Bob'][after.turn]} to move (ply 2)" in page
    assert 'class="board"' in page
