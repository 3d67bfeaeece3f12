"""store layer of unolauncher."""
