"""daemon layer of unolauncher."""
