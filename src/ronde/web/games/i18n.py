"""Compiled translations without GNU gettext: ``.po`` -> ``.mo`` in pure Python.

The app compiles a catalogue at start-up when its ``.mo`` is missing or older
than its ``.po`` (:func:`ensure_compiled`), so a fresh clone serves English
without ``msgfmt``. Fuzzy entries and untranslated strings are left out, as
``msgfmt`` does.
"""

from __future__ import annotations

import ast
import struct
from collections.abc import Iterable
from pathlib import Path


def parse_po(text: str) -> dict[str, str]:
    """msgid (with ``\\0`` + plural, ``\\x04`` context) -> msgstr (plurals ``\\0``-joined)."""
    out: dict[str, str] = {}
    entry: dict[str, str] = {}
    plurals: dict[int, str] = {}
    fuzzy = False
    field = ""

    def flush() -> None:
        nonlocal entry, plurals, fuzzy
        if "msgid" in entry:
            key = entry["msgid"]
            if "msgid_plural" in entry:
                key += "\0" + entry["msgid_plural"]
                value = "\0".join(plurals[k] for k in sorted(plurals))
            else:
                value = entry.get("msgstr", "")
            if "msgctxt" in entry:
                key = entry["msgctxt"] + "\x04" + key
            if value.replace("\0", "") and (not fuzzy or key == ""):
                out[key] = value
        entry, plurals, fuzzy = {}, {}, False

    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if line.startswith("#,") and "fuzzy" in line:
                if "msgid" in entry:
                    flush()
                fuzzy = True
            continue
        if line.startswith('"'):
            value = ast.literal_eval(line)
            if field.startswith("msgstr["):
                n = int(field[7:-1])
                plurals[n] = plurals.get(n, "") + value
            else:
                entry[field] = entry.get(field, "") + value
            continue
        keyword, _, rest = line.partition(" ")
        if keyword in ("msgid", "msgctxt") and ("msgstr" in entry or plurals):
            flush()
        if keyword == "msgctxt" and "msgid" in entry:
            flush()
        field = keyword
        value = ast.literal_eval(rest.strip())
        if keyword.startswith("msgstr["):
            plurals[int(keyword[7:-1])] = value
        else:
            entry[keyword] = value
    flush()
    return out


def mo_bytes(messages: dict[str, str]) -> bytes:
    """The GNU ``.mo`` file of ``messages`` (little-endian, no hash table)."""
    keys = sorted(messages)
    ids = [k.encode("utf-8") for k in keys]
    strs = [messages[k].encode("utf-8") for k in keys]
    n = len(keys)
    header = 7 * 4
    ids_table = header
    strs_table = ids_table + 8 * n
    data_start = strs_table + 8 * n
    offsets: list[tuple[int, int]] = []
    blob = b""
    for s in ids:
        offsets.append((len(s), data_start + len(blob)))
        blob += s + b"\0"
    str_offsets: list[tuple[int, int]] = []
    for s in strs:
        str_offsets.append((len(s), data_start + len(blob)))
        blob += s + b"\0"
    out = struct.pack("<7I", 0x950412DE, 0, n, ids_table, strs_table, 0, data_start)
    out += b"".join(struct.pack("<2I", *o) for o in offsets)
    out += b"".join(struct.pack("<2I", *o) for o in str_offsets)
    return out + blob


def compile_po(po: Path, mo: Path) -> None:
    mo.write_bytes(mo_bytes(parse_po(po.read_text(encoding="utf-8"))))


def ensure_compiled(locale_dirs: Iterable[Path]) -> None:
    """Compile every ``*.po`` whose ``.mo`` is missing or older (read-only trees: skipped)."""
    for folder in locale_dirs:
        for po in Path(folder).glob("*/LC_MESSAGES/*.po"):
            mo = po.with_suffix(".mo")
            try:
                if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
                    compile_po(po, mo)
            except OSError:
                continue
