"""The mutation score of the last `make mutation` run, module by module.

Usage: ``python benchmarks/mutation_score.py [GLOB...]``: only the mutants whose names
match one of the globs (``ronde.engine.ronde.*``); all by default. Reads mutmut's results
in each group's folder (mutants/GROUP/, benchmarks/mutation_run.py) and prints, for each
mutated module, the mutants killed among those checked against the target (90 %), then
every survivor (a missing test, or an equivalent mutant: docs/mutation.md) with the
command that shows it.
"""

from __future__ import annotations

import fnmatch
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
WORK = ROOT / "mutants"
#: the share of a module's mutants its tests should kill
TARGET = 90.0
#: statuses that count as a mutant the tests caught
CAUGHT = {"killed", "timeout", "segfault"}
#: statuses of a mutant the tests did not catch
MISSED = {"survived", "no tests", "suspicious"}


def module_of(name: str) -> str:
    """``ronde.web.games.labels.x_humanize__mutmut_3`` -> ``ronde.web.games.labels``."""
    parts = name.split(".")
    for i in range(len(parts) - 1, -1, -1):
        if parts[i].startswith(("x_", "xǁ")):
            return ".".join(parts[:i])
    return name.rpartition(".")[0]


def results(folder: Path) -> list[tuple[str, str]]:
    out = subprocess.run(
        [str(BIN / "mutmut"), "results", "--all", "true"],
        cwd=folder,
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
    folders = sorted(p.parent for p in WORK.glob("*/mutants") if p.is_dir())
    by_module: dict[str, Counter[str]] = defaultdict(Counter)
    survivors: list[tuple[str, str, str]] = []
    for folder in folders:
        for name, status in results(folder):
            if globs and not any(fnmatch.fnmatch(name, g) for g in globs):
                continue
            by_module[module_of(name)][status] += 1
            if status in MISSED:
                survivors.append((folder.name, name, status))
    if not any(s in CAUGHT | MISSED for c in by_module.values() for s in c):
        print("no mutant checked yet (run `make mutation` first)")
        return 1
    print(f"{'module':<32} {'killed/checked':>15} {'score':>7}  (target {TARGET:.0f} %)")
    total: Counter[str] = Counter()
    for module, counts in sorted(by_module.items()):
        total.update(counts)
        caught = sum(n for s, n in counts.items() if s in CAUGHT)
        checked = caught + sum(n for s, n in counts.items() if s in MISSED)
        if not checked:
            print(f"{module:<32} {'-':>15} {'-':>7}  ({counts.total()} not checked)")
            continue
        score = 100 * caught / checked
        mark = "" if score >= TARGET else "  < target"
        rest = counts.total() - checked
        note = f"  ({rest} not checked)" if rest else ""
        print(f"{module:<32} {f'{caught}/{checked}':>15} {score:6.1f} %{mark}{note}")
    caught = sum(n for s, n in total.items() if s in CAUGHT)
    checked = caught + sum(n for s, n in total.items() if s in MISSED)
    print(f"{'all':<32} {f'{caught}/{checked}':>15} {100 * caught / checked:6.1f} %")
    print("mutants:", ", ".join(f"{n} {s}" for s, n in sorted(total.items())))
    if survivors:
        print(f"survivors ({len(survivors)}; `cd mutants/GROUP && mutmut show NAME` shows one):")
        for group, name, status in sorted(survivors):
            print(f"  [{group}] {name}: {status}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
