"""``python -m unolauncher.cli``: the same as ``unolauncher``."""

import sys

from unolauncher.cli import main

sys.exit(main())
