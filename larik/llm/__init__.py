"""The provider-neutral model layer. Imports no vendor SDK."""
