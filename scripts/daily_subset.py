"""Write tests/daily_slow.txt: the tests a full run measured at ``--over`` seconds or more,
which ``pytest -m "not slow"`` (the daily subset) then leaves out with the slow files.

    python3 -m pytest -n 3 --dist loadfile --durations=0 > run.log  # a full run
    python3 scripts/daily_subset.py run.log --over 3

The log is pytest's ``--durations=0`` report (``12.34s call  tests/test_x.py::test_y[a b]``);
a test's setup, call and teardown add up. A test that the log does not name (a new one)
stays in the daily subset until the list is written again. CI runs every test either way:
the list only says what daily work can skip.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

LIST = Path(__file__).resolve().parent.parent / "tests" / "daily_slow.txt"
LINE = re.compile(r"^([\d.]+)s (?:call|setup|teardown)\s+(tests/\S.*?)\s*$")


def durations(log: str) -> dict[str, float]:
    """Seconds per test id in a ``--durations`` report (setup + call + teardown).

    >>> report = "1.50s call   tests/t.py::test_b[x y]\\n0.50s setup  tests/t.py::test_b[x y]"
    >>> durations(report)
    {'tests/t.py::test_b[x y]': 2.0}
    """
    seconds: dict[str, float] = defaultdict(float)
    for line in log.splitlines():
        match = LINE.match(line)
        if match:
            seconds[match.group(2)] += float(match.group(1))
    return dict(seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("log", type=Path, help="a pytest log with --durations=0")
    parser.add_argument("--over", type=float, default=3.0, help="seconds (default 3)")
    args = parser.parse_args(argv)
    try:
        seconds = durations(args.log.read_text(encoding="utf-8", errors="replace"))
    except OSError as err:
        print(f"daily_subset: cannot read {args.log}: {err.strerror}", file=sys.stderr)
        return 2
    if not seconds:
        print(f"daily_subset: {args.log} has no --durations report", file=sys.stderr)
        return 2
    slow = sorted(test for test, s in seconds.items() if s >= args.over)
    header = (
        f"# Tests the daily subset (pytest -m 'not slow') leaves out: {args.over:g} s or more\n"
        f"# in a full run's --durations report. Written by scripts/daily_subset.py.\n"
    )
    LIST.write_text(header + "".join(f"{test}\n" for test in slow), encoding="utf-8")
    kept = sum(s for s in seconds.values() if s < args.over)
    print(f"{len(slow)} of {len(seconds)} timed tests listed in {LIST.name}; "
          f"the rest took {kept:.0f} s in that run")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
