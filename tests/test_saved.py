"""An index built once and saved ranks exactly as the one it saved; a corrupt, stale or
foreign index is refused with a message naming the file, never a traceback."""

from __future__ import annotations

import json
import shutil
from itertools import product

import numpy as np
import pytest
from conftest import SAMPLE_CASES, SAMPLE_DOCS, run_module

from ragdash.cli import main
from ragdash.errors import IndexFileError
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import FIX_NAMES, Fixes

EVERY_CONFIG = [
    Fixes().with_only(name for name, on in zip(FIX_NAMES, flags, strict=True) if on)
    for flags in product([False, True], repeat=len(FIX_NAMES))
]


def outcome(ranked):
    return [(r.rank, r.passage, r.score, r.breakdown, r.moved) for r in ranked]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    docs = tmp_path_factory.mktemp("docs") / "docs"
    shutil.copytree(SAMPLE_DOCS, docs)
    index = CorpusIndex(load_folder(docs))
    folder = index.save(tmp_path_factory.mktemp("idx") / "index", docs)
    return docs, index, folder


def test_a_saved_index_ranks_every_testbed_query_alike_under_every_fix_configuration(saved):
    docs, index, folder = saved
    loaded = CorpusIndex.load(folder)
    assert isinstance(loaded.inverted(False).postings.passage_ids, np.memmap)
    assert loaded.fingerprint == index.fingerprint
    queries = [case["query"] for case in json.loads(SAMPLE_CASES.read_text())["cases"]]
    queries += ["warehuse sync", "enterpr1se plan", "returns 2024", "zzzz"]
    assert len(EVERY_CONFIG) == 2 ** len(FIX_NAMES)
    for fixes in EVERY_CONFIG:
        for query in queries:
            assert outcome(loaded.top(query, fixes, 5)) == outcome(index.top(query, fixes, 5))
            assert outcome(loaded.search(query, fixes)) == outcome(index.search(query, fixes))


def copy(folder, tmp_path):
    target = tmp_path / "copy"
    shutil.copytree(folder, target)
    return target


def test_a_corrupt_file_is_refused_naming_it(saved, tmp_path):
    docs, _, folder = saved
    broken = copy(folder, tmp_path)
    ids = broken / "ids-plain.npy"
    data = bytearray(ids.read_bytes())
    data[-1] ^= 0xFF
    ids.write_bytes(bytes(data))
    with pytest.raises(IndexFileError, match=r"ids-plain\.npy: does not match"):
        CorpusIndex.load(broken)
    (broken / "corpus.json").unlink()
    with pytest.raises(IndexFileError, match=r"corpus\.json: missing"):
        CorpusIndex.load(broken)
    (broken / "manifest.json").write_text("{not json")
    with pytest.raises(IndexFileError, match=r"manifest\.json: unreadable"):
        CorpusIndex.load(broken)


def test_an_index_from_another_version_is_refused(saved, tmp_path):
    _, _, folder = saved
    other = copy(folder, tmp_path)
    manifest = json.loads((other / "manifest.json").read_text())
    manifest["ragdash"] = "0.0.1"
    (other / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexFileError, match=r"written by ragdash 0\.0\.1.*rebuild"):
        CorpusIndex.load(other)


def test_a_changed_added_or_removed_docs_file_makes_the_index_stale(saved, tmp_path):
    docs, index, _ = saved
    mine = tmp_path / "docs"
    shutil.copytree(docs, mine)
    folder = index.save(tmp_path / "index", mine)
    CorpusIndex.load(folder)  # unchanged: fine
    (mine / "crm.md").write_text((mine / "crm.md").read_text() + "\nA new line.\n")
    with pytest.raises(IndexFileError, match=r"stale: .*crm\.md changed"):
        CorpusIndex.load(folder)
    (mine / "crm.md").unlink()
    with pytest.raises(IndexFileError, match=r"stale: .*crm\.md was removed"):
        CorpusIndex.load(folder)
    (mine / "notes.md").write_text("new")
    with pytest.raises(IndexFileError, match=r"stale: .*notes\.md was added"):
        CorpusIndex.load(folder, mine)


def test_cli_builds_the_index_and_query_and_check_use_it(tmp_path, capsys):
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCS, docs)
    out_dir = tmp_path / "index"
    assert main(["index", "build", "--docs", str(docs), "-o", str(out_dir)]) == 0
    assert "--index" in capsys.readouterr().out
    args = ["query", "warehuse sync", "--fixes", "all", "--json"]
    assert main([*args, "--docs", str(docs)]) == 0
    direct = json.loads(capsys.readouterr().out)
    assert main([*args, "--index", str(out_dir)]) == 0
    assert json.loads(capsys.readouterr().out) == direct
    check = ["check", "--cases", str(SAMPLE_CASES), "--fixes", "all", "--json"]
    code = main([*check, "--docs", str(docs)])
    expected = capsys.readouterr().out
    assert main([*check, "--index", str(out_dir)]) == code
    assert capsys.readouterr().out == expected
    # Rebuilding replaces the folder atomically; nothing is left beside it.
    assert main(["index", "build", "--docs", str(docs), "-o", str(out_dir)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "index"]


def test_cli_refuses_a_corrupt_index_in_one_line_without_a_traceback(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCS, docs)
    out_dir = tmp_path / "index"
    assert main(["index", "build", "--docs", str(docs), "-o", str(out_dir)]) == 0
    (out_dir / "vocabulary-plain.json").write_text('["tampered"]')
    done = run_module("ragdash", "query", "sync", "--index", str(out_dir))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0
    assert "vocabulary-plain.json" in done.stderr and "rebuild" in done.stderr
