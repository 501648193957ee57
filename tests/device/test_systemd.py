"""The systemd units: systemd-analyze verify is clean, and the settings the Pi needs."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

UNITS = Path(__file__).resolve().parents[2] / "systemd"
NAMES = ("tableref-camera.service", "tableref-referee.service", "tableref-table.service")
INSTALLED = "/opt/tableref/venv/bin/tableref"


def settings(name: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in (UNITS / name).read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            out.setdefault(key.strip(), []).append(value.strip())
    return out


def test_systemd_analyze_verify_is_clean(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed here (it comes with systemd)")
    # the units name the installed command; verify checks that it exists, so point it at
    # an executable of this machine
    executable = Path(sys.executable).with_name("tableref")
    if not executable.exists():
        executable = Path(sys.executable)
    for name in NAMES:
        text = (UNITS / name).read_text().replace(INSTALLED, str(executable))
        (tmp_path / name).write_text(text)
    result = subprocess.run([analyze, "verify", *(str(tmp_path / n) for n in NAMES)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stderr == "", result.stderr


@pytest.mark.parametrize("name", NAMES)
def test_units_are_notify_services_with_a_watchdog_and_hardening(name):
    s = settings(name)
    assert s["Type"] == ["notify"] and int(s["WatchdogSec"][0]) > 0
    assert s["Restart"] == ["on-failure"] and s["User"] == ["tableref"]
    assert s["StateDirectory"] == ["tableref"]
    for key, value in (("ProtectSystem", "strict"), ("ProtectHome", "yes"),
                       ("NoNewPrivileges", "yes"), ("PrivateTmp", "yes")):
        assert s[key] == [value], key
    assert s["ExecStart"][0].startswith(INSTALLED + " ")
    # both need devices: the camera libcamera's /dev/media*, /dev/video*, /dev/dma_heap;
    # the referee the sound card for speech
    assert "PrivateDevices" not in s


@pytest.mark.parametrize("name", ["tableref-camera.service", "tableref-table.service"])
def test_the_camera_runs_in_the_video_group(name):
    assert "video" in settings(name)["SupplementaryGroups"][0].split()


def test_the_one_process_unit_runs_tableref_run_instead_of_the_two():
    s = settings("tableref-table.service")
    assert s["ExecStart"][0].startswith(INSTALLED + " run ")
    assert set(s["Conflicts"][0].split()) == {"tableref-camera.service",
                                             "tableref-referee.service"}
    assert "audio" in s["SupplementaryGroups"][0].split()


def test_every_variable_the_units_use_is_in_the_environment_file():
    env = {line.split("=", 1)[0] for line in (UNITS / "tableref.env").read_text().splitlines()
           if "=" in line and not line.startswith("#")}
    for name in NAMES:
        used = set(re.findall(r"\$\{?([A-Z_]+)\}?", settings(name)["ExecStart"][0]))
        assert used and used <= env, used - env
