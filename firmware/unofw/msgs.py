"""Message types, codes and body layouts of protocol version 1 (mirrors docs/serial-protocol.md).

Bodies are big-endian ``struct`` layouts. Host commands get exactly one reply carrying the command's seq;
device events of the "reliable" kind are retransmitted until the host acknowledges them with ``EVENT_ACK``.
"""

# host -> device commands
HELLO = 0x01  # body: version u8                     reply: HELLO_REPLY
CONFIG = 0x02  # body: CONFIG_FMT                    reply: ACK
FIRE = 0x03  # body: FIRE_FMT                        reply: ACK (ok / busy / bad_request)
STOP = 0x04  # body: empty                           reply: ACK
STATUS = 0x05  # body: empty                         reply: STATUS_REPLY
EVENT_ACK = 0x06  # body: event seq u16              no reply (idempotent, outside the replay window)
RELEASE = 0x07  # body: empty                        reply: ACK, then the firmware hands the USB port to the REPL
SIGNAL = 0x08  # body: chime u8, tension u8          reply: ACK (LED/buzzer feedback for a press)
PROBE = 0x09  # body: empty                          reply: PROBE_REPLY (wiring selftest; ACK busy during a run)

# device -> host replies (body starts with the seq of the command they answer)
ACK = 0x80  # ACK_FMT: acked seq u16, code u8
HELLO_REPLY = 0x81  # HELLO_REPLY_FMT + firmware version (ASCII)
STATUS_REPLY = 0x85  # STATUS_REPLY_FMT
PROBE_REPLY = 0x86  # PROBE_REPLY_FMT

# device -> host events; 0x90..0x9F are reliable (retransmitted until EVENT_ACK), 0xA0..0xAF are not
PRESS = 0x90  # empty
UNO = 0x91  # empty
LID = 0x92  # open u8 (1 = open)
DONE = 0x94  # DONE_FMT
FAULT = 0x95  # FAULT_FMT + detail (ASCII)
CARD = 0xA3  # cards counted so far in this run u8

CONFIG_FMT = ">HHHHBBB"  # deadman_ms, max_run_ms, jam_ms, retract_ms, retract_power %, has_sensor, debounce_ms
FIRE_FMT = ">BBHBH"  # flags (bit0 fire), cards, run_ms, power %, suspense_ms
ACK_FMT = ">HB"
# acked seq, protocol version, flags (bit0 has_sensor, bit1 first HELLO since boot), reset cause
HELLO_REPLY_FMT = ">HBBB"
STATUS_REPLY_FMT = ">HBBHBI"  # acked seq, flags, run cards, total cards, last fault, uptime s
DONE_FMT = ">HBHBBB"  # seq of the FIRE it ends, cards_out, ran_ms, outcome, counted (0/1), reason
FAULT_FMT = ">B"
# acked seq, input levels (P_* bits), motor lines that read high when released (bit 0 enable, 1 forward,
# 2 reverse: a missing pull-down), then the GP number of each role in PROBE_ROLES
PROBE_REPLY_FMT = ">HBB9B"
PROBE_ROLES = ("motor_enable", "motor_forward", "motor_reverse", "sensor", "button", "uno", "lid", "led", "buzzer")
P_BUTTON_DOWN = 1
P_UNO_DOWN = 2
P_LID_OPEN = 4
P_BEAM_BLOCKED = 8

# ACK codes
OK = 0
BUSY = 1
BAD_REQUEST = 2
UNKNOWN_TYPE = 3
BAD_VERSION = 4
STALE_SEQ = 5
NO_HELLO = 6

# DONE outcomes (same names and order as interface.Outcome)
OUTCOMES = ("ok", "no_fire", "jam", "empty", "max_run", "stopped", "fault")
O_OK = 0
O_NO_FIRE = 1
O_JAM = 2
O_EMPTY = 3
O_MAX_RUN = 4
O_STOPPED = 5
O_FAULT = 6

# DONE reasons / FAULT codes
R_NONE = 0
R_DEADMAN = 1
R_MAX_RUN = 2
R_LID = 3
R_HOST_STOP = 4
R_GUARD = 5
R_WATCHDOG_RESET = 6
REASONS = ("", "deadman", "max_run", "lid_opened", "host_stop", "guard_timer", "watchdog_reset")

# STATUS flags
F_MOTOR_ON = 1
F_RUNNING = 2
F_LID_OPEN = 4
F_JAMMED = 8
F_HAS_SENSOR = 16
F_RETRACTING = 32
F_HOST_ALIVE = 64
F_GUARD_TRIPPED = 128  # the guard timer stopped the motor; latched until the board resets


def is_reliable_event(msg_type):
    return 0x90 <= msg_type <= 0x9F
