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
    saved = json.loads(capsys.readouterr().out)
    # the same ranking; each names what it ran on (the folder, or the saved index)
    assert saved.pop("inputs")["docs_from"] == "--index (a saved index)"
    assert direct.pop("inputs")["docs_from"] == "--docs"
    assert saved == direct
    check = ["check", "--cases", str(SAMPLE_CASES), "--fixes", "all", "--json"]
    code = main([*check, "--docs", str(docs)])
    expected = json.loads(capsys.readouterr().out)
    assert main([*check, "--index", str(out_dir)]) == code
    got = json.loads(capsys.readouterr().out)
    assert got.pop("inputs")["docs"] == str(out_dir)
    assert expected.pop("inputs")["docs"] == str(docs)
    assert got == expected
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


# --- never delete what ragdash did not write ------------------------------------------------


def _tree(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_folder_with_its_own_manifest_json_is_refused_and_left_untouched(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCS, docs)
    app = tmp_path / "webapp"
    (app / "src").mkdir(parents=True)
    (app / "manifest.json").write_text('{"name": "my extension", "files": {}}')
    (app / "README.md").write_text("# my web app\n")
    (app / "src" / "main.py").write_text("print('hello')\n")
    before = _tree(app)
    done = run_module("ragdash", "index", "build", "--docs", str(docs), "-o", str(app))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stderr.strip().count("\n") == 0
    assert str(app) in done.stderr and "not a ragdash index" in done.stderr
    assert _tree(app) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "webapp"]  # no temp left
    # the library call refuses too
    with pytest.raises(IndexFileError, match="not a ragdash index"):
        CorpusIndex(load_folder(docs)).save(app, docs)
    assert _tree(app) == before


def test_a_ragdash_index_is_rebuilt_over_but_not_one_holding_a_users_file(saved, tmp_path):
    docs, index, _ = saved
    folder = index.save(tmp_path / "index", docs)
    assert (folder / ".ragdash-index").is_file()
    index.save(folder, docs)  # over its own index: replaced
    CorpusIndex.load(folder)
    (folder / "my notes.txt").write_text("mine")
    with pytest.raises(IndexFileError, match="did not write.*my notes.txt"):
        index.save(folder, docs)
    assert (folder / "my notes.txt").read_text() == "mine"
    empty = tmp_path / "empty"
    empty.mkdir()
    index.save(empty, docs)  # an empty folder is fine
    CorpusIndex.load(empty)


def test_temporary_folders_of_a_killed_build_are_removed_by_the_next_build(saved, tmp_path):
    docs, index, _ = saved
    folder = index.save(tmp_path / "big", docs)
    # what a build killed between two files leaves: its temporary folder (marked, partly
    # written, every file recorded) and an old index moved aside
    killed = tmp_path / ".big.999999-abcd1234.tmp"
    shutil.copytree(folder, killed)
    (killed / "manifest.json").unlink()
    aside = tmp_path / ".big.old-999999"
    shutil.copytree(folder, aside)
    # look-alikes that ragdash cannot prove it wrote: kept
    older = tmp_path / ".big.k3j4h5g6.tmp"  # an older version's (unmarked): not provable
    older.mkdir()
    (older / "corpus.json").write_text("{")
    users = tmp_path / ".big.12345678.tmp"
    users.mkdir()
    (users / "thesis.tex").write_text("mine")
    other = tmp_path / ".other.abcdefgh.tmp"
    shutil.copytree(folder, other)
    marked_but_mine = tmp_path / ".big.999998-zzzz9999.tmp"
    shutil.copytree(folder, marked_but_mine)
    (marked_but_mine / "draft.txt").write_text("mine")
    cut = tmp_path / ".big.999997-cut12345.tmp"  # killed mid-file: that file is unrecorded
    shutil.copytree(folder, cut)
    (cut / "corpus.json").write_text('{"documents": [')
    assert main(["index", "build", "--docs", str(docs), "-o", str(folder)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [".big.12345678.tmp", ".big.999998-zzzz9999.tmp", ".other.abcdefgh.tmp", "big",
         ".big.k3j4h5g6.tmp", ".big.999997-cut12345.tmp"]
    )  # fmt: skip
    assert (users / "thesis.tex").read_text() == "mine"
    CorpusIndex.load(folder)


def test_a_forged_marker_whose_manifest_lists_a_users_file_loses_nothing(saved, tmp_path):
    """Regression (issue 40 #1): a folder with a forged ``.ragdash-index`` marker whose
    manifest lists ``thesis.md`` lost ``thesis.md`` to ``index build -o``."""
    docs, index, _ = saved
    import hashlib

    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "thesis.md").write_text("my thesis")
    (folder / "corpus.json").write_text("my own corpus notes")
    digest = {n: hashlib.sha256((folder / n).read_bytes()).hexdigest()
              for n in ("thesis.md", "corpus.json")}  # fmt: skip
    listed = {n: {"bytes": (folder / n).stat().st_size, "sha256": d} for n, d in digest.items()}
    (folder / "manifest.json").write_text(json.dumps({"files": listed}))
    for marker in (
        {"format": "ragdash-index", "version": 2},  # as main's markers were: no hashes
        {"format": "ragdash-index", "version": 2, "files": {}},  # records none of them
        {"format": "ragdash-index", "version": 2, "files": digest},  # names a user's file
    ):
        (folder / ".ragdash-index").write_text(json.dumps(marker))
        before = _tree(folder)
        with pytest.raises(IndexFileError, match="papers"):
            index.save(folder, docs)
        done = run_module("ragdash", "index", "build", "--docs", str(docs), "-o", str(folder))
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.strip().count("\n") == 0
        assert _tree(folder) == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["papers"]
    # an index file changed since the build is not ragdash's to replace either
    built = index.save(tmp_path / "built", docs)
    (built / "corpus.json").write_text("edited by hand")
    with pytest.raises(IndexFileError, match="changed since ragdash wrote them.*corpus.json"):
        index.save(built, docs)
    assert (built / "corpus.json").read_text() == "edited by hand"


def test_a_users_folder_named_like_a_leftover_is_never_removed(saved, tmp_path):
    """Regression (issue 40 #1): a user's ``.idx.old-123`` holding index-named files was
    removed as a killed build's leftover by the next ``index build -o idx``."""
    docs, index, _ = saved
    leftover = tmp_path / ".idx.old-123"
    leftover.mkdir()
    (leftover / "corpus.json").write_text("my corpus")
    (leftover / "manifest.json").write_text('{"files": {}}')
    forged = tmp_path / ".idx.old-124"  # a marker naming a hash its file does not have
    forged.mkdir()
    (forged / "corpus.json").write_text("my corpus")
    (forged / ".ragdash-index").write_text(
        json.dumps({"format": "ragdash-index", "files": {"corpus.json": "0" * 64}})
    )
    tmp_like = tmp_path / ".idx.4242-abcdefgh.tmp"
    tmp_like.mkdir()
    (tmp_like / "passages-plain.json").write_text("[]")
    before = {p.name: _tree(p) for p in tmp_path.iterdir()}
    assert main(["index", "build", "--docs", str(docs), "-o", str(tmp_path / "idx")]) == 0
    assert {p.name: _tree(p) for p in tmp_path.iterdir() if p.name != "idx"} == before
    CorpusIndex.load(tmp_path / "idx")


def test_an_output_folder_that_cannot_be_made_is_named_in_one_line(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCS, docs)
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    target = tmp_path / "notes.txt" / "index"
    done = run_module("ragdash", "index", "build", "--docs", str(docs), "-o", str(target))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.strip().count("\n") == 0
    assert "notes.txt/index: cannot be written" in done.stderr
    assert (tmp_path / "notes.txt").read_text() == "a file, not a folder"


def test_a_damaged_manifest_is_named_not_an_internal_error(saved, tmp_path):
    _, _, folder = saved
    broken = copy(folder, tmp_path)
    for damage in ("[" * 100_000, '{"format": ' + "9" * 5000 + "}"):
        (broken / "manifest.json").write_text(damage)
        done = run_module("ragdash", "query", "sync", "--index", str(broken))
        assert done.returncode == 2, done.stderr
        assert "manifest.json: unreadable" in done.stderr and "rebuild" in done.stderr
