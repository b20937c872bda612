"""docs/own-agent.md's interface section, run as written: its agent class, saved as the
module it names in an empty folder, is found from that folder by the commands it shows.

No RL library is needed, so this runs in every lane (the library sections have their own
tests: test_own_agent_libraries.py beside this one, for Tianshou and TorchRL, and
tests/training/test_own_agent_rllib.py).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from _own_agent_page import page_section


@pytest.mark.slow  # over half a second: the full run, not the fast lane (30 s)
def test_the_agent_class_of_the_page_is_found_from_its_folder(tmp_path):
    code, commands = page_section("The interface")
    module = re.match(r"# (\w+)\.py\n", code)
    assert module, "the interface's code starts with the name of its file"
    (tmp_path / f"{module[1]}.py").write_text(code, encoding="utf-8")
    assert len(commands) == 2
    # The console script, as a user runs it: its sys.path holds its bin folder, not the
    # current one, which make_agent adds (python -m would have it anyway).
    script = Path(sys.executable).with_name("sixtysix")
    program = [str(script)] if script.is_file() else [sys.executable, "-m", "sixtysix_env"]
    for line in commands:
        argv = shlex.split(line.replace("--deals 100", "--deals 2"))
        assert argv[0] == "sixtysix"
        done = subprocess.run(
            [*program, *argv[1:]],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )
        assert done.returncode == 0, f"{line}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        assert re.search(r"mybots:Greedy\s.*\s4\s", done.stdout), done.stdout  # 4 hands
