"""The catalog is one table: every row pinned, and the recommendation by the machine's size."""

from __future__ import annotations

import re

from larik.llm.local import catalog


def test_every_row_pins_an_official_qwen_file_by_commit_size_and_sha256():
    names = [r.name for r in catalog.CATALOG]
    assert len(set(names)) == len(names) >= 4
    for r in catalog.CATALOG:
        assert r.repo.startswith("Qwen/Qwen2.5-Coder-") and r.repo.endswith("-Instruct-GGUF")
        assert re.fullmatch(r"[0-9a-f]{40}", r.revision), r.name  # a commit, not a branch
        assert re.fullmatch(r"[0-9a-f]{64}", r.sha256), r.name
        assert r.file.endswith("-instruct-q4_k_m.gguf") and r.size > 100_000_000
        assert r.template in catalog.TEMPLATES
        assert (
            catalog.template_path(r.template) is None or catalog.template_path(r.template).is_file()
        )
        assert catalog.by_sha256(r.sha256) is r and catalog.row(r.name) is r
    sizes = [r.params_b for r in catalog.CATALOG]
    assert sizes == sorted(sizes)


def test_the_recommendation_is_the_largest_model_the_machine_runs_a_7b_only_where_it_fits():
    assert catalog.recommend(1, 1).name == "qwen2.5-coder-0.5b"  # below every row: the smallest
    assert catalog.recommend(24, 2).name == "qwen2.5-coder-1.5b"  # plenty of RAM, 2 cores
    assert catalog.recommend(8, 16).name == "qwen2.5-coder-3b"  # cores, but not the RAM
    assert catalog.recommend(16, 8).name == "qwen2.5-coder-7b"
    assert catalog.recommend().name in {r.name for r in catalog.CATALOG}  # this machine


def test_sizes_read_as_hugging_face_shows_them():
    assert catalog.row("qwen2.5-coder-0.5b").size_text == "491 MB"
    assert catalog.row("qwen2.5-coder-7b").size_text == "4.7 GB"
