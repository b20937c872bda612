"""docs/rules.md is the project's rule book: its switch table must match
``RuleConfig`` and the presets, and nothing in the repository may point
outside it to a rules document a clone does not have."""

from __future__ import annotations

import ast
import dataclasses
import re
import subprocess
from pathlib import Path

import pytest

from sixtysix_env.game.rules import PRESETS, RuleConfig

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules.md"


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def switch_table(text: str) -> tuple[list[str], dict[str, list[str]]]:
    """The preset columns and the rows (switch -> cells) of the table whose
    first header cell is ``switch``."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|") and _cells(line)[0] == "switch":
            header = [c.strip("`") for c in _cells(line)]
            rows = {}
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                cells = _cells(row)
                rows[cells[0].strip("`")] = cells[1:]
            return header[1:], rows
    raise AssertionError(f"{DOC}: no table with a 'switch' header column")


def parse_value(cell: str):
    """A table cell written as a Python literal, in backticks: `True`, `7`, `"2"`."""
    m = re.fullmatch(r"`([^`]*)`", cell)
    assert m, f"cell {cell!r} is not a value in backticks"
    return ast.literal_eval(m.group(1))


def test_table_has_every_field_and_preset():
    columns, rows = switch_table(DOC.read_text(encoding="utf-8"))
    fields = [f.name for f in dataclasses.fields(RuleConfig)]
    assert sorted(rows) == sorted(fields), "table rows must be exactly the RuleConfig fields"
    missing = [p for p in PRESETS if p not in columns]
    assert not missing, f"presets missing from the table: {missing}"


@pytest.mark.parametrize("preset", list(PRESETS))
def test_table_values_match_the_presets(preset):
    columns, rows = switch_table(DOC.read_text(encoding="utf-8"))
    col = columns.index(preset)
    rules = PRESETS[preset]
    for field in dataclasses.fields(RuleConfig):
        written = parse_value(rows[field.name][col])
        actual = getattr(rules, field.name)
        assert type(written) is type(actual) and written == actual, (
            f"docs/rules.md says {field.name}={written!r} for {preset}, rules.py has {actual!r}"
        )


def test_table_parser_catches_a_wrong_value():
    text = DOC.read_text(encoding="utf-8")
    columns, rows = switch_table(text)
    col = columns.index("santase")
    assert parse_value(rows["match_target"][col]) == 11
    wrong = text.replace(
        "| `match_target` | `7` | `7` | `11` |", "| `match_target` | `7` | `7` | `7` |"
    )
    assert wrong != text
    assert (
        parse_value(switch_table(wrong)[1]["match_target"][col]) != PRESETS["santase"].match_target
    )


def test_sections_cited_in_the_code_exist():
    headings = set(re.findall(r"^#+ §(\d+) ", DOC.read_text(encoding="utf-8"), re.MULTILINE))
    cited = set()
    for path in _tracked_text_files():
        cited |= set(re.findall(r"docs/rules\.md §(\d+)", path.read_text(encoding="utf-8")))
    assert cited, "nothing cites docs/rules.md by section"
    assert cited <= headings, f"cited sections without a heading: {sorted(cited - headings)}"


def _tracked_text_files() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout.decode()
        paths = [ROOT / p for p in out.split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        # Not a git checkout (an unpacked sdist): the source and doc files.
        skip = {".git", ".venv", "venv", "build", "dist", "runs", "artifacts"}
        paths = [
            p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.relative_to(ROOT).parts)
        ]
    text = []
    for p in paths:
        if not p.is_file():
            continue
        try:
            p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary files (the checkpoint)
        text.append(p)
    return text


# Built from parts so that this file does not match itself.
OUTSIDE = ("../" + "shared", "RULINGS" + ".md")


def test_no_file_points_outside_the_repository():
    hits = []
    for path in _tracked_text_files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if any(word in line for word in OUTSIDE):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not hits, "files point to a rules document outside the repository:\n" + "\n".join(hits)
