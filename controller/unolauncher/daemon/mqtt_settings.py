"""The MQTT connection a configuration describes (the daemon's, and ``unolauncher ha-remove``'s).

Thread: whichever builds the connection — the daemon's main thread at start-up, or the ``ha-remove`` command. It
reads the password file and checks that the TLS files can be read, so a problem is one line naming the key.

Example::

    >>> from unolauncher.daemon.config import load_config
    >>> settings = bus_settings(load_config(None), "127.0.0.1", 1883, mqtt5=False)
    >>> settings.host, settings.port, settings.tls
    ('127.0.0.1', 1883, False)
"""

from __future__ import annotations

import os
import stat

from unolauncher.bus.client import BusSettings
from unolauncher.daemon.config import Config, ConfigError

MAX_PASSWORD_FILE = 4096  # bytes; a password is a line


def read_password_file(name: str) -> str:
    """The password in file ``name`` (stripped), or a one-line ConfigError: not a regular file (``/dev/zero``, a
    FIFO that would block the start for ever), over :data:`MAX_PASSWORD_FILE` bytes, unreadable, not UTF-8."""
    key = f"broker.password_file {name}"
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once instead of waiting for a writer
    except OSError as exc:
        raise ConfigError(f"{key} cannot be read: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigError(f"{key} is not a regular file")
        data = os.read(fd, MAX_PASSWORD_FILE + 1)
    except OSError as exc:
        raise ConfigError(f"{key} cannot be read: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_PASSWORD_FILE:
        raise ConfigError(f"{key} is over {MAX_PASSWORD_FILE} bytes: not a password file")
    try:
        return data.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise ConfigError(f"{key} is not UTF-8 text") from None


def bus_settings(config: Config, host: str, port: int, mqtt5: bool) -> BusSettings:
    """The MQTT connection the configuration describes, to ``host:port`` (also used by ``unolauncher ha-remove``)."""
    b = config.broker
    password = b.password
    if b.password_file:
        password = read_password_file(b.password_file)
    for key in ("ca_file", "cert_file", "key_file"):
        name = getattr(b, key)
        if name is not None and not os.access(name, os.R_OK):
            raise ConfigError(f"broker.{key} {name} cannot be read")
    return BusSettings(
        host=host,
        port=port,
        username=b.username,
        password=password,
        tls=b.tls,
        ca_file=b.ca_file,
        cert_file=b.cert_file,
        key_file=b.key_file,
        tls_insecure=b.tls_insecure,
        mqtt5=mqtt5,
        keepalive=b.keepalive,
        client_id=b.client_id,
        reconnect_min=b.reconnect_min,
        reconnect_max=b.reconnect_max,
        ha_prefix=config.homeassistant.prefix if config.homeassistant.enabled else None,
    )
