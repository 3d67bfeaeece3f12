"""web layer of unolauncher."""
