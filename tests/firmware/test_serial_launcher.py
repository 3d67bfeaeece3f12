"""SerialLauncher against the real firmware over a real pty pair (firmware under CPython with the simulated
launcher on the other end). Real time, real threads, real file descriptors; nothing mocked but the hardware."""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from firmware.fwsim import SimDevice
from support.net import wait_until
from unolauncher.clock import RealClock
from unolauncher.launcher.backends.serial.launcher import SerialLauncher, SerialSettings
from unolauncher.launcher.interface import FirePlan, FireResult, Launcher


class Recorder:
    """Callbacks of one launcher, recorded with the thread they ran on."""

    def __init__(self, launcher: SerialLauncher, plan: FirePlan | None = None) -> None:
        self.launcher = launcher
        self.events: list[dict[str, Any]] = []
        self.results: list[FireResult] = []
        self.presses = 0
        self.unos = 0
        self.lids: list[bool] = []
        self.fired: list[bool] = []
        self.plan = plan
        launcher.on_event = self.events.append
        launcher.on_press = self._press
        launcher.on_uno = self._uno
        launcher.on_lid = self.lids.append

    def _press(self) -> None:
        self.presses += 1
        if self.plan is not None:
            self.fired.append(self.launcher.fire(self.plan, self.results.append))

    def _uno(self) -> None:
        self.unos += 1

    def types(self) -> list[str]:
        return [e["type"] for e in self.events]

    def has_results(self, count: int) -> Callable[[], bool]:
        """A ``wait_until`` predicate: exactly ``count`` results so far (``count`` bound now, not in a loop)."""
        return lambda: len(self.results) == count


def connect(dev: SimDevice, **settings: Any) -> SerialLauncher:
    launcher = SerialLauncher(SerialSettings(port=str(dev.link), **settings), RealClock())
    assert wait_until(lambda: launcher.status().extra["connected"], 5), launcher.status()
    return launcher


def test_it_is_a_launcher(device: SimDevice) -> None:
    launcher: Launcher = connect(device)
    try:
        assert launcher.status().backend == "serial"
    finally:
        launcher.close()


def test_press_fires_counts_cards_and_reports_done(device: SimDevice) -> None:
    launcher = connect(device, magazine=30)
    rec = Recorder(launcher, FirePlan(fire=True, cards=4, power=0.9))
    try:
        device.press()
        assert wait_until(lambda: rec.results, 5)
        [result] = rec.results
        assert (result.cards_out, result.outcome, result.counted) == (4, "ok", True)
        assert rec.presses == 1 and rec.fired == [True]
        assert device.physics is not None and device.physics.ejected == 4
        assert not device.motor_on()
        assert wait_until(lambda: launcher.status().extra["device"].get("total_cards") == 4, 3)
        status = launcher.status()
        assert status.magazine_estimate == 26 and not status.running and not status.motor_on
    finally:
        launcher.close()


def test_fire_returns_at_once_and_a_second_fire_is_refused(device: SimDevice) -> None:
    launcher = connect(device)
    results: list[FireResult] = []
    try:
        started = time.perf_counter()
        assert launcher.fire(FirePlan(fire=True, cards=6), results.append) is True
        assert time.perf_counter() - started < 0.25  # no waiting for the answer (or its retries)
        assert launcher.fire(FirePlan(fire=True, cards=1), results.append) is False
        assert wait_until(lambda: device.motor_on(), 2)
        assert wait_until(lambda: results, 5)
        assert [r.cards_out for r in results] == [6]
    finally:
        launcher.close()


def test_stop_ends_a_run_and_no_fire_plans_are_cheap(device: SimDevice) -> None:
    device.unplug()
    device.plug(cards_per_s=3.0)
    launcher = connect(device, device=_cfg(jam_ms=5000))
    results: list[FireResult] = []
    try:
        launcher.fire(FirePlan(fire=True, cards=20), results.append)
        assert wait_until(lambda: device.motor_on(), 2)
        launcher.stop()
        assert wait_until(lambda: results, 2)
        assert results[0].outcome == "stopped" and not device.motor_on()
        launcher.fire(FirePlan(fire=False), results.append)
        assert wait_until(lambda: len(results) == 2, 2)
        assert results[1].outcome == "no_fire"
    finally:
        launcher.close()


def _cfg(**changes: Any) -> Any:
    import dataclasses

    from unolauncher.launcher.backends.serial.protocol import DeviceConfig

    return dataclasses.replace(DeviceConfig(), **changes)


def test_jam_and_empty_magazine_become_launcher_events(device: SimDevice) -> None:
    device.unplug()
    device.plug(jam_after=2, magazine=5)
    launcher = connect(device, magazine=5, device=_cfg(jam_ms=200))
    rec = Recorder(launcher)
    try:
        launcher.fire(FirePlan(fire=True, cards=4), rec.results.append)
        assert wait_until(lambda: rec.results, 5)
        assert rec.results[0].outcome == "jam" and rec.results[0].cards_out == 2
        assert "jam" in rec.types() and launcher.status().jammed
        # the host knows 3 cards are left, so "nothing came out" is still a jam, not an empty magazine
        launcher.fire(FirePlan(fire=True, cards=2), rec.results.append)
        assert wait_until(lambda: len(rec.results) == 2, 5)
        assert rec.results[1].outcome == "jam"
        launcher.set_magazine(0)
        launcher.fire(FirePlan(fire=True, cards=2), rec.results.append)
        assert wait_until(lambda: len(rec.results) == 3, 5)
        assert rec.results[2].outcome == "empty" and "magazine_empty" in rec.types()
    finally:
        launcher.close()


def test_buttons_and_lid_reach_the_callbacks(device: SimDevice) -> None:
    launcher = connect(device, magazine=40)
    rec = Recorder(launcher)
    try:
        device.press_uno()
        assert wait_until(lambda: rec.unos == 1, 3)
        device.set_lid(True)
        assert wait_until(lambda: rec.lids == [True], 3)
        assert launcher.status().lid_open and "lid_open" in rec.types()
        launcher.fire(FirePlan(fire=True, cards=2), rec.results.append)
        assert wait_until(lambda: rec.results, 3)
        assert rec.results[0].outcome == "fault" and rec.results[0].detail.startswith("lid is open")
        assert device.physics is not None and device.physics.forward_ms == 0
        device.set_lid(False)
        assert wait_until(lambda: rec.lids == [True, False], 3)
        assert rec.presses == 0
    finally:
        launcher.close()


def test_unplugging_mid_run_ends_it_as_fault_and_replugging_reconnects(device: SimDevice) -> None:
    device.unplug()
    device.plug(cards_per_s=3.0)
    launcher = connect(device, device=_cfg(jam_ms=5000), reconnect_min_s=0.05, reconnect_max_s=0.2)
    rec = Recorder(launcher)
    try:
        launcher.fire(FirePlan(fire=True, cards=20), rec.results.append)
        assert wait_until(lambda: device.motor_on(), 2)
        device.unplug()
        assert wait_until(lambda: rec.results, 3)
        assert rec.results[0].outcome == "fault" and "link lost" in rec.results[0].detail
        assert any(e["type"] == "fault" and e["reason"] == "link_lost" for e in rec.events)
        assert not launcher.status().extra["connected"]
        assert launcher.fire(FirePlan(fire=True, cards=1), rec.results.append) is True  # refused as a fault
        assert wait_until(lambda: len(rec.results) == 2, 2) and rec.results[1].outcome == "fault"
        # A reopen failed while the port was gone (the back-off path), then the cable comes back.
        assert wait_until(lambda: launcher.status().extra["last_error"].startswith("cannot open"), 5)
        device.plug(cards_per_s=40.0)
        assert wait_until(lambda: launcher.status().extra["connected"], 5)
        assert wait_until(lambda: rec.types().count("launcher_connected") == 1, 2)  # the first: before the recorder
        rec.plan = FirePlan(fire=True, cards=2)
        device.press()
        assert wait_until(lambda: len(rec.results) == 3, 5)
        assert rec.results[2].outcome == "ok" and rec.results[2].cards_out == 2
        assert launcher.status().extra["link_losses"] == 1
    finally:
        launcher.close()


def test_line_noise_between_frames_costs_nothing(device: SimDevice) -> None:
    launcher = connect(device)
    rec = Recorder(launcher, FirePlan(fire=True, cards=2))
    try:
        for n, noise in enumerate((b"\x03\x03\x04", os.urandom(300), b"\xff" * 100, b"\x00\x00\x01\x02")):
            device.send_garbage(noise)
            device.press()
            assert wait_until(rec.has_results(n + 1), 5)
        assert wait_until(lambda: len(rec.results) == 4, 5)
        assert [r.outcome for r in rec.results] == ["ok"] * 4
        assert launcher.status().extra["frame_errors"] >= 2
        assert launcher.status().extra["connected"]
    finally:
        launcher.close()


def test_close_stops_the_motor_at_once(device: SimDevice) -> None:
    device.unplug()
    device.plug(cards_per_s=3.0)
    launcher = connect(device, device=_cfg(jam_ms=5000, deadman_ms=3000))
    results: list[FireResult] = []
    launcher.fire(FirePlan(fire=True, cards=20), results.append)
    assert wait_until(lambda: device.motor_on(), 2)
    launcher.close()
    assert [r.outcome for r in results] == ["stopped"]
    assert wait_until(lambda: not device.motor_on(), 1.5)  # the STOP, before the 3 s dead-man
    launcher.close()  # twice is fine


def test_a_port_that_is_not_there_yet(tmp_path: Path) -> None:
    link = tmp_path / "ttyLATER"
    launcher = SerialLauncher(SerialSettings(port=str(link), reconnect_min_s=0.05, reconnect_max_s=0.1), RealClock())
    results: list[FireResult] = []
    device: SimDevice | None = None
    try:
        assert not launcher.status().extra["connected"]
        assert "cannot open" in launcher.status().extra["last_error"]
        assert launcher.fire(FirePlan(fire=True, cards=1), results.append)
        assert wait_until(lambda: results, 2) and results[0].outcome == "fault"
        device = SimDevice(link)
        assert wait_until(lambda: launcher.status().extra["connected"], 5)
    finally:
        launcher.close()
        if device is not None:
            device.close()


def test_loop_url_never_handshakes_and_nothing_breaks() -> None:
    # loop:// echoes our own frames back: a HELLO is not a HELLO reply, so the link never becomes ready.
    launcher = SerialLauncher(
        SerialSettings(port="loop://", reply_timeout_s=0.02, retries=1, reconnect_min_s=0.05), RealClock()
    )
    results: list[FireResult] = []
    try:
        # Wait for the state meant (a HELLO gone unanswered), not for a guessed time: under load 0.3 s was too short.
        assert wait_until(lambda: "no answer to HELLO" in launcher.status().extra["last_error"], 10), launcher.status()
        assert not launcher.status().extra["connected"]
        assert launcher.fire(FirePlan(fire=True, cards=1), results.append)
        assert wait_until(lambda: results, 2) and results[0].outcome == "fault"
    finally:
        launcher.close()


def test_socket_url_works_too(tmp_path: Path) -> None:
    """pyserial's socket:// URL: the firmware's pty bridged to TCP (a ser2net-style setup)."""
    import socket

    device = SimDevice(tmp_path / "tty")
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    stop = threading.Event()

    def bridge() -> None:
        conn, _ = server.accept()
        fd = os.open(str(device.link), os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        import tty

        tty.setraw(fd)
        conn.setblocking(False)
        while not stop.is_set():
            moved = False
            try:
                data = conn.recv(4096)
                if not data:
                    break
                os.write(fd, data)
                moved = True
            except BlockingIOError:
                pass
            try:
                data = os.read(fd, 4096)
                conn.sendall(data)
                moved = True
            except BlockingIOError:
                pass
            if not moved:
                time.sleep(0.001)  # poll: nothing to move yet
        os.close(fd)
        conn.close()

    thread = threading.Thread(target=bridge, daemon=True)
    thread.start()
    launcher = SerialLauncher(SerialSettings(port=f"socket://127.0.0.1:{port}"), RealClock())
    results: list[FireResult] = []
    try:
        assert wait_until(lambda: launcher.status().extra["connected"], 5)
        launcher.fire(FirePlan(fire=True, cards=3), results.append)
        assert wait_until(lambda: results, 5) and results[0].cards_out == 3
    finally:
        launcher.close()
        stop.set()
        thread.join(2)
        server.close()
        device.close()


def test_from_settings_reads_the_daemon_keys(device: SimDevice) -> None:
    launcher = SerialLauncher.from_settings(
        {
            "backend": "serial",
            "serial_port": str(device.link),
            "magazine": 12,
            "max_run_s": 2.5,
            "jam_timeout_s": 0.4,
            "retract_ms": 0,
            "retract_power": 0.5,
            "pins": {"sensor": -1},
        },
        RealClock(),
    )
    try:
        dev = launcher.settings.device
        assert (dev.max_run_ms, dev.jam_ms, dev.retract_ms, dev.retract_power, dev.has_sensor) == (
            2500,
            400,
            0,
            50,
            False,
        )
        assert launcher.status().magazine_estimate == 12 and not launcher.status().has_sensor
        assert wait_until(lambda: launcher.status().extra["connected"], 5)
        assert wait_until(lambda: device.fw is not None and not device.fw.cfg.has_sensor, 3)
    finally:
        launcher.close()
    with pytest.raises(ValueError, match="serial_port"):
        SerialLauncher.from_settings({"backend": "serial"}, RealClock())
    with pytest.raises(ValueError, match="max_run_s"):
        SerialLauncher.from_settings({"serial_port": "loop://", "max_run_s": "fast"}, RealClock())


def test_the_factory_builds_the_serial_backend(device: SimDevice) -> None:
    from unolauncher.launcher.factory import create_launcher

    launcher, virtual = create_launcher(
        {"backend": "serial", "serial_port": str(device.link), "magazine": 9}, RealClock()
    )
    try:
        assert virtual is None and isinstance(launcher, SerialLauncher)
        assert launcher.status().magazine_estimate == 9
        assert wait_until(lambda: launcher.status().extra["connected"], 5)
    finally:
        launcher.close()


def test_release_reboots_the_firmware_into_its_repl(device: SimDevice) -> None:
    from unolauncher.launcher.backends.serial.cli import main as serial_cli

    assert serial_cli(["release", str(device.link)]) == 0
    assert wait_until(lambda: device.resets == 1, 2) and not device.motor_on()
    assert (device.link.parent / "unofw_safe").exists()  # main.py sees it on the next boot and leaves the REPL on
    assert device.rp2040.take_safe_flag()
    assert serial_cli(["release", str(device.link.parent / "nothing-here")]) == 1


def test_reconnect_backs_off_exponentially_in_virtual_time(tmp_path: Path) -> None:
    import serial

    from unolauncher.clock import VirtualClock

    clock = VirtualClock()
    attempts: list[float] = []

    def open_port(url: str, **kwargs: Any) -> Any:
        attempts.append(clock.now())
        return serial.serial_for_url(url, **kwargs)

    launcher = SerialLauncher(
        SerialSettings(port=str(tmp_path / "gone"), reconnect_min_s=0.2, reconnect_max_s=5.0),
        clock,
        open_port=open_port,
    )
    try:
        clock.advance(20.0)
        gaps = [round(b - a, 3) for a, b in itertools.pairwise(attempts)]
        assert gaps == [0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0]  # attempts at 0, 0.2, 0.6, 1.4, 3, 6.2, 11.2, 16.2 s
        assert "No such file" in launcher.status().extra["last_error"]
    finally:
        launcher.close()
    clock.advance(60.0)
    assert len(attempts) == 8  # closed: no more attempts


def test_a_host_that_goes_silent_trips_the_firmware_dead_man(device: SimDevice) -> None:
    """The host's clock stands still (a hung daemon): no heartbeats, so the firmware stops the motor by itself."""
    from unolauncher.clock import VirtualClock

    device.unplug()
    device.plug(cards_per_s=3.0)
    launcher = SerialLauncher(
        SerialSettings(port=str(device.link), heartbeat_s=0.1, device=_cfg(deadman_ms=300, jam_ms=5000)), VirtualClock()
    )
    rec = Recorder(launcher)
    try:
        assert wait_until(lambda: launcher.status().extra["connected"], 5)
        assert wait_until(lambda: device.fw is not None and device.fw.cfg.deadman_ms == 300, 3)
        launcher.fire(FirePlan(fire=True, cards=20), rec.results.append)
        assert wait_until(lambda: device.motor_on(), 2)
        started = time.monotonic()
        assert wait_until(lambda: not device.motor_on(), 3)
        assert time.monotonic() - started < 2.0  # long before max_run (4 s) would have stopped it
        assert wait_until(lambda: rec.results, 3)
        assert (rec.results[0].outcome, rec.results[0].detail) == ("fault", "deadman")
        # The firmware sends DONE, then its FAULT event, in two frames: wait for the event, do not race it.
        assert wait_until(lambda: any(e["type"] == "fault" and e["reason"] == "deadman" for e in rec.events), 3), (
            rec.events
        )
    finally:
        launcher.close()


def test_a_lid_already_open_at_connect_is_reported(tmp_path: Path) -> None:
    device = SimDevice(tmp_path / "tty")
    launcher: SerialLauncher | None = None
    try:
        device.unplug()
        device.plug()
        device.board._lid.drive(1)  # opened before any host talked to the board: no LID event will come
        launcher = SerialLauncher(SerialSettings(port=str(device.link), heartbeat_s=0.05), RealClock())
        lids: list[bool] = []
        launcher.on_lid = lids.append
        assert wait_until(lambda: lids == [True], 3)
        assert launcher.status().lid_open
    finally:
        if launcher is not None:
            launcher.close()
        device.close()
