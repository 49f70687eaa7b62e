"""The conversation: user turns, streamed replies, thinking, tool cards and notices.

``handle(event)`` takes the agent's events as they come. Text and thinking deltas only append
to a buffer (``StreamingMarkdown`` paints at most 30 times a second), so handling an event is
cheap whatever the stream's rate. ``show_history(messages)`` draws a resumed conversation:
only its newest ``KEEP`` items become widgets (one mount); the older ones go to the archive as
data, built into renderables only when the archive renders them, newest first, on idle — so
resuming a session of any length costs about the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.style import Style
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget

from ...agent.events import AgentEvent, AgentEventType
from ...llm.errors import RETRY_MARK
from ..gcpolicy import freeze_loaded
from ..messages import ToPrompt
from .notice import Notice
from .rendered_lines import RenderedLines
from .streaming_markdown import StreamingMarkdown
from .thinking import ThinkingBlock
from .tool_card import ToolCard, call_summary, outcome
from .user_turn import UserTurn

if TYPE_CHECKING:
    from ...llm.types import Message

__all__ = ["ConversationView"]

E = AgentEventType
# by StopReason's values (a StrEnum: its members look these up); "stuck" has none: the agent's
# own notice says what the model repeated, and a second line said it again
_STOP_NOTES = {
    "max_tokens": ("the reply hit the output token limit", "warning"),
    "refusal": ("the model refused", "warning"),
    "error": ("the turn ended with an error", "error"),
    "budget": ("the spending budget stopped the turn: /cost shows what is left", "warning"),
}


KEEP = 40  # items that stay widgets (interactive); older ones are folded into the archive
SLACK = 20  # fold in batches, so the widget tree changes rarely


class ConversationView(VerticalScroll, can_focus=False):
    """The conversation. The newest items are widgets; older ones are folded, in batches, into
    one ``RenderedLines`` archive at the top, because Textual lays out every widget on each
    layout pass: this keeps a frame's cost independent of the conversation's length too."""

    DEFAULT_CSS = "ConversationView { height: 1fr; }"

    def __init__(self) -> None:
        super().__init__(id="conversation")
        self.archive = RenderedLines(classes="archive", lazy=True)
        # what each item of the archive was, for a search (larik/tui/find.py): an item of
        # history, or the text of a widget folded into it
        self.archived: list[HistoryItem | str] = []
        self._styles: dict[str, Style] = {}
        self._text: StreamingMarkdown | None = None
        self._thinking: ThinkingBlock | None = None
        self._tools: dict[str, ToolCard] = {}
        self._streamed_text = False
        self._streamed_thinking = False
        self._retry: Notice | None = None  # the last line a retry wrote
        self._leaving = False  # the focus is on its way from an item back to the prompt

    def compose(self) -> ComposeResult:
        yield self.archive

    def on_mount(self) -> None:
        self.anchor()

    # -- keys on its items --------------------------------------------------------------------
    def scroll_to_end_or(self, where: str) -> None:
        """The scroll keys: ``page_up``, ``page_down``, ``home``; else back to the end, and
        following it again."""
        page = self.scrollable_content_region.height
        if where in ("page_up", "page_down"):  # from where the last press went, at once:
            y = self.scroll_target_y + (page if where == "page_down" else -page)
            y = max(0, min(y, self.max_scroll_y))  # a deferred scroll counted every press of
            self.scroll_to(y=y, animate=False, immediate=True)  # a burst from the same place
        elif where == "home":
            self.scroll_home(animate=False)
        else:
            self.anchor()

    def focus_newest(self) -> None:
        """The newest card or thinking block (Tab in the prompt)."""
        items = [w for w in self.items if w.focusable]
        if items:
            items[-1].focus()
            items[-1].scroll_visible(animate=False)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._leaving = False  # an item has the focus (again): its keys are its own

    def on_key(self, event: events.Key) -> None:
        """With an item focused: Up/Down move between items (Down past the newest goes back to
        the prompt), and a typed character goes to the prompt, not lost. Once the focus is on
        its way back to the prompt, every key that still reaches the item is the prompt's —
        Enter and space included, which would toggle the card: typed fast, they came before
        the focus (issue 25 item 27)."""
        focused = self.screen.focused
        if focused is None or focused.parent is not self:
            return
        items = [w for w in self.items if w.focusable]
        if self._leaving:
            if event.key == "enter":
                self.post_message(ToPrompt(enter=True))
            elif event.is_printable and event.character:
                self.post_message(ToPrompt(event.character))
            else:
                return
        elif event.key in ("up", "down") and focused in items:
            i = items.index(focused) + (1 if event.key == "down" else -1)
            if 0 <= i < len(items):
                items[i].focus()
                items[i].scroll_visible(animate=False)
            elif i > 0:
                self._leaving = True
                self.post_message(ToPrompt())
        elif event.is_printable and event.character and not event.character.isspace():
            self._leaving = True
            self.post_message(ToPrompt(event.character))
        else:
            return
        event.stop()
        event.prevent_default()

    # -- adding things ------------------------------------------------------------------------
    def _add(self, widget: Widget) -> Widget:
        self.mount(widget)
        self._fold_old()
        return widget

    def _fold_old(self) -> None:
        items = [c for c in self.children if c is not self.archive]
        if len(items) <= KEEP + SLACK:
            return
        batch: list[Widget] = []
        for w in items[: len(items) - KEEP]:
            if not w.is_mounted or not hasattr(w, "archived") or _live(w):
                break
            batch.append(w)
        if not batch:
            return
        for w in batch:
            self.archive.append(w.archived(), update=False)  # type: ignore[attr-defined]
            self.archived.append(_source(w))
            if isinstance(w, ToolCard):
                self._tools.pop(w.tool_id, None)
        self.archive.add_class("-nonempty")
        self.archive.set_tail(None)  # re-measure once
        self.remove_children(batch)

    def add_user(self, text: str, files: list[str] | None = None) -> None:
        self._end_segments()
        self._add(UserTurn(text, files))
        self.anchor()

    def add_notice(self, text: str, level: str = "info", *, as_markdown: bool = False) -> Notice:
        self._end_segments()
        return self._add(Notice(text, level, as_markdown=as_markdown))  # type: ignore[return-value]

    def add_tool(
        self, name: str, tool_input: dict, summary: str = "", tool_id: str = ""
    ) -> ToolCard:
        self._end_segments()
        card = ToolCard(name, tool_input, summary, tool_id)
        if tool_id:
            self._tools[tool_id] = card
        self._add(card)
        return card

    def add_text(self, text: str) -> StreamingMarkdown:
        self._end_segments()
        return self._add(StreamingMarkdown(text, classes="assistant"))  # type: ignore[return-value]

    async def clear(self) -> None:
        self._end_segments()
        self._tools.clear()
        await self.remove_children([c for c in self.children if c is not self.archive])
        self.archive.set_items([])
        self.archived.clear()
        self.archive.remove_class("-nonempty")

    # -- events ------------------------------------------------------------------------------
    def handle(self, ev: AgentEvent) -> None:
        t = ev.type
        if ev.subagent and t in (E.TOOL_START, E.TOOL_END):  # inside its task call's card
            card = self._tools.get(str(ev.data.get("parent_tool_id", "")))
            status = "running" if t is E.TOOL_START else "error" if ev.is_error else "ok"
            if card is not None:
                card.sub_step(
                    ev.tool_id, ev.tool_name, call_summary(ev.tool_name, ev.tool_input), status
                )
        elif t is E.TEXT_DELTA:
            if self._text is None:
                self._finish_thinking()
                self._text = self._add(StreamingMarkdown(classes="assistant"))  # type: ignore[assignment]
            self._streamed_text = True
            self._text.write(ev.text)  # type: ignore[union-attr]
        elif t is E.THINKING_DELTA:
            if self._thinking is None:
                self._text = None
                self._thinking = self._add(ThinkingBlock())  # type: ignore[assignment]
            self._streamed_thinking = True
            self._thinking.write(ev.text)  # type: ignore[union-attr]
        elif t is E.MESSAGE:
            if ev.message is not None and ev.message.role == "assistant":
                self._assistant_done(ev.message)
        elif t is E.TOOL_START:
            self.add_tool(ev.tool_name, ev.tool_input, ev.text, ev.tool_id)
        elif t is E.TOOL_OUTPUT:
            if (card := self._tools.get(ev.tool_id)) is not None:
                card.live(ev.text)
        elif t is E.TOOL_END:
            card = self._tools.get(ev.tool_id) or self.add_tool(
                ev.tool_name, ev.tool_input, "", ev.tool_id
            )
            # the call's own time, as kept (0.0 is a time): not the card's, which counts the
            # user's answer to a permission question too
            card.finish(ev.text, is_error=ev.is_error, duration=ev.duration, data=ev.data)
        elif t is E.NOTICE and ev.data.get("compacting"):
            pass  # progress: the activity line shows it; the outcome is the next notice
        elif t is E.NOTICE and RETRY_MARK in ev.text and self._last_is_retry():
            self._retry.set_text(ev.text)  # type: ignore[union-attr]  # one line, not one a try
        elif t is E.NOTICE:
            who = getattr(ev, "subagent", "")
            notice = self.add_notice(f"{who}: {ev.text}" if who else ev.text, str(ev.level))
            self._retry = notice if RETRY_MARK in ev.text else None
        elif t is E.TURN_END:
            self._end_segments()
            note = _STOP_NOTES.get(ev.stop_reason) if ev.stop_reason else None
            if note:
                self.add_notice(*note)
        elif t is E.ERROR and self._last_is_retry():
            self._retries_gave_up(ev.text)
        elif t is E.ERROR:
            self.add_notice(ev.text, "error")

    def _retries_gave_up(self, error: str) -> None:
        """The line the retries wrote becomes the error, with how many tries it took."""
        retry, self._retry = self._retry, None
        assert retry is not None
        retry.set_text(gave_up(retry.text, error), "error")

    def _last_is_retry(self) -> bool:
        items = self.items
        return self._retry is not None and bool(items) and items[-1] is self._retry

    @property
    def items(self) -> list[Widget]:
        """The conversation's widgets (not the archive)."""
        return [c for c in self.children if c is not self.archive]

    def _assistant_done(self, message: Message) -> None:
        """A model call finished: show what was not streamed, and start fresh segments."""
        if not self._streamed_thinking:
            for b in message.blocks:
                if b.type == "thinking" and b.text and not b.redacted:
                    self._add(ThinkingBlock(b.text, done=True))
        if not self._streamed_text and message.text():
            self.add_text(message.text())
        self._end_segments()

    def _finish_thinking(self) -> None:
        if self._thinking is not None:
            self._thinking.finish()
            self._thinking = None

    def _end_segments(self) -> None:
        self._finish_thinking()
        self._text = None
        self._streamed_text = False
        self._streamed_thinking = False

    def interrupted(self) -> None:
        """The turn was cancelled: stop spinners and say so."""
        for card in self._tools.values():
            card.mark_interrupted()
        self.add_notice("interrupted", "warning")

    async def flush(self) -> None:
        """Paint every streamed block now."""
        for w in self.query(StreamingMarkdown):
            await w.flush()

    # -- history -----------------------------------------------------------------------------
    def show_history(
        self, messages: list[Message], subagents: dict | None = None, restored: Any = None
    ) -> None:
        """Draw a resumed conversation: prompts, replies, thinking (folded), tool cards (a task
        card whose call id is in ``subagents`` lists its subagent's calls from that transcript),
        and what the live view showed beside them (``restored.shown``: durations and outcomes,
        notices and errors, ``!command`` cards; ``larik/agent/shown.py``).

        The newest ``KEEP`` items become widgets, mounted at once; older ones go to the archive
        as data (``_Archived``), rendered newest first on idle. Anything already shown (a notice
        from before the agent was ready) stays below the history."""
        self._end_segments()
        freeze_loaded()  # the messages stay as long as the session: keep full collections off them
        shown = self.items
        items = history_items(messages, getattr(restored, "shown", None))
        cut = max(0, len(items) - KEEP)
        if cut:
            self.archive.prepend([_Archived(self, it) for it in items[:cut]], update=False)
            self.archived[0:0] = items[:cut]
            self.archive.add_class("-nonempty")
            self.archive.set_tail(None)
        widgets = [self._widget_for(it) for it in items[cut:]]
        for card in (w for w in widgets if isinstance(w, ToolCard)):
            card.sub_transcript = (subagents or {}).get(card.tool_id)
        if widgets:
            self.mount_all(widgets, before=shown[0] if shown else None)
        self.anchor()

    def _widget_for(self, it: HistoryItem) -> Widget:
        if it.kind == "user":
            return UserTurn(it.text)
        if it.kind == "notice":
            return Notice(it.text, it.level, as_markdown=it.markdown)
        if it.kind == "thinking":
            return ThinkingBlock(it.text, done=True)
        if it.kind == "tool":
            card = ToolCard(it.name, it.args, call_summary(it.name, it.args or {}), it.tool_id)
            if it.result is not None:
                card.finish(it.result, is_error=it.is_error, duration=it.duration, data=it.data)
            if it.tool_id:
                self._tools[it.tool_id] = card
            return card
        return StreamingMarkdown(it.text, classes="assistant")

    def archived_form(self, it: HistoryItem) -> RenderableType:
        """What an item of history looks like in the archive (as its widget's ``archived()``)."""
        if it.kind == "user":
            style = self._style("user", lambda: UserTurn(""))
            return UserTurn.archive_form(UserTurn.body_text(it.text), style)
        if it.kind == "notice":
            style = self._style(f"notice {it.level}", lambda: Notice("", it.level))
            body = Notice.body_of(it.text, it.level, as_markdown=it.markdown)
            return Notice.archive_form(body, style)
        if it.kind == "thinking":
            style = self._style("thinking", lambda: ThinkingBlock())
            title = ThinkingBlock.title_text(ThinkingBlock.done_title(it.text))
            return ThinkingBlock.archive_form(title, style)
        if it.kind == "tool":
            status, data = outcome(it.result, it.is_error, it.data)
            style = self._style(f"tool {status}", lambda: _card(status))
            summary = call_summary(it.name, it.args or {})
            header = ToolCard.header_of(it.name, summary, status, data, it.duration)
            return ToolCard.archive_form(header, style)
        style = self._style("text", lambda: StreamingMarkdown(classes="assistant"))
        return StreamingMarkdown.archive_form(it.text, style)

    def restyled(self) -> None:
        """The theme changed: the archive's items of history take the new one's styles when
        drawn again (a folded widget keeps the colours it was folded with; its diffs and code
        follow the theme)."""
        self._styles.clear()

    def _style(self, key: str, make: Callable[[], Widget]) -> Style:
        """The style a widget ``make()`` would have here (what its ``archived()`` takes from
        ``rich_style``), found once per kind without mounting one: the app's stylesheet is
        applied to a stand-in attached to this view, as Textual does for component classes."""
        style = self._styles.get(key)
        if style is None:
            probe = make()
            probe._attach(self)
            try:
                self.app.stylesheet.apply(probe)
                style = probe.rich_style
            finally:
                probe._detach()
            self._styles[key] = style
        return style


@dataclass(slots=True)
class HistoryItem:
    """One thing the conversation shows for a resumed message: a prompt, a reply, thinking, a
    tool call (with its result, once it has one) or a notice."""

    kind: str  # user | text | thinking | tool | notice
    text: str = ""
    level: str = "info"
    markdown: bool = False
    name: str = ""
    args: dict[str, Any] | None = None
    tool_id: str = ""
    result: str | None = None
    is_error: bool = False
    duration: float | None = None
    data: dict[str, Any] | None = None


def history_items(messages: list[Message], shown: Any = None) -> list[HistoryItem]:
    """The conversation's items, oldest first, in one pass; results joined to calls by id.
    ``shown`` (``larik.agent.shown.Shown``): the tool calls' durations and outcomes, and the
    notices, errors and ``!command`` runs at their places among the messages."""
    from ...agent.compaction import SUMMARY_HEADER

    items: list[HistoryItem] = []
    calls: dict[str, HistoryItem] = {}
    ends: dict[str, dict[str, Any]] = getattr(shown, "tool_ends", None) or {}
    extra = list(getattr(shown, "items", None) or ())
    extra.reverse()  # popped from the end, in order
    for i, m in enumerate(messages):
        while extra and extra[-1][0] <= i:
            _add_shown(items, extra.pop()[1])
        if m.role == "user":
            texts = [b.text for b in m.blocks if b.type == "text"]
            for b in m.blocks:
                if b.type == "tool_result" and (call := calls.get(b.id)) is not None:
                    call.result, call.is_error = b.content, b.is_error
            if texts and texts[0].startswith(SUMMARY_HEADER):
                summary = texts[0][len(SUMMARY_HEADER) :].strip()
                text = f"*Earlier conversation, compacted:*\n\n{summary}"
                items.append(HistoryItem("notice", text, markdown=True))
            elif texts:
                items.append(HistoryItem("user", texts[0]))
            if m.interrupted:  # the answers to calls an interrupt cut short
                items.append(HistoryItem("notice", "interrupted", level="warning"))
            continue
        for b in m.blocks:
            if b.type == "thinking" and b.text and not b.redacted:
                items.append(HistoryItem("thinking", b.text))
            elif b.type == "text" and b.text:
                items.append(HistoryItem("text", b.text))
            elif b.type == "tool_use":
                try:
                    args = b.input_dict()
                except ValueError:
                    args = {}
                call = HistoryItem("tool", name=b.name, args=args, tool_id=b.id)
                if b.id in ends:
                    call.duration, call.data = ends[b.id]["duration"], ends[b.id]["data"]
                calls[b.id] = call
                items.append(call)
        if m.interrupted:
            items.append(HistoryItem("notice", "interrupted", level="warning"))
    while extra:
        _add_shown(items, extra.pop()[1])
    return items


def _add_shown(items: list[HistoryItem], rec: dict[str, Any]) -> None:
    """A notice or a ``!command`` run, as the live view showed it: retries on one line that
    becomes the error if they gave up (``ConversationView.handle`` does the same live)."""
    if rec["kind"] == "shell":
        code = rec["exit_code"]
        items.append(
            HistoryItem(
                "tool",
                name="!",
                args={"command": rec["command"]},
                result=rec["output"],
                is_error=code != 0,
                duration=rec["duration"],
                data={"exit_code": code},
            )
        )
        return
    text = f"{rec['subagent']}: {rec['text']}" if rec.get("subagent") else rec["text"]
    last = items[-1] if items else None
    retrying = last is not None and last.kind == "notice" and RETRY_MARK in last.text
    if retrying and RETRY_MARK in text:
        last.text = text  # type: ignore[union-attr]
    elif retrying and rec["level"] == "error":
        last.text, last.level = gave_up(last.text, text), "error"  # type: ignore[union-attr]
    else:
        items.append(HistoryItem("notice", text, level=rec["level"]))


def gave_up(retry_line: str, error: str) -> str:
    """The error a run of retries ended in, with how many tries it took."""
    attempt = retry_line.rpartition(RETRY_MARK)[2].split(" ", 1)[0]
    return error + (f" (tried {int(attempt) + 1} times)" if attempt.isdigit() else "")


class _Archived:
    """An item of history in the archive: made into its renderable when the archive renders it
    (and again if the width changes), so nothing is parsed before it is needed."""

    __slots__ = ("item", "view")

    def __init__(self, view: ConversationView, item: HistoryItem) -> None:
        self.view = view
        self.item = item

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.view.archived_form(self.item)


def _source(w: Widget) -> HistoryItem | str:
    """What a search finds in a widget folded into the archive (its text, or its call)."""
    if isinstance(w, ToolCard):
        result = w.result if w.status != "running" else w.live_text
        return HistoryItem("tool", name=w.tool_name, args=w.tool_input, result=result, data=w.data)
    return str(getattr(w, "search_text", ""))


def _card(status: str) -> ToolCard:
    card = ToolCard("")
    card.set_classes(f"tool-card -{status}")
    return card


def _live(w: Widget) -> bool:
    """Still changing: a running tool card, or a reply with text not yet painted."""
    if isinstance(w, ToolCard):
        return w.status == "running"
    if isinstance(w, StreamingMarkdown):
        return bool(w._pending)
    return False
