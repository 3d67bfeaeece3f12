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
from pathlib import Path

from unolauncher.bus.client import BusSettings
from unolauncher.daemon.config import Config, ConfigError


def bus_settings(config: Config, host: str, port: int, mqtt5: bool) -> BusSettings:
    """The MQTT connection the configuration describes, to ``host:port`` (also used by ``unolauncher ha-remove``)."""
    b = config.broker
    password = b.password
    if b.password_file:
        try:
            password = Path(b.password_file).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(f"broker.password_file {b.password_file} cannot be read: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"broker.password_file {b.password_file} is not UTF-8 text") from None
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
