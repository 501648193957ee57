"""The Raspberry Pi's dependency set, proved on arm64: an arm64 Debian Bookworm root made
with debootstrap and run under qemu, the project installed with its ``pi`` extra into a
venv that sees the OS's packages (as on Raspberry Pi OS), and every dependency imported
(less picamera2, which needs a real Pi's libcamera).

Slow and heavy (an emulated Debian install, then pip under qemu: tens of minutes of CPU):
it runs only with ``TABLEREF_PI_ROOT_PROOF=1``, as root, with debootstrap, qemu-user-static
registered for aarch64 (binfmt_misc) and the network to deb.debian.org and PyPI; anywhere
else it is skipped saying which of these is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
MIRROR = "http://deb.debian.org/debian"
IMPORTS = ("import cv2, numpy, zmq, onnxruntime; "
           "print(cv2.__version__, numpy.__version__, zmq.__version__, onnxruntime.__version__); "
           "assert numpy.__version__.startswith('1.'), 'numpy 2 breaks the OS picamera2'; "
           "assert cv2.__version__.startswith('4.11'), cv2.__version__; "
           "from device.cli import build_parser; build_parser(); "
           "from vision.observe import observe; from rules.registry import get_game")


def missing() -> str | None:
    """Why the proof cannot run here, or None."""
    if os.environ.get("TABLEREF_PI_ROOT_PROOF") != "1":
        return ("set TABLEREF_PI_ROOT_PROOF=1 to run it (an emulated arm64 Debian install: "
                "tens of minutes of CPU)")
    if os.geteuid() != 0:
        return "debootstrap and chroot need root"
    for tool in ("debootstrap", "qemu-aarch64-static", "chroot"):
        if shutil.which(tool) is None:
            return (f"{tool} is not installed (apt install debootstrap qemu-user-static "
                    "binfmt-support)")
    if not Path("/proc/sys/fs/binfmt_misc/qemu-aarch64").exists():
        return ("no binfmt_misc handler for aarch64 (/proc/sys/fs/binfmt_misc/qemu-aarch64): "
                "arm64 programs in the root cannot run")
    return None


def test_the_pi_dependency_set_installs_and_imports_on_arm64_bookworm(tmp_path):
    why = missing()
    if why:
        pytest.skip(why)
    target = tmp_path / "bookworm-arm64"

    def run(*cmd: str, timeout: int = 3600) -> str:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, f"{' '.join(cmd)}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        return done.stdout

    run("debootstrap", "--arch=arm64", "--variant=minbase",
        "--include=python3,python3-venv,python3-pip,ca-certificates", "bookworm",
        str(target), MIRROR)
    shutil.copytree(ROOT, target / "src", ignore=shutil.ignore_patterns(
        ".venv*", ".git", "__pycache__", "*.egg-info", ".pytest_cache"))
    shutil.copy("/etc/resolv.conf", target / "etc/resolv.conf")
    assert run("chroot", str(target), "uname", "-m").strip() == "aarch64"
    run("chroot", str(target), "python3", "-m", "venv", "--system-site-packages", "/venv")
    run("chroot", str(target), "/venv/bin/pip", "install", "--quiet", "/src[pi]")
    out = run("chroot", str(target), "sh", "-c", f'cd /src && /venv/bin/python -c "{IMPORTS}"')
    cv2_version, numpy_version, *_ = out.split()
    assert cv2_version.startswith("4.11") and numpy_version.startswith("1.")
