"""``python -m unolauncher`` is the same as the ``unolauncher`` command."""

import sys

from unolauncher.cli import main

sys.exit(main())
