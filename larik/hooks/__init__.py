"""Hooks: shell commands run at events (before and after tool calls, on a prompt, when the agent
stops, at session start), with Claude Code's contract so existing hook scripts port unchanged.

- :mod:`.config`: the ``[hooks]`` table and matchers (a leaf: the config validates with it);
- :mod:`.process`: running one hook (JSON on stdin, output bounded, killed with its process
  group on timeout, an environment without credentials);
- :mod:`.runner`: what each event sends and what the answers mean (:class:`~.runner.Hooks`,
  the object the agent asks).

docs/hooks.md describes the contract.
"""
