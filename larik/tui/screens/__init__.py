"""The TUI's screens: modals for permissions, models, routing, sessions; the no-model screen."""
