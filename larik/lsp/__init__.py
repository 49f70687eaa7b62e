"""Language servers: diagnostics after each edit (issue 28; docs/lsp.md).

:mod:`.servers` is the table of known servers and how one is found (no LSP import);
:mod:`.session` is what the file tools call (:meth:`.session.LspSession.after_write`); the
client itself (:mod:`.client`, on ``pygls``/``lsprotocol``) is imported only when the first
server starts, so start-up pays nothing.
"""
