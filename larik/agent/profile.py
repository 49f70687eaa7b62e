"""Model profiles: the tool set, prompt and limits fitted to the model in use.

A small model (under ``SMALL_PARAMS_B`` billion parameters: the catalog's ``params_b``, a size in
its name, or what a local server reports) drowns in a long prompt and a dozen tool schemas, and
hands garbage to the ``task`` tool. It gets:

* no ``task`` tool, no ``glob``, no job tools and no ``web_fetch`` (``SMALL_DROPS``): fewer
  tools to choose from (``bash`` then offers no ``background`` and refuses it: nothing could
  read or stop the job; and no web page of 100,000 characters for a small context window);
* the short prompt (:func:`larik.agent.prompt.prefix` with ``small=True``), which lists the
  project's files;
* replies of at most ``SMALL_MAX_OUTPUT`` tokens: a small model that starts repeating itself
  otherwise writes until the context is full (minutes on a CPU).
* grammar-constrained tool calls where the server can (llama.cpp, vLLM): every reply is one
  call whose arguments validate, or the answer;
* the sampling of ``SMALL_SAMPLING`` (temperature, top_p, repeat penalty), sent with each request
  to llama.cpp, Ollama and other OpenAI-compatible servers;
* read_file's line numbers or not (``SMALL_LINE_NUMBERS``; ``[models] line_numbers``);
* a reply that keeps repeating itself cancelled as it streams, then asked again once, cooler
  (``SMALL_CANCEL_RUNAWAY``; ``[models] cancel_runaway``; :mod:`.runaway`);
* the ``answer`` tool first among its tools (``SMALL_ANSWER_TOOL``: a reply that only calls it
  ends the turn with its text), and a note on the first repeat of a call with the same result
  saying it has what it needs (``SMALL_REPEAT_NUDGE``; :mod:`.stuck`).

Every choice made for a small model is a ``SMALL_*`` constant here: this is the one place to
change what a small model gets (measured on the bench: docs/bench.md).

``[models."provider/model"]`` in the config can say it outright, for any model: ``tools = [...]``
(the tools offered, in that order; never more than the role allows: an explore subagent stays
read-only), ``max_turns`` (at most this many model calls per turn for this model: it lowers the
session's limit, never raises it), ``temperature``, ``top_p`` and ``repeat_penalty`` (sent with
every request; each one set replaces the small profile's), ``constrained_tools`` (ask a
llama.cpp or vLLM server to hold replies to a grammar so tool calls always parse: on by default
for a small model; :mod:`larik.llm.providers.constrained`), ``workflow`` (``"loop"``: the tool
loop; ``"edit"``: the harness finds the files and runs the tests, the model writes the edit —
:mod:`.edit_turn`; the default for a small model is ``SMALL_WORKFLOW``) and ``edit_format`` (the edit workflow's reply format, ``"whole"`` or
``"diff"``; by default by the files' size).

The profile is recomputed when the model changes (``/model``, a probe that learns the size).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..tool_names import ANSWER

if TYPE_CHECKING:
    from ..config import Config, ModelOverride
    from ..routing import Resolved

__all__ = ["SMALL_DROPS", "SMALL_PARAMS_B", "SMALL_SAMPLING", "Profile", "Sampling", "profile_for"]


@dataclass(frozen=True)
class Sampling:
    """How the next token is drawn; None: the server's default (nothing is sent)."""

    temperature: float | None = None
    top_p: float | None = None
    repeat_penalty: float | None = None

    def options(self) -> dict[str, float]:
        return {k: v for k, v in vars(self).items() if v is not None}


# -- the small profile: what a small model gets, every choice in one place -------------------
SMALL_PARAMS_B = 7.0
SMALL_DROPS = ("task", "glob", "job_output", "job_stop", "web_fetch")
SMALL_MAX_OUTPUT = 2048
#: llama.cpp-sensible until measured (docs/bench.md): little randomness, a mild penalty on the
#: loops small models fall into
SMALL_SAMPLING = Sampling(temperature=0.2, repeat_penalty=1.1)
#: whether read_file shows a small model its line-number gutter (to measure: a small model
#: copies it into write_file and edit_file, which take it off again, tools/_gutter.py)
SMALL_LINE_NUMBERS = True
#: whether a reply that keeps repeating itself is cancelled as it streams (agent/runaway.py);
#: off for other models unless [models] cancel_runaway says so (a large model rarely runs away,
#: and a long legitimate repetition must not be cut)
SMALL_CANCEL_RUNAWAY = True
#: the way out as easy as a tool call: ``answer`` first among a small model's tools, and a note
#: on a call repeated with the same result ("you have it: answer"; agent/stuck.py)
SMALL_ANSWER_TOOL = True
SMALL_REPEAT_NUDGE = True
#: how a small model's turn runs unless its config says (docs/bench.md has the measurements)
SMALL_WORKFLOW: Literal["loop", "edit"] = "edit"
#: the edit workflow starts a small model's reply for it (the file's path and the opening
#: fence, as the last message): the 0.5B model otherwise echoes the rules or the request
#: (llama.cpp continues an assistant message it is sent; a model that does not starts afresh)
SMALL_PREFILL = True
#: The edit workflow's review round (edit_turn.py) for small models: off until it measures
#: better — measured no better (docs/bench.md, "tries and a review round"); ``[models] review``.
SMALL_REVIEW = False
#: The edit workflow asks a small model for the request's tests first when the project's pass
#: before the change (own_tests.py); ``[models] own_tests``.
SMALL_OWN_TESTS = False


@dataclass(frozen=True)
class Profile:
    tools: tuple[str, ...]
    small: bool = False
    params_b: float | None = None
    max_turns: int | None = None  # the model's own cap, if set
    sampling: Sampling = Sampling()
    chosen: bool = False  # the tools come from the config's list
    constrained: bool | None = None  # grammar-constrained tool calls (None: the provider's say)
    line_numbers: bool = True  # read_file's gutter
    cancel_runaway: bool = False  # a reply repeating itself is cancelled as it streams
    repeat_nudge: bool = False  # a call repeated with the same result is told "you have it"
    workflow: Literal["loop", "edit"] = "loop"  # how a turn runs (edit_turn.py)
    prefill: bool = False  # the edit workflow starts the reply with the file's path and fence
    edit_format: Literal["whole", "diff"] | None = None  # the edit workflow's (None: by size)
    review: bool = False  # the edit workflow asks once for a check the tests cannot make
    own_tests: bool = False  # the edit workflow asks for the request's tests first

    def request_options(self, warmer: float | None = None) -> dict[str, Any]:
        """What each request to this model carries beyond the conversation. ``warmer``: the
        least temperature, where this profile sends one (a later try of ``--attempts``)."""
        out: dict[str, Any] = dict(self.sampling.options())
        if warmer is not None and out.get("temperature") is not None:
            out["temperature"] = max(out["temperature"], warmer)
        if self.small:
            out["max_tokens"] = SMALL_MAX_OUTPUT
        if self.constrained is not None:
            out["constrain_tools"] = self.constrained
        return out

    def turn_limit(self, session: int) -> int:
        return min(session, self.max_turns) if self.max_turns else session

    def describe(self, spec: str) -> str:
        """A one-line notice when the profile changes what the model gets ("" otherwise)."""
        if self.chosen:
            return f"{spec}: tools from the config: {', '.join(self.tools) or 'none'}"
        if self.small:
            size = f"{self.params_b:g}B parameters" if self.params_b else "small"
            if self.workflow == "edit":
                return (
                    f"{spec} is a small model ({size}): Larik finds the files and runs the "
                    "tests, the model writes the edits (the edit workflow); set "
                    f'workflow = "loop" in [models."{spec}"] for the tool loop'
                )
            return (
                f"{spec} is a small model ({size}): it gets a short prompt and fewer tools "
                f'({", ".join(self.tools)}); set tools in [models."{spec}"] to choose'
            )
        return ""


def override_for(resolved: Resolved, config: Config) -> ModelOverride | None:
    models = config.models
    return models.get(resolved.spec) or models.get(resolved.model)


def profile_for(
    resolved: Resolved, config: Config, allowed: tuple[str, ...], params_b: float | None
) -> Profile:
    """``allowed``: the tools the agent's role may have, in order. ``params_b``: the model's
    size in billions when known (catalog, name or server)."""
    o = override_for(resolved, config)
    small = params_b is not None and params_b < SMALL_PARAMS_B
    listed = o.tools if o is not None and isinstance(o.tools, list) else None
    others = tuple(t for t in allowed if t != ANSWER)  # answer grants nothing: any role may
    if listed is not None:
        tools = tuple(t for t in dict.fromkeys(listed) if t in others or t == ANSWER)
    elif small:
        first = (ANSWER,) if SMALL_ANSWER_TOOL else ()
        tools = first + tuple(t for t in others if t not in SMALL_DROPS)
    else:
        tools = others
    return Profile(
        tools=tools,
        small=small,
        params_b=params_b,
        max_turns=o.max_turns if o is not None else None,
        sampling=_sampling(o, small),
        chosen=listed is not None,
        constrained=_constrained(o, small),
        line_numbers=_pick(o.line_numbers if o else None, SMALL_LINE_NUMBERS if small else True),
        cancel_runaway=_pick(o.cancel_runaway if o else None, small and SMALL_CANCEL_RUNAWAY),
        repeat_nudge=small and SMALL_REPEAT_NUDGE,
        workflow=(o.workflow if o else None) or (SMALL_WORKFLOW if small else "loop"),
        edit_format=o.edit_format if o is not None else None,
        prefill=_pick(o.prefill if o else None, small and SMALL_PREFILL),
        review=_pick(o.review if o else None, small and SMALL_REVIEW),
        own_tests=_pick(o.own_tests if o else None, small and SMALL_OWN_TESTS),
    )


def _pick(said: bool | None, default: bool) -> bool:
    return default if said is None else said


def _constrained(o: ModelOverride | None, small: bool) -> bool | None:
    """The config's word, else on for a small model (its calls are the ones that fail)."""
    if o is not None and o.constrained_tools is not None:
        return o.constrained_tools
    return True if small else None


def _sampling(o: ModelOverride | None, small: bool) -> Sampling:
    """The small profile's sampling (none for other models), each value the config sets
    replacing it."""
    base = SMALL_SAMPLING if small else Sampling()
    if o is None:
        return base
    return Sampling(
        temperature=o.temperature if o.temperature is not None else base.temperature,
        top_p=o.top_p if o.top_p is not None else base.top_p,
        repeat_penalty=o.repeat_penalty if o.repeat_penalty is not None else base.repeat_penalty,
    )
