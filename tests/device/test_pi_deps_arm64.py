"""The Raspberry Pi's dependency set, proved on arm64: Debian Bookworm's own arm64 Python
3.11 and numpy (python3-numpy 1.24, what picamera2 is built against), the rest of the
``pi`` extra resolved by pip for CPython 3.11 on manylinux aarch64 with numpy held at the
OS's version (as pip in a ``--system-site-packages`` venv on Raspberry Pi OS would), all
run under qemu emulating a Pi 4's Cortex-A72: every dependency imports (less picamera2,
which needs a real Pi's libcamera) and ``tableref observe`` reads a rendered frame exactly
as this machine does (the board's corners given, as a registration gives them: the proof
is of the platform, not of board finding).

No binfmt_misc handler is needed: debootstrap's first stage (``--foreign``) only fetches
and unpacks, the Python packages are unpacked with ``dpkg-deb -x``, and programs run
through ``qemu-aarch64-static -L ROOT`` (which resolves absolute paths in the root first).
onnxruntime's CPU probe (cpuinfo) reads /proc/cpuinfo and /sys/devices/system/cpu and
crashes on the x86 host's; the root gets a Pi 4's (four Cortex-A72 cores).

Slow and heavy (about 5 minutes: a Debian download, then emulated Python): it runs only
with ``TABLEREF_PI_ROOT_PROOF=1`` (``make test-pi-arm64``), as root, with debootstrap,
qemu-user-static and dpkg-deb installed (``apt install debootstrap qemu-user-static``) and
the network to deb.debian.org and PyPI; anywhere else it is skipped saying what is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
MIRROR = "http://deb.debian.org/debian"
PI4_CORES = 4
PI4_CPUINFO = """processor\t: {n}
BogoMIPS\t: 108.00
Features\t: fp asimd evtstrm crc32 cpuid
CPU implementer\t: 0x41
CPU architecture: 8
CPU variant\t: 0x0
CPU part\t: 0xd08
CPU revision\t: 3

"""
AARCH64_WHEELS = ("manylinux2014_aarch64", "manylinux_2_17_aarch64", "manylinux_2_27_aarch64",
                  "manylinux_2_28_aarch64")
GAME, SEED = "esoloe-3andc", 8_000_002
PROBE = ("import platform, cv2, numpy, zmq, onnxruntime, onnx, threadpoolctl; "
         "print(platform.machine(), cv2.__version__, numpy.__version__, numpy.__file__, "
         "zmq.__version__, onnxruntime.__version__, onnx.__version__)")


def missing() -> str | None:
    """Why the proof cannot run here, or None."""
    if os.environ.get("TABLEREF_PI_ROOT_PROOF") != "1":
        return ("set TABLEREF_PI_ROOT_PROOF=1 to run it (make test-pi-arm64: a Debian arm64 "
                "download and emulated Python, about 5 minutes)")
    if os.geteuid() != 0:
        return "debootstrap needs root"
    for tool in ("debootstrap", "qemu-aarch64-static", "dpkg-deb"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt install debootstrap qemu-user-static)"
    return None


def _run(*cmd: str, timeout: int = 1800, env: dict | None = None) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0, f"{' '.join(cmd)}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done.stdout


def _bookworm_python(root: Path) -> str:
    """Unpacks Bookworm's arm64 python3 and python3-numpy into ``root``; returns the OS
    numpy's version."""
    _run("debootstrap", "--foreign", "--arch=arm64", "--variant=minbase",
         "--include=python3,python3-numpy", "bookworm", str(root), MIRROR)
    debs = sorted((root / "var/cache/apt/archives").glob("*.deb"))
    for deb in debs:  # the first stage unpacked only the base; --include'd ones wait here
        _run("dpkg-deb", "-x", str(deb), str(root))
    libs = root / "usr/lib/aarch64-linux-gnu"
    for name in ("blas", "lapack"):  # what update-alternatives would link in the postinst
        link = libs / f"lib{name}.so.3"
        if not link.exists():
            link.symlink_to(f"{name}/lib{name}.so.3")
    numpy_deb = next(d.name for d in debs if d.name.startswith("python3-numpy_"))
    return numpy_deb.split("_")[1].split("%3a")[-1].split("-")[0]  # 1%3a1.24.2-1 -> 1.24.2


def _pi4_cpu(root: Path) -> None:
    """A Pi 4's /proc/cpuinfo and CPU sysfs in ``root`` for onnxruntime's CPU probe."""
    (root / "proc").mkdir(exist_ok=True)
    (root / "proc/cpuinfo").write_text(
        "".join(PI4_CPUINFO.format(n=n) for n in range(PI4_CORES))
        + "Hardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B Rev 1.1\n")
    cpus = root / "sys/devices/system/cpu"
    every = f"0-{PI4_CORES - 1}"
    cpus.mkdir(parents=True, exist_ok=True)
    for name, text in (("kernel_max", str(PI4_CORES - 1)), ("possible", every),
                       ("present", every), ("online", every)):
        (cpus / name).write_text(text + "\n")
    for n in range(PI4_CORES):
        files = {"topology/physical_package_id": "0", "topology/cluster_cpus_list": every,
                 "topology/core_siblings_list": every, "topology/thread_siblings_list": str(n),
                 "cpufreq/cpuinfo_max_freq": "1500000", "cpufreq/cpuinfo_min_freq": "600000",
                 "cache/index0/level": "1", "cache/index0/size": "32K",
                 "cache/index0/shared_cpu_list": str(n), "cache/index1/level": "1",
                 "cache/index1/size": "48K", "cache/index1/shared_cpu_list": str(n),
                 "cache/index2/level": "2", "cache/index2/size": "1024K",
                 "cache/index2/shared_cpu_list": every}
        for rel, text in files.items():
            path = cpus / f"cpu{n}" / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text + "\n")


def _pi_wheels(site: Path, numpy_version: str) -> None:
    """pip resolves the project's dependencies with the ``pi`` extra for CPython 3.11 on
    aarch64, numpy held at the OS's version; the OS's numpy is then the one imported."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["pi"]]
    platforms = [arg for tag in AARCH64_WHEELS for arg in ("--platform", tag)]
    _run(sys.executable, "-m", "pip", "install", "--quiet", "--target", str(site), *platforms,
         "--python-version", "3.11", "--implementation", "cp", "--only-binary=:all:",
         *wanted, f"numpy=={numpy_version}")
    for path in site.glob("numpy*"):  # the OS package stands in for it, as on the Pi
        shutil.rmtree(path)


def test_the_pi_dependency_set_installs_imports_and_observes_on_arm64_bookworm(tmp_path):
    why = missing()
    if why:
        pytest.skip(why)
    import cv2

    from vision.render.frame import RenderOptions, render_scene
    from vision.render.positions import random_position

    root, site = tmp_path / "bookworm-arm64", tmp_path / "site"
    numpy_version = _bookworm_python(root)
    assert numpy_version.startswith("1."), numpy_version
    _pi4_cpu(root)
    _pi_wheels(site, numpy_version)

    frame = tmp_path / "frame.png"
    image, truth = render_scene(GAME, random_position(GAME, SEED), SEED,
                                options=RenderOptions(camera_mode="overhead"))
    cv2.imwrite(str(frame), image)
    corners = [truth["board"]["corners"][k] for k in ("nw", "ne", "se", "sw")]
    command = ["-c", "import cv2, json, sys; from vision.observe import observe; "
               f"print(json.dumps(observe(cv2.imread({str(frame)!r}), {GAME!r}, "
               f"calibration={{'board': {corners!r}}})))"]
    here = json.loads(_run(sys.executable, *command, env={**os.environ, "PYTHONPATH": str(ROOT)}))

    emulated = ["qemu-aarch64-static", "-cpu", "cortex-a72", "-L", str(root),
                str(root / "usr/bin/python3.11")]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{site}:{ROOT}", "HOME": str(tmp_path)}
    machine, cv2_version, np_version, np_file, *_ = _run(*emulated, "-c", PROBE,
                                                         env=env).split()
    assert machine == "aarch64"
    assert cv2_version.startswith("4.11") and np_version == numpy_version
    assert np_file.startswith(f"{root}/usr/lib/python3/dist-packages/"), np_file
    there = json.loads(_run(*emulated, *command, env=env))
    assert there["position"] == here["position"]
    for corner, xy in here["board"].items():
        assert there["board"][corner] == pytest.approx(xy, abs=0.5), corner
