"""The embedded broker's authentication plugin: every client is let in, as an anonymous session — what amqtt's
``AnonymousAuthPlugin`` with ``allow_anonymous = true`` does.

A copy of that behaviour rather than that plugin, because amqtt's module of it also holds its password-file plugin
and imports pwdlib, argon2 (a cffi extension) and crypt for it: about 0.7 MiB resident in every daemon with the
embedded broker, for a plugin it never runs (docs/performance.md, "Daemon RSS"). amqtt loads plugins by dotted path,
so this module is imported by amqtt, when :class:`~unolauncher.bus.broker.EmbeddedBroker` starts, and never by a
daemon on mosquitto.

Example (not a doctest: needs a running broker)::

    config = {"plugins": {"unolauncher.bus.broker_auth.AllowAnonymous": {}}, "listeners": {...}}
"""

from __future__ import annotations

from typing import Any

from amqtt.plugins.base import BaseAuthPlugin


class AllowAnonymous(BaseAuthPlugin):
    """Lets every session in and marks it anonymous, as ``AnonymousAuthPlugin(allow_anonymous=True)`` does: amqtt
    uses the mark when it cleans up sessions and delivers retained messages."""

    async def authenticate(self, *, session: Any) -> bool:
        session.is_anonymous = True
        return True
