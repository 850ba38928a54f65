"""evaluate metric modules shipped with nlgmetrics (folders: <name>/<name>.py + README.md)."""
