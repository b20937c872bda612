"""The docs' shell commands, read as a user copies them into a clone (issue 70, item 6).

* What they write in the clone's root (``-o v4.onnx``, ``--json my_policy.json``) is ignored
  by git, so following the docs leaves ``git status`` clean.
* A command block installs an extra the way a clone can (``pip install -e ".[onnx]"``) or
  names a wheel's file; ``pip install "sixtysix[onnx]"`` finds a package only where an index
  has one (docs/install.md, Extras, says which form is for what).

The pages: README.md, docs/*.md (not the generated docs/benchmarks/), the shipped
policies' cards (checkpoints/*.md) and research/'s notes. The commands: the lines of each
``bash``/``sh``/``console`` block, and the inline code of the prose that starts with
``sixtysix`` or ``python``.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The options by which a command names the file or folder it writes.
OUTPUT_OPTIONS = ("-o", "--output", "--out", "--out-dir", "--json")
SHELL = ("bash", "sh", "shell", "console")


def pages() -> list[Path]:
    found = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    found += sorted((ROOT / "checkpoints").glob("*.md")) + sorted((ROOT / "research").rglob("*.md"))
    return [p for p in found if p.is_file()]


def block_lines(text: str) -> list[str]:
    """The lines of the page's shell blocks (fences read in order, so a ``python`` block's
    closing fence never opens one)."""
    out, lang = [], None
    for line in text.splitlines():
        if line.startswith("```"):
            lang = None if lang is not None else line[3:].strip() or "-"
        elif lang in SHELL:
            out.append(line)
    return out


def inline_commands(text: str) -> list[str]:
    prose = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    spans = re.findall(r"`([^`\n]+)`", prose)
    return [s for s in spans if s.split()[0] in ("sixtysix", "python", "python3")]


def words(line: str) -> list[str]:
    try:
        return shlex.split(line, comments=True)
    except ValueError:  # an unfinished quote: a line of prose, not a command
        return []


def outputs(argv: list[str]) -> list[str]:
    """The paths a command names after its output options (``-o X``, ``--json=X``)."""
    out = []
    for i, word in enumerate(argv):
        if word in OUTPUT_OPTIONS and i + 1 < len(argv):
            out.append(argv[i + 1])
        elif word.startswith("--") and "=" in word and word.partition("=")[0] in OUTPUT_OPTIONS:
            out.append(word.partition("=")[2])
    return [path for path in out if path]


def root_outputs() -> dict[str, str]:
    """Each output path the pages' commands write in the clone's root -> where it is named.
    A placeholder (``FILE``, ``DIR``) names no file; ``NAME.onnx`` does, by its ending."""
    found = {}
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for line in block_lines(text) + inline_commands(text):
            for path in outputs(words(line)):
                if "/" in path or re.fullmatch(r"[A-Z_]+", path) or path.startswith("$"):
                    continue
                found.setdefault(path, f"{page.relative_to(ROOT)}: {line.strip()}")
    return found


def test_what_the_docs_commands_write_in_the_clones_root_is_ignored_by_git():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and the clone's .git (an unpacked sdist has no .gitignore to check)")
    found = root_outputs()
    assert {"v4.onnx", "my_policy.json", "policy.npz", "results.json"} <= set(found)
    # --no-index: the rules alone decide, whatever a developer's clone has in its index.
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"], cwd=ROOT, input="\n".join(found),
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode in (0, 1), done.stderr  # 1: none of them is ignored
    ignored = set(done.stdout.split())
    missing = {path: where for path, where in found.items() if path not in ignored}
    assert not missing, (
        "outputs the docs' commands write in the clone's root that git would offer to add; "
        f"add a pattern rooted at / to .gitignore: {missing}"
    )


def test_the_docs_command_blocks_install_extras_as_a_clone_or_a_wheel_can():
    named = []
    for page in pages():
        for line in block_lines(page.read_text(encoding="utf-8")):
            argv = words(line)
            if "install" in argv and any(w == "pip" or w.endswith("/pip") for w in argv[:3]):
                named += [f"{page.relative_to(ROOT)}: {line.strip()}"
                          for w in argv if w.startswith("sixtysix[")]
    assert not named, (
        'a clone installs an extra with pip install -e ".[EXTRA]", a wheel with '
        '"sixtysix-VERSION-py3-none-any.whl[EXTRA]" (docs/install.md, Extras): '
        f"{named}"
    )
