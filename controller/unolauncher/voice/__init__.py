"""The box speaks: announcements of what the table needs to hear, in the table's language, through espeak-ng.

- :mod:`~unolauncher.voice.plurals`: CLDR plural categories of whole numbers (pure).
- :mod:`~unolauncher.voice.catalogue`: the announcements per language, keyed by code, with their parameters (pure).
- :mod:`~unolauncher.voice.announce`: which journalled events make which announcement (pure).
- :mod:`~unolauncher.voice.agenda`: what is said next, what newer news interrupts or supersedes (pure).
- :mod:`~unolauncher.voice.settings`: the ``[voice]`` configuration section.
- :mod:`~unolauncher.voice.speaker`: the speaker's own thread and the espeak-ng processes.

docs/voice.md describes the whole; the daemon only hands every journalled batch of events to
:meth:`Speaker.hear <unolauncher.voice.speaker.Speaker.hear>`, which never waits.
"""
