"""``larik models``: the model catalog, with which models you can use right now.

Light at import time: config, catalog and routing are imported when the command runs.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from ..llm import jsontext
from ..models_table import Access
from ..terminal_text import safe_output
from ..words import count

SCAN_PORTS = "1024-65535"  # what --scan asks by default: every port but the privileged ones


def register(app: typer.Typer) -> None:
    app.command("models")(safe_output(models))


def models(
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    provider: str = typer.Option(
        "", "--provider", metavar="NAME", help="Only this provider's models."
    ),
    available: bool = typer.Option(
        False, "--available", help="Only models with a key or a running local server."
    ),
    show_all: bool = typer.Option(
        False, "--all", help="Also the models that need a key, a sign-in or a server."
    ),
    # Annotated: a caller that leaves these out (a test, another command) gets False and the
    # default range, not Typer's OptionInfo (which is truthy and scanned every port)
    scan: Annotated[
        bool,
        typer.Option("--scan", help="Look for model servers on other ports of 127.0.0.1 (once)."),
    ] = False,
    ports: Annotated[
        str,
        typer.Option(
            "--ports", metavar="RANGES", help="The ports --scan asks, e.g. 8000-8100,11434."
        ),
    ] = SCAN_PORTS,
) -> None:
    """List the models you can use here (a key, a sign-in, a local server or a pulled model):
    window, prices per 1M tokens; --all adds the rest. The table fits the terminal."""
    from ..llm.errors import ConfigError

    if scan:
        raise typer.Exit(_scan(ports))

    try:
        rows, as_of, access = _rows(provider, available)
    except ConfigError as e:
        print(f"larik: {e}", file=sys.stderr)
        raise typer.Exit(2) from None
    known = _provider_names() if provider and not rows else []
    if known and provider not in known:
        print(f"larik: unknown provider {provider!r}; known: {', '.join(known)}", file=sys.stderr)
        raise typer.Exit(2)
    if json_out:
        print(jsontext.dumps({"prices_as_of": as_of, "models": rows}, indent=2))
        return
    from ..models_table import print_models

    print_models(rows, as_of, access, show_all=show_all or bool(provider), hint=not available)


def _scan(ports: str) -> int:
    """``larik models --scan``: model servers on 127.0.0.1 that no provider names yet, and the
    config lines that would (the known addresses are found without a scan)."""
    from ..routing.local import parse_ports, scan_ports

    try:
        wanted = parse_ports(ports)
    except ValueError as e:
        print(f"larik: {e}", file=sys.stderr)
        return 2
    print(f"looking for model servers on 127.0.0.1, {len(wanted):,} ports ({ports}) …")
    found = scan_ports(wanted)
    if not found:
        print("none answered as Ollama (/api/tags) or an OpenAI-compatible server (/v1/models)")
        return 0
    for f in found:
        listed = ", ".join(f.models[:5]) + (" …" if len(f.models) > 5 else "")
        print(f"127.0.0.1:{f.port}  {f.kind}  {count(len(f.models), 'model')}: {listed or '-'}")
    print("\nTo use one, add it to your config (larik models then lists its models):\n")
    print("\n\n".join(f.config_lines(f"local{f.port}") for f in found))
    return 0


ENGINE = Access(True, "pulled", "Larik's engine starts it when first asked")
ENGINE_UP = Access(True, "engine up")


def _row(spec: str, provider: str, model: str, access: Access, **fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "spec": spec,
        "provider": provider,
        "model": model,
        "available": access.ok,
        "access": access.text,
        "local": False,
        "context_window": None,
        "max_output": None,
        "input_price": 0.0,
        "output_price": 0.0,
        "cache_read_price": None,
        "cache_write_price": None,
        "tools": None,
        "vision": False,
        "note": "",
    }
    row.update(fields)
    return row


def _rows(
    only_provider: str, only_available: bool
) -> tuple[list[dict[str, Any]], str, dict[str, Access]]:
    """Every model's row, the usable ones first; and each provider's access."""
    from ..config import load_config
    from ..llm import catalog
    from ..routing.local import scan, served_window

    config = load_config()
    found = scan(config)
    access: dict[str, Access] = {}
    rows: list[dict[str, Any]] = []
    for info in catalog.entries(config):
        if only_provider and info.provider != only_provider:
            continue
        if info.provider not in access:
            access[info.provider] = _access(info.provider, info.local, found.up, config)
        rows.append(
            _row(
                info.spec,
                info.provider,
                info.id,
                access[info.provider],
                local=info.local,
                context_window=info.context_window,
                max_output=info.max_output,
                input_price=info.input_price,
                output_price=info.output_price,
                cache_read_price=info.cache_read_price,
                cache_write_price=info.cache_write_price,
                tools=info.tools,
                vision=info.vision,
                note=info.note,
            )
        )
    for name, model, window, output, tools, vision in _seat_models(config, rows):
        if (only_provider and name != only_provider) or name not in access:
            continue
        if not access[name].ok:
            continue
        rows.append(
            _row(
                f"{name}/{model}",
                name,
                model,
                access[name],
                context_window=window,
                max_output=output,
                tools=tools,
                vision=vision,
                note="listed by your Copilot seat; not in the catalog",
            )
        )
    listed = {r["spec"] for r in rows}
    for m in found.models:
        if m.spec in listed or (only_provider and m.provider != only_provider):
            continue
        info = catalog.lookup(m.model, m.provider, config)
        how = _served_access(m.provider, m.model, config)
        access.setdefault(m.provider, how)
        rows.append(
            _row(
                m.spec,
                m.provider,
                m.model,
                how,
                local=True,
                context_window=served_window(m, config),
                max_output=info.max_output if info.known else None,
                tools=info.tools if info.known else None,
                vision=bool(info.vision) if info.known else False,
                note="served here; not in the catalog",
            )
        )
    rows.sort(key=lambda r: not r["available"])  # stable: the catalog's order within each
    if only_available:
        rows = [r for r in rows if r["available"]]
    return rows, catalog.prices_as_of(), access


def _served_access(provider: str, model: str, config: Any) -> Access:
    """A server's model is up; a pulled model is up only while ``larik local serve`` runs it."""
    from ..routing.local import ENGINE_PROVIDER, engine_running

    if provider != ENGINE_PROVIDER:
        return Access(True, "server up")
    return ENGINE_UP if engine_running(model, config) else ENGINE


def _seat_models(config: Any, rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """A signed-in Copilot seat's own listing (kept at ``larik login copilot``): the models the
    catalog lacks, as (provider, model, window, output, tools, vision)."""
    from ..llm.endpoint import resolve_endpoint
    from ..llm.errors import ConfigError
    from ..llm.signin import copilot_models
    from ..llm.signin.store import AccountStore

    try:
        account = resolve_endpoint("copilot", config).account
    except ConfigError:
        return []
    listing = copilot_models.load(AccountStore(config.accounts_dir), account) if account else None
    known = {r["model"] for r in rows if r["provider"] == "copilot"}
    return [
        ("copilot", m.id, m.context_window, m.max_output, m.tools, m.vision)
        for m in (listing.models if listing is not None else ())
        if m.id not in known
    ]


def _provider_names() -> list[str]:
    from .. import routing
    from ..config import load_config

    return routing.provider_names(load_config())


def _access(provider: str, local: bool, up: set[str], config: Any) -> Access:
    from ..llm.errors import MissingKeyError, NotSignedIn
    from ..routing import api_key_for

    if local:
        return Access(True, "server up") if provider in up else Access(False, "server down")
    try:
        api_key_for(provider, config)
    except NotSignedIn as e:
        return Access(False, "not signed in", e.command)
    except MissingKeyError as e:
        return Access(False, "no key", "set " + " or ".join(e.env_names))
    return Access(True, _signed_in(provider, config) or "key")


def _signed_in(provider: str, config: Any) -> str:
    """ "signed in" (and the plan's last usage figures) for a sign-in provider, else ""."""
    from ..llm.endpoint import resolve_endpoint
    from ..llm.signin import quota
    from ..llm.signin.store import AccountStore

    endpoint = resolve_endpoint(provider, config)
    if endpoint.account is None:
        return ""
    seen = quota.load(AccountStore(config.accounts_dir), endpoint.account)
    return "signed in" + (f" ({quota.describe(seen)})" if seen is not None else "")
