"""A project's trust as every face shows and changes it: ``larik trust`` (scripts) and
``/trust`` (the TUI) are two views of these functions — what the project asks for that needs
trust and why, who trusts it, and the answers: yes, no, forget.

An answer is recorded for the settings as they are now (their digest, :mod:`larik.trust`), as
the TUI's "Trust this folder?" records it; only ``yes`` with ``in_config`` — the user, in the
user's own config — lists the folder in ``trusted_projects`` for print mode and bench, and
``no`` and ``forget`` take a listing out again. ``how`` names the face's own spelling of the
commands (``larik trust``, ``/trust``) in the words shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Answered", "TrustState", "answer", "as_json", "load", "report"]


@dataclass(frozen=True)
class TrustState:
    """What is known of a folder's trust: its config, its :class:`~larik.trust.ProjectTrust`
    (None: nothing in it needs trust), the recorded answer, and whether it is listed in the
    user's ``trusted_projects``."""

    root: Path
    config: Any
    pt: Any
    recorded: dict[str, Any] | None
    listed: bool


def load(path: Path) -> TrustState:
    """The trust of the project at ``path`` (the TUI's remembered answers included). Raises
    ConfigError for a broken config."""
    from .. import trust
    from ..config import load_config, state_dir

    config = load_config(path.resolve(), remembered=True)
    pt = config.project_trust
    root = pt.root if pt is not None else path.resolve()
    listed = any(_listed_as(e, root) for e in config.trusted_projects)
    return TrustState(root, config, pt, trust.recorded(state_dir(), root), listed)


def report(st: TrustState, how: str) -> list[str]:
    """What the folder asks for, why it matters and who trusts it, in lines (plain text)."""
    pt = st.pt
    if pt is None:
        trusted = st.recorded is not None and st.recorded.get("trusted") is True
        return [
            f"{st.root}: its settings ask for nothing that needs trust (they only tighten, or "
            "there are none); its language servers run its code, so they start only in a "
            f"trusted folder: {'trusted' if trusted or st.listed else 'not trusted'} "
            f"({how} yes trusts it, {how} forget forgets the answer)."
        ]
    out = [f"{pt.root} asks for what needs your trust:"]
    out += [f"  • {ask}" for ask in pt.asks]
    out.append(
        "These loosen safety or run programs: untrusted, Larik ignores them (deny rules and a "
        "stricter mode always apply)."
    )
    out += [f"  changed since you last answered: {change}" for change in pt.changed]
    out.append(f"In the TUI: {_tui_state(pt, st.recorded, how)}")
    scripts = "trusted (trusted_projects)" if st.listed and pt.trusted else "not trusted"
    out.append(f"In print mode and bench: {scripts} (--trust-project, or {how} yes --in-config)")
    return out


def _tui_state(pt: Any, recorded: dict[str, Any] | None, how: str) -> str:
    at = f" on {str(recorded.get('at', ''))[:10]}" if recorded and recorded.get("at") else ""
    if pt.trusted:
        said = {"config": "listed in trusted_projects", "remembered": f"you said yes{at}"}
        return f"trusted ({said.get(pt.source, pt.source)}); {how} no to take it back"
    if pt.declined:
        return f"not trusted (you said no{at}); {how} yes, or forget to be asked again"
    if recorded is not None:
        return "asked again at the next start (the settings changed since you answered)"
    return f"asked at the next start ({how} yes to trust it now)"


def as_json(st: TrustState) -> dict[str, Any]:
    """:func:`report` for scripts."""
    pt, recorded = st.pt, st.recorded
    out: dict[str, Any] = {"root": str(st.root), "needs_trust": pt is not None, "listed": st.listed}
    out["recorded"] = (
        {k: recorded.get(k) for k in ("trusted", "at", "digest")} if recorded else None
    )
    if pt is not None:
        out.update(
            config_file=str(pt.config_file),
            asks=list(pt.asks),
            digest=pt.digest,
            trusted=pt.trusted,
            source=pt.source or None,
            declined=pt.declined,
            changed=list(pt.changed),
        )
    return out


@dataclass(frozen=True)
class Answered:
    """What :func:`answer` did, in words for the user; ``recorded`` False: nothing to record."""

    message: str
    recorded: bool = True


def answer(path: Path, trusted: bool | None, *, in_config: bool = False) -> Answered:
    """Record ``trusted`` for the project's settings as they are (None: forget the answer and
    any listing). Raises ConfigError (a broken config) or OSError (the answer not written)."""
    from .. import trust
    from ..config import save_user_config, state_dir, user_config_path

    st = load(path)
    config, pt, root = st.config, st.pt, st.root
    listed = [e for e in config.trusted_projects if _listed_as(e, root)]
    if trusted is None:
        trust.forget(state_dir(), root)
    elif pt is None:  # the folder itself: its language servers (larik.lsp)
        trust.remember(state_dir(), root, trust.digest({}), trusted, {})
    else:
        trust.remember(state_dir(), root, pt.digest, trusted, pt.gated)
    if listed and not trusted:
        kept = [e for e in config.trusted_projects if e not in listed]
        save_user_config({"trusted_projects": kept or None})
    elif trusted and in_config and not listed:
        save_user_config({"trusted_projects": [*config.trusted_projects, str(root)]})
    unlisted = f"; removed from trusted_projects in {user_config_path()}" if listed else ""
    if trusted is None:
        return Answered(f"Forgot the answer for {root}{unlisted}: asked again.")
    if trusted:
        where = "the TUI, print mode and bench" if in_config or listed else "the TUI"
        asks = pt.asks if pt is not None else ("its language servers",)
        return Answered(f"Trusted {root} as it is now, in {where}: " + "; ".join(asks))
    return Answered(f"Not trusted: {root}{unlisted}. Its settings that need trust are ignored.")


def _listed_as(entry: str, root: Path) -> bool:
    try:
        return Path(entry).expanduser().resolve() == root
    except (OSError, RuntimeError, ValueError):
        return False
