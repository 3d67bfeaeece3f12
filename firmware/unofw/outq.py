"""A fixed-size byte queue for the data channel: frames go in whole or not at all, bytes come out in bounded
chunks, so the main loop never waits on a host that is not reading.

USB CDC writes block while the host leaves the port unread (MicroPython waits up to its CDC timeout for room).
The firmware therefore only ever *queues* frames; once per loop iteration it hands at most ``CHUNK`` bytes to the
port, and only when the port says it can take some. A frame that does not fit is dropped whole: a reply is asked
for again by the host (same seq, answered from the reply cache), a reliable event is resent from ``pending``.

Example::

    q = OutQueue(256)
    q.put(b"frame")
    view = q.peek(64)  # contiguous bytes to write
    q.consume(len(view))  # what the port took
"""

CHUNK = 64  # one full-speed USB packet: the most the loop writes per iteration


class OutQueue:
    def __init__(self, capacity):
        self.buf = bytearray(capacity)
        self.view = memoryview(self.buf)
        self.capacity = capacity
        self.head = 0  # next byte to send
        self.size = 0
        self.dropped = 0  # frames that did not fit

    def free(self):
        return self.capacity - self.size

    def put(self, data):
        """Queue ``data`` whole; False (and counted in ``dropped``) when it does not fit."""
        n = len(data)
        if n > self.capacity - self.size:
            self.dropped += 1
            return False
        tail = (self.head + self.size) % self.capacity
        first = min(n, self.capacity - tail)
        self.buf[tail : tail + first] = data[:first]
        if first < n:
            self.buf[0 : n - first] = data[first:]
        self.size += n
        return True

    def peek(self, limit=CHUNK):
        """The oldest queued bytes, contiguous, at most ``limit`` (a view: no copy)."""
        n = min(self.size, limit, self.capacity - self.head)
        return self.view[self.head : self.head + n]

    def consume(self, n):
        if n <= 0:
            return
        n = min(n, self.size)
        self.head = (self.head + n) % self.capacity
        self.size -= n
        if self.size == 0:
            self.head = 0
