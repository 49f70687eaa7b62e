"""``larik login chatgpt|copilot``, ``larik login --status``, ``larik logout [NAME]``: signing in
with a plan you already pay for (docs/subscriptions.md).

Light at import time: the sign-in modules (and their HTTP client) are imported when a command
runs. The accounts live under ``<state>/accounts`` (``Config.accounts_dir``).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import typer

from ..terminal_text import safe_output
from ..words import count


def register(app: typer.Typer) -> None:
    app.command("login")(safe_output(login))
    app.command("logout")(safe_output(logout))


def _fail(message: str, code: int = 2) -> None:
    print(f"larik: {message}", file=sys.stderr)
    raise typer.Exit(code)


def login(
    name: str = typer.Argument("", metavar="[chatgpt|copilot]", help="What to sign in to."),
    device: bool = typer.Option(
        False, "--device", help="ChatGPT: sign in with a code on another device (SSH, containers)."
    ),
    host: str = typer.Option(
        "", "--host", metavar="HOST", help="Copilot: a GitHub Enterprise host (acme.ghe.com)."
    ),
    from_codex: bool = typer.Option(
        False, "--from-codex", help="ChatGPT: use the login Codex keeps in ~/.codex/auth.json."
    ),
    status: bool = typer.Option(False, "--status", help="Show who is signed in to what."),
    no_browser: bool = typer.Option(False, "--no-browser", help="Do not open a browser."),
) -> None:
    """Sign in with a ChatGPT plan or a GitHub Copilot seat, to use its models."""
    from ..llm.signin import SIGNINS

    if status or not name:
        raise typer.Exit(_status())
    if name not in SIGNINS:
        _fail(f"unknown sign-in {name!r}: use {' or '.join(SIGNINS)}")
    from ..llm.errors import LarikError

    try:
        account = _login(name, device, host, from_codex, not no_browser)
    except LarikError as e:
        _fail(str(e), 1)
    except KeyboardInterrupt:
        _fail("sign-in cancelled", 130)
    store = _store()
    path = store.save(account)
    if name == "copilot":
        _list_models(store, account)
    who = f" as {account.label}" if account.label else ""
    plan = f" ({account.plan} plan)" if account.plan else ""
    print(f"Signed in to {SIGNINS[name].title}{who}{plan}. Login kept in {path} (mode 0600).")
    print(f"Use its models as {name}/MODEL; `larik logout {name}` forgets it.")


def _list_models(store: Any, account: Any) -> None:
    """The seat's model listing, kept beside the login (which wire shape each model speaks);
    a failure is one line, and the models are then shaped by their names."""
    from ..llm.errors import LarikError
    from ..llm.signin import copilot_models

    try:
        listing = copilot_models.fetch(
            account, account.extra.get("base_url", ""), _auth_url("copilot")
        )
    except LarikError as e:
        print(
            f"larik: {e} (models are shaped by their names until it can be read)", file=sys.stderr
        )
        return
    copilot_models.save(store, account, listing)
    served = count(len(listing.models), "model")
    print(f"Copilot serves {served} here (larik models --provider copilot).")


def _store() -> Any:
    from ..config import load_config
    from ..llm.errors import ConfigError
    from ..llm.signin.store import AccountStore

    try:
        return AccountStore(load_config().accounts_dir)
    except ConfigError as e:
        _fail(str(e))


def _auth_url(name: str) -> str:
    from ..config import load_config
    from ..llm.endpoint import resolve_endpoint
    from ..llm.errors import ConfigError

    try:
        return resolve_endpoint(name, load_config()).auth_url
    except ConfigError as e:
        _fail(str(e))
        raise


def _login(name: str, device: bool, host: str, from_codex: bool, browser: bool) -> Any:
    auth_url = _auth_url(name)
    if name == "copilot":
        from ..llm.signin import copilot

        if device or from_codex:
            _fail(
                "copilot signs in with a device code always; --device and --from-codex are ChatGPT's"
            )
        return copilot.login(auth_url, show=_show_code(browser and not _headless()), host=host)
    from ..llm.signin import chatgpt

    if host:
        _fail("--host is for copilot (a GitHub Enterprise host)")
    codex = chatgpt.codex_auth_path()
    if from_codex or (
        not device and codex.is_file() and _ask(f"Use the ChatGPT login Codex keeps in {codex}?")
    ):
        account = chatgpt.read_codex_file(codex)
        print(
            "Read Codex's login (its file is left as it is). Larik and Codex now share one "
            "refresh token: after one refreshes it, the other may need to sign in again.",
            file=sys.stderr,
        )
        return account
    if device:
        return chatgpt.login_device(auth_url, show=_show_code(browser and not _headless()))
    interactive, headless = sys.stdin.isatty(), _headless()
    if headless:
        print(
            f"larik: {headless}, so no browser opens here; `larik login chatgpt --device` "
            "signs in with a code on another device instead.",
            file=sys.stderr,
        )
    return chatgpt.login_browser(
        auth_url,
        show=_show_url(browser and not headless, pasting=interactive),
        paste=(lambda: sys.stdin.readline()) if interactive else None,
    )


def _ask(question: str) -> bool:
    if not sys.stdin.isatty():
        return False
    try:
        return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


def _open(url: str) -> None:
    """The sign-in page in a browser that is not the project's: :mod:`webbrowser` looks its
    programs (``xdg-open``, a browser's name) up on ``PATH``, so it looks on a ``PATH`` that
    leads into no project (:mod:`larik.host_programs`) and its browser gets that ``PATH``."""
    import webbrowser

    from .. import host_programs

    saved = os.environ.get("PATH")
    os.environ["PATH"] = host_programs.safe_path(roots=(os.getcwd(),))
    try:
        webbrowser.open(url)
    except webbrowser.Error:
        pass
    finally:
        if saved is None:
            os.environ.pop("PATH", None)
        else:
            os.environ["PATH"] = saved


def _headless() -> str:
    """Why no browser can be opened for the user here ("" when one can): a session over SSH,
    or Linux without a display (no ``DISPLAY`` or ``WAYLAND_DISPLAY``)."""
    if os.environ.get("SSH_CONNECTION"):
        return "this is an SSH session"
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return "there is no display (DISPLAY and WAYLAND_DISPLAY are unset)"
    return ""


def _waiting_for(url: str) -> str:
    """Where the browser comes back to: the ``redirect_uri`` of the sign-in page's URL."""
    from urllib.parse import parse_qs, urlsplit

    return parse_qs(urlsplit(url).query).get("redirect_uri", ["this machine"])[0]


def _show_url(browser: bool, *, pasting: bool) -> Any:
    def show(url: str) -> None:
        print(f"Open this page to sign in:\n\n  {url}\n", file=sys.stderr)
        print(
            f"Waiting for the browser to come back to {_waiting_for(url)} (Ctrl+C to cancel).",
            file=sys.stderr,
        )
        if pasting:
            print(
                "If the browser cannot reach this machine, paste here the address it ends on:",
                file=sys.stderr,
            )
        if browser:
            _open(url)

    return show


def _show_code(browser: bool) -> Any:
    def show(url: str, code: str) -> None:
        print(f"Open {url} and enter the code:\n\n  {code}\n", file=sys.stderr)
        print("(Never share this code: it signs in as you.)", file=sys.stderr)
        print("Waiting for the code to be entered (Ctrl+C to cancel).", file=sys.stderr)
        if browser:
            _open(url)

    return show


def _status() -> int:
    from ..llm.signin import SIGNINS
    from ..llm.signin.quota import describe, load

    store = _store()
    now = time.time()
    any_account = False
    for name in SIGNINS:
        accounts = store.all(name)
        if not accounts:
            print(f"{name}: not signed in (larik login {name})")
            continue
        any_account = True
        for i, a in enumerate(accounts):
            who = a.label or a.account_id
            plan = f", {a.plan} plan" if a.plan else ""
            state = "token refreshes when used" if a.expired(now=now) else "signed in"
            used = " (in use)" if i == 0 and len(accounts) > 1 else ""
            quota = (_usage_now(store, a) if i == 0 and not a.expired(now=now) else None) or load(
                store, a
            )
            shown = f"; {describe(quota)}" if quota is not None else ""
            print(f"{name}: {who}{plan}: {state}{used}{shown}")
    return 0 if any_account else 1


def _usage_now(store: Any, account: Any) -> Any:
    """A ChatGPT plan's windows as its usage endpoint says now (kept beside the account);
    None for another sign-in, or when it cannot be read (the last figures seen are shown)."""
    if account.signin != "chatgpt":
        return None
    from ..config import load_config
    from ..llm.endpoint import resolve_endpoint
    from ..llm.errors import LarikError
    from ..llm.signin import chatgpt
    from ..llm.signin.quota import save

    try:
        found = chatgpt.usage(account, resolve_endpoint("chatgpt", load_config()).base_url)
    except LarikError:
        return None
    if found is not None:
        save(store, account, found)
    return found


def logout(
    name: str = typer.Argument("", metavar="[chatgpt|copilot]", help="Empty: every sign-in."),
) -> None:
    """Forget a sign-in's stored login (revoke it on the provider's site too: see docs)."""
    from ..llm.signin import SIGNINS

    if name and name not in SIGNINS:
        _fail(f"unknown sign-in {name!r}: use {' or '.join(SIGNINS)}")
    store = _store()
    gone = 0
    for each in [name] if name else list(SIGNINS):
        removed = store.remove(each)
        gone += len(removed)
        for a in removed:
            print(f"Signed out of {SIGNINS[each].title} ({a.label or a.account_id}).")
    if not gone:
        print("Nothing to sign out of.")
