"""Shown when there is no model to talk to: no key set and no local server answering.

It says exactly how to add one: the environment variable of each provider, a config example,
and which local servers Larik looked for. ``r`` looks again, ``q`` quits. Never a traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from ...routing.local import LocalServer, servers
from ..render import markdown

if TYPE_CHECKING:
    from ...session import Session
    from ..ui import UI
    from ..widgets.status_bar import StatusBar

__all__ = ["NoModelScreen", "no_model_text", "offer"]


def key_rows() -> list[tuple[str, str]]:
    """(provider, its key variables) for every registered provider that needs a key."""
    from ...llm import registry

    rows = []
    for name in registry.names():
        spec = registry.get(name)
        if spec is not None and spec.credential_env_names and not spec.local:
            rows.append((name, " or ".join(spec.credential_env_names)))
    return rows


def _config_path() -> str:
    try:
        from ...config import user_config_path

        return str(user_config_path())
    except Exception:  # only used to word a hint
        return "~/.config/larik/config.toml"


def _example_model() -> str:
    try:
        from ...llm.catalog import default_model

        model = default_model("anthropic")
        return f"anthropic/{model}" if model else "anthropic/claude-sonnet-4-5"
    except Exception:  # only used to word a hint
        return "anthropic/claude-sonnet-4-5"


def _servers(config: object = None) -> tuple[LocalServer, ...]:
    try:
        return servers(config)
    except Exception:  # only used to word a hint
        return ()


def no_model_text(reason: str = "", looked: tuple[LocalServer, ...] | None = None) -> str:
    """``looked``: the local servers that were asked (by default, those of the default config)."""
    rows = [(f"export {env.split(' or ')[0]}=...", name) for name, env in key_rows()]
    width = max(len(cmd) for cmd, _ in rows)
    keys = "\n".join(f"    {cmd:<{width}}  # {name}" for cmd, name in rows)
    looked = _servers() if looked is None else looked
    servers = "\n".join(
        f"| {s.label} | `{s.address}` | `{s.provider}/MODEL` | not answering |" for s in looked
    )
    why = f"\n*{reason}*\n" if reason else ""
    return f"""# No model yet
{why}
Larik needs a key for a hosted model, or a model server running on this machine.

**1. Set a key** in your shell, then run `larik` again:

{keys}

**2. Or write it in the config** (`{_config_path()}`):

    model = "{_example_model()}"

    [providers.anthropic]
    api_key_env = "MY_ANTHROPIC_KEY"   # or api_key = "..." (the file is then kept private)

**3. Or start a local server.** Larik looked for these (your config's `base_url` counts):

| server | address | use as | |
|---|---|---|---|
{servers}

e.g. `ollama serve` and `ollama pull qwen3`, then press **r** here.
"""


KEYS = "r: look again · q: quit · PgUp/PgDn: scroll"


class NoModelScreen(Screen[str]):
    BINDINGS = [
        Binding("r", "retry", "look again"),
        Binding("q,escape", "quit_app", "quit"),
    ]

    def __init__(self, reason: str = "", config: object = None) -> None:
        super().__init__()  # no id: "r" may put up another one before this one is gone
        self.reason = reason
        self.config = config

    def compose(self) -> ComposeResult:
        text = no_model_text(self.reason, _servers(self.config))
        yield Static(KEYS, id="no-model-keys")  # docked: on screen however small it is
        with VerticalScroll():
            yield Static(markdown(text), id="no-model-text")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()  # the page keys scroll it

    def action_retry(self) -> None:
        self.dismiss("retry")

    def action_quit_app(self) -> None:
        self.dismiss("quit")


async def offer(session: Session, ui: UI, status: StatusBar, reason: str) -> None:
    """No model could start (``reason``, a missing key): the picker over the local servers'
    models when one answers, else this screen (``r`` tries again, ``q`` quits)."""
    from ..models import looked_text

    status.show(None, note="looking for local model servers…")
    local = await ui.models.find_local(ui.config)
    if local:
        ui.say(f"{reason}. Found models on this machine: pick one.", "warning")
        status.show(None, note="no model: pick one")
        ui.models.open_picker(session, ui, title="Pick a model", looked=looked_text(local))
        return
    status.show(None, note="no model")

    def answered(answer: str | None) -> None:
        if answer == "retry":
            ui.run(ui.start_agent(session.options.model), "agent")
        else:
            ui.quit_now()

    ui.push(NoModelScreen(reason, ui.config), callback=answered)
