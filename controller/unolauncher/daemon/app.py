"""The daemon: builds the table from a :class:`Config`, keeps it alive, shuts it down safely.

Start order (READY is sent only when the launcher is up): journal → launcher → broker (embedded, if used) →
referee replay (and the emergency stop's state) → press handler → table worker → MQTT connection → dashboard →
``READY=1``. Stop order: motor off first (from any thread, waiting for nothing), then the run in progress, the
worker, MQTT (``offline``), broker, dashboard, launcher, journal — bounded in time, so a stuck disk cannot keep a
failing daemon from exiting.

Exit codes (:meth:`Daemon.run_until_stopped`): :data:`EXIT_OK` after a stop request (SIGTERM, SIGINT, SIGHUP);
:data:`EXIT_FAILED` after an uncaught exception in any thread; :data:`EXIT_STALLED` when a critical thread stalled or
died (the watchdog pings have stopped); ``128 + SIGQUIT`` after SIGQUIT. Every one but the first makes systemd's
``Restart=on-failure`` restart the service.

Example (not a doctest: starts the daemon, its broker and its launcher)::

    config = load_config(None)
    config.table.state_dir = ".state"
    daemon = Daemon(config)
    daemon.start()
    code = daemon.run_until_stopped()  # after request_stop() (a signal in ``unolauncher run``) or a stall
    daemon.shutdown()
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from unolauncher import __version__
from unolauncher.bus import discovery
from unolauncher.bus.client import BusSettings
from unolauncher.bus.mqtt import TableBus
from unolauncher.bus.topics import Topics
from unolauncher.clock import Clock, RealClock
from unolauncher.daemon import hard_exit
from unolauncher.daemon.catalogue import catalogue
from unolauncher.daemon.config import Config, ConfigError
from unolauncher.daemon.disk_guard import DiskGuard, SizeRetention
from unolauncher.daemon.freshness import AlivePublisher, Freshness
from unolauncher.daemon.ha_announce import Announcer, board_info, dashboard_link
from unolauncher.daemon.interfaces import CommandRefused
from unolauncher.daemon.mqtt_output import MqttOutput
from unolauncher.daemon.mqtt_settings import bus_settings
from unolauncher.daemon.notify import Notifier
from unolauncher.daemon.prepare import CommandPreparer, offered_presets
from unolauncher.daemon.press_gate import CLICK_HIT_DELAY_S
from unolauncher.daemon.private_files import make_private
from unolauncher.daemon.table import Table
from unolauncher.daemon.watchdog import Watchdog
from unolauncher.launcher.factory import LauncherSetupError, create_launcher
from unolauncher.launcher.interface import Launcher
from unolauncher.launcher.press import PressHandler
from unolauncher.rules.referee import Referee
from unolauncher.store.journal import Journal

if TYPE_CHECKING:  # imported where they are used, only when configured (see _bus_settings, _start_dashboard)
    from unolauncher.bus.broker import EmbeddedBroker
    from unolauncher.launcher.factory import VirtualLauncher  # the factory imports it when it builds one
    from unolauncher.voice.speaker import Speaker
    from unolauncher.web.server import DashboardServer

log = logging.getLogger("unolauncher.daemon")

ENDPOINTS_FILE = "endpoints.json"
JOURNAL_FILE = "journal.sqlite3"
SWITCH_INTERVAL_S = 0.0005

EXIT_OK = 0  # a stop was requested (SIGTERM, SIGINT, SIGHUP)
EXIT_FAILED = 1  # an uncaught exception (in any thread), or the start failed
EXIT_CONFIG = 2  # a configuration error (one line naming the key)
EXIT_STALLED = 3  # a critical thread stalled or died: the watchdog said so
EXIT_SIGQUIT = 128 + signal.SIGQUIT  # SIGQUIT asks for an abnormal end (a core dump, by default)

CHECK_INTERVAL_S = 0.25  # how often the main loop asks the watchdog (the motor guard needs none of this)
PING_INTERVAL_S = 5.0  # WATCHDOG=1 every this often when systemd did not say (outside systemd: nobody listens)
SHUTDOWN_TIMEOUT_S = 15.0  # after this the rest of a shutdown is abandoned (the motor is off long before)


class Daemon:
    """One table's daemon process (see the module docstring for the order of things)."""

    def __init__(self, config: Config, say: Callable[[str], object] = print, notifier: Notifier | None = None) -> None:
        self.config = config
        self.say = say
        self.notifier = notifier or Notifier.from_environment()
        self.state_dir = Path(config.table.state_dir)
        self.topics = Topics(config.table.id)
        self.clock: Clock = RealClock()  # tests may put a VirtualClock here before start()
        self.stop_requested = threading.Event()
        self.journal: Journal | None = None
        self.table: Table | None = None
        self.bus: TableBus | None = None
        self.broker: EmbeddedBroker | None = None
        self.dashboard: DashboardServer | None = None
        self.launcher: Launcher | None = None
        self.virtual: VirtualLauncher | None = None  # the simulation, when the backend is virtual
        self.press_handler: PressHandler | None = None
        self.announcer: Announcer | None = None
        self.voice: Speaker | None = None  # [voice] enabled: the box speaks (docs/voice.md)
        self.freshness = Freshness()  # late taps refused ``stale``; the ``alive`` topic (issue 26)
        self.alive: AlivePublisher | None = None
        # The table's prepare hook (fairness: secrets, rigging refused); the next preset is the configured one until
        # the table exists and may have one chosen since.
        self.prepare_command = CommandPreparer(
            config.launcher,
            next_preset=lambda: self.table.preset.name if self.table is not None else config.launcher.preset,
            mode=lambda: self.table.public_state().get("mode") if self.table is not None else None,
        )
        self.endpoints: dict[str, str | int | bool] = {}  # written to endpoints.json
        self._endpoints_lock = threading.Lock()
        self.watchdog = Watchdog(config.table.stall_timeout_s)
        self.exit_code = EXIT_OK
        self.stop_reason = ""
        self._guard_trips = 0
        self._guard_priority_logged = False
        self._previous_excepthook: Callable[[threading.ExceptHookArgs], object] | None = None

    # -- start --------------------------------------------------------------------------------------------------

    def start(self) -> None:
        # Several threads share the GIL (GPIO edges, worker, outbox, paho's network loop); with CPython's default
        # 5 ms switch interval a thread woken by a socket can wait that long behind a busy one. The daemon's
        # threads do little work each, so a shorter interval costs nothing and cuts press -> event latency.
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        self._previous_excepthook = threading.excepthook
        threading.excepthook = self._thread_crashed
        self.journal = self._open_journal()
        self._start_launcher()
        bus_settings = self._bus_settings()
        try:
            self.bus = TableBus(
                bus_settings,
                self.topics,
                self.journal,
                on_command=lambda payload: self.table.submit_payload(payload) if self.table else None,
                on_connected=self._on_connected,
                on_ha_online=lambda: self.announcer.publish(birth=True) if self.announcer else None,
            )
            self.announcer = Announcer(self.config, self.topics, self.state_dir, self.bus, self._discovery_options)
        except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError: a CA or key file that is not one
            raise ConfigError(f"broker.ca_file/cert_file/key_file cannot be used for TLS: {exc}") from None
        t = self.config.table  # size retention runs before each new game (#33 item 5; daemon/disk_guard.py)
        keep = SizeRetention(self.journal, t.journal_budget_mb)
        self.table = Table(
            self.journal,
            Referee,
            MqttOutput(self.bus, on_state=self.freshness.observe_state),
            launcher=self.launcher,
            virtual=self.virtual,
            prepare=DiskGuard(
                self._admit,
                self.state_dir,
                min_free_mb=t.journal_min_free_mb,
                max_journal_mb=t.journal_max_mb,
                retention=keep,
            ),
            next_preset=self.config.launcher.preset,
            presets=offered_presets(self.config.launcher.preset),
            diagnostics_s=self.config.homeassistant.diagnostics_s,
            keep_days=self.config.table.journal_keep_days,
        )
        keep.on_pruned = self.table.keep_preset_note  # the next game's preset survives retention
        self.table.commands.freshness = self.freshness  # the daemon's own commands; the referee's: _admit
        self.table.press.free_play = not t.lockout  # free play's commitment opened before its first press
        replayed = self.table.restore()
        last = self.journal.last_seq
        self.say(f"journal: {self.journal.path} ({replayed} command(s) replayed, last event seq {last})")
        if not self.table.emergency.enabled:
            self.say('launcher: DISABLED by an emergency stop (send {"type": "enable"} to allow firing)')
        self._wire_press_handler()
        self._start_voice()
        self.table.start()
        self._start_dashboard()  # before the bus: Home Assistant's discovery links to the dashboard's address
        if self.broker is not None:  # nobody else may connect as the daemon or publish its topics (#33)
            self.broker.identities.reserve(self.bus.client_id, self.topics.base)
            dashboard_port = self.dashboard.port if self.dashboard is not None else None
            self.broker.identities.allow_origins(dashboard_port, self.config.broker.ws_origins)
        self.bus.start()
        bus, alive_topic = self.bus, self.topics.alive
        self.alive = AlivePublisher(lambda beat: bus.publish(alive_topic, beat, qos=0), self.freshness)
        self.alive.start()
        self._watch_critical_threads()
        self.endpoints["ready"] = True
        self._write_endpoints()
        self.notifier.send("READY=1", f"STATUS=table {self.topics.table_id} ready", f"MAINPID={os.getpid()}")
        self.say(f"ready: table {self.topics.table_id}, MQTT {bus_settings.host}:{bus_settings.port}")

    def _open_journal(self) -> Journal:
        """The state directory and its journal; a problem with either is one line naming ``table.state_dir``."""
        path = self.state_dir / JOURNAL_FILE
        try:
            make_private(self.state_dir, path)  # the secrets before their reveal: the daemon's user only
            return Journal(path)
        except OSError as exc:
            raise ConfigError(f"table.state_dir {self.state_dir} cannot be used: {exc.strerror or exc}") from None
        except sqlite3.Error as exc:
            why = f"the journal {path} cannot be opened ({exc}); move it aside to start a new one"
            raise ConfigError(f"table.state_dir: {why}") from None

    def _start_launcher(self) -> None:
        not_settings = ("seed", "allow_rigged")
        settings = {k: v for k, v in vars(self.config.launcher).items() if v is not None and k not in not_settings}
        try:
            self.launcher, self.virtual = create_launcher(settings, self.clock)
        except (LauncherSetupError, ValueError) as exc:
            raise ConfigError(f"launcher: {exc}") from None
        if self.virtual is not None:
            self.say(
                'launcher: VIRTUAL (no GPIO here, or backend = "virtual"): presses come from the dashboard or '
                'the "press" command; no motor will turn'
            )
        else:
            self.say(f"launcher: {self.launcher.status().backend}")

    def _wire_press_handler(self) -> None:
        assert self.table is not None and self.launcher is not None
        table = self.table
        clock = self.clock
        self.press_handler = PressHandler(
            self.launcher,
            claim=table.press.claim,
            on_hit=table.sensors.motor_then(table.on_hit),  # the run ended: Motor off for Home Assistant first
            on_event=table.on_launcher_event,
            lockout=self.config.table.lockout,
            on_lid_opened=table.press.lid_opened,
            after_press=table.sensors.motor_then(table.press.started),  # Motor on for Home Assistant first
            on_uno=table.on_uno_button,
            enabled=lambda: table.emergency.enabled,  # the emergency stop, read without a lock
            # A hit known on the input thread (a click, a run that could not start): off that thread, a moment later
            run_later=lambda deliver: clock.call_later(CLICK_HIT_DELAY_S, deliver),
        )

    def _start_voice(self) -> None:
        if self.config.voice.enabled and self.table is not None:  # imported only when on, like the dashboard
            from unolauncher.voice.speaker import Speaker

            self.voice = Speaker(self.config.voice)
            self.voice.start()
            self.table.on_journalled = self.voice.hear

    def _bus_settings(self) -> BusSettings:
        """Where to connect: starts the embedded broker first when that is the configured broker."""
        b = self.config.broker
        if b.use_embedded:
            # Imported only with the embedded broker configured: amqtt and its dependencies take 0.04 s to import here
            # and about ten times that on a Pi Zero, for nothing on a table that uses mosquitto or another broker.
            from unolauncher.bus.broker import WS_PATH, EmbeddedBroker
            from unolauncher.bus.retained_store import RETAINED_FILE

            broker = self.broker = EmbeddedBroker(
                host=b.listen, port=b.port, ws_port=b.ws_port, retained_path=self.state_dir / RETAINED_FILE
            )
            try:
                broker.start()
            except Exception as exc:
                raise ConfigError(
                    f"broker.port/broker.ws_port: the embedded broker cannot listen on {b.listen}:{b.port} and "
                    f":{b.ws_port} ({exc}); pick free ports or 0"
                ) from None
            host, port = ("127.0.0.1" if b.listen in ("0.0.0.0", "") else b.listen), broker.port
            ws_url = b.ws_url or f"ws://{{host}}:{broker.ws_port}{WS_PATH}"
            self.say(f"broker: embedded amqtt, mqtt://{host}:{port} and ws://{b.listen}:{broker.ws_port}{WS_PATH}")
            mqtt5 = False  # amqtt speaks 3.1.1 only
        else:
            assert b.host is not None
            host, port = b.host, b.port
            ws_url = b.ws_url or "ws://{host}:9001/mqtt"  # the systemd/mosquitto listener
            mqtt5 = b.protocol in ("auto", "5")
            self.say(f"broker: {host}:{port} (MQTT {'5' if mqtt5 else '3.1.1'}{', TLS' if b.tls else ''})")
        self.endpoints.update({"mqtt_host": host, "mqtt_port": port, "ws_url": ws_url, "mqtt5": mqtt5})
        return bus_settings(self.config, host, port, mqtt5)

    def _start_dashboard(self) -> None:
        d = self.config.dashboard
        if not d.enabled:
            return
        try:  # only when the dashboard is on (0.06 s of imports here); a build without web/ runs without it
            from unolauncher.web.server import DashboardServer
        except ImportError:
            self.say("dashboard: not available in this build")
            return
        dashboard = self.dashboard = DashboardServer(
            host=d.host,
            port=d.port,
            config={
                "mqtt_url": self.endpoints["ws_url"],
                "table": self.topics.table_id,
                "base": self.topics.base + "/",
                "launcher": "virtual" if self.virtual is not None else "real",
                "mqtt5": bool(self.endpoints.get("mqtt5")),  # the page speaks MQTT 5 where the daemon does
                "allow_rigged": self.config.launcher.allow_rigged,  # the page offers a seed only if it is taken
            },
        )
        try:
            dashboard.start()
        except OSError as exc:
            raise ConfigError(f"dashboard.port: cannot listen on {d.host}:{d.port} ({exc.strerror})") from None
        self.endpoints["dashboard_url"] = dashboard.url
        self.say(f"dashboard: {dashboard.url}")

    def _write_endpoints(self) -> None:
        """``<state_dir>/endpoints.json``: ports actually used (port 0 = chosen at start), pid, ready, connected."""
        with self._endpoints_lock:  # the main thread and paho's thread both write it
            data = {"ready": False, **self.endpoints, "pid": os.getpid(), "table": self.topics.table_id}
            tmp = self.state_dir / (ENDPOINTS_FILE + ".tmp")
            tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
            tmp.replace(self.state_dir / ENDPOINTS_FILE)

    # -- hooks the table and the bus call -----------------------------------------------------------------------

    def _on_connected(self) -> None:
        """After every (re)connect: retained state, launcher status, sensors and discovery (paho's thread)."""
        assert self.bus is not None and self.table is not None
        if not self.endpoints.get("mqtt_connected"):
            self.endpoints["mqtt_connected"] = True  # tests and tools wait for this: commands are heard now
            self._write_endpoints()
        self.table.republish()
        self.bus.publish_latest(self.topics.rules, catalogue(offered_presets(self.config.launcher.preset)))
        self._publish_discovery()

    def _admit(self, command: dict[str, Any]) -> dict[str, Any]:
        """A referee command's way in (the table's ``prepare`` hook, worker thread): a phone's tap that came late is
        refused ``stale`` (:mod:`~unolauncher.daemon.freshness`), then the fairness hook fills in its secrets."""
        stale = self.freshness.check(command, self.table.public_state if self.table is not None else {})
        if stale is not None:
            raise CommandRefused(*stale)
        return self.prepare_command(command)

    def _discovery_options(self) -> discovery.DiscoveryOptions:
        ha = self.config.homeassistant
        dashboard = self.dashboard
        link = ha.configuration_url or (dashboard_link(self.config, dashboard.port) if dashboard is not None else None)
        return discovery.DiscoveryOptions(
            version=__version__,
            prefix=ha.prefix,
            mode=ha.discovery,
            configuration_url=link,
            virtual=self.virtual is not None,
            coprocessor=self.launcher is not None and "connected" in self.launcher.status().extra,
            presets=offered_presets(self.config.launcher.preset),
            **board_info(),
        )

    def _publish_discovery(self) -> None:
        """Announce the table to Home Assistant (paho's thread: after a connect, and on HA's birth message)."""
        if self.announcer is not None:
            self.announcer.publish()

    def _watch_critical_threads(self) -> None:
        """What the watchdog checks: the timer thread, the launcher's input callbacks and motor guard, the table's
        worker, MQTT's threads. Each one's own ``health(now, deadline_s)`` says what keeps it from progressing
        (:class:`~unolauncher.daemon.watchdog.Monitored`). A virtual clock (tests) has no thread to watch."""
        assert self.launcher is not None and self.table is not None and self.bus is not None
        if isinstance(self.clock, RealClock):
            self.watchdog.watch("timers", self.clock)
        self.watchdog.watch("launcher", self.launcher)
        self.watchdog.watch("table", self.table)
        self.watchdog.watch("mqtt", self.bus)

    # -- run and stop -------------------------------------------------------------------------------------------

    def request_stop(self, code: int = EXIT_OK, reason: str = "") -> None:
        """Signal-safe, any thread: motor off now, then let the main loop finish with exit ``code`` (the first
        non-zero code asked for wins). Logs nothing: a signal handler may have interrupted a log call. The motor
        stays off for good: nothing applied after this (an ``enable`` queued behind a slow command, a press) can
        switch it on again (:meth:`latch_off`). If that does not return (a stuck pin write holds the guard), the
        process ends at once (:mod:`~unolauncher.daemon.hard_exit`)."""
        self._off_or_exit(self.latch_off, reason or "a stop request")
        if code != EXIT_OK and self.exit_code == EXIT_OK:
            self.exit_code, self.stop_reason = code, reason
        elif not self.stop_reason:
            self.stop_reason = reason
        self.stop_requested.set()

    def motor_off(self) -> None:
        """Motor off now, from any thread, waiting for nothing but the motor guard: the launcher's emergency stop.
        Not journalled: a restart comes back as enabled as the journal says."""
        if self.launcher is not None:
            try:
                self.launcher.set_enabled(False)
            except Exception:
                log.exception("switching the motor off failed")

    def _off_or_exit(self, off: Callable[[], None], why: str) -> None:
        """``off`` (motor off), waited for at most :data:`~unolauncher.daemon.hard_exit.OFF_WAIT_S`; if it has not
        returned by then, say why and end the process now with :data:`EXIT_STALLED` (a stuck pin write,
        ``hard_exit.py``)."""
        reason = (f"{why}: switching the motor off did not return within {hard_exit.OFF_WAIT_S:g} s (a pin write or "
                  "the motor guard is stuck)")  # fmt: skip
        hard_exit.off_or_exit(off, lambda: hard_exit.exit_now(EXIT_STALLED, reason, self.notifier.send))

    def latch_off(self) -> None:
        """Motor off now and for good (every stop path): the emergency stop latched (later enables ignored,
        presses refused) and, on the GPIO backend, the motor guard halted (no "on" is ever accepted again).
        Signal-safe: attribute writes and the guard's own lock."""
        try:
            if self.table is not None:
                self.table.emergency.latch()
            halt = getattr(self.launcher, "halt", None)
            if halt is not None:
                halt()
        except Exception:
            log.exception("latching the motor off failed")
        self.motor_off()

    def _thread_crashed(self, args: threading.ExceptHookArgs) -> None:
        """``threading.excepthook``: an exception no one caught ended a thread. Motor off, exit non-zero."""
        self.motor_off()
        name = args.thread.name if args.thread is not None else "?"
        log.critical(
            "uncaught exception in thread %s; stopping (exit code %d)", name, EXIT_FAILED,
            exc_info=(args.exc_type, args.exc_value, args.exc_traceback),  # type: ignore[arg-type]
        )  # fmt: skip
        self.request_stop(EXIT_FAILED, f"uncaught {args.exc_type.__name__} in thread {name}")

    def run_until_stopped(self) -> int:
        """The main loop; returns the exit code. ``WATCHDOG=1`` is sent only while every critical thread makes
        progress (:mod:`unolauncher.daemon.watchdog`); when one stalls or dies: motor off, no more pings,
        :data:`EXIT_STALLED`. Otherwise it returns when a stop was requested, with that request's code."""
        interval = self.notifier.watchdog_interval() or PING_INTERVAL_S
        next_ping = 0.0
        while not self.stop_requested.wait(CHECK_INTERVAL_S):
            now = time.monotonic()
            problems = self.watchdog.problems(now)
            if problems:
                self.exit_code, self.stop_reason = EXIT_STALLED, "; ".join(problems)
                self._off_or_exit(self.motor_off, self.stop_reason)
                log.critical("%s: motor off, watchdog pings stopped, exiting (code %d) so that systemd restarts "
                             "the daemon", self.stop_reason, EXIT_STALLED)  # fmt: skip
                self.notifier.send(f"STATUS=stalled: {self.stop_reason}"[:400])
                return EXIT_STALLED
            self._report_guard_trips()
            if now >= next_ping:
                self.notifier.send("WATCHDOG=1")
                next_ping = now + interval
        if self.exit_code != EXIT_OK:
            log.critical("stopping: %s (exit code %d)", self.stop_reason, self.exit_code)
        elif self.stop_reason:
            log.info("stopping: %s", self.stop_reason)
        return self.exit_code

    def _report_guard_trips(self) -> None:
        """Log (here, on the main thread: the guard itself never logs) deadlines the motor guard had to enforce, and
        once, a guard thread that could not get its real-time priority."""
        extra = self.launcher.status().extra if self.launcher is not None else {}
        realtime = extra.get("guard_realtime")
        if isinstance(realtime, str) and not self._guard_priority_logged:
            log.warning("the motor guard's thread runs at normal priority: %s", realtime)
            self._guard_priority_logged = True
        trips = extra.get("guard_trips", 0)
        if trips > self._guard_trips:
            log.warning("the motor guard stopped the motor at its deadline (%d time(s) so far): the launcher's own "
                        "stop came late — is the timer thread overloaded?", trips)  # fmt: skip
            self._guard_trips = trips

    def shutdown(self, timeout: float = SHUTDOWN_TIMEOUT_S) -> None:
        """Every exit path comes here: motor off first, then everything else, each step guarded. A step that hangs
        (a stuck disk under the journal, a lock held forever) cannot keep the process from exiting: after
        ``timeout`` the steps left are abandoned."""
        self._off_or_exit(self.latch_off, self.stop_reason or "shutdown")
        self.notifier.send("STOPPING=1")
        stopper = threading.Thread(target=self._stop_parts, name="shutdown", daemon=True)
        stopper.start()
        stopper.join(timeout)
        if stopper.is_alive():
            log.error("stopping took longer than %.0f s (something is stuck); the rest is left, motor off", timeout)
        if self._previous_excepthook is not None and threading.excepthook == self._thread_crashed:
            threading.excepthook = self._previous_excepthook

    def _stop_parts(self) -> None:
        steps = [
            # The run in progress ends now (its hit reaches the table before the worker stops).
            ("launcher run", lambda: self.launcher.stop() if self.launcher else None),
            ("table", lambda: self.table.stop() if self.table else None),
            ("voice", lambda: self.voice.stop() if self.voice else None),
            ("alive", lambda: self.alive.stop() if self.alive else None),
            ("bus", lambda: self.bus.stop() if self.bus else None),
            ("broker", lambda: self.broker.stop() if self.broker else None),
            ("dashboard", lambda: self.dashboard.stop() if self.dashboard else None),
            ("launcher", lambda: self.launcher.close() if self.launcher else None),
            ("journal", lambda: self.journal.close() if self.journal else None),
            ("clock", lambda: self.clock.close() if isinstance(self.clock, RealClock) else None),
        ]
        for name, step in steps:
            started = time.monotonic()
            try:
                step()
            except Exception:
                log.exception("error while stopping the %s", name)
            if time.monotonic() - started > 2:
                log.warning("stopping the %s took %.1f s", name, time.monotonic() - started)
