"""The host's side of the firmware checks under MicroPython: ``Rp2040Board`` on the fake ``machine`` and a virtual
clock that wraps 300 ms in, the firmware stepped one loop iteration (1 ms) at a time, the host speaking the
protocol over an in-memory channel, and a card physics that counts forward running."""

import struct

import machine
import vclock
from unofw import msgs, rp2040, wire
from unofw.app import Firmware, step

rp2040.time = vclock  # the board reads the virtual clock (time is built in: a file cannot shadow it)
machine.use_clock(vclock)  # and so do the fake machine's timers and write trace


class Stream:
    """The data channel as two byte buffers; ``room`` bounds what the port takes (None: unbounded)."""

    def __init__(self):
        self.to_device = bytearray()
        self.to_host = bytearray()

    def read(self):
        if not self.to_device:
            return None
        data = bytes(self.to_device)
        self.to_device = bytearray()
        return data

    def writable(self):
        return True

    def write(self, data):
        self.to_host.extend(data)
        return len(data)


class Host:
    """Firmware, board and the host's side of the wire, stepped one loop iteration (1 ms) at a time."""

    def __init__(self, driver="tb6612"):
        vclock.set_ms(vclock.PERIOD - 300)  # the ticks wrap 300 ms into every check, in the middle of a run
        self.stream = Stream()
        self.board = rp2040.Rp2040Board(stream=self.stream, driver=driver)
        self.board._lid.drive(0)  # the box is shut when the firmware starts
        self.fw = Firmware(self.board)
        self.board.on_guard = self.fw.motor_guard_tripped
        self.reader = wire.FrameReader()
        self.seq = 0
        self.frames = []
        self.forward_ms = 0
        self.magazine = 40

    def send(self, msg_type, body=b""):
        self.seq += 1
        self.stream.to_device.extend(wire.encode_frame(msg_type, self.seq, body))
        return self.seq

    def loop(self, ms):
        for _ in range(ms):
            self.physics()
            step(self.fw, self.board)  # its idle() sleeps 1 ms on the virtual clock
            for frame in self.reader.feed(bytes(self.stream.to_host)):
                self.frames.append(frame)
                if msgs.is_reliable_event(frame[0]):
                    self.stream.to_device.extend(wire.encode_frame(msgs.EVENT_ACK, 0, struct.pack(">H", frame[1])))
            self.stream.to_host = bytearray()

    def physics(self):
        """A card leaves every 25 ms of forward running (after 15 ms of spin-up): a 2 ms beam pulse."""
        duty, direction = self.board.motor_state()
        beam = self.board._beam
        if beam.value() == 0:
            beam.drive(1)
        if duty and direction == 1:
            self.forward_ms += 1
            if self.forward_ms >= 15 and (self.forward_ms - 15) % 25 == 0 and self.magazine:
                self.magazine -= 1
                beam.drive(0)
        else:
            self.forward_ms = 0

    def of_type(self, msg_type):
        return [body for t, _, body in self.frames if t == msg_type]

    def hello(self):
        self.send(msgs.HELLO, b"\x01")
        self.loop(5)
        replies = self.of_type(msgs.HELLO_REPLY)
        assert len(replies) == 1, replies
        return replies[0]


def ack_code(host, seq):
    for body in host.of_type(msgs.ACK):
        acked, code = struct.unpack(msgs.ACK_FMT, body)
        if acked == seq:
            return code
    raise AssertionError(f"no ACK for seq {seq}")


def dones(host):
    return [struct.unpack(msgs.DONE_FMT, body) for body in host.of_type(msgs.DONE)]


def fire(host, cards, run_ms=0, power=100):
    seq = host.send(msgs.FIRE, struct.pack(msgs.FIRE_FMT, 1, cards, run_ms, power, 0))
    host.loop(2)
    assert ack_code(host, seq) == msgs.OK
    return seq
