#!/usr/bin/env python3
"""Boot the virtual Pi (qemu, TCG) and run the in-guest test; results come back through a 9p share.

``build_image.py`` makes the image (cached base + this checkout); the guest boots with ``-kernel``/``-initrd``, its disk
as a virtio drive with ``snapshot=on`` (nothing is written back), no network (the embedded broker listens on
127.0.0.1), and the share at ``/vpi``: ``run-test`` and ``test/`` from here, ``results/`` back. systemd starts the
gpio-sim chip, ``unolauncher.service`` as shipped, then ``vpi-test.service`` (``guest/vpi_test.py``), which powers
the guest off when it ends. Exit status 0 only when the test passed; on failure the guest's
``journalctl -u unolauncher`` is printed.

KVM is not used: on this kind of machine ``/dev/kvm`` runs only specially built kernels, so qemu emulates (TCG,
two vCPUs on host threads). Run it under ``nice`` on a shared machine (``python3 dev.py vpi`` does).

Example::

    python3 tools/vpi/run.py                       # build (or reuse the cache), boot, test; prints the wall time
    python3 tools/vpi/run.py --break-unit 'DeviceAllow=char-gpiochip rw'   # must fail
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_image import DEFAULT_CACHE, GUEST, build

QEMU = {"amd64": "qemu-system-x86_64", "arm64": "qemu-system-aarch64"}
RUN_TEST = """#!/bin/sh
# vpi-test.service runs this from the share; the guest powers off when it returns.
cd /vpi/results
/opt/unolauncher/venv/bin/python /vpi/test/vpi_test.py {args} >/vpi/results/test.log 2>&1
echo $? >/vpi/results/rc
journalctl -u unolauncher --no-pager -o short-precise >/vpi/results/journal-unolauncher.txt 2>&1
journalctl -b --no-pager -o short-precise >/vpi/results/journal-boot.txt 2>&1
sync
"""


def qemu_command(arch: str, paths: dict[str, str], share: Path, memory_mb: int) -> list[str]:
    # no_timer_check: on a starved host the kernel's IO-APIC timer probe under TCG can fail and panic the boot.
    append = "root=/dev/vda rw console={} panic=-1 no_timer_check quiet loglevel=4 systemd.show_status=auto"
    if arch == "amd64":
        machine = ["-machine", "q35", "-cpu", "max"]
        append = append.format("ttyS0")
    else:
        machine = ["-machine", "virt", "-cpu", "cortex-a72"]
        append = append.format("ttyAMA0") + " initcall_blacklist=pl061_gpio_driver_init"  # gpio-sim = gpiochip0
    return [
        QEMU[arch], *machine, "-accel", "tcg,thread=multi", "-smp", "2", "-m", str(memory_mb),
        "-nographic", "-no-reboot", "-nic", "none",
        "-kernel", paths["kernel"], "-initrd", paths["initrd"], "-append", append,
        "-drive", f"file={paths['image']},if=virtio,format=raw,snapshot=on",
        "-virtfs", f"local,path={share},mount_tag=vpi,security_model=none,id=vpi",
    ]  # fmt: skip


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arch", default="amd64", choices=sorted(QEMU))
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--work", type=Path, help="working directory (default: a temporary one, removed after)")
    parser.add_argument("--timeout", type=float, help="seconds for the boot and the test (amd64 1800, arm64 3600)")
    parser.add_argument("--memory", type=int, default=1024, help="guest memory in MiB (1024)")
    parser.add_argument("--break-unit", action="append", default=[], metavar="LINE",
                        help="leave this line out of the installed unit: the run must fail")  # fmt: skip
    parser.add_argument("--only", default="", help="comma-separated scenario names of vpi_test.py (default: all)")
    args = parser.parse_args(argv)
    if args.timeout is None:  # arm64 is emulated instruction by instruction on an x86 host: several times slower
        args.timeout = 1800.0 if args.arch == "amd64" else 3600.0  # amd64: 500-900 s at host loads 13-34
    started = time.monotonic()
    work = args.work or Path(tempfile.mkdtemp(prefix="unolauncher-vpi-"))
    try:
        return run(args, work, started)
    finally:
        print(f"vpi: wall time {time.monotonic() - started:.0f} s", flush=True)
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


def run(args: argparse.Namespace, work: Path, started: float) -> int:
    paths = build(args.arch, args.cache, work / "image", args.break_unit)
    built = time.monotonic()
    print(f"vpi: image ready in {built - started:.0f} s", flush=True)
    share = work / "share"
    shutil.rmtree(share, ignore_errors=True)
    (share / "results").mkdir(parents=True)
    shutil.copytree(GUEST / "test", share / "test")
    test_args = f"--only {args.only}" if args.only else ""
    (share / "run-test").write_text(RUN_TEST.format(args=test_args))
    (share / "run-test").chmod(0o755)
    console = share / "results" / "console.log"
    command = qemu_command(args.arch, paths, share, args.memory)
    with console.open("wb") as out:
        try:
            subprocess.run(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                           timeout=args.timeout, check=False)  # fmt: skip
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
    print(f"vpi: guest ran {time.monotonic() - built:.0f} s", flush=True)
    results = share / "results"
    log = (results / "test.log").read_text(errors="replace") if (results / "test.log").exists() else ""
    print(log, end="" if log.endswith("\n") else "\n", flush=True)
    rc_file = results / "rc"
    rc = int(rc_file.read_text().strip() or 1) if rc_file.exists() else None
    summary = results / "summary.json"
    if summary.exists():
        print("vpi: " + json.dumps(json.loads(summary.read_text())), flush=True)
    if rc == 0 and not timed_out:
        print("vpi: PASSED", flush=True)
        return 0
    why = "timed out" if timed_out else "the test did not run (no result)" if rc is None else f"the test failed ({rc})"
    print(f"vpi: FAILED: {why}", flush=True)
    journal = results / "journal-unolauncher.txt"
    if journal.exists():
        print("vpi: ---- journalctl -u unolauncher (guest) ----", flush=True)
        print(journal.read_text(errors="replace")[-60000:], flush=True)
    else:
        print("vpi: ---- guest console (tail) ----", flush=True)
        print(console.read_text(errors="replace")[-20000:], flush=True)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
