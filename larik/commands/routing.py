"""``larik routing``: each role -> model -> fallbacks, as they resolve right now.

Light at import time: config and routing are imported when the command runs.
"""

from __future__ import annotations

import sys
from typing import Any

import typer

from ..llm import jsontext
from ..terminal_text import safe_output


def register(app: typer.Typer) -> None:
    app.command("routing")(safe_output(routing_cmd))


def routing_cmd(
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    suggest: bool = typer.Option(
        False, "--suggest", help="Also suggest a model per role (cheapest first, bench evidence)."
    ),
) -> None:
    """Show where each role goes now: role -> provider/model -> fallbacks (and why any is skipped)."""
    from ..llm.errors import ConfigError

    try:
        rows = _rows()
        suggestion = _suggest() if suggest else None
    except ConfigError as e:
        print(f"larik: {e}", file=sys.stderr)
        raise typer.Exit(2) from None
    if json_out:
        out: dict[str, Any] = {"roles": rows}
        if suggestion is not None:
            out["suggestion"] = suggestion
        print(jsontext.dumps(out, indent=2))
        return
    _print(rows, suggestion)


def _rows() -> list[dict[str, Any]]:
    from .. import routing
    from ..config import load_config

    config = load_config()
    rows = []
    for role in ("", *routing.all_roles(config)):
        p = routing.plan(role, config)
        rows.append(
            {
                "role": role or "(main)",
                "model": p.target.spec if p.target else None,
                "error": p.error,
                "fallbacks": [{"model": s, "skipped": why} for s, why in p.fallbacks],
            }
        )
    return rows


def _suggest() -> dict[str, Any]:
    from .. import routing
    from ..config import load_config

    config = load_config()
    s = routing.suggest_routing(
        config=config,
        evidence=routing.load_evidence(),
        reachable=routing.reachable_local_providers(config),
    )
    return {
        "roles": s.roles,
        "fallbacks": s.fallbacks,
        "reasons": s.reasons,
        "ranked": [
            {
                "model": r.spec,
                "why": r.describe(),
                "pass_rate": r.evidence.pass_rate if r.evidence else None,
                "runs": r.evidence.runs if r.evidence else 0,
                "cost_per_pass": r.evidence.cost_per_pass if r.evidence else None,
            }
            for r in s.ranked
        ],
        "skipped": s.skipped,
    }


def _print(rows: list[dict[str, Any]], suggestion: dict[str, Any] | None) -> None:
    width = max(len(r["role"]) for r in rows)
    main_error = rows[0]["error"] if rows and rows[0]["model"] is None else None
    for r in rows:
        head = f"{r['role'].ljust(width)}  →  "
        if r["model"] is None and r is not rows[0] and r["error"] == main_error:
            print(f"{head}(main)")  # an unset role is the main model: its error is said once
            continue
        if r["model"] is None:
            print(f"{head}✗ {r['error']}")
            continue
        line = head + r["model"]
        if r["error"]:
            line += f"  ✗ {r['error']}"
        usable = [f["model"] for f in r["fallbacks"] if not f["skipped"]]
        if usable:
            line += "  →  " + ", ".join(usable)
        print(line)
        for f in r["fallbacks"]:
            if f["skipped"]:
                print(f"{' ' * width}     skipped fallback {f['model']}: {f['skipped']}")
    if main_error:
        _local_hint()
    if suggestion is None:
        return
    print("\nSuggested:")
    if not suggestion["roles"]:
        print(
            "  nothing to suggest: no usable model with tools (set a key or start a local server)"
        )
    for role, spec in suggestion["roles"].items():
        fbs = suggestion["fallbacks"].get(role) or []
        tail = f"  →  {', '.join(fbs)}" if fbs else ""
        print(f"  {role.ljust(width)}  →  {spec}{tail}")
        print(f"  {' ' * width}     {suggestion['reasons'][role]}")
    benched = [r for r in suggestion["ranked"] if r["runs"]]
    if benched:
        print("\nBench evidence:")
        for r in benched:
            print(f"  {r['model']}: {r['why']}")


def _local_hint() -> None:
    """With no main model, a local server that answers here is the obvious way out: say so."""
    from .. import routing
    from ..config import load_config

    up = sorted(routing.reachable_local_providers(load_config()))
    if up:
        specs = ", ".join(f"{name}/MODEL" for name in up)
        print(
            f"\nA local server answers on this machine: larik -m {specs} "
            "(`larik models --available` lists its models), or set model = … in the config."
        )
