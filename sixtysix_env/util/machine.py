"""The machine a figure was measured on, in one line (for run summaries and benchmark files)."""

from __future__ import annotations

import os
import platform


def machine() -> str:
    """CPU model, cores, system and Python: ``"AMD EPYC 7B13, 2 CPU cores, Linux 6.1, ..."``."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    system = f"{platform.system()} {platform.release()}"
    return f"{cpu}, {os.cpu_count()} CPU cores, {system}, Python {platform.python_version()}"
