"""The checks' runner under MicroPython: every ``test_*`` function of a module, one line per result.

Output: ``PASS name`` or ``FAIL name: Type: message`` (the traceback follows on its own lines), and finally
``DONE count`` (the host side checks that line, so a crash half-way is a failure too).
"""

import sys


def run(namespace):
    names = sorted(name for name in namespace if name.startswith("test_"))
    for name in names:
        try:
            namespace[name]()
        except Exception as exc:
            print(f"FAIL {name}: {type(exc).__name__}: {exc}")
            sys.print_exception(exc)
        else:
            print("PASS " + name)
    print(f"DONE {len(names)}")
