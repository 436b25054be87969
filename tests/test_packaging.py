"""The wheel a host installs, and its upgrade (issue 28, docs/hosting.md).

A copy of the source that its builder cannot write (owned by root and read-only; the
build runs as ``nobody`` when the tests run as root) is built into a wheel with ``uv
build``, installed without extras into a fresh environment, migrated; then a newer build
of the same source (the next version, one more migration) is installed over it: ``ronde
--version`` says the new version, ``ronde tick`` refuses until ``ronde manage migrate``
has run, and the new migration is applied.

Slow (two builds, one install from the package index): marked ``slow``; ``make test``
runs it. Needs ``uv`` and the package index (PyPI), as ``make install`` does.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ronde import __version__

from .conftest import ROOT

pytestmark = pytest.mark.slow

UV = shutil.which("uv")
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _uv_binary() -> str | None:
    """uv's executable itself (not a shim script of pyenv, whose folder may be closed)."""
    candidates = [UV or ""]
    for finder in (
        ["pyenv", "which", "uv"],
        ["python3", "-c", "import uv; print(uv.find_uv_bin())"],
    ):
        try:
            found = subprocess.run(finder, capture_output=True, text=True, timeout=60)
        except OSError:
            continue
        candidates.append(found.stdout.strip())
    for candidate in candidates:
        path = Path(candidate)
        if candidate and path.is_file() and path.read_bytes()[:4] == b"\x7fELF":
            return str(path)
    return None


def _python_for(prefix: list[str]) -> str | None:
    """A Python 3.11+ the builder may run: this one, else the system's (root's own may
    live in a folder ``nobody`` cannot enter)."""
    for python in (sys.executable, "/usr/bin/python3"):
        check = "import sys; sys.exit(sys.version_info < (3, 11))"
        try:
            ok = subprocess.run([*prefix, python, "-c", check], capture_output=True, timeout=60)
        except OSError:
            continue
        if ok.returncode == 0:
            return python
    return None


def _as_builder(home: Path) -> tuple[list[str], dict[str, str]]:
    """(command prefix, environment) of the user who builds and installs: ``nobody`` when
    the tests run as root (root writes everything), else the current user."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("RONDE_", "DJANGO_", "VIRTUAL_ENV", "UV_", "PYTHON"))
        and k != "DATABASE_URL"
    }
    env.update(
        HOME=str(home),
        UV_CACHE_DIR=str(home / "uv-cache"),
        UV_PYTHON_DOWNLOADS="never",
        RONDE_DATA_DIR=str(home / "data"),
        PATH="/usr/local/bin:/usr/bin:/bin",
    )
    if AS_ROOT:
        runuser = shutil.which("runuser") or "runuser"
        return [runuser, "-u", "nobody", "--"], env
    return [], env


def _run(prefix: list[str], env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(
        [*prefix, *args], env=env, capture_output=True, text=True, timeout=900, cwd=env["HOME"]
    )
    return out


def _copy_source(dest: Path, version: str, probe_after: str | None = None) -> Path:
    """A copy of the source (the files git tracks, as a clean clone has them, without
    tags) at ``version``; with ``probe_after``, a new migration after that one."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    for name in files:
        if not name or not (ROOT / name).is_file():
            continue
        if not name.startswith(("src/", "pyproject.toml", "README.md", "LICENSE")):
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    init = dest / "src" / "ronde" / "__init__.py"
    text = init.read_text(encoding="utf-8")
    init.write_text(
        re.sub(r'__version__ = "[^"]*"', f'__version__ = "{version}"', text), encoding="utf-8"
    )
    if probe_after is not None:
        (dest / "src/ronde/web/games/migrations/9999_upgrade_probe.py").write_text(
            "from django.db import migrations\n\n\n"
            "class Migration(migrations.Migration):\n"
            f"    dependencies = [('games', '{probe_after}')]\n"
            "    operations = [migrations.RunSQL('CREATE TABLE ronde_upgrade_probe (n integer)',"
            " 'DROP TABLE ronde_upgrade_probe')]\n",
            encoding="utf-8",
        )
    # read-only: nobody (nor its owner, unless root) can write into the copy
    for path in sorted(dest.rglob("*"), reverse=True):
        path.chmod(stat.S_IMODE(path.stat().st_mode) & ~0o222)
    dest.chmod(0o555)
    return dest


def _next_version(version: str) -> str:
    parts = [int(p) for p in re.findall(r"\d+", version)[:3]]
    parts += [0] * (3 - len(parts))
    return f"{parts[0]}.{parts[1]}.{parts[2] + 1}"


DEPENDENCY = r"\(\s*[\"']games[\"'],\s*[\"']([^\"']+)[\"']"


def _leaf_migration() -> str:
    names = sorted(
        p.stem for p in (ROOT / "src/ronde/web/games/migrations").glob("[0-9][0-9][0-9][0-9]_*.py")
    )
    # the leaf: the one no other migration of the folder depends on
    folder = ROOT / "src/ronde/web/games/migrations"
    depended = set()
    for name in names:
        depended |= set(
            re.findall(
                r"\(\s*[\"']games[\"'],\s*[\"']([^\"']+)[\"']", (folder / f"{name}.py").read_text()
            )
        )
    leaves = [n for n in names if n not in depended]
    assert len(leaves) == 1, leaves
    return leaves[0]


def _size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A folder every user may enter (pytest's own is its owner's only)."""
    base = Path(tempfile.mkdtemp(prefix="ronde-wheel-"))
    base.chmod(0o755)
    try:
        yield base
    finally:
        for path in base.rglob("*"):  # the read-only copies, writable again to be removed
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.skipif(UV is None, reason="uv absent (make install l'installe)")
def test_wheel_installs_read_only_and_upgrades_with_its_migrations(workdir: Path) -> None:
    assert UV is not None
    home = workdir / "home"
    home.mkdir()
    uv = home / "uv"
    binary = _uv_binary()
    if binary is None:
        pytest.skip("exécutable de uv introuvable")
    shutil.copy2(binary, uv)  # (uv's own folder may be closed to nobody)
    if AS_ROOT:
        for path in (home, uv):
            shutil.chown(path, "nobody", "nogroup")
    prefix, env = _as_builder(home)
    python = _python_for(prefix)
    if python is None:
        pytest.skip("aucun Python 3.11+ que l'utilisateur nobody puisse lancer")
    UVB = str(uv)
    old = _copy_source(workdir / "source-old", __version__)
    new_version = _next_version(__version__)
    new = _copy_source(workdir / "source-new", new_version, probe_after=_leaf_migration())
    # the builder cannot write into the source copies
    probe = _run(prefix, env, "touch", str(old / "src" / "écrit"))
    assert probe.returncode != 0

    dist = home / "dist"
    venv = home / "venv"
    ronde = str(venv / "bin" / "ronde")
    for source, out in ((old, dist / "old"), (new, dist / "new")):
        built = _run(prefix, env, UVB, "build", "--wheel", "--out-dir", str(out), str(source))
        assert built.returncode == 0, built.stdout + built.stderr
    assert not list(old.rglob("*.egg-info")) and not (old / "build").exists()
    (wheel_old,) = (dist / "old").glob("ronde-*.whl")
    (wheel_new,) = (dist / "new").glob("ronde-*.whl")
    assert wheel_old.name.startswith(f"ronde-{__version__}-")
    assert wheel_new.name.startswith(f"ronde-{new_version}-")

    made = _run(prefix, env, UVB, "venv", "--python", python, str(venv))
    assert made.returncode == 0, made.stderr
    pip = [UVB, "pip", "install", "--python", str(venv / "bin" / "python")]
    out = _run(prefix, env, *pip, str(wheel_old))
    assert out.returncode == 0, out.stderr
    # without extras: no spaCy, no matplotlib, no psycopg; small
    listed = _run(prefix, env, UVB, "pip", "list", "--python", str(venv / "bin" / "python"))
    names = listed.stdout.lower()
    assert "spacy" not in names and "matplotlib" not in names and "psycopg" not in names
    size = _size_mb(venv)
    print(f"install without extras: {size:.0f} MB")
    assert size < 115, size

    version = _run(prefix, env, ronde, "--version")
    assert version.stdout.strip() == f"ronde {__version__}", version.stdout + version.stderr
    assert _run(prefix, env, ronde, "manage", "migrate", "-v", "0").returncode == 0
    assert _run(prefix, env, ronde, "tick").returncode == 0

    # the upgrade: the newer wheel over the old one
    out = _run(prefix, env, *pip, str(wheel_new))
    assert out.returncode == 0, out.stderr
    version = _run(prefix, env, ronde, "--version")
    assert version.stdout.strip() == f"ronde {new_version}", version.stdout
    refused = _run(prefix, env, ronde, "tick")
    assert refused.returncode == 2 and "ronde manage migrate" in refused.stderr, refused.stderr
    migrated = _run(prefix, env, ronde, "manage", "migrate")
    assert migrated.returncode == 0 and "9999_upgrade_probe" in migrated.stdout, migrated.stdout
    shown = _run(prefix, env, ronde, "manage", "showmigrations", "games")
    assert "[X] 9999_upgrade_probe" in shown.stdout, shown.stdout
    assert _run(prefix, env, ronde, "tick").returncode == 0
    # python -m ronde is the same command
    module = _run(prefix, env, str(venv / "bin" / "python"), "-m", "ronde", "--version")
    assert module.stdout.strip() == f"ronde {new_version}"
