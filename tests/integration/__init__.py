"""Integration tests: the real file watcher (watchfiles) driving live manifest reloads."""
