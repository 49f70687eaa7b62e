"""Subcommands of ``larik``: one module per group, each exposing ``register(app)``.

Each is a row of the table :data:`larik.command_line.COMMANDS` (name -> module, summary):
``larik --help`` lists them from it and imports none of these modules; running one imports its
module only. A new subcommand is a module here and a row there (tests/test_command_line.py
checks the rows against what the modules register, and that no module lacks one). A module must
stay light at import time all the same: no vendor SDK, no Textual.
"""
