"""Model rows read by a hand-written SELECT, for the pages read most often.

Building a query through Django's ORM (a join, a filter, an order) costs more than
running it: several hundred microseconds against a few tens for SQLite. The player
page runs the same two reads on every request, so they are written once here as SQL,
with every value converted by Django's own converters (the database backend's, then
the field's: aware datetimes, decoded JSON), and turned into model instances by
``Model.from_db``, exactly as the ORM would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model

M = TypeVar("M", bound=Model)

Converter = Callable[[Any, Any, BaseDatabaseWrapper], Any]


class Columns:
    """Some concrete fields of ``model`` (all but ``exclude``, in the model's order),
    selected from the table alias ``alias``: their SQL list, and the instance a row
    builds (the fields left out are deferred, read only if used)."""

    def __init__(self, model: type[M], alias: str, exclude: Sequence[str] = ()) -> None:
        self.model = model
        self.alias = alias
        self.fields: list[Field[Any, Any]] = [
            f for f in model._meta.concrete_fields if f.name not in exclude
        ]
        self.attnames = [f.attname for f in self.fields]
        self._converters: dict[str, list[list[tuple[Converter, Any]]]] = {}

    def __len__(self) -> int:
        return len(self.fields)

    def sql(self, connection: BaseDatabaseWrapper) -> str:
        qn = connection.ops.quote_name
        return ", ".join(f"{qn(self.alias)}.{qn(f.column)}" for f in self.fields)

    def _for(self, connection: BaseDatabaseWrapper) -> list[list[tuple[Converter, Any]]]:
        convs = self._converters.get(connection.alias)
        if convs is None:
            convs = []
            for f in self.fields:
                col = f.get_col(self.alias)
                fns = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
                convs.append([(fn, col) for fn in fns])
            self._converters[connection.alias] = convs
        return convs

    def build(self, connection: BaseDatabaseWrapper, values: Sequence[Any]) -> Any:
        out = []
        for value, convs in zip(values, self._for(connection), strict=True):
            for fn, col in convs:
                value = fn(value, col, connection)
            out.append(value)
        return self.model.from_db(connection.alias, self.attnames, out)


def fetch(sql: str, params: Sequence[Any], using: str = "default") -> list[tuple[Any, ...]]:
    """The rows of ``sql`` (parameters as ``%s``), unconverted."""
    with connections[using].cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def key(sql: str, params: Sequence[Any], using: str = "default") -> tuple[Any, ...]:
    """The rows of ``sql`` as stored, as a hashable key (to build a page again when
    what it shows of them changes)."""
    rows = tuple(fetch(sql, params, using))
    try:
        hash(rows)
    except TypeError:  # a driver that decodes JSON itself
        return tuple(repr(r) for r in rows)
    return rows
