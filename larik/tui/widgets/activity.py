"""One line above the prompt while a turn runs: a spinner, what is going on, the time it has
taken, and how to interrupt it — so a slow model is not 20 seconds of nothing.

``start()`` when a turn starts, ``saw(event)`` for each of its events (waiting for the model,
thinking, writing, running a tool), ``pause(text)`` while the user is asked something (the
clock stops and the line says so), ``stop()`` at the end. Hidden when no turn runs.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from ...agent.events import AgentEvent, AgentEventType

__all__ = ["Activity"]

E = AgentEventType
FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK = 0.1


class Activity(Static):
    DEFAULT_CSS = """
    Activity { height: 1; padding: 0 1; color: $text-muted; display: none; }
    Activity.-on { display: block; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self.doing = ""
        self.model = ""
        self._started = 0.0
        self._paused_at: float | None = None
        self._paused_for = 0.0
        self._pause_text = ""
        self._timer: Timer | None = None

    @property
    def running(self) -> bool:
        return self.has_class("-on")

    def start(self, model: str = "") -> None:
        self.model = model
        self.doing = f"waiting for {model}" if model else "waiting for the model"
        self._started = time.monotonic()
        self._paused_at, self._paused_for, self._pause_text = None, 0.0, ""
        self.add_class("-on")
        if self._timer is None:
            self._timer = self.set_interval(TICK, self._tick)
        self._tick()

    def stop(self) -> None:
        self.remove_class("-on")
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def saw(self, ev: AgentEvent) -> None:
        """What the turn is doing now, from its latest event."""
        t = ev.type
        if t is E.TEXT_DELTA:
            self.doing = "writing"
        elif t is E.THINKING_DELTA:
            self.doing = "thinking"
        elif t is E.TOOL_START:
            self.doing = f"running {ev.tool_name}"
        elif t is E.NOTICE and ev.data.get("compacting"):
            self.doing = ev.text
        elif t is E.TOOL_END or (t is E.MESSAGE and ev.message and ev.message.role == "user"):
            self.doing = f"waiting for {self.model}" if self.model else "waiting for the model"

    def pause(self, text: str) -> None:
        """The user is being asked something: the clock stops, the line says so."""
        if self._paused_at is None:
            self._paused_at = time.monotonic()
        self._pause_text = text
        self._tick()

    def resume(self) -> None:
        if self._paused_at is not None:
            self._paused_for += time.monotonic() - self._paused_at
            self._paused_at = None
        self._pause_text = ""
        self._tick()

    def elapsed(self) -> float:
        """Seconds the turn has run, not counting the time the user was being asked."""
        now = self._paused_at if self._paused_at is not None else time.monotonic()
        return max(0.0, now - self._started - self._paused_for)

    def _tick(self) -> None:
        if not self.running:
            return
        if self._pause_text:
            self.update(Text(f"⏸ {self._pause_text}", style="yellow"))
            return
        elapsed = self.elapsed()
        frame = FRAMES[int(elapsed / TICK) % len(FRAMES)]
        line = Text(f"{frame} ", style="yellow")
        line.append(f"{self.doing}… ")
        line.append(f"({elapsed:.1f}s · esc to interrupt)", style="dim")
        self.update(line)
