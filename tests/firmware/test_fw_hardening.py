"""The firmware ready for a real Pico (issue 17): a brake before every reversal, interrupts that capture edges
at the edge and allocate nothing, a latched guard trip, a MicroPython version check, output that never blocks a
loop iteration, CONFIG ceilings, wrap-safe uptime, RELEASE flushed before the reset, Pico W pins refused, and
both supported drivers (TB6612FNG with PWM on PWMA, DRV8833 with PWM on IN1/IN2). Virtual time; ticks wrap three
seconds into every test."""

from __future__ import annotations

import ast
import inspect
import json
import struct
import sys
import textwrap
import types
from pathlib import Path

import pytest
from unofw import runner
from unofw.app import Firmware, run_forever
from unofw.outq import CHUNK, OutQueue

from firmware.fwsim import Harness
from firmware.mpfakes import FIRMWARE, duties, load_rp2040, machine, mp_time
from unolauncher.launcher.backends.gpio.settings import DeviceSettings
from unolauncher.launcher.backends.serial import protocol as sp
from unolauncher.launcher.interface import FirePlan

VECTORS = json.loads((FIRMWARE / "test_vectors.json").read_text())


def ready(**physics: object) -> Harness:
    h = Harness(**physics)
    assert h.hello()["version"] == 1
    return h


def fire(h: Harness, **plan: object) -> int:
    return h.ack_code(sp.FIRE, sp.encode_fire(FirePlan(**plan)))  # type: ignore[arg-type]


def reversals(trace: list[tuple[int, int]]) -> list[int]:
    """For every change of direction in a motor trace: how long the motor was off in between (ms)."""
    gaps = []
    last_on: tuple[int, int] | None = None  # (direction, when it went off)
    for i, (when, direction) in enumerate(trace):
        if direction == 0 and i and trace[i - 1][1] != 0:
            last_on = (trace[i - 1][1], when)
        elif direction != 0:
            if last_on is not None and last_on[0] != direction:
                gaps.append(when - last_on[1])
            if i and trace[i - 1][1] not in (0, direction):
                gaps.append(0)  # straight from one direction into the other
    return gaps


# ---- brake gap ------------------------------------------------------------------------------------------------


def test_the_brake_gap_is_the_gpio_backends_and_travels_through_the_vectors() -> None:
    assert VECTORS["motor"]["brake_ms"] == runner.BRAKE_MS == DeviceSettings().settle_ms == 40


@pytest.mark.parametrize("driver", ["tb6612", "drv8833"])
def test_the_motor_stops_before_the_retract_and_before_the_next_forward(driver: str) -> None:
    h = ready(magazine=40, driver=driver)
    for run in range(3):  # run after run: the retract (reverse) is followed by the next forward at once
        assert fire(h, fire=True, cards=2) == sp.AckCode.OK
        for _ in range(400):
            h.loop(1)
            if len(h.done()) == run + 1:
                break
    h.loop(400)
    assert [r.outcome for r in h.done()] == ["ok", "ok", "ok"]
    gaps = reversals(h.physics.trace)
    assert len(gaps) >= 5  # forward->retract three times, retract->forward twice
    assert min(gaps) >= runner.BRAKE_MS, h.physics.trace
    assert h.physics.reverse_ms >= 3 * 115  # the retracts still happen


def test_the_motor_wrapper_refuses_to_skip_the_gap() -> None:
    h = Harness()
    motor, now = h.fw.motor, h.board.ticks_ms()
    assert motor.drive(100, True, now)
    motor.off(h.board.ticks_add(now, 100))
    assert not motor.drive(60, False, h.board.ticks_add(now, 100 + runner.BRAKE_MS - 1))
    assert h.board.motor_state() == (0, 0)
    assert motor.drive(60, False, h.board.ticks_add(now, 100 + runner.BRAKE_MS))
    assert h.board.motor_state()[1] == -1
    assert not motor.drive(100, True, h.board.ticks_add(now, 500))  # while reversing: never straight to forward
    assert h.board.motor_state() == (0, 0)
    mp_time.use_real()


def test_drv8833_mode_puts_the_pwm_on_the_input_pins() -> None:
    h = ready(driver="drv8833")
    h.configure(retract_power=60)
    fire(h, fire=True, cards=1, power=0.8)
    assert h.board._pwm_in1.duty_u16() == 80 * 65535 // 100 and h.board._pwm_in2.duty_u16() == 0
    h.loop(600)
    # The retract at 60 %, not on/off; full duty on IN2 only as the brake (both inputs high, check_brake.py).
    assert set(duties(h.board._pwm_in2)) == {0, 60 * 65535 // 100, 65535}
    assert h.board.motor_state() == (0, 0) and h.board.bridge_state() == "coast"


# ---- interrupts -------------------------------------------------------------------------------------------------


def test_every_input_interrupt_and_the_guard_timer_are_hard() -> None:
    h = ready()
    board = h.board
    for pin in (board._beam, board._button, board._uno, board._lid):
        assert pin.hard and pin.handler is not None
    fire(h, fire=True, cards=1)
    assert board._guard.hard  # armed with hard=True, no soft fallback


HANDLERS = ("_on_beam", "_on_button", "_on_uno", "_record", "_on_lid", "_on_guard_timer", "_hw_off")
ALLOWED_CALLS = {"ticks_ms", "ticks_diff", "value", "duty_u16", "schedule", "_record", "_hw_off"}


def test_interrupt_handlers_allocate_nothing() -> None:
    """Hard IRQ handlers may not allocate (MicroPython raises MemoryError there): no literals that build objects,
    no string formatting, no calls beyond pin/PWM register access, ticks and micropython.schedule."""
    rp2040 = load_rp2040()
    for name in HANDLERS:
        tree = ast.parse(textwrap.dedent(inspect.getsource(getattr(rp2040.Rp2040Board, name))))
        for node in ast.walk(tree):
            assert not isinstance(
                node, ast.List | ast.Dict | ast.Set | ast.Tuple | ast.JoinedStr | ast.ListComp | ast.Lambda
            ), f"{name} builds an object ({type(node).__name__})"
            if isinstance(node, ast.Constant):
                assert not isinstance(node.value, str | float | bytes), f"{name} uses a {type(node.value)} constant"
            if isinstance(node, ast.Call):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "?")
                assert called in ALLOWED_CALLS, f"{name} calls {called}()"


def test_card_edges_during_a_stalled_loop_are_all_counted() -> None:
    h = ready(magazine=0)
    h.configure(jam_ms=5000)
    fire(h, fire=True, cards=5)
    beam = h.board._beam
    for _ in range(5):  # five cards pass while the loop is stuck (a blocked write, say): the IRQ counts each
        beam.drive(0)
        mp_time.sleep_ms(3)
        beam.drive(1)
        mp_time.sleep_ms(7)
    h.loop(300)  # brake 40 ms, retract 120 ms, brake 40 ms: then the run is done
    assert [(r.outcome, r.cards_out) for r in h.done()] == [("ok", 5)]


def test_a_press_during_a_stalled_loop_keeps_its_edge_time() -> None:
    h = ready()
    h.loop(50)
    pressed_at = h.board.ticks_ms()
    h.board._button.drive(0)  # pressed and held while the loop is stuck for 300 ms
    for _ in range(300):
        mp_time.sleep_ms(1)
    assert machine.irq_depth[0] == 0
    h.loop(1)
    assert len({f.seq for f in h.events(sp.PRESS)}) == 1
    assert h.fw.button.changed_at == pressed_at  # the interrupt's time stamp, not the late loop's


def test_the_lid_interrupt_stops_the_motor_while_the_loop_is_stuck() -> None:
    h = ready(cards_per_s=1.0)
    h.configure(jam_ms=5000)
    fire(h, fire=True, cards=10)
    assert h.motor_on()
    h.board._lid.drive(1)  # no loop iteration runs: only the interrupt can stop it
    assert not h.motor_on()
    h.board.motor(100, True)  # the loop, late, asks again: refused while the lid is open
    assert not h.motor_on()
    h.board._lid.drive(0)
    h.loop(20)
    assert [(r.outcome, r.detail) for r in h.done()] == [("stopped", "lid_opened")]


def test_fire_checks_the_raw_lid_level_not_only_the_debounced_one() -> None:
    h = ready()
    h.loop(10)
    h.board._lid.drive(1)  # opened a moment ago: the debouncer has not agreed yet
    h.board.lid_tripped()
    assert h.fw.lid.state is False
    fire(h, fire=True, cards=2)
    h.loop(2)
    assert [(r.outcome, r.detail) for r in h.done()] == [("fault", "lid_opened")]
    assert h.physics.forward_ms == 0


# ---- guard timer ------------------------------------------------------------------------------------------------


def test_a_guard_trip_is_latched_until_reset() -> None:
    h = ready(cards_per_s=1.0, magazine=100)
    h.configure(max_run_ms=300, jam_ms=5000, retract_ms=100)
    fire(h, fire=True, cards=40)
    for _ in range(600):  # the loop is stuck: the guard timer stops the motor
        mp_time.sleep_ms(1)
    assert not h.motor_on()
    h.loop(5)
    assert h.status()["guard_tripped"]
    assert fire(h, fire=True, cards=1) == sp.AckCode.OK
    h.loop(300)
    assert [(r.outcome, r.detail) for r in h.done()] == [("fault", "guard_timer"), ("fault", "guard_timer")]
    h.board.motor(100, True)  # even a direct request is refused at the board
    assert not h.motor_on()
    forward = h.physics.forward_ms
    h.loop(100)
    assert h.physics.forward_ms == forward


# ---- MicroPython version, pins, start-up ------------------------------------------------------------------------


def impl(name: str, version: tuple[int, int, int]) -> types.SimpleNamespace:
    return types.SimpleNamespace(name=name, version=version)


def test_micropython_older_than_1_26_is_refused() -> None:
    rp2040 = load_rp2040()
    assert rp2040.runtime_problem(impl("micropython", (1, 26, 0))) is None
    assert rp2040.runtime_problem(impl("micropython", (1, 27, 1))) is None
    assert "1.25.0 is too old" in rp2040.runtime_problem(impl("micropython", (1, 25, 0)))
    assert "not MicroPython" in rp2040.runtime_problem(impl("cpython", (3, 11, 0)))


def run_main(rp2040: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Execute firmware/main.py with ``rp2040`` as its board module and run_forever recorded, not run."""
    import unofw
    import unofw.app

    started: list[object] = []
    monkeypatch.setitem(sys.modules, "unofw.rp2040", rp2040)
    monkeypatch.setattr(unofw, "rp2040", rp2040, raising=False)
    monkeypatch.setattr(unofw.app, "run_forever", started.append)
    exec(compile((FIRMWARE / "main.py").read_text(), "main.py", "exec"), {"__name__": "main"})
    return started


def test_main_refuses_an_old_micropython_before_touching_a_pin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mp_time.use_virtual(0)
    rp2040 = load_rp2040()
    monkeypatch.setattr(rp2040, "sys", types.SimpleNamespace(implementation=impl("micropython", (1, 24, 1))))
    monkeypatch.setattr(rp2040, "Rp2040Board", lambda: pytest.fail("the board was built"))
    assert run_main(rp2040, monkeypatch) == []
    assert "refuses to start: MicroPython 1.24.1 is too old" in capsys.readouterr().out
    monkeypatch.setattr(rp2040, "sys", types.SimpleNamespace(implementation=impl("micropython", (1, 26, 0))))
    board_class = type(rp2040.Rp2040Board.__name__, (), {"held_at_boot": lambda self: False})
    monkeypatch.setattr(rp2040, "Rp2040Board", board_class)
    monkeypatch.setattr(rp2040, "take_safe_flag", lambda: False)
    assert len(run_main(rp2040, monkeypatch)) == 1
    mp_time.use_real()


@pytest.mark.parametrize("gpio", [23, 24, 25, 29])
def test_pico_w_wifi_pins_are_refused(gpio: int) -> None:
    rp2040 = load_rp2040()
    with pytest.raises(ValueError, match=f"GP{gpio}"):
        rp2040.Rp2040Board(pins={"led": gpio}, stream=object())


def test_bad_pin_maps_and_drivers_are_refused() -> None:
    rp2040 = load_rp2040()
    with pytest.raises(ValueError, match="both use GP3"):
        rp2040.check_pins({**rp2040.PINS, "led": 3})
    with pytest.raises(ValueError, match="unknown pin role"):
        rp2040.check_pins({**rp2040.PINS, "laser": 7})
    with pytest.raises(ValueError, match="unknown motor driver"):
        rp2040.check_pins(rp2040.PINS, "l298n")
    rp2040.check_pins(rp2040.PINS)  # the defaults are fine


# ---- output never blocks ----------------------------------------------------------------------------------------


def test_a_host_that_stops_reading_never_blocks_a_loop_iteration() -> None:
    h = ready()
    writes_per_step: list[int] = []
    stream = h.stream
    h.stream.reading = False  # a real USB CDC write would now block until the host reads
    feeds = machine.WDT.instances
    for i in range(3000):
        before = len(stream.writes)
        if i % 40 == 0:
            h.physics.press(hold_ms=15, bounce=False)
        if i % 7 == 0:
            h.send(sp.STATUS)
        h.loop(1)
        writes_per_step.append(len(stream.writes) - before)
    assert h.board._out.size <= h.board._out.capacity and h.board._out.dropped > 0
    stream.reading = True
    for _ in range(400):
        before = len(stream.writes)
        h.loop(1)
        writes_per_step.append(len(stream.writes) - before)
    assert max(writes_per_step) <= 1 and max(stream.writes) <= CHUNK
    assert h.events(sp.PRESS), "the presses got through once the host read again"
    del feeds


def test_the_output_queue_keeps_frames_whole() -> None:
    q = OutQueue(10)
    assert q.put(b"abcdef") and not q.put(b"ghijk") and q.dropped == 1
    assert bytes(q.peek(4)) == b"abcd"
    q.consume(4)
    assert q.put(b"ghijkl")  # wraps around the end of the buffer
    out = b""
    while q.size:
        chunk = bytes(q.peek(3))
        out += chunk
        q.consume(len(chunk))
    assert out == b"efghijkl"


def test_release_ack_is_flushed_before_the_reset(tmp_path: Path) -> None:
    h = Harness()
    h.rp2040.SAFE_FLAG = str(tmp_path / "unofw_safe")
    h.send(sp.HELLO, bytes([1]))
    for _ in range(6):  # replies queued ahead of the ACK: more than one loop iteration's chunk
        h.send(sp.STATUS)
    release_seq = h.send(sp.RELEASE)
    with pytest.raises(machine.ResetCalled):
        run_forever(h.board, fw=h.fw)
    h._collect()
    assert [sp.decode_ack(f.body) for f in h.replies_to(release_seq)] == [(release_seq, sp.AckCode.OK)]
    mp_time.use_real()


# ---- CONFIG ceilings --------------------------------------------------------------------------------------------


def test_config_limits_are_the_same_on_both_sides() -> None:
    limits = {name: tuple(pair) for name, pair in VECTORS["config_limits"].items()}
    assert limits == runner.LIMITS == sp.DEVICE_LIMITS
    assert list(runner.LIMITS) == list(runner.CONFIG_ORDER)


@pytest.mark.parametrize("field", list(runner.CONFIG_ORDER))
def test_every_config_value_has_a_ceiling_and_a_floor(field: str) -> None:
    h = ready()
    low, high = runner.LIMITS[field]
    base = dict(zip(runner.CONFIG_ORDER, struct.unpack(sp.CONFIG_FMT, sp.DeviceConfig().encode())))
    for value, code in ((high, sp.AckCode.OK), (high + 1, sp.AckCode.BAD_REQUEST), (low, sp.AckCode.OK)):
        body = struct.pack(sp.CONFIG_FMT, *{**base, field: value}.values())
        assert h.ack_code(sp.CONFIG, body) == code, (field, value)
    if low > 0:
        body = struct.pack(sp.CONFIG_FMT, *{**base, field: low - 1}.values())
        assert h.ack_code(sp.CONFIG, body) == sp.AckCode.BAD_REQUEST
    assert getattr(h.fw.cfg, field) == (bool(low) if field == "has_sensor" else low)


def test_the_host_refuses_settings_beyond_the_firmwares_ceilings() -> None:
    from unolauncher.clock import RealClock
    from unolauncher.launcher.backends.serial.launcher import SerialLauncher

    firmware = r"\(what the co-processor accepts\)"
    with pytest.raises(ValueError, match=rf"max_run_s must be a number from 0.1 to 10 s {firmware}, got 30"):
        SerialLauncher.from_settings({"serial_port": "loop://", "max_run_s": 30}, RealClock())
    with pytest.raises(ValueError, match=r"retract_ms must be .* from 0 to 500 ms .*, got 900"):
        SerialLauncher.from_settings({"serial_port": "loop://", "retract_ms": 900}, RealClock())


# ---- uptime -----------------------------------------------------------------------------------------------------


def test_uptime_stays_a_small_int_past_the_tick_wrap() -> None:
    mp_time.use_virtual(0)
    rp2040 = load_rp2040()
    from firmware.fwsim import MemoryStream

    board = rp2040.Rp2040Board(stream=MemoryStream())
    fw = Firmware(board)
    days = 40
    step_ms = 1 << 28  # under half the tick period: ticks_diff stays exact
    total = 0
    while total < days * 86_400_000:
        mp_time.virtual_ms = (mp_time.virtual_ms or 0) + step_ms
        fw.tick(board.ticks_ms())
        total += step_ms
    assert fw.uptime_s == total // 1000
    small = 1 << 30  # MicroPython's small-int range on a 32-bit port: beyond it every int is a heap object
    assert all(abs(v) < small for v in vars(fw).values() if isinstance(v, int))
    mp_time.use_real()
