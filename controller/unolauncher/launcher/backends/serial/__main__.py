"""``python -m unolauncher.launcher.backends.serial release PORT``: see the ``cli`` module beside this one."""

from unolauncher.launcher.backends.serial.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
