"""CITATION.cff: the keys the Citation File Format 1.2.0 requires, and the package's version."""

from __future__ import annotations

import os

import pytest

import sixtysix_env

yaml = pytest.importorskip("yaml")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_citation_file_names_this_version_and_the_required_keys():
    with open(os.path.join(ROOT, "CITATION.cff"), encoding="utf-8") as f:
        cff = yaml.safe_load(f)
    assert cff["cff-version"] == "1.2.0"
    assert {"message", "title", "authors"} <= set(cff)
    assert all(isinstance(a, dict) and ("name" in a or "family-names" in a) for a in cff["authors"])
    assert str(cff["version"]) == sixtysix_env.__version__
    assert "benchmark-v1" in cff["message"]
