"""Shared test set-up: the repository's root on the import path, for ``research/``
(experiments that are not installed with the package)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
