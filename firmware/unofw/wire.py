"""Framing shared with the host: CRC-16/CCITT-FALSE, COBS, frame layout, incremental reader, replay window.

Wire format of one frame (see docs/serial-protocol.md)::

    0x00  COBS( type:u8 | seq:u16be | body | crc:u16be )  0x00

The CRC is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, xorout 0; check value 0x29B1 for
b"123456789") over type, seq and body. A delimiter is sent before *and* after each frame so a frame that follows
line noise is never glued onto the noise.

Written for MicroPython: no f-strings with ``=``, no walrus, no dataclasses, no typing at run time.
"""

MAX_PAYLOAD = 64  # type + seq + body + crc
MAX_ENCODED = MAX_PAYLOAD + MAX_PAYLOAD // 254 + 2
WINDOW = 24  # replay window width in frames; keeps the bitmap a small int on MicroPython


def _make_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
        table.append(crc)
    return tuple(table)


_CRC_TABLE = _make_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of ``data``. ``crc16(b"123456789") == 0x29B1``."""
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc


def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: the result contains no zero byte (same output as the ``cobs`` package)."""
    out = bytearray()
    block = bytearray()
    n = len(data)
    i = 0
    while i < n:
        byte = data[i]
        i += 1
        if byte == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
        else:
            block.append(byte)
            if len(block) == 254:
                out.append(255)
                out.extend(block)
                block = bytearray()
                if i == n:
                    return bytes(out)  # a full block at the very end needs no final code byte
    out.append(len(block) + 1)
    out.extend(block)
    return bytes(out)


def cobs_decode(data):
    """Inverse of :func:`cobs_encode`; raises ValueError on a malformed block."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("zero byte inside a COBS block")
        i += 1
        end = i + code - 1
        if end > n:
            raise ValueError("COBS block runs past the end")
        for k in range(i, end):
            if data[k] == 0:
                raise ValueError("zero byte inside a COBS block")
        out.extend(data[i:end])
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


def encode_frame(msg_type, seq, body=b""):
    """The bytes to put on the wire for one frame, delimiters included."""
    payload = bytearray((msg_type & 0xFF, (seq >> 8) & 0xFF, seq & 0xFF))
    payload.extend(body)
    crc = crc16(payload)
    payload.append(crc >> 8)
    payload.append(crc & 0xFF)
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("frame too long")
    return b"\x00" + cobs_encode(payload) + b"\x00"


def decode_payload(encoded):
    """(type, seq, body) from one COBS chunk between delimiters; raises ValueError when it is not a frame."""
    payload = cobs_decode(encoded)
    if len(payload) < 5:
        raise ValueError("frame too short")
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("frame too long")
    crc = (payload[-2] << 8) | payload[-1]
    if crc16(payload[:-2]) != crc:
        raise ValueError("bad CRC")
    return payload[0], (payload[1] << 8) | payload[2], bytes(payload[3:-2])


class FrameReader:
    """Cuts a byte stream into frames at zero bytes; garbage costs at most the frame it is glued to.

    Example::

        reader = FrameReader()
        frames = reader.feed(encode_frame(0x05, 1))
        assert frames == [(0x05, 1, b"")]
    """

    def __init__(self):
        self.buf = bytearray()
        self.overflow = False
        self.errors = 0

    def feed(self, data):
        frames = []
        for byte in data:
            if byte == 0:
                if self.overflow:
                    self.errors += 1
                elif self.buf:
                    try:
                        frames.append(decode_payload(bytes(self.buf)))
                    except ValueError:
                        self.errors += 1
                self.buf = bytearray()
                self.overflow = False
            elif not self.overflow:
                if len(self.buf) >= MAX_ENCODED:
                    # Too long to be a frame: drop everything up to the next delimiter.
                    self.overflow = True
                    self.buf = bytearray()
                else:
                    self.buf.append(byte)
        return frames


NEW = 0
DUPLICATE = 1
STALE = 2


class ReplayWindow:
    """Sliding anti-replay window over 16-bit sequence numbers (the IPsec/DTLS scheme).

    A sequence number ahead of the highest seen (by less than half the space) is new; one within ``WINDOW``
    behind is new unless already seen (then it is a duplicate); anything older is stale.

    Example::

        win = ReplayWindow()
        assert win.check(7) == NEW
        win.accept(7)
        assert win.check(7) == DUPLICATE
    """

    def __init__(self):
        self.top = -1
        self.bits = 0

    def reset(self):
        self.top = -1
        self.bits = 0

    def check(self, seq):
        if self.top < 0:
            return NEW
        ahead = (seq - self.top) & 0xFFFF
        if ahead == 0:
            return DUPLICATE
        if ahead < 0x8000:
            return NEW
        behind = (self.top - seq) & 0xFFFF
        if behind >= WINDOW:
            return STALE
        if (self.bits >> behind) & 1:
            return DUPLICATE
        return NEW

    def accept(self, seq):
        if self.top < 0:
            self.top = seq
            self.bits = 1
            return
        ahead = (seq - self.top) & 0xFFFF
        if ahead and ahead < 0x8000:
            if ahead >= WINDOW:
                self.bits = 1
            else:
                self.bits = ((self.bits << ahead) | 1) & ((1 << WINDOW) - 1)
            self.top = seq
        else:
            behind = (self.top - seq) & 0xFFFF
            if behind < WINDOW:
                self.bits |= 1 << behind
