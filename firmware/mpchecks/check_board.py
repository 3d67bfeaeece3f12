"""The board and the app state machine under MicroPython: ``Rp2040Board`` on the fake ``machine`` and a virtual
clock that wraps 300 ms in, the host side speaking the protocol over an in-memory channel, every hard
interrupt handler run with the heap locked; the pin-map check and the USB writes."""

import struct

import machine
import vclock
from mpcheck import run
from mphost import Host, ack_code, dones, fire
from unofw import msgs, rp2040


def test_hello_answers_with_the_protocol_version():
    host = Host()
    seq, version, flags, _cause = struct.unpack(msgs.HELLO_REPLY_FMT, host.hello()[:5])
    assert (seq, version) == (1, 1) and flags & 2  # first HELLO since boot


def test_commands_before_hello_are_refused():
    host = Host()
    seq = host.send(msgs.STATUS)
    host.loop(3)
    assert ack_code(host, seq) == msgs.NO_HELLO


def test_fire_counts_cards_across_the_tick_wrap_and_reports_done():
    for driver in rp2040.DRIVERS:
        host = Host(driver)
        host.hello()
        seq = fire(host, cards=3)
        host.loop(800)
        assert dones(host) and dones(host)[0][:2] == (seq, 3), (driver, dones(host))
        assert msgs.OUTCOMES[dones(host)[0][3]] == "ok", (driver, dones(host))
        assert host.board.motor_state() == (0, 0), driver
        assert vclock.ticks_ms() < 3000  # the clock wrapped during the run


def test_the_lid_stops_the_motor_at_the_edge():
    host = Host()
    host.hello()
    fire(host, cards=30)
    host.loop(30)
    assert host.board.motor_state()[0] > 0
    host.board._lid.drive(1)  # hard IRQ, heap locked
    assert host.board.motor_state() == (0, 0)  # before any loop iteration
    host.loop(50)
    done = dones(host)
    assert done and msgs.REASONS[done[0][5]] == "lid_opened", done


def test_a_silent_host_is_a_dead_man():
    host = Host()
    host.hello()
    seq = host.send(msgs.CONFIG, struct.pack(msgs.CONFIG_FMT, 300, 4000, 800, 120, 60, 1, 25))  # dead man 300 ms
    host.loop(3)
    assert ack_code(host, seq) == msgs.OK
    fire(host, cards=40)  # 40 cards take about a second; the host says nothing more (CARD needs no answer)
    host.loop(400)
    done = dones(host)
    assert done and msgs.OUTCOMES[done[0][3]] == "fault" and msgs.REASONS[done[0][5]] == "deadman", done
    assert 0 < done[0][1] < 40 and host.board.motor_state() == (0, 0)


def test_status_reply_reports_the_lid_and_the_sensor():
    host = Host()
    host.hello()
    host.board._lid.drive(1)
    host.loop(60)
    seq = host.send(msgs.STATUS)
    host.loop(3)
    body = host.of_type(msgs.STATUS_REPLY)[-1]
    acked, flags = struct.unpack(msgs.STATUS_REPLY_FMT, body)[:2]
    assert acked == seq and flags & msgs.F_LID_OPEN and flags & msgs.F_HAS_SENSOR and not flags & msgs.F_MOTOR_ON


def test_probe_reads_the_inputs_and_finds_a_missing_pull_down():
    machine.pulled_down.update((rp2040.PINS["motor_enable"], rp2040.PINS["motor_reverse"]))  # R3 not fitted
    try:
        host = Host()
        host.hello()
        seq = host.send(msgs.PROBE)
        host.loop(3)
        acked, levels, released, *pins = struct.unpack(msgs.PROBE_REPLY_FMT, host.of_type(msgs.PROBE_REPLY)[-1])
        assert (acked, levels, released) == (seq, 0, 2), (acked, levels, released)
        assert pins == [rp2040.PINS[role] for role in msgs.PROBE_ROLES]
        fire(host, cards=1)  # the probe gave the motor lines back
        host.loop(300)
        assert dones(host) and dones(host)[0][1] == 1, dones(host)
    finally:
        machine.pulled_down.clear()


def test_every_hard_interrupt_handler_runs_with_the_heap_locked():
    """As on the RP2040: each handler is called with the heap locked; one allocation is a MemoryError."""
    for driver in rp2040.DRIVERS:
        del machine.hard_errors[:]
        host = Host(driver)
        board = host.board
        for pin, handler in (
            (board._beam, board._beam_handler),
            (board._button, board._button_handler),
            (board._uno, board._uno_handler),
            (board._lid, board._lid_handler),
        ):
            assert pin.hard and pin.handler is handler
        board.motor(100, True)
        calls = machine.hard_calls[0]
        for _ in range(2 * rp2040.EDGE_SLOTS + 3):  # past the ring's capacity: the overflow path too
            vclock.advance(rp2040.BEAM_MIN_GAP_MS)
            machine.hard_call(board._button_handler, board._button)
            machine.hard_call(board._uno_handler, board._uno)
            machine.hard_call(board._beam_handler, board._beam)
        assert board.cards() == 2 * rp2040.EDGE_SLOTS + 3
        assert board._ring_state[0][2] == 1  # the ring overflowed, without allocating
        machine.hard_call(board._lid_handler, board._lid)
        assert board.motor_state() == (0, 0) and board.lid_tripped()
        board.motor(100, True)
        board.guard(20)
        vclock.advance(25)  # the guard timer fires: its hard callback, heap locked
        assert board.guard_tripped() and board.motor_state() == (0, 0)
        assert machine.hard_calls[0] - calls == 3 * (2 * rp2040.EDGE_SLOTS + 3) + 2
        assert not machine.hard_errors, machine.hard_errors


def test_a_handler_that_allocates_fails_under_the_locked_heap():
    """The check above can fail: a handler that builds a list raises MemoryError with the heap locked."""
    log = []

    def allocating(pin):
        log.append([pin.value()])

    pin = machine.Pin(9, machine.Pin.IN, machine.Pin.PULL_UP)
    pin.irq(handler=allocating, trigger=machine.Pin.IRQ_FALLING, hard=True)
    try:
        pin.drive(0)
    except MemoryError:
        pass
    else:
        raise AssertionError("an allocating handler ran with the heap locked")
    assert len(machine.hard_errors) == 1 and not log
    del machine.hard_errors[:]
    log.append(1)  # the heap is unlocked again (heap_lock nests: hard_call undoes exactly its own lock)


def test_check_pins_refuses_drv8833_inputs_on_one_pwm_slice_and_channel():
    pins = dict(rp2040.PINS)
    for fwd, rev in ((3, 19), (0, 16), (19, 3)):
        pins.update(
            motor_forward=fwd, motor_reverse=rev, sensor=6, button=10, uno=11, lid=12, led=14, buzzer=15, motor_enable=2
        )
        try:
            rp2040.check_pins(pins, "drv8833")
        except ValueError as exc:
            assert "PWM slice" in str(exc) and f"GP{fwd}" in str(exc), str(exc)
        else:
            raise AssertionError(f"GP{fwd} + GP{rev} accepted for a DRV8833")
        rp2040.check_pins(pins, "tb6612")  # plain outputs there: the slice does not matter
    rp2040.check_pins(rp2040.PINS, "drv8833")  # GP3 (slice 1 B) + GP4 (slice 2 A): fine
    pins.update(motor_forward=2, motor_reverse=3, motor_enable=4)
    rp2040.check_pins(pins, "drv8833")  # GP2 + GP3: one slice, channels A and B: fine


class FakePoll:
    """``select.poll`` on a port with ``room`` bytes free: POLLOUT while there is at least one."""

    def __init__(self, port):
        self.port = port

    def poll(self, timeout):
        return [(1, 4)] if self.port.room > 0 else []


class FakeOut:
    """USB CDC: a write of more than ``room`` bytes would block until the host reads (500 ms timeout)."""

    def __init__(self, room):
        self.room = room
        self.data = bytearray()

    def write(self, data):
        if len(data) > self.room:
            raise AssertionError(f"a {len(data)}-byte write with {self.room} bytes free blocks")
        self.room -= len(data)
        self.data.extend(data)
        return len(data)


class PortUsb(rp2040.UsbStdio):
    """``UsbStdio``'s own write/writable on a fake port instead of the real stdin/stdout."""

    def __init__(self, port):
        self._out, self._wpoll, self._one = port, FakePoll(port), bytearray(1)


def test_usb_writes_only_what_fits():
    port = FakeOut(room=1)
    usb = PortUsb(port)
    frame = bytes(range(64))
    assert usb.writable()
    assert usb.write(frame) == 1
    assert not usb.writable()
    port.room = 10
    assert usb.write(frame[1:]) == 10
    port.room = 100
    assert usb.write(frame[11:]) == 53
    assert bytes(port.data) == frame


def test_the_board_pumps_a_frame_through_a_port_with_little_room():
    port = FakeOut(room=0)
    usb = PortUsb(port)
    host = Host()
    host.board._stream = usb
    host.board.write(b"x" * 40)
    for room in (0, 1, 5, 0, 50):
        port.room = room
        host.board.pump()
    assert bytes(port.data) == b"x" * 40 and host.board._out.size == 0


run(globals())
