"""unolauncher co-processor firmware (MicroPython on RP2040).

The logic modules (``wire``, ``debounce``, ``runner``, ``feedback``, ``app``) touch no hardware: they talk to a
``Board`` (see ``board.py``), so they run unchanged under CPython in the host's tests. ``rp2040.py`` is the only
module that imports ``machine``/``micropython``/``time``; ``main.py`` (one level up) is the thin entry point.
"""

VERSION = "1.0.0"
PROTOCOL_VERSION = 1
