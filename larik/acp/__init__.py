"""``larik acp``: Larik in an editor, over the Agent Client Protocol (docs/editors.md).

Built on the official SDK (``agent-client-protocol``, imported as ``acp``) and on the
face-neutral :class:`~larik.session.Session`: this package builds no agent and no MCP manager
of its own. The modules, in the order a message meets them:

- :mod:`.server`: the process — stdout kept for the protocol, ``initialize`` answered before
  the SDK is imported, the SDK run on :mod:`.wire`'s frames, every session closed at the end.
- :mod:`.handshake`: the protocol version and Larik's capabilities.
- :mod:`.agent`: the SDK's ``Agent`` interface — sessions new, loaded, listed, resumed, closed.
- :mod:`.conversation`: one session's prompts, cancel and permission questions.
- :mod:`.content`, :mod:`.updates`, :mod:`.options`, :mod:`.commands`: prompts in, updates out,
  modes and config options, slash commands.

Importing this package imports nothing (``larik --help`` stays light).
"""
