"""A team's retriever that is down: a LangChain factory that cannot connect exits 4 (the
retriever, not the input), and a Python callable that raises on every query trips
``--max-failures`` as an unreachable service does (issue 46)."""

from __future__ import annotations

from conftest import SAMPLE_CASES, run_module

DOWN = '''
CALLS = []


def make():
    """A LangChain factory whose client cannot reach its vector store."""
    raise ConnectionRefusedError(111, "Connection refused: http://127.0.0.1:9")


def search(query, k):
    CALLS.append(query)
    with open(__file__ + ".calls", "a") as out:
        out.write(query + "\\n")
    raise RuntimeError("vector store closed")
'''


def test_a_langchain_factory_that_cannot_connect_exits_4(tmp_path):
    (tmp_path / "down_stack.py").write_text(DOWN, encoding="utf-8")
    out = run_module("ragdash", "check", "--docs", "samples", "--cases", str(SAMPLE_CASES),
                     "--retriever", "langchain", "--callable", "down_stack:make",
                     cwd=tmp_path)  # fmt: skip
    assert out.returncode == 4, (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert "Connection refused" in lines[-1] and "Traceback" not in out.stderr


def test_exceptions_raised_by_a_python_callable_trip_max_failures(tmp_path):
    (tmp_path / "down_stack.py").write_text(DOWN, encoding="utf-8")
    out = run_module("ragdash", "check", "--docs", "samples", "--cases", str(SAMPLE_CASES),
                     "--retriever", "python", "--callable", "down_stack:search",
                     "--max-failures", "2", cwd=tmp_path)  # fmt: skip
    assert out.returncode == 4, (out.returncode, out.stdout, out.stderr)
    assert "stopped after 2 failures in a row" in out.stdout + out.stderr
    calls = (tmp_path / "down_stack.py.calls").read_text().splitlines()
    assert len(calls) == 2  # 8 cases, asked twice, then stopped
