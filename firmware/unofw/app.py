"""The firmware proper: protocol handling, inputs, the motor run, the dead-man and max-run rules.

Pure logic over a :class:`~unofw.board.Board`; ``feed`` takes bytes from the data channel, ``tick`` advances
time. ``run_forever`` is the main loop ``main.py`` calls. Nothing in one loop iteration waits on the host: frames
are queued on the board and sent one bounded chunk per iteration, so the watchdog is always fed in time.

Example::

    fw = Firmware(board)
    while True:
        now = board.ticks_ms()
        fw.feed(board.read(), now)
        fw.tick(now)
"""

import struct

from unofw import PROTOCOL_VERSION, VERSION, msgs, wire
from unofw.debounce import Debouncer
from unofw.feedback import Feedback
from unofw.runner import RETRACT, Config, FireRun, Motor, Plan, Result, config_problem

RETRY_MS = 100  # reliable events are resent this often until the host acknowledges them (one per iteration)
MAX_PENDING = 8
RELEASE_FLUSH_MS = 500  # RELEASE: how long the ACK may take to leave before the reset
MAX_CACHED_REPLIES = wire.WINDOW  # a duplicate inside the replay window always finds its answer


class Firmware:
    def __init__(self, board):
        self.board = board
        self._diff = board.ticks_diff  # bound once, not on every tick
        self.cfg = Config()
        self.motor = Motor(board)
        self.reader = wire.FrameReader()
        self.window = wire.ReplayWindow()
        self.tx_seq = 0
        self.pending = []  # [seq, frame bytes, last sent] of unacknowledged reliable events
        self.replies = {}  # seq -> reply frame, so a retransmitted command is answered, not re-executed
        self.reply_order = []
        self.host_seen = False
        self.hello_seq = -1
        self.first_hello = True
        now = board.ticks_ms()
        self.last_rx = now
        self.last_tick = now
        self.uptime_s = 0  # whole seconds plus the milliseconds below: stays a small int for 34 years
        self.uptime_rest_ms = 0
        self.button = Debouncer(self.cfg.debounce_ms, True)
        self.uno = Debouncer(self.cfg.debounce_ms, True)
        self.lid = Debouncer(self.cfg.debounce_ms, False, bool(board.lid_open()))
        # Bound methods made once here: every loop iteration reads these inputs.
        self._press_inputs = (
            (self.button, board.button_edge, board.button, msgs.PRESS),
            (self.uno, board.uno_edge, board.uno, msgs.UNO),
        )
        self.feedback = Feedback(board)
        self.run = None
        self.run_seq = 0
        self.last_count = 0
        self.jammed = False
        self.last_fault = msgs.R_NONE
        self.released = False
        self.reset_cause = board.reset_cause()
        board.motor_off()

    # ---- output -------------------------------------------------------------------------------------------

    def _next_seq(self):
        seq = self.tx_seq
        self.tx_seq = (self.tx_seq + 1) & 0xFFFF
        return seq

    def send(self, msg_type, body, now):
        seq = self._next_seq()
        frame = wire.encode_frame(msg_type, seq, body)
        self.board.write(frame)
        if msgs.is_reliable_event(msg_type):
            self.pending.append([seq, frame, now])
            if len(self.pending) > MAX_PENDING:
                self.pending.pop(0)
        return frame

    def event(self, msg_type, body, now):
        """Send an event to the host; nothing is sent before the first HELLO (nobody to tell)."""
        if self.host_seen:
            self.send(msg_type, body, now)

    def _reply(self, cmd_seq, msg_type, body, now):
        frame = self.send(msg_type, body, now)
        self.replies[cmd_seq] = frame
        self.reply_order.append(cmd_seq)
        if len(self.reply_order) > MAX_CACHED_REPLIES:
            old = self.reply_order.pop(0)
            if old in self.replies and old not in self.reply_order:
                del self.replies[old]

    def _ack(self, cmd_seq, code, now, cache=True):
        body = struct.pack(msgs.ACK_FMT, cmd_seq, code)
        if cache:
            self._reply(cmd_seq, msgs.ACK, body, now)
        else:
            self.send(msgs.ACK, body, now)

    # ---- input --------------------------------------------------------------------------------------------

    def feed(self, data, now):
        if not data:
            return
        for msg_type, seq, body in self.reader.feed(data):
            self.handle(msg_type, seq, body, now)

    def handle(self, msg_type, seq, body, now):
        self.last_rx = now  # any frame that passed the CRC proves the host is alive
        if msg_type == msgs.EVENT_ACK:
            if len(body) == 2:
                acked = (body[0] << 8) | body[1]
                self.pending = [p for p in self.pending if p[0] != acked]
            return
        if msg_type == msgs.HELLO:
            if self.host_seen and seq == self.hello_seq and seq in self.replies:
                self.board.write(self.replies[seq])  # a retransmitted HELLO: same answer, no second reset
            else:
                self._hello(seq, body, now)
            return
        if not self.host_seen:
            self._ack(seq, msgs.NO_HELLO, now, cache=False)
            return
        verdict = self.window.check(seq)
        if verdict == wire.DUPLICATE:
            frame = self.replies.get(seq)
            if frame is not None:
                self.board.write(frame)  # answered again, never executed again
            else:
                self._ack(seq, msgs.STALE_SEQ, now, cache=False)
            return
        if verdict == wire.STALE:
            self._ack(seq, msgs.STALE_SEQ, now, cache=False)
            return
        self.window.accept(seq)
        self.dispatch(msg_type, seq, body, now)

    def _hello(self, seq, body, now):
        if len(body) < 1 or body[0] != PROTOCOL_VERSION:
            self._ack(seq, msgs.BAD_VERSION, now, cache=False)
            return
        # A new host session: whatever the old one left running stops, its unacknowledged events are dropped.
        if self.run is not None:
            self.run.abort(now, msgs.O_STOPPED, msgs.R_HOST_STOP)
            self.run = None
            self.feedback.run_finished()
        self.pending = []
        self.replies = {}
        self.reply_order = []
        self.window.reset()
        self.window.accept(seq)
        self.host_seen = True
        self.hello_seq = seq
        flags = 1 if self.cfg.has_sensor else 0
        if self.first_hello:
            flags |= 2
        self.first_hello = False
        body = struct.pack(msgs.HELLO_REPLY_FMT, seq, PROTOCOL_VERSION, flags, self.reset_cause) + VERSION.encode()
        self._reply(seq, msgs.HELLO_REPLY, body, now)
        if flags & 2 and self.reset_cause == msgs.R_WATCHDOG_RESET:
            self._fault(msgs.R_WATCHDOG_RESET, "the watchdog reset the co-processor", now)

    def dispatch(self, msg_type, seq, body, now):
        if msg_type == msgs.FIRE:
            self._fire(seq, body, now)
        elif msg_type == msgs.STOP:
            if self.run is not None:
                self._finish(self.run.abort(now, msgs.O_STOPPED, msgs.R_HOST_STOP), now)
            self.board.motor_off()
            self._ack(seq, msgs.OK, now)
        elif msg_type == msgs.STATUS:
            self._reply(seq, msgs.STATUS_REPLY, self.status_body(seq), now)
        elif msg_type == msgs.CONFIG:
            self._configure(seq, body, now)
        elif msg_type == msgs.SIGNAL:
            if len(body) != 2 or body[0] > 1:
                self._ack(seq, msgs.BAD_REQUEST, now)
            else:
                self.feedback.signal(body[0] == 1, body[1], now)
                self._ack(seq, msgs.OK, now)
        elif msg_type == msgs.PROBE:
            self._probe(seq, now)
        elif msg_type == msgs.RELEASE:
            if self.run is not None:
                self._ack(seq, msgs.BUSY, now)
            else:
                self._ack(seq, msgs.OK, now)
                self.released = True
        else:
            self._ack(seq, msgs.UNKNOWN_TYPE, now)

    def _probe(self, seq, now):
        # Only with the motor idle: the probe releases the motor lines for a few microseconds.
        if self.run is not None:
            self._ack(seq, msgs.BUSY, now)
            return
        found = self.board.probe()
        if found is None:
            self._ack(seq, msgs.UNKNOWN_TYPE, now)
            return
        levels, released, pins = found
        self._reply(seq, msgs.PROBE_REPLY, struct.pack(msgs.PROBE_REPLY_FMT, seq, levels, released, *pins), now)

    def _fire(self, seq, body, now):
        if len(body) != struct.calcsize(msgs.FIRE_FMT):
            self._ack(seq, msgs.BAD_REQUEST, now)
            return
        flags, cards, run_ms, power, suspense_ms = struct.unpack(msgs.FIRE_FMT, body)
        if power > 100 or flags > 1:
            self._ack(seq, msgs.BAD_REQUEST, now)
            return
        if self.run is not None:
            self._ack(seq, msgs.BUSY, now)
            return
        self.run_seq = seq  # DONE names the FIRE it ends
        plan = Plan(flags & 1, cards, run_ms, power, suspense_ms)
        self._ack(seq, msgs.OK, now)
        if not plan.fire:
            self._finish(Result(0, 0, msgs.O_NO_FIRE, self.cfg.has_sensor), now)
            return
        if self.board.guard_tripped():
            # Latched: the guard timer had to stop the motor once, so this board runs it no more until reset.
            self._finish(Result(0, 0, msgs.O_FAULT, self.cfg.has_sensor, msgs.R_GUARD), now)
            return
        if self.lid.state or self.board.lid_open():
            # Same rule as the GPIO launcher: never start the motor with the lid open (fingers in the slot), and
            # the raw level counts: a lid opened a moment ago is open even before the debouncer agrees.
            self._finish(Result(0, 0, msgs.O_FAULT, self.cfg.has_sensor, msgs.R_LID), now)
            return
        self.run = FireRun(plan, self.cfg, self.board, self.motor, now)
        self.last_count = 0
        self.jammed = False
        self.feedback.run_started()
        self._step_run(now)

    def _configure(self, seq, body, now):
        if len(body) != struct.calcsize(msgs.CONFIG_FMT):
            self._ack(seq, msgs.BAD_REQUEST, now)
            return
        values = struct.unpack(msgs.CONFIG_FMT, body)
        if config_problem(values) is not None:
            self._ack(seq, msgs.BAD_REQUEST, now)  # outside the firmware's own ceilings: nothing changes
            return
        deadman, max_run, jam, retract, retract_power, has_sensor, debounce = values
        cfg = self.cfg
        cfg.deadman_ms = deadman
        cfg.max_run_ms = max_run
        cfg.jam_ms = jam
        cfg.retract_ms = retract
        cfg.retract_power = retract_power
        cfg.has_sensor = bool(has_sensor)
        cfg.debounce_ms = debounce
        self.button.stable_ms = debounce
        self.uno.stable_ms = debounce
        self.lid.stable_ms = debounce
        self._ack(seq, msgs.OK, now)

    def status_body(self, seq):
        flags = 0
        run = self.run
        if run is not None:
            flags |= msgs.F_RUNNING
            if run.motor_on():
                flags |= msgs.F_MOTOR_ON
            if run.phase == RETRACT:
                flags |= msgs.F_RETRACTING
        if self.lid.state:
            flags |= msgs.F_LID_OPEN
        if self.jammed:
            flags |= msgs.F_JAMMED
        if self.cfg.has_sensor:
            flags |= msgs.F_HAS_SENSOR
        if self.host_seen:
            flags |= msgs.F_HOST_ALIVE
        if self.board.guard_tripped():
            flags |= msgs.F_GUARD_TRIPPED
        run_cards = min(255, run.counted()) if run is not None else 0
        total = self.board.cards() & 0xFFFF
        return struct.pack(msgs.STATUS_REPLY_FMT, seq, flags, run_cards, total, self.last_fault, self.uptime_s)

    # ---- time ---------------------------------------------------------------------------------------------

    def tick(self, now):
        diff = self._diff
        elapsed = diff(now, self.last_tick)
        if elapsed > 0:
            rest = self.uptime_rest_ms + elapsed
            self.uptime_s += rest // 1000
            self.uptime_rest_ms = rest % 1000
        self.last_tick = now
        self._inputs(now)
        if self.run is not None and diff(now, self.last_rx) > self.cfg.deadman_ms:
            # Dead-man: the host went quiet while the motor may be turning. Stop first, explain later.
            self._finish(self.run.abort(now, msgs.O_FAULT, msgs.R_DEADMAN), now)
            self._fault(msgs.R_DEADMAN, f"host silent for more than {self.cfg.deadman_ms} ms", now)
        self._step_run(now)
        retry = RETRY_MS if diff(now, self.last_rx) <= self.cfg.deadman_ms else RETRY_MS * 10
        for item in self.pending:
            if diff(now, item[2]) >= retry:
                self.board.write(item[1])
                item[2] = now
                break  # one resend per iteration: the rest wait their turn, the loop never piles up output
        self.feedback.tick(now)

    def _inputs(self, now):
        board = self.board
        diff = self._diff
        for debouncer, take_edge, level, msg_type in self._press_inputs:
            self._press_input(debouncer, take_edge, level(), msg_type, now)
        tripped = board.lid_tripped()  # the interrupt already switched the motor off at the edge
        raw_open = board.lid_open()
        if (raw_open or tripped) and self.run is not None:
            # Safety first, before any debounce: fingers may be in the slot (same rule as the GPIO launcher).
            self._finish(self.run.abort(now, msgs.O_STOPPED, msgs.R_LID), now)
        lid = self.lid.update(raw_open, now, diff)
        if lid is not None:
            self.event(msgs.LID, bytes([1 if lid else 0]), now)

    def _press_input(self, debouncer, take_edge, level, msg_type, now):
        """Edges first, each with the time its interrupt stamped on it, then the level now (ends a lock-out)."""
        edge = take_edge()
        while edge is not None:
            if debouncer.update(edge[1], edge[0], self._diff):
                self.event(msg_type, b"", now)
            edge = take_edge()
        if debouncer.update(level, now, self._diff):
            self.event(msg_type, b"", now)

    def _step_run(self, now):
        run = self.run
        if run is None:
            return
        result = run.tick(now)
        count = run.counted()
        if count != self.last_count and self.cfg.has_sensor:
            self.last_count = count
            self.event(msgs.CARD, bytes([min(255, count)]), now)
        if result is not None:
            self._finish(result, now)

    def _finish(self, result, now):
        if result is None:
            return
        self.run = None
        if result.outcome == msgs.O_JAM:
            self.jammed = True
        if result.reason == msgs.R_MAX_RUN:
            self.last_fault = msgs.R_MAX_RUN
        self.feedback.run_finished()
        body = struct.pack(
            msgs.DONE_FMT,
            self.run_seq,
            min(255, result.cards_out),
            min(0xFFFF, max(0, result.ran_ms)),
            result.outcome,
            1 if result.counted else 0,
            result.reason,
        )
        self.event(msgs.DONE, body, now)

    def _fault(self, code, detail, now):
        self.last_fault = code
        self.event(msgs.FAULT, struct.pack(msgs.FAULT_FMT, code) + detail.encode(), now)

    def motor_guard_tripped(self, now):
        """Called (via micropython.schedule) when the board's hardware guard timer had to stop the motor. The
        board keeps the motor refused from now on (latched); every later FIRE ends as ``fault guard_timer``."""
        if self.run is not None:
            self._finish(self.run.abort(now, msgs.O_FAULT, msgs.R_GUARD), now)
            self._fault(msgs.R_GUARD, "guard timer stopped the motor", now)


def step(fw, board):
    """One iteration of the main loop: take input, advance time, send one chunk, feed the watchdog, rest."""
    now = board.ticks_ms()
    fw.feed(board.read(), now)
    fw.tick(now)
    board.pump()
    board.feed_watchdog()
    board.idle()


def run_forever(board, should_stop=None, fw=None):
    """The main loop. Returns when the host sent RELEASE (or ``should_stop()`` says so); motor off on exit."""
    if fw is None:
        fw = Firmware(board)
    board.on_guard = fw.motor_guard_tripped
    board.claim_console()
    board.start_watchdog()
    try:
        while not fw.released:
            if should_stop is not None and should_stop():
                break
            step(fw, board)
    finally:
        board.motor_off()
        if fw.released:
            board.flush(RELEASE_FLUSH_MS)  # the ACK leaves before the reset, or the host never learns it worked
        board.release_console()
    if fw.released:
        board.reboot_to_repl()
    return fw
