"""`make mutation`: mutmut run once per group of pyproject.toml's [tool.ronde.mutation].

Usage: ``python benchmarks/mutation_run.py [--groups 'a b'] [--jobs N] [GLOB...]``.

mutmut 3 reads one test selection ([tool.mutmut]) from the pyproject.toml of the folder
it runs in, and forgets every result when that selection changes. So each group (a few
modules and the few test files that reach them) gets a folder of its own, mutants/GROUP/,
holding a pyproject.toml (the project's, with the group's [tool.mutmut]) and links to src/
and tests/; mutmut copies them into mutants/GROUP/mutants/ and keeps its results there, so
a group's second run checks only the functions that changed.

Before each run the copy is brought back to the tree: mutmut copies a non-Python file
(a template, a static file, a catalogue) once and never again, and keeps a deleted module,
so those copies are removed (mutmut copies them afresh), and tests/ is copied whole again.
A survivor of an earlier run is checked again (a test written since may kill it).

GLOBs (mutant names, ``ronde.web.games.labels.x_humanize*``) narrow the run to some
mutants; the groups are then those whose modules the globs name. Nothing is kept outside
mutants/ (ignored by git).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import mutation_score  # (benchmarks/: run as a script, its folder on the path)

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
WORK = ROOT / "mutants"
#: files mutmut itself writes beside the copied sources
MUTMUT_FILES = (".py", ".py.meta", ".py.spans")


def config() -> dict[str, object]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        tool: dict[str, object] = tomllib.load(f)["tool"]
    return tool


def groups() -> dict[str, dict[str, list[str]]]:
    ronde = config()["ronde"]
    assert isinstance(ronde, dict)
    found: dict[str, dict[str, list[str]]] = ronde["mutation"]
    return found


def modules(group: dict[str, list[str]]) -> list[str]:
    """The dotted names of the modules a group mutates (``ronde.web.games.labels``)."""
    names = []
    for pattern in group["only_mutate"]:
        for path in sorted(glob.glob(str(ROOT / pattern), recursive=True)):
            rel = Path(path).relative_to(ROOT / "src").with_suffix("")
            names.append(".".join(rel.parts).removesuffix(".__init__"))
    return names


def concerns(pattern: str, module: str) -> bool:
    """Whether a mutant glob may name a mutant of ``module``."""
    literal = pattern
    for i, char in enumerate(pattern):
        if char in "*?[":
            literal = pattern[:i]
            break
    else:
        return pattern.startswith(module + ".")
    return (module + ".").startswith(literal) or literal.startswith(module + ".")


def toml_value(value: object) -> str:
    # JSON's strings, numbers, booleans and lists are TOML's (ASCII, as here)
    return json.dumps(value, ensure_ascii=True)


def project_toml(group: dict[str, list[str]]) -> str:
    """The project's pyproject.toml, its [tool.mutmut] replaced by the group's and the
    groups left out (mutmut reruns a group whose pyproject.toml changed: not when another
    group's tests change)."""
    lines = (ROOT / "pyproject.toml").read_text(encoding="utf-8").splitlines()
    kept: list[str] = []
    skipping = False
    for line in lines:
        if line.startswith("[") and not line.startswith("[["):
            header = line.strip()
            skipping = header == "[tool.mutmut]" or header.startswith("[tool.ronde.mutation")
        if not skipping:
            kept.append(line)
    base = config()["mutmut"]
    assert isinstance(base, dict)
    settings = dict(base)
    settings["only_mutate"] = group["only_mutate"]
    settings["pytest_add_cli_args_test_selection"] = group["tests"]
    kept.append("")
    kept.append("[tool.mutmut]")
    kept.extend(f"{key} = {toml_value(value)}" for key, value in settings.items())
    return "\n".join(kept) + "\n"


def prepare(name: str, group: dict[str, list[str]]) -> Path:
    """mutants/NAME/ as mutmut should find it: links to the tree, the group's settings."""
    folder = WORK / name
    folder.mkdir(parents=True, exist_ok=True)
    for part in ("src", "tests"):
        link = folder / part
        if not link.is_symlink():
            link.symlink_to(Path("..") / ".." / part)
    toml = project_toml(group)
    target = folder / "pyproject.toml"
    if not target.exists() or target.read_text(encoding="utf-8") != toml:
        target.write_text(toml, encoding="utf-8")
    copy = folder / "mutants"
    # tests/ is copied again whole (a deleted or renamed test file must not linger)
    shutil.rmtree(copy / "tests", ignore_errors=True)
    for stale in [copy / "pyproject.toml"]:
        stale.unlink(missing_ok=True)
    src = copy / "src"
    if src.is_dir():
        for path in sorted(src.rglob("*"), reverse=True):
            if path.is_dir():
                if path.name == "__pycache__":
                    shutil.rmtree(path)
                elif not any(path.iterdir()):
                    path.rmdir()
                continue
            rel = path.relative_to(copy)
            if not path.name.endswith(MUTMUT_FILES):
                path.unlink()  # a non-Python file: copied afresh by mutmut
            elif path.suffix == ".py" and not (ROOT / rel).exists():
                path.unlink()  # a module deleted from the tree
                for extra in (".meta", ".spans"):
                    Path(str(path) + extra).unlink(missing_ok=True)
    return folder


def statuses(folder: Path) -> dict[str, str]:
    """Each mutant's status in a group's folder (none before its first run)."""
    if not (folder / "mutants").is_dir():
        return {}
    return dict(mutation_score.results(folder))


def run(folder: Path, jobs: int, names: list[str]) -> int:
    command = [str(BIN / "mutmut"), "run", "--max-children", str(jobs), *names]
    print("+", f"(cd {folder.relative_to(ROOT)} &&", " ".join(command[1:]) + ")", flush=True)
    return subprocess.run(command, cwd=folder, check=False).returncode


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", default="", help="names of groups, separated by spaces")
    parser.add_argument("--jobs", type=int, default=1, help="mutmut's worker processes")
    parser.add_argument("globs", nargs="*", help="mutant names (globs)")
    args = parser.parse_args(argv)
    everything = groups()
    wanted = args.groups.split() or list(everything)
    unknown = [g for g in wanted if g not in everything]
    if unknown:
        print(f"unknown groups: {' '.join(unknown)} (known: {' '.join(everything)})")
        return 2
    os.environ.setdefault("RONDE_SHARED", str(ROOT.parent / "shared"))
    failed = []
    for name in wanted:
        group = everything[name]
        names = [g for g in args.globs if any(concerns(g, m) for m in modules(group))]
        if args.globs and not names:
            continue
        print(f"== {name}: {' '.join(modules(group))}", flush=True)
        folder = prepare(name, group)
        before = statuses(folder)
        code = run(folder, args.jobs, names)
        if code == 0 and not names:
            # a survivor of an earlier run, again: a test written since may kill it
            after = statuses(folder)
            again = sorted(
                n for n, s in before.items() if s == "survived" and after.get(n) == "survived"
            )
            if again:
                code = run(folder, args.jobs, again)
        if code:
            failed.append(name)
    if failed:
        print(f"mutmut failed in: {' '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
