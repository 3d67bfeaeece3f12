"""bus layer of unolauncher."""
