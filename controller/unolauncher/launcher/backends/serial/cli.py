"""``python -m unolauncher.launcher.backends.serial release PORT``: reboot the co-processor into its REPL once.

Runs on the CLI's main thread only, with its own short-lived port (the daemon must be stopped first); it shares the
frame format with the backend, nothing else.
"""

from __future__ import annotations

import serial

from unolauncher.launcher.backends.serial import protocol as sp


def release(port: str, timeout_s: float = 2.0) -> bool:
    """Ask the firmware on ``port`` to reboot into its REPL once (so ``mpremote`` can reach it).

    Example (not a doctest: a shell command)::

        python -m unolauncher.launcher.backends.serial release /dev/ttyACM0
    """
    import time

    handle = serial.serial_for_url(port, baudrate=115200, timeout=0.05)
    try:
        decoder = sp.FrameDecoder()
        handle.write(sp.encode_frame(sp.HELLO, 1, bytes([sp.PROTOCOL_VERSION])))
        handle.write(sp.encode_frame(sp.RELEASE, 2))
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for frame in decoder.feed(handle.read(64)):
                if frame.type == sp.ACK and sp.decode_ack(frame.body) == (2, sp.AckCode.OK):
                    return True
        return False
    finally:
        handle.close()


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m unolauncher.launcher.backends.serial")
    sub = parser.add_subparsers(dest="action", required=True)
    rel = sub.add_parser("release", help="reboot the co-processor into its REPL once (for mpremote)")
    rel.add_argument("port")
    args = parser.parse_args(argv)
    try:
        ok = release(args.port)
    except (serial.SerialException, OSError) as exc:
        print(f"cannot open {args.port}: {exc}")
        return 1
    print("released: the co-processor reboots into its REPL" if ok else "no answer from the firmware")
    return 0 if ok else 1
