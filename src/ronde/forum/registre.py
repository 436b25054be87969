"""The Mime's Registre (R7.9.2): pasted Registre lines matched to MyHordes' French
entry templates (``data/registre.fr.tsv``, from ``shared/catalog/HORDES.md``
Appendix A).

An entry is identified by its template and its variables, the acting citizen
(the model on one side, the Mime on the other) replaced by a placeholder, times
ignored. The Mime's day must hold 7 *distinct* entries identical to entries of
his model's previous day (completed from the day before when that day has
fewer than 7). Struck-out entries ("raturée") and lines matching no template are
reported, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from .checks import Suggestion
from .thread import fold_pseudo

_TIME = re.compile(r"^\s*\[?\s*(\d{1,2})\s*[:h]\s*(\d{2})\s*\]?\s*[-–—:]?\s*")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
STRUCK = "raturée"
SELF = "{moi}"


@dataclass(frozen=True)
class Template:
    name: str
    text: str
    regex: re.Pattern[str]
    variables: tuple[str, ...]


@lru_cache(maxsize=1)
def templates() -> tuple[Template, ...]:
    """The Registre's French templates (without HTML tags; ICU forms left out)."""
    raw = resources.files("ronde.forum").joinpath("data/registre.fr.tsv").read_text("utf-8")
    out: list[Template] = []
    for line in raw.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, text = line.split("\t", 1)
        plain = re.sub(r"<[^>]+>", "", text).strip()
        if "{ref__" in plain or "plural," in plain:
            continue
        pattern = ""
        pos = 0
        names: list[str] = []
        for m in _PLACEHOLDER.finditer(plain):
            pattern += _literal(plain[pos : m.start()])
            pattern += r"(.+?)"
            names.append(m.group(1))
            pos = m.end()
        pattern += _literal(plain[pos:])
        out.append(Template(name, plain, re.compile("^" + pattern + r"\s*$"), tuple(names)))
    # the most literal text first: "{citizen} {action}." must not swallow the others
    out.sort(key=lambda t: -len(_PLACEHOLDER.sub("", t.text)))
    return tuple(out)


def _literal(text: str) -> str:
    """A regex for literal template text: apostrophes and ellipses as typed or not,
    runs of spaces as any whitespace."""
    out = []
    for ch in text:
        if ch in "'’":
            out.append("['’]")
        elif ch.isspace():
            out.append(r"\s+")
        elif ch == "…":
            out.append(r"(?:…|\.\.\.)")
        else:
            out.append(re.escape(ch))
    return "".join(out)


@dataclass(frozen=True)
class Entry:
    """One Registre line: its template and variables (the actor as ``{moi}``)."""

    line: str
    template: str | None
    key: tuple[str, ...] | None


def read_entries(text: str, actor: str) -> tuple[list[Entry], list[str]]:
    """Pasted Registre lines of ``actor``'s day: entries, and lines that match no
    template (or are struck out)."""
    entries: list[Entry] = []
    problems: list[str] = []
    me = fold_pseudo(actor)
    for raw in text.splitlines():
        line = _TIME.sub("", raw).strip()
        if not line:
            continue
        if STRUCK in line:
            problems.append(f"entrée raturée : « {line} »")
            continue
        for t in templates():
            m = t.regex.match(line)
            if m:
                values = tuple(
                    SELF if fold_pseudo(v) == me else " ".join(v.split()).casefold()
                    for v in m.groups()
                )
                entries.append(Entry(line, t.name, (t.name, *values)))
                break
        else:
            problems.append(f"aucun modèle du Registre : « {line} »")
    return entries, problems


@dataclass
class MimeResult(Suggestion):
    matched: list[str] = field(default_factory=list)


def mime_check(
    model_previous_day: str,
    mime_day: str,
    *,
    model: str,
    mime: str,
    model_day_before: str = "",
    needed: int = 7,
) -> MimeResult:
    """Seven distinct entries of the Mime's day identical to entries of his model's
    previous day (or the day before, if that day has fewer than 7), times ignored."""
    model_entries, problems = read_entries(model_previous_day, model)
    pool = {e.key for e in model_entries if e.key}
    if len(pool) < needed and model_day_before:
        before, more = read_entries(model_day_before, model)
        pool |= {e.key for e in before if e.key}
        problems += more
    mine, mime_problems = read_entries(mime_day, mime)
    matched: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for e in mine:
        if e.key in pool and e.key not in seen and e.key is not None:
            seen.add(e.key)
            matched.append(e.line)
    met = len(matched) >= needed
    text = f"{mime} : {len(matched)} entrée(s) distincte(s) identique(s) à celles de {model}"
    text += f" (il en faut {needed})"
    return MimeResult(met, text, problems + mime_problems, matched)
