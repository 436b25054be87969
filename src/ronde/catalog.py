"""Loads the item catalogue shipped with Ronde (``data/items.csv``).

This is the I/O side of :class:`ronde.engine.items.ItemCatalog`.
"""

from __future__ import annotations

import csv
import io
from functools import lru_cache
from importlib import resources
from pathlib import Path

from .engine.items import ItemCatalog


def _parse(text: str) -> ItemCatalog:
    deco: dict[str, int] = {}
    names: dict[str, str] = {}
    for row in csv.DictReader(io.StringIO(text)):
        item = row["item_id"].strip()
        deco[item] = int(row["deco_points"] or 0)
        names[item] = row["name_fr"].strip()
    return ItemCatalog(deco=deco, names_fr=names)


@lru_cache(maxsize=1)
def default_catalog() -> ItemCatalog:
    """The packaged catalogue (a copy of ``shared/catalog/items.csv``)."""
    text = resources.files("ronde").joinpath("data/items.csv").read_text(encoding="utf-8")
    return _parse(text)


def load_catalog(path: Path) -> ItemCatalog:
    """A catalogue from a CSV file with columns item_id, name_fr, name_en, deco_points."""
    return _parse(path.read_text(encoding="utf-8"))
