"""The virtual Pi's pure parts (tools/vpi): the base's cache key, the kernel check, Debian's index, qemu's command line.

The VM job itself (``python3 dev.py vpi``) needs root, qemu and the network; these parts decide what it builds and
boots, and run anywhere.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

VPI = Path(__file__).resolve().parent.parent / "tools" / "vpi"
sys.path.insert(0, str(VPI))

import build_image  # noqa: E402
import run as vpi_run  # noqa: E402
import vpi_debian  # noqa: E402
import vpi_kernel  # noqa: E402

ROOT = VPI.parent.parent


def _pyproject(tmp_path: Path, name: str, old: str = "", new: str = "") -> Path:
    text = (ROOT / "pyproject.toml").read_text()
    if old:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_lint_setting_keeps_the_cached_base(tmp_path: Path) -> None:
    # The arm64 base takes over half an hour to build: a mypy or import-linter edit must not throw it away.
    same = _pyproject(tmp_path, "same.toml")
    edited = _pyproject(tmp_path, "lint.toml", "[tool.mypy]\n", "[tool.mypy]\nstrict_optional = true\n")
    for arch in ("amd64", "arm64"):
        assert build_image.base_key(arch, edited) == build_image.base_key(arch, same)


def test_a_test_tools_pin_keeps_the_cached_base(tmp_path: Path) -> None:
    # The guest installs no extras: pinning the linter (the formatter's output depends on its version) keeps the base.
    same = _pyproject(tmp_path, "same.toml")
    edited = _pyproject(tmp_path, "extras.toml", '"mypy>=1.10",', '"mypy==1.10.0",')
    for arch in ("amd64", "arm64"):
        assert build_image.base_key(arch, edited) == build_image.base_key(arch, same)


def test_a_dependency_change_rebuilds_the_base(tmp_path: Path) -> None:
    same = _pyproject(tmp_path, "same.toml")
    edited = _pyproject(tmp_path, "deps.toml", '"pyserial>=3.5",', '"pyserial>=3.5.1",')
    assert build_image.base_key("amd64", edited) != build_image.base_key("amd64", same)
    assert build_image.base_key("arm64", same) != build_image.base_key("amd64", same)


def test_a_kernel_without_gpio_sim_is_refused_by_name(tmp_path: Path) -> None:
    modules = tmp_path / "usr/lib/modules/7.9.1+deb13-amd64"
    modules.mkdir(parents=True)
    (modules / "config").write_text(
        "CONFIG_CONFIGFS_FS=m\nCONFIG_IRQ_SIM=y\nCONFIG_GPIO_CDEV=y\n# CONFIG_GPIO_SIM is not set\n"
    )
    kernel = vpi_kernel.Kernel("7.9.1+deb13-amd64", tmp_path)
    with pytest.raises(vpi_kernel.KernelError, match=r"\(7\.9\.1\+deb13-amd64\) lacks CONFIG_GPIO_SIM=m"):
        vpi_kernel.check_config(kernel)
    (modules / "config").write_text((modules / "config").read_text() + "CONFIG_GPIO_SIM=m\n")
    vpi_kernel.check_config(kernel)  # the same kernel with gpio-sim is taken


def test_the_newest_kernel_sorts_by_number_not_text() -> None:
    versions = ["7.3.4+deb13", "7.10.1+deb13", "7.3.10+deb13", "7.9.22+deb13"]
    assert max(versions, key=vpi_kernel.version_key) == "7.10.1+deb13"


def test_the_package_index_keeps_the_last_stanza_of_a_package() -> None:
    index = vpi_debian.parse_index(
        "Package: linux-binary-7.3.4+deb13-amd64\nVersion: 7.3.4-1~bpo13+1\nDescription: a\n continued\n\n"
        "Package: linux-binary-7.3.4+deb13-amd64\nVersion: 7.3.4-1~bpo13+2\n\nPackage: b\nVersion: 1\n"
    )
    assert index["linux-binary-7.3.4+deb13-amd64"]["Version"] == "7.3.4-1~bpo13+2"
    assert set(index) == {"linux-binary-7.3.4+deb13-amd64", "b"}


@pytest.mark.parametrize("arch", ["amd64", "arm64"])
def test_qemu_boots_without_kvm_and_with_the_sim_as_gpiochip0(arch: str, tmp_path: Path) -> None:
    paths = {"kernel": "/k", "initrd": "/i", "image": "/r.ext4"}
    command = vpi_run.qemu_command(arch, paths, tmp_path, 1024)
    assert command[0] == vpi_run.QEMU[arch]
    assert command[command.index("-accel") + 1].startswith("tcg")  # /dev/kvm is not usable on these machines
    assert "file=/r.ext4,if=virtio,format=raw,snapshot=on" in command  # nothing is written back to the image
    append = command[command.index("-append") + 1]
    # The virt board's own PL061 would take gpiochip0 from the sim chip on arm64 (the pins file's line numbers).
    assert ("initcall_blacklist=pl061_gpio_driver_init" in append) == (arch == "arm64")
    assert f"console={'ttyAMA0' if arch == 'arm64' else 'ttyS0'}" in append
