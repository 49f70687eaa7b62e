"""One module per provider adapter. Each imports its vendor SDK lazily, inside the adapter."""
