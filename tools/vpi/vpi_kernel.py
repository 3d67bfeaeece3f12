"""The guest's kernel: the newest trixie-backports Linux on the mirror, unpacked, checked for gpio-sim.

Debian's bookworm (6.1) and bookworm-backports (6.12) kernels are built without ``CONFIG_GPIO_SIM``; trixie-backports'
7.x have it as a module. The mirror keeps only the newest backports kernel, so whichever it has is taken, and a kernel
without gpio-sim stops the build with a message naming the kernel and the option.

Example (the version key sorts 7.10 after 7.9)::

    >>> sorted(["7.3.4+deb13", "7.10.1+deb13", "7.3.10+deb13"], key=version_key)[-1]
    '7.10.1+deb13'
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from vpi_debian import download_deb, package_index

SUITE = "trixie-backports"
REQUIRED = ("CONFIG_GPIO_SIM=m", "CONFIG_CONFIGFS_FS=", "CONFIG_IRQ_SIM=y", "CONFIG_GPIO_CDEV=y")


class KernelError(RuntimeError):
    """No usable kernel; the message says why in one sentence."""


@dataclass(frozen=True)
class Kernel:
    version: str  # the modules directory name, e.g. 7.3.4+deb13-amd64
    root: Path  # the unpacked packages (usr/lib/modules/<version>/...)

    @property
    def modules(self) -> Path:
        return self.root / "usr/lib/modules" / self.version

    @property
    def vmlinuz(self) -> Path:
        for path in (self.modules / "vmlinuz", self.root / "boot" / f"vmlinuz-{self.version}"):
            if path.exists():
                return path
        raise KernelError(f"the kernel packages of {self.version} contain no vmlinuz")

    @property
    def config(self) -> Path:
        for path in (self.modules / "config", self.root / "boot" / f"config-{self.version}"):
            if path.exists():
                return path
        raise KernelError(f"the kernel packages of {self.version} contain no config")


def version_key(version: str) -> list[int]:
    return [int(part) for part in re.findall(r"\d+", version)]


def check_config(kernel: Kernel) -> None:
    config = kernel.config.read_text()
    missing = [option for option in REQUIRED if not re.search(rf"^{re.escape(option)}", config, re.MULTILINE)]
    if missing:
        raise KernelError(
            f"the newest {SUITE} kernel on the mirror ({kernel.version}) lacks {', '.join(missing)}: the virtual Pi "
            "needs the kernel's gpio-sim module (CONFIG_GPIO_SIM=m); pick a kernel that has it "
            "(UNOLAUNCHER_VPI_MIRROR may point at a snapshot.debian.org date that does)"
        )


def fetch_kernel(arch: str, dest: Path) -> Kernel:
    """Download and unpack the newest ``linux-binary``/``linux-modules`` for ``arch`` of trixie-backports."""
    dest.mkdir(parents=True, exist_ok=True)
    index = package_index(SUITE, arch, dest)
    pattern = re.compile(rf"^linux-modules-(\d[^-]*)-{arch}$")  # the plain flavour: not cloud, rt or 16k
    versions = [m.group(1) for name in index if (m := pattern.match(name))]
    if not versions:
        raise KernelError(f"{SUITE} on the mirror has no linux-modules-*-{arch} package")
    base = max(versions, key=version_key)
    version = f"{base}-{arch}"
    root = dest / version
    if not (root / ".complete").exists():
        for prefix in ("linux-binary", "linux-modules", "linux-base"):  # base: config, System.map
            name = f"{prefix}-{version}"
            if name not in index:
                raise KernelError(f"{SUITE} has linux-modules-{version} but no {name}")
            deb = download_deb(index[name], dest)
            subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
            deb.unlink()
        (root / ".complete").touch()
    kernel = Kernel(version, root)
    check_config(kernel)
    return kernel


if __name__ == "__main__":
    import sys

    found = fetch_kernel(sys.argv[1] if len(sys.argv) > 1 else "amd64", Path(sys.argv[2] if len(sys.argv) > 2 else "."))
    print(found.version, found.vmlinuz, found.config)
