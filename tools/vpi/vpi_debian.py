"""Fetch Debian packages without apt: a signed release file, its package index, and .debs checked by SHA-256.

The virtual Pi needs a kernel from trixie-backports (the first Debian kernels built with ``CONFIG_GPIO_SIM=m``) next
to a bookworm guest; apt on the host need not know that suite. ``InRelease`` is checked with ``gpgv`` against
Debian's archive keyring, the index against the release file's SHA-256 and every .deb against the index.

Example::

    >>> parse_index("Package: a\\nVersion: 1\\n\\nPackage: b\\nVersion: 2\\n")["b"]["Version"]
    '2'
"""

from __future__ import annotations

import hashlib
import lzma
import os
import re
import subprocess
import urllib.request
from pathlib import Path

MIRROR = os.environ.get("UNOLAUNCHER_VPI_MIRROR", "http://deb.debian.org/debian")
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


class DebianError(RuntimeError):
    """A download, signature or checksum that failed; the message says which."""


def fetch(url: str, timeout: float = 300) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            data: bytes = response.read()
            return data
    except OSError as exc:
        raise DebianError(f"cannot download {url}: {exc}") from None


def parse_index(text: str) -> dict[str, dict[str, str]]:
    """A Packages file as {package: {field: value}} (the last stanza of a package wins: the newest upload)."""
    packages: dict[str, dict[str, str]] = {}
    for stanza in text.split("\n\n"):
        fields: dict[str, str] = {}
        for line in stanza.splitlines():
            if line and not line[0].isspace() and ":" in line:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        if "Package" in fields:
            packages[fields["Package"]] = fields
    return packages


def verified_release(suite: str, workdir: Path) -> str:
    """The suite's InRelease, its signature checked by gpgv against Debian's keyring."""
    path = workdir / f"{suite}.InRelease"
    path.write_bytes(fetch(f"{MIRROR}/dists/{suite}/InRelease"))
    check = subprocess.run(["gpgv", "--keyring", KEYRING, str(path)], capture_output=True, text=True)
    if check.returncode != 0:
        raise DebianError(f"the signature of {suite}'s InRelease does not verify: {check.stderr.strip()}")
    return path.read_text()


def package_index(suite: str, arch: str, workdir: Path) -> dict[str, dict[str, str]]:
    release = verified_release(suite, workdir)
    name = f"main/binary-{arch}/Packages.xz"
    match = re.search(rf"^ ([0-9a-f]{{64}})\s+\d+\s+{re.escape(name)}$", release, re.MULTILINE)
    if not match:
        raise DebianError(f"{suite}'s release file lists no {name}")
    data = fetch(f"{MIRROR}/dists/{suite}/{name}")
    if hashlib.sha256(data).hexdigest() != match.group(1):
        raise DebianError(f"{suite} {name}: SHA-256 does not match the signed release file")
    return parse_index(lzma.decompress(data).decode())


def download_deb(fields: dict[str, str], dest: Path) -> Path:
    """Download one package (skipped when a file with the right SHA-256 is already there)."""
    path = dest / Path(fields["Filename"]).name
    if path.exists() and hashlib.sha256(path.read_bytes()).hexdigest() == fields["SHA256"]:
        return path
    data = fetch(f"{MIRROR}/{fields['Filename']}", timeout=900)
    if hashlib.sha256(data).hexdigest() != fields["SHA256"]:
        raise DebianError(f"{fields['Package']}: SHA-256 of the download does not match the signed index")
    path.write_bytes(data)
    return path
