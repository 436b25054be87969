"""The engine's plan, checked on its source (issue 11): every import of an engine module
sits at the top of its file, so its layer is read from its first lines; the layers
themselves are import-linter's contracts (``pyproject.toml``, run by ``make lint``)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

from ronde.engine.game import Game
from ronde.engine.registry import CHARACTERS, REGISTRY

ENGINE = Path(__file__).resolve().parents[1] / "src" / "ronde" / "engine"
MODULES = sorted(ENGINE.rglob("*.py"))


def _type_checking(node: ast.stmt) -> bool:
    """``if TYPE_CHECKING:`` (a type for mypy, nothing at run time)."""
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Name | ast.Attribute)
        and (getattr(node.test, "id", None) or getattr(node.test, "attr", None)) == "TYPE_CHECKING"
    )


def inner_imports(source: str) -> list[int]:
    """The lines of the imports that are not at the top level of ``source`` (those of a
    top-level ``if TYPE_CHECKING:`` block excepted)."""
    tree = ast.parse(source)
    allowed: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            allowed.add(id(node))
        elif _type_checking(node):
            allowed.update(
                id(n) for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom)
            )
    return [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom) and id(n) not in allowed
    ]


def test_the_engine_has_modules() -> None:
    names = {p.relative_to(ENGINE).as_posix() for p in MODULES}
    assert {"game.py", "registry.py", "character.py", "characters/chucky.py"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(ENGINE).as_posix())
def test_no_import_inside_a_function(path: Path) -> None:
    lines = inner_imports(path.read_text(encoding="utf-8"))
    assert not lines, f"{path.name}: imports not at the top of the file, lines {lines}"


def test_the_check_finds_an_import_in_a_function() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from .state import GameState\n"
        "def f() -> None:\n"
        "    from .trials import running\n"
        "class C:\n"
        "    def m(self) -> None:\n"
        "        import json\n"
    )
    assert inner_imports(source) == [5, 8]


def test_the_registry_is_one_list_the_game_is_built_with() -> None:
    assert list(REGISTRY.values()) == list(CHARACTERS)
    assert len({c.id for c in CHARACTERS}) == len(CHARACTERS) == 22
    init = Game.__init__.__defaults__
    assert init is not None and REGISTRY in init


def test_every_engine_module_has_its_layer() -> None:
    """A new engine module is placed in the layers of ``pyproject.toml`` (import-linter
    only checks the modules it is told about)."""
    config = tomllib.loads((ENGINE.parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["id"] == "engine-layers")["layers"]
    named = {m.strip().removeprefix("ronde.engine.") for layer in layers for m in layer.split("|")}
    modules = {p.stem for p in ENGINE.glob("*.py")} - {"__init__"} | {"characters"}
    assert modules == named
