"""MCP (Model Context Protocol) client: tool servers from config and a project's ``.mcp.json``.

* :mod:`.config` — ``[mcp.servers.NAME]`` models, ``.mcp.json``, ``${VAR}`` expansion (pydantic only);
* :mod:`.server` — one server's connection through the official ``mcp`` SDK (the only module
  that imports it, when a server starts);
* :mod:`.manager` — a session's servers; the agent's tool source (deferred schemas, tool_search);
* :mod:`.tools` — MCP tools as agent tools; :mod:`.content` — results as neutral blocks;
* :mod:`.names` — ``mcp__SERVER__TOOL`` names every provider accepts.

Nothing here is imported before the TUI's first frame. See docs/mcp.md.
"""
