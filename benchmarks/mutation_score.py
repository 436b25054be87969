"""The mutation score of the last `make mutation` run (mutmut's results in mutants/).

Usage: ``python benchmarks/mutation_score.py [GLOB...]``: only the mutants whose names
match one of the globs (``ronde.engine.ronde.*``); all by default. Prints the mutants
by status, the share killed among those checked, and every survivor (a missing test,
or dead code) with ``mutmut show NAME`` to read it.
"""

from __future__ import annotations

import fnmatch
import subprocess
import sys
from collections import Counter
from pathlib import Path

BIN = Path(sys.executable).parent
#: statuses that count as a mutant the tests caught
CAUGHT = {"killed", "timeout", "segfault"}
#: statuses of a mutant the tests did not catch
MISSED = {"survived", "no tests", "suspicious"}


def results() -> list[tuple[str, str]]:
    out = subprocess.run(
        [str(BIN / "mutmut"), "results", "--all", "true"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rows = []
    for line in out.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and "__mutmut_" in name:
            rows.append((name, status.strip()))
    return rows


def main(globs: list[str]) -> int:
    rows = [(n, s) for n, s in results() if not globs or any(fnmatch.fnmatch(n, g) for g in globs)]
    by_status = Counter(s for _n, s in rows)
    checked = sum(n for s, n in by_status.items() if s in CAUGHT | MISSED)
    caught = sum(n for s, n in by_status.items() if s in CAUGHT)
    print("mutants:", ", ".join(f"{n} {s}" for s, n in sorted(by_status.items())))
    if not checked:
        print("no mutant checked yet (run `make mutation` first)")
        return 1
    print(f"killed: {caught}/{checked} = {100 * caught / checked:.1f} % of the mutants checked")
    survivors = sorted(n for n, s in rows if s in MISSED)
    if survivors:
        print(f"survivors ({len(survivors)}; read one with `mutmut show NAME`):")
        for name in survivors:
            print(f"  {name}: {dict(rows)[name]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
