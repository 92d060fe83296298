"""Where a command's CPU goes, by kind of process: Chromium's renderers, parse workers,
Tesseract, Streamlit servers, ragdash commands, pytest workers.

    python3 scripts/cpu_by_process.py -- bash .ci/run

``/usr/bin/time`` counts only the processes someone waited for, and Chromium's helpers and
ragdash's kept parse workers are not among them (it reported 1,617 CPU-seconds for a run
where this script saw about 2,000). This script reads every process's CPU from ``/proc``
twice a second while the command runs — the command's process and every process started by
one already counted, whoever adopts it later — and prints the CPU-seconds and process count
of each kind. A process that ends between two readings loses at most its last half second,
and one started and ended between two readings is not seen.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time

TICK = os.sysconf("SC_CLK_TCK")
#: A process's kind: the first of these found in its command line (Chromium by its --type).
KINDS = ("tesseract", "parse_child", "app.py", "streamlit", "-m ragdash", "mypy", "pytest",
         "playwright", "execnet", "pip")  # fmt: skip


def kind(cmdline: str) -> str:
    """The kind of the process started by ``cmdline``.

    >>> kind("/usr/lib/chromium/chromium --type=renderer --lang=en")
    'chromium renderer'
    >>> kind("python3 -m ragdash check --docs d")
    '-m ragdash'
    """
    if "chrom" in cmdline:
        found = re.search(r"--type=([a-z-]+)", cmdline)
        return "chromium " + (found.group(1) if found else "browser")
    for name in KINDS:
        if name in cmdline:
            return name
    return cmdline.split(" ")[0].rsplit("/", 1)[-1] or "?"


def _readings(seen: dict[str, tuple[float, str]], ours: set[int]) -> None:
    """Add each process of ``ours`` (pids), and each new one whose parent is in it, to
    ``seen`` with its CPU so far: the command's processes, whoever later adopts them."""
    for entry in sorted(os.listdir("/proc"), key=lambda e: int(e) if e.isdigit() else 0):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
            fields = stat[stat.rfind(")") + 2 :].split()
            key = f"{entry}:{fields[19]}"  # pid and start time: a reused pid is another process
            if key not in seen and int(entry) not in ours and int(fields[1]) not in ours:
                continue
            # read again each time: a process read between its fork and its exec showed
            # its parent's command line
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except (OSError, IndexError):
            continue
        cpu = (int(fields[11]) + int(fields[12])) / TICK
        ours.add(int(entry))
        if cmdline and (key not in seen or cpu >= seen[key][0]):
            seen[key] = (cpu, cmdline)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print("usage: python3 scripts/cpu_by_process.py -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    seen: dict[str, tuple[float, str]] = {}
    process = subprocess.Popen(argv)
    ours = {process.pid}
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.5):
            _readings(seen, ours)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    start = time.monotonic()
    code = process.wait()
    done.set()
    watcher.join()
    _readings(seen, ours)
    totals: dict[str, list[float]] = {}
    for cpu, cmdline in seen.values():
        if cmdline:
            row = totals.setdefault(kind(cmdline), [0.0, 0])
            row[0] += cpu
            row[1] += 1
    print(f"\n{time.monotonic() - start:.0f} s; CPU-seconds by kind of process:", file=sys.stderr)
    for name, (cpu, count) in sorted(totals.items(), key=lambda item: -item[1][0]):
        if cpu >= 0.1:
            print(f"{cpu:9.1f}  {int(count):5d}  {name}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
