"""The speaker: its own thread says the agenda's announcements through espeak-ng, and nothing waits for it.

Which thread: :meth:`Speaker.hear` on the table's worker (after a batch is journalled) — it only puts the batch on a
bounded queue, never blocks, and drops the batch when the queue is full; everything else on the ``voice`` thread,
and one short-lived ``voice-wait`` thread per utterance that waits for its processes to end. An utterance is
``espeak-ng -v VOICE [-s RATE] --stdout`` piped into the configured player (or ``espeak-ng -v VOICE`` playing it
itself), each in its own process group, so that an interruption kills the whole utterance at once.

No voice (espeak-ng missing, a player that cannot run, a language espeak-ng cannot speak such as Tagalog): one log
line at start, and the box keeps only its chime; the daemon runs on as without ``[voice]``.

Example (not a doctest: starts processes)::

    speaker = Speaker(VoiceSettings(enabled=True, language="de"))
    speaker.start()
    speaker.hear([[{"type": "turn", "player": "Ann"}]])  # "Ann, du bist am Zug."
    speaker.stop()
"""

from __future__ import annotations

import logging
import os
import queue
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from unolauncher.voice.agenda import Agenda
from unolauncher.voice.announce import Announcement, announcements
from unolauncher.voice.catalogue import SPOKEN, render
from unolauncher.voice.settings import VoiceSettings

log = logging.getLogger("unolauncher.voice")

INBOX_LIMIT = 64  # batches heard and not yet read by the voice thread; beyond this, a batch is dropped unsaid
ENGINE = "espeak-ng"


@dataclass
class _Utterance:
    announcement: Announcement
    processes: list[subprocess.Popen[bytes]]


class _Done:
    """The voice-wait thread's word that an utterance's processes have ended."""

    def __init__(self, utterance: _Utterance) -> None:
        self.utterance = utterance


_STOP = object()


def speech_command(settings: VoiceSettings, engine: str) -> tuple[list[str], list[str] | None] | None:
    """The engine's and the player's command lines (``None`` player: the engine plays), or ``None`` when the
    language has no espeak-ng voice and no voice is configured."""
    voice = settings.voice or SPOKEN.get(settings.language)
    if voice is None:
        return None
    speak = [engine, "-v", voice]
    if settings.rate is not None:
        speak += ["-s", str(settings.rate)]
    if settings.player is None:
        return speak, None
    return [*speak, "--stdout"], shlex.split(settings.player)


class Speaker:
    """Says what the table needs to hear, on its own thread (see the module docstring).

    ``which`` finds a program on ``PATH`` (tests may hide one); ``clock`` is a monotonic clock for staleness.
    """

    def __init__(
        self,
        settings: VoiceSettings,
        which: Callable[[str], str | None] = shutil.which,
        clock: Callable[[], float] = time.monotonic,
        agenda: Agenda | None = None,
    ) -> None:
        self.settings = settings
        self._which = which
        self._clock = clock
        self.agenda = agenda or Agenda()
        self._inbox: queue.Queue[Any] = queue.Queue(maxsize=INBOX_LIMIT)
        self._thread: threading.Thread | None = None
        self._speaking: _Utterance | None = None
        self._commands: tuple[list[str], list[str] | None] | None = None
        self.silent_reason: str | None = None  # why the box only chimes (None: it speaks)
        self.said: list[str] = []  # the texts handed to the engine, newest last (the last 50)
        self.interrupted = 0
        self.dropped_batches = 0

    # -- the daemon's side --------------------------------------------------------------------------------------

    def start(self) -> None:
        """Find the engine and the player; start the voice thread, or log once why the box only chimes."""
        self.silent_reason = self._why_silent()
        if self.silent_reason is not None:
            log.warning("voice: %s; the launcher keeps only its chime", self.silent_reason)
            return
        self._thread = threading.Thread(target=self._run, name="voice", daemon=True)
        self._thread.start()
        log.info("voice: speaking %s through %s", self.settings.language, " | ".join(
            shlex.join(c) for c in self._commands or () if c is not None))  # fmt: skip

    def hear(self, batches: Iterable[Iterable[dict[str, Any]]]) -> None:
        """A journalled batch of events (one list per record). Never blocks: the worker calls it."""
        if self._thread is None:
            return
        try:
            self._inbox.put_nowait((self._clock(), batches))
        except queue.Full:
            self.dropped_batches += 1

    def stop(self, timeout: float = 2.0) -> None:
        """Stop speaking now (the utterance in progress is killed) and end the voice thread."""
        thread = self._thread
        if thread is None:
            return
        try:
            self._inbox.put(_STOP, timeout=timeout)
        except queue.Full:
            pass
        thread.join(timeout)
        utterance = self._speaking
        if utterance is not None:  # the thread did not get to it: kill here, the thread is gone or stuck
            _kill(utterance)

    @property
    def speaking(self) -> Announcement | None:
        """What is being said now (``None``: silence)."""
        utterance = self._speaking
        return utterance.announcement if utterance is not None else None

    # -- the voice thread ---------------------------------------------------------------------------------------

    def _why_silent(self) -> str | None:
        settings = self.settings
        engine = self._which(ENGINE)
        if engine is None:
            return f"{ENGINE} is not installed (apt-get install espeak-ng)"
        commands = speech_command(settings, engine)
        if commands is None:
            return f"espeak-ng has no voice for language {settings.language!r} (set voice.voice to one it has)"
        player = commands[1]
        if player is not None:
            found = self._which(player[0])
            if found is None:
                return f"voice.player {player[0]!r} cannot be found"
            commands = (commands[0], [found, *player[1:]])
        self._commands = commands
        return None

    def _run(self) -> None:
        while True:
            item = self._inbox.get()
            if item is _STOP:
                if self._speaking is not None:
                    _kill(self._speaking)
                return
            try:
                self._take(item)
                while self._speaking is None and len(self.agenda):  # one that cannot be said gives way to the next
                    self._say_next()
            except Exception:  # the voice must never take the daemon down: log, carry on
                log.exception("voice: error while speaking")

    def _take(self, item: Any) -> None:
        if isinstance(item, _Done):
            if item.utterance is self._speaking:
                self._speaking = None
            return
        heard_at, batches = item
        events = [event for batch in batches for event in batch]
        for announcement in announcements(events, heard_at):
            speaking = self._speaking
            if self.agenda.add(announcement, speaking.announcement if speaking else None):
                assert speaking is not None
                _kill(speaking)
                self._speaking = None  # its _Done comes later and is ignored
                self.interrupted += 1

    def _say_next(self) -> None:
        announcement = self.agenda.next(self._clock())
        if announcement is None:
            return
        try:
            text = render(self.settings.language, announcement.code, announcement.params)
        except (KeyError, ValueError, IndexError):
            log.warning("voice: cannot word %s %s", announcement.code, announcement.params)
            return
        utterance = self._spawn(announcement, text)
        if utterance is None:
            return
        self._speaking = utterance
        self.said = [*self.said[-49:], text]
        waiter = threading.Thread(target=self._wait, args=(utterance,), name="voice-wait", daemon=True)
        waiter.start()

    def _spawn(self, announcement: Announcement, text: str) -> _Utterance | None:
        assert self._commands is not None
        speak, player = self._commands
        processes: list[subprocess.Popen[bytes]] = []
        try:
            engine = subprocess.Popen(
                speak,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE if player is not None else subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # its own process group: an interruption kills it whole
            )
            processes.append(engine)
            if player is not None:
                assert engine.stdout is not None
                processes.append(
                    subprocess.Popen(
                        player, stdin=engine.stdout, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                        start_new_session=True,
                    )
                )  # fmt: skip
                engine.stdout.close()  # the player holds it now: the engine sees EPIPE if the player dies
            assert engine.stdin is not None
            try:
                engine.stdin.write(text.encode("utf-8") + b"\n")  # the text on stdin: a name is never an option
                engine.stdin.close()
            except BrokenPipeError:
                pass
        except OSError as exc:
            log.warning("voice: cannot start %s: %s", (player or speak)[0], exc)
            _kill(_Utterance(announcement, processes))
            return None
        return _Utterance(announcement, processes)

    def _wait(self, utterance: _Utterance) -> None:
        for process in utterance.processes:
            process.wait()
        self._inbox.put(_Done(utterance))  # may wait while the inbox is full: the voice thread empties it


def _kill(utterance: _Utterance) -> None:
    """Kill an utterance's processes and everything they started (their process groups)."""
    for process in utterance.processes:
        if process.returncode is not None:
            continue
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
