"""How ``larik``'s command line is read: the Click groups under the Typer app of larik/cli.py.

* **Lazy subcommands.** The root group lists its subcommands from the table
  :data:`COMMANDS` (name -> module in larik/commands/, summary): ``larik --help`` imports none of
  their modules, so it costs the same however many there are; running one imports its module.
* **Whole summaries.** A group's help lists each subcommand's summary whole, wrapped to the
  terminal (Click cuts it with "..." to one line).
* **A bare prompt.** ``larik "fix the failing test"`` — a first word that is not a subcommand —
  starts the TUI with that prompt sent (:data:`PROMPT`, read by the root callback); words
  after ``--`` are a prompt whatever they are (``larik -- bench``). A single word that is a
  near miss of a subcommand (``larik bnch``) is refused with the hint, not sent to a model.
* **Global options before or after the subcommand.** An option of ``larik`` itself given
  before a subcommand is handed to it when it takes the same option (``larik --trust-project
  mcp list`` is ``larik mcp list --trust-project``), and refused when it does not, rather
  than ignored.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from typer.core import TyperGroup

__all__ = ["COMMANDS", "PROMPT", "Entry", "Group", "RootGroup", "load_command"]

# Click's classes are Typer's own copy of them (typer._click, private): they are told apart here
# by their attributes (``param_type_name``), and errors raised with ``ctx.fail``.

#: ``ctx.meta`` key of the bare prompt (None when there is none).
PROMPT = "larik.prompt"

#: Typer settings of every command larik builds (no Rich: ``--help`` stays light).
TYPER_SETTINGS: dict[str, Any] = {
    "add_completion": False,
    "rich_markup_mode": None,
    "pretty_exceptions_enable": False,
}


class Entry(NamedTuple):
    module: str  #: the module of larik/commands/ whose ``register(app)`` adds the command
    summary: str  #: what ``larik --help`` says of it: its help's first sentence, whole


COMMANDS: dict[str, Entry] = {
    "acp": Entry(
        "acp", "Speak the Agent Client Protocol on stdin and stdout (for Zed, JetBrains, Neovim)."
    ),
    "bench": Entry("bench", "Run coding tasks on models and grade them by their tests."),
    "login": Entry(
        "login", "Sign in with a ChatGPT plan or a GitHub Copilot seat, to use its models."
    ),
    "logout": Entry(
        "login", "Forget a sign-in's stored login (revoke it on the provider's site too: see docs)."
    ),
    "local": Entry(
        "local",
        "Models Larik runs itself, offline: pull, list, rm or serve one (see docs/local-models.md).",
    ),
    "lsp": Entry(
        "lsp", "List the language servers: found where, and whether they run in this project."
    ),
    "mcp": Entry("mcp", "MCP tool servers: list, add, remove or log in to them (see docs/mcp.md)."),
    "models": Entry(
        "models",
        "List the models you can use here (a key, a sign-in, a local server or a pulled model): "
        "window, prices per 1M tokens; --all adds the rest.",
    ),
    "routing": Entry(
        "routing",
        "Show where each role goes now: role -> provider/model -> fallbacks "
        "(and why any is skipped).",
    ),
    "trust": Entry(
        "trust", "A project's trust: show what it asks for and why, trust, untrust or forget it."
    ),
    "undo": Entry("undo", "Take back the file changes of the session's last turn not undone yet."),
    "rewind": Entry(
        "undo", "List the session's turns, or go back to before turn N (code and conversation)."
    ),
}


class Group(TyperGroup):
    """A command group whose help lists each subcommand with its summary whole."""

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = []
        for name in self.list_commands(ctx):
            summary = self.summary(ctx, name)
            if summary is not None:
                rows.append((name, summary))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def summary(self, ctx: Any, name: str) -> str | None:
        """What the help says of subcommand ``name`` (None: not shown)."""
        cmd = self.get_command(ctx, name)
        if cmd is None or cmd.hidden:
            return None
        return cmd.get_short_help_str(limit=10_000)


class RootGroup(Group):
    """``larik`` itself: lazy subcommands, a bare prompt, its options handed down."""

    def list_commands(self, ctx: Any) -> list[str]:
        return [*COMMANDS, *(name for name in self.commands if name not in COMMANDS)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        cmd = self.commands.get(cmd_name)
        if cmd is None and cmd_name in COMMANDS:
            cmd = self.commands[cmd_name] = load_command(cmd_name)
        return cmd

    def summary(self, ctx: Any, name: str) -> str | None:
        if name in COMMANDS and name not in self.commands:
            return COMMANDS[name].summary  # without importing its module
        return super().summary(ctx, name)

    # -- a bare prompt ------------------------------------------------------------------------
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta[PROMPT] = None
        kind = self._first_word(ctx, args)
        if kind is None:
            return super().parse_args(ctx, args)
        ctx.allow_interspersed_args = True  # options may follow the prompt's words
        words = super(TyperGroup, self).parse_args(ctx, args)  # Click's, all words kept
        ctx.args, ctx._protected_args = [], []
        if not words:
            return []
        prompt = " ".join(words)
        if kind == "word" and len(words) == 1 and not any(c.isspace() for c in prompt):
            import difflib

            near = difflib.get_close_matches(prompt, self.list_commands(ctx), n=1)
            if near:
                ctx.fail(
                    f"No such command {prompt!r}. Did you mean {near[0]!r}? "
                    f"(To send it to the model as a prompt: larik -- {prompt})"
                )
        ctx.meta[PROMPT] = prompt
        return []

    def _first_word(self, ctx: Any, args: list[str]) -> str | None:
        """How the command line goes on after larik's own options: None for a subcommand (or
        no word at all), "word" for a bare prompt, "escaped" for words after ``--``."""
        options: list[Any] = [p for p in self.get_params(ctx) if _is_option(p)]
        valued = {
            opt for p in options if not p.is_flag and not p.count and p.nargs > 0 for opt in p.opts
        }
        i = 0
        while i < len(args):
            arg = args[i]
            if arg == "--":
                return "escaped" if i + 1 < len(args) else None
            if arg.startswith("--"):
                i += 2 if arg in valued else 1  # --name=value is one word
                continue
            if arg.startswith("-") and len(arg) > 1:  # -m SPEC, -mSPEC, -cm SPEC
                for j, letter in enumerate(arg[1:], 1):
                    if f"-{letter}" in valued:
                        i += 1 if j == len(arg) - 1 else 0
                        break
                i += 1
                continue
            return None if arg in self.list_commands(ctx) else "word"
        return None

    # -- larik's options, handed to the subcommand --------------------------------------------
    def invoke(self, ctx: Any) -> Any:
        if ctx._protected_args:
            self._hand_down(ctx, [*ctx._protected_args, *ctx.args])
        return super().invoke(ctx)

    def _hand_down(self, ctx: Any, args: list[str]) -> None:
        """Give the subcommand that will run the options of larik's given before it, as its
        own (through Click's ``default_map``, so the same option after it still wins)."""
        given = [
            p
            for p in self.get_params(ctx)
            if _is_option(p)
            and p.name is not None
            and not p.is_eager
            and getattr(ctx.get_parameter_source(p.name), "name", "") == "COMMANDLINE"
        ]
        if not given:
            return
        path: list[str] = []
        cmd: Any = self
        rest = list(args)
        while isinstance(cmd, TyperGroup) and rest:
            name = next((a for a in rest if not a.startswith("-")), None)
            sub = cmd.get_command(ctx, name) if name is not None else None
            if name is None or sub is None:
                break
            path.append(name)
            rest = rest[rest.index(name) + 1 :]
            cmd = sub
        if cmd is self or isinstance(cmd, TyperGroup):
            return  # an unknown command, or a group without its subcommand: Click says so
        theirs = {opt: p for p in cmd.get_params(ctx) if _is_option(p) for opt in p.opts}
        defaults: dict[str, Any] = {}
        for p in given:
            target: Any = next((theirs[o] for o in p.opts if o in theirs), None)
            if target is None or target.name is None:
                where = " ".join(["larik", *path])
                ctx.fail(
                    f"{max(p.opts, key=len)} is an option of larik itself (the TUI and print mode), "
                    f"not of `{where}`"
                )
            value = ctx.params[p.name]  # type: ignore[index]
            defaults[target.name] = [value] if target.multiple else value
        tree: dict[str, Any] = defaults
        for name in reversed(path):
            tree = {name: tree}
        ctx.default_map = {**(ctx.default_map or {}), **tree}


def _is_option(param: Any) -> bool:
    return getattr(param, "param_type_name", "") == "option"


def load_command(name: str) -> Any:
    """Subcommand ``name`` of the table, built from its module's ``register(app)``."""
    import importlib

    import typer
    from typer.main import get_group

    module = importlib.import_module(f"{__package__}.commands.{COMMANDS[name].module}")
    holder = typer.Typer(**TYPER_SETTINGS)
    module.register(holder)
    cmd = get_group(holder).commands.get(name)
    if cmd is None:  # a programming error: tests/test_command_line.py walks the table
        raise LookupError(f"larik.commands.{COMMANDS[name].module} registers no {name!r}")
    return cmd
