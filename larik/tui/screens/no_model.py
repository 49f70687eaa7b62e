"""Shown when there is no model to talk to: no key set and no local server answering.

It says exactly how to add one: a model Larik runs itself (the catalog's pick for this machine,
with its size: ``d`` downloads it — the one question asked, and nothing is downloaded without
it), the environment variable of each provider, a config example, and which local servers
Larik looked for. ``r`` looks again, ``q`` quits. Once the download is done the agent starts on
it (``retry``: routing's default is now that model). Never a traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
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


def _offer() -> tuple[Any, str] | None:
    try:
        return embedded_offer()
    except Exception:  # the offer is a hint: the screen shows without it
        return None


def _servers(config: object = None) -> tuple[LocalServer, ...]:
    try:
        return servers(config)
    except Exception:  # only used to word a hint
        return ()


def embedded_offer() -> tuple[Any, str]:
    """(the catalog row offered for this machine, why it cannot run here: "" when it can)."""
    import importlib.util

    from ...llm.local import catalog, cpu
    from ...llm.local.engine import install_hint

    row = catalog.recommend()
    problem = cpu.check()
    if not problem and importlib.util.find_spec("xllamacpp") is None:
        problem = f"the engine is not installed: `{install_hint()}`, then run larik again"
    if not problem and importlib.util.find_spec("huggingface_hub") is None:
        problem = f"downloads need huggingface_hub: `{install_hint()}`, then run larik again"
    return row, problem


def _embedded_text(offer: tuple[Any, str] | None) -> str:
    if offer is None:
        return ""
    row, problem = offer
    ram, cores = _machine()
    what = f"**{row.name}** ({row.size_text} download, {row.params_b:g}B parameters)"
    where = f"the pick for {ram} of RAM and {cores} cores" if ram else "the pick for this machine"
    if problem:
        return f"**0. Run a model on this machine**, offline and free: {what} — {problem}.\n\n"
    return (
        f"**0. Run a model on this machine**, offline and free (slower than a hosted one): "
        f"press **d** to download {what}, {where}. Larik runs it itself "
        f"(`larik local` has the others). A model already on this machine: "
        f"`larik local pull /path/to/model.gguf`, then press **r**.\n\n"
    )


def _machine() -> tuple[str, int]:
    from ...llm.local.catalog import machine

    ram, cores = machine()
    return (f"{ram:.0f} GB" if ram else "", cores)


def no_model_text(
    reason: str = "",
    looked: tuple[LocalServer, ...] | None = None,
    offer: tuple[Any, str] | None = None,
) -> str:
    """``looked``: the local servers that were asked (by default, those of the default config);
    ``offer``: the embedded model offered (:func:`embedded_offer`; None: not offered)."""
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
Larik needs a model it runs itself, a key for a hosted model, or a model server running on
this machine.

{_embedded_text(offer)}**1. Set a key** in your shell, then run `larik` again:

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


KEYS = "d: download · r: look again · q: quit · PgUp/PgDn: scroll"


class NoModelScreen(Screen[str]):
    BINDINGS = [
        Binding("d", "download", "download the model"),
        Binding("r", "retry", "look again"),
        Binding("q,escape", "quit_app", "quit"),
    ]

    def __init__(self, reason: str = "", config: object = None) -> None:
        super().__init__()  # no id: "r" may put up another one before this one is gone
        self.reason = reason
        self.config = config
        self.offer = _offer()
        self.downloading = False

    def compose(self) -> ComposeResult:
        text = no_model_text(self.reason, _servers(self.config), self.offer)
        with Vertical(id="no-model-bottom"):  # docked: on screen however small it is
            yield Static("", id="no-model-pull")  # above the keys, never over them
            yield Static(KEYS, id="no-model-keys")
        with VerticalScroll():
            yield Static(markdown(text), id="no-model-text")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()  # the page keys scroll it

    def action_retry(self) -> None:
        if not self.downloading:
            self.dismiss("retry")

    def action_download(self) -> None:
        """The one question's answer: download the model offered (in a thread), then start."""
        if self.offer is None or self.downloading:
            return
        row, problem = self.offer
        if problem:
            self._say(problem)
            return
        self.downloading = True
        self._say(f"downloading {row.name} ({row.size_text}) …")
        self.run_worker(lambda: self._pull(row.name), thread=True, exclusive=True)

    def _pull(self, name: str) -> None:
        from ...config import Config
        from ...llm.errors import LocalModelError
        from ...llm.local.pull import pull, reporting_bar
        from ...llm.local.store import Store

        config: Any = self.config if self.config is not None else Config()
        say = lambda text: self.app.call_from_thread(self._say, text)  # noqa: E731
        try:
            pull(name, Store(config.local_dir), say=say, tqdm_class=reporting_bar(self._progress))
        except LocalModelError as e:
            self.app.call_from_thread(self._failed, str(e))
            return
        except Exception as e:  # never a traceback on screen
            self.app.call_from_thread(self._failed, f"{type(e).__name__}: {e}")
            return
        self.app.call_from_thread(self.dismiss, "retry")

    def _progress(self, done: int, total: int | None) -> None:
        if total:
            from ...llm.local.catalog import human_size

            text = (
                f"downloading: {human_size(done)} of {human_size(total)} ({done * 100 // total}%)"
            )
            self.app.call_from_thread(self._say, text)

    def _failed(self, message: str) -> None:
        self.downloading = False
        self._say(f"{message} (d: try again)")

    def _say(self, text: str) -> None:
        """A line above the page: plain text (a command's ``[local]`` is not markup)."""
        line = self.query_one("#no-model-pull", Static)
        line.update(Text(text))
        line.display = True

    def action_quit_app(self) -> None:
        self.dismiss("quit")


async def offer(session: Session, ui: UI, status: StatusBar, reason: str) -> None:
    """No model could start (``reason``, a missing key): the picker over the local servers'
    models when one answers, else this screen (``r`` tries again, ``q`` quits)."""
    from ..messages import OpenAgent, OpenScreen, Quit
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
            ui.post(OpenAgent(session.options.model))
        else:
            ui.post(Quit(now=True))

    ui.post(OpenScreen(NoModelScreen(reason, ui.config), answered))
