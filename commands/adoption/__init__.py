"""Import from and export to other trackers (Task Master, Backlog.md, beads, GitHub issues, CSV)."""
