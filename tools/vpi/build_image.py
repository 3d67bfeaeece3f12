#!/usr/bin/env python3
"""Build the virtual Pi's disk image: Debian bookworm, systemd, a gpio-sim kernel, unolauncher installed as on a Pi.

Two layers, so a warm run costs seconds and still tests the code of this checkout:

* the **base** (cached in ``--cache``, default ``/var/cache/unolauncher-vpi/<arch>``): the trixie-backports kernel
  (``vpi_kernel.py``), an ``mmdebstrap`` bookworm tree with systemd, udev, kmod, python3, python3-venv, an initramfs,
  and ``/opt/unolauncher/venv`` holding the project's dependencies (wheels built on the host from PyPI). Its key is
  the hash of what builds it (:func:`base_key`) and of ``pyproject.toml``'s ``[project]``: change either and it is
  built again;
* the **run image** (every run): a copy of the base with this checkout's wheel installed into the venv exactly as
  ``systemd/README.md`` tells a Pi user (``pip install``), ``systemd/unolauncher.service`` copied and enabled as
  shipped, ``/etc/unolauncher/config.toml`` and ``hardware/pins.toml``; written with ``mke2fs -d`` (no loop mount).

No cache directory: everything is built from Debian and PyPI alone. The Pi's environment that Raspberry Pi OS brings
and Debian does not (the ``gpio`` group, its udev rule for ``/dev/gpiochip*``) is added here, as on the Pi; nothing
of the project's install is changed.

Example::

    python3 tools/vpi/build_image.py --out /tmp/vpi-run     # prints the kernel, initrd and image paths
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from vpi_kernel import fetch_kernel

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
GUEST = HERE / "guest"
DEFAULT_CACHE = Path(os.environ.get("UNOLAUNCHER_VPI_CACHE", "/var/cache/unolauncher-vpi"))
SUITE = "bookworm"
PACKAGES = ["systemd", "systemd-sysv", "udev", "kmod", "initramfs-tools", "python3", "python3-venv", "procps"]
# lgpio is a dependency of the package only on the Pi's own architectures; the amd64 guest installs it by name.
EXTRA_WHEELS = ["lgpio>=0.2.2.0"]
IMAGE_MB = 1536


def log(message: str) -> None:
    print(f"vpi build: {message}", flush=True)


def base_key(arch: str, pyproject: Path = ROOT / "pyproject.toml") -> str:
    """The base's cache key: what builds it (not the per-run steps, so editing those reuses the cache).

    >>> base_key("amd64") != base_key("arm64") and len(base_key("amd64"))
    16
    """
    digest = hashlib.sha256(f"{arch} {SUITE} {PACKAGES} {EXTRA_WHEELS}".encode())
    digest.update(inspect.getsource(build_base).encode() + inspect.getsource(build_wheelhouse).encode())
    # Of pyproject.toml only what the base's venv is made from (the package's runtime dependencies, the Python it
    # needs, its build system): a lint setting or a test tool's pin does not rebuild a base that takes over half an
    # hour on arm64 (the guest installs no extras; the package's own wheel is installed per run).
    project = tomllib.loads(pyproject.read_text())
    made_from = [project["project"][k] for k in ("dependencies", "requires-python")] + [project["build-system"]]
    digest.update(json.dumps(made_from, sort_keys=True).encode())
    for path in sorted([HERE / "vpi_debian.py", HERE / "vpi_kernel.py", *(GUEST / "base").rglob("*")]):
        if path.is_file():
            digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def build_wheelhouse(dest: Path, arch: str = "amd64") -> None:
    """Wheels of the project and every runtime dependency for the guest's CPython 3.11: built or downloaded on the
    host when the guest is the host's architecture; for arm64 the project's own (pure Python) wheel is built and
    every dependency downloaded as an aarch64 wheel for the Pi's glibc 2.36, as tools/check_pi_wheels.py checks."""
    dest.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip"]
    if arch == "amd64":
        if sys.version_info[:2] != (3, 11):  # compiled wheels must fit the guest's CPython (bookworm: 3.11)
            raise SystemExit(f"vpi build: run this with Python 3.11 (bookworm's), not {sys.version.split()[0]}")
        subprocess.run([*pip, "wheel", "--quiet", "--wheel-dir", str(dest), str(ROOT), *EXTRA_WHEELS], check=True)
        return
    subprocess.run([*pip, "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dest), str(ROOT)], check=True)
    project = next(dest.glob("unolauncher-*.whl"))
    tags = [f"manylinux_2_{minor}_aarch64" for minor in range(36, 16, -1)] + ["manylinux2014_aarch64"]
    subprocess.run(
        [*pip, "download", "--quiet", "--only-binary=:all:", "--dest", str(dest), "--python-version", "3.11",
         "--implementation", "cp", "--abi", "cp311", *(f"--platform={tag}" for tag in tags), str(project),
         *EXTRA_WHEELS],
        check=True,
    )  # fmt: skip


def project_wheel(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dest), str(ROOT)],
        check=True,
    )
    return next(dest.glob("unolauncher-*.whl"))


def chroot(tree: Path, *command: str) -> None:
    subprocess.run(["chroot", str(tree), *command], check=True, env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})


def build_base(arch: str, base: Path) -> None:
    started = time.monotonic()
    work = base.with_name(base.name + ".tmp")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    kernel = fetch_kernel(arch, base.parent / "kernel")
    log(f"kernel {kernel.version} (gpio-sim: module)")
    wheels = work / "wheels"
    build_wheelhouse(wheels, arch)
    log(f"wheelhouse: {len(list(wheels.glob('*.whl')))} wheels")
    tree = work / "root"
    hooks = [
        f'--customize-hook=mkdir -p "$1/usr/lib/modules" && cp -a "{kernel.modules}" "$1/usr/lib/modules/"',
        f'--customize-hook=cp "{kernel.config}" "$1/boot/config-{kernel.version}"',
        f'--customize-hook=cp -a "{GUEST / "base"}/." "$1/"',
        f'--customize-hook=mkdir -p "$1/tmp/wheels" && cp "{wheels}"/*.whl "$1/tmp/wheels/"',
        f'--customize-hook=chroot "$1" /usr/local/sbin/vpi-setup {kernel.version}',
        '--customize-hook=rm -rf "$1/tmp/wheels"',
    ]
    subprocess.run(
        ["mmdebstrap", "--variant=apt", f"--architectures={arch}", f"--include={','.join(PACKAGES)}", *hooks,
         SUITE, str(tree)],
        check=True,
    )  # fmt: skip
    boot = tree / "boot"
    shutil.copy(kernel.vmlinuz, work / "vmlinuz")
    shutil.move(boot / f"initrd.img-{kernel.version}", work / "initrd.img")
    shutil.rmtree(wheels)
    (work / "info.json").write_text(json.dumps({"kernel": kernel.version, "built_s": time.monotonic() - started}))
    shutil.rmtree(base, ignore_errors=True)
    work.rename(base)
    log(f"base built in {time.monotonic() - started:.0f} s: {base}")


def run_image(base: Path, out: Path, mutate: list[str]) -> Path:
    """The per-run image: the base plus this checkout, installed and enabled as systemd/README.md says."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="vpi-tree-", dir=out) as tmp:
        tree = Path(tmp) / "root"
        # Hard links, not a copy: nothing below changes a file of the base in place (pip unlinks what it replaces,
        # everything else is new), and a shared machine's disk is the slowest part of a warm run.
        subprocess.run(["cp", "-al", str(base / "root"), str(tree)], check=True)
        wheel = project_wheel(Path(tmp) / "wheel")
        shutil.copy(wheel, tree / "tmp" / wheel.name)
        # systemd/README.md, step 1: pip install the package into /opt/unolauncher/venv (dependencies: in the base).
        chroot(tree, "/opt/unolauncher/venv/bin/pip", "install", "--quiet", "--no-index", "--no-deps",
               "--force-reinstall", f"/tmp/{wheel.name}")  # fmt: skip
        (tree / "tmp" / wheel.name).unlink()
        # Step 3: configuration and the pins file; step 5: the unit as shipped, enabled.
        etc = tree / "etc/unolauncher"
        etc.mkdir(exist_ok=True)
        shutil.copy(GUEST / "config.toml", etc / "config.toml")
        shutil.copy(ROOT / "hardware/pins.toml", etc / "pins.toml")
        chroot(tree, "chown", "-R", "root:unolauncher", "/etc/unolauncher")
        chroot(tree, "chmod", "0750", "/etc/unolauncher")
        chroot(tree, "sh", "-c", "chmod 0640 /etc/unolauncher/*")
        unit = tree / "etc/systemd/system/unolauncher.service"
        text = (ROOT / "systemd/unolauncher.service").read_text()
        for line in mutate:  # tools/vpi/run.py --break-unit: prove the VM job notices a weakened unit
            if line + "\n" not in text:
                raise SystemExit(f"vpi build: --break-unit {line!r} is not a line of systemd/unolauncher.service")
            text = text.replace(line + "\n", "")
            log(f"the unit is installed WITHOUT {line!r}")
        unit.write_text(text)
        chroot(tree, "systemctl", "enable", "unolauncher.service", "vpi-test.service")
        image = out / "root.ext4"
        image.unlink(missing_ok=True)
        subprocess.run(
            ["mke2fs", "-q", "-t", "ext4", "-L", "vpiroot", "-d", str(tree), str(image), f"{IMAGE_MB}M"], check=True
        )
    return image


def build(arch: str, cache: Path, out: Path, mutate: list[str]) -> dict[str, str]:
    key = base_key(arch)
    base = cache / arch / f"base-{key}"
    if (base / "info.json").exists():
        log(f"base cached: {base}")
    else:
        log(f"building the base {base} (no cache for key {key})")
        build_base(arch, base)
        for old in (cache / arch).glob("base-*"):  # one base per architecture: the disk is shared
            if old != base and (old / "info.json").exists():  # not one another run is building
                shutil.rmtree(old, ignore_errors=True)
    image = run_image(base, out, mutate)
    return {"kernel": str(base / "vmlinuz"), "initrd": str(base / "initrd.img"), "image": str(image)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arch", default="amd64", choices=["amd64", "arm64"])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--break-unit", action="append", default=[], metavar="LINE",
                        help="leave this exact line out of the installed unit (to watch the VM job fail)")  # fmt: skip
    args = parser.parse_args(argv)
    print(json.dumps(build(args.arch, args.cache, args.out, args.break_unit)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
