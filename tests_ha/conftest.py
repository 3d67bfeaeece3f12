"""The real-Home-Assistant suite (``python3 dev.py ha-check``): outside ``testpaths``, so the default run skips it."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # so the suite can `import support.<x>`, as the main tests do
