"""Names in forum text: pseudos (strict) and Characters (tolerant).

Pseudos are compared after :func:`ronde.forum.thread.fold_pseudo` (NFC, case
folded, invisible characters removed): only that is an exact match. A name that
matches only without accents, or with a typo (rapidfuzz), is a *suggestion*
that a game master confirms, never a silent guess — two pseudos can differ by
an accent only (an account name and a town alias).

Characters are matched the way players write them: case, accents, articles and
short names ("l'avocat du diable", "la petite sirene", "le chevalier") are exact;
a typo ("Woodie") is a flagged suggestion.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from ..engine.errors import RuleViolation
from ..engine.names import CAST_TABLE, normalize, resolve_character
from .thread import fold_pseudo, fold_text, pseudo_prefix

PSEUDO_CUTOFF = 75.0
CHARACTER_CUTOFF = 70.0

#: Short names players use besides those of ``ronde.engine.names``.
EXTRA_ALIASES = {
    "diable": "devils_advocate",
    "avocat_du_diable": "devils_advocate",
    "mermaid": "little_mermaid",
    "petite_sirene": "little_mermaid",
    "decos": "decorators",
    "deco": "decorators",
    "heros": "tragic_hero",
    "hero": "tragic_hero",
    "paille": "straw_man",
    "pinocchio": "pinocchio",
    "pinochio": "pinocchio",
    "pierrot": "pierrot",
    "lunaire": "pierrot",
    "sherif": "woody",
}


@dataclass(frozen=True)
class NameMatch:
    """``value`` is the pseudo or Character id; ``exact`` False means a suggestion,
    unless ``prefix``: the name players shorten the pseudo to (« Zorro » for ZorroDu13,
    :func:`ronde.forum.thread.pseudo_prefix`), the only pseudo it begins."""

    value: str
    exact: bool
    score: float
    written: str
    prefix: bool = False

    def doubt(self, what: str) -> str | None:
        if self.exact or self.prefix:
            return None
        return f"{what} « {self.written} » lu comme « {self.value} » (à confirmer)"


class Roster:
    """The pseudos of a game (players and game masters) for exact and fuzzy matching."""

    def __init__(self, players: Iterable[str], game_masters: Iterable[str] = ()) -> None:
        self.players = list(players)
        self.game_masters = list(game_masters)
        self._exact = {fold_pseudo(p): p for p in self.players}
        self._gm = {fold_pseudo(p): p for p in self.game_masters}
        self._plain: dict[str, list[str]] = {}
        for p in self.players:
            self._plain.setdefault(fold_text(fold_pseudo(p)), []).append(p)

    def is_game_master(self, name: str) -> bool:
        return fold_pseudo(name) in self._gm

    def game_master(self, name: str) -> str | None:
        """The game master called ``name`` (as the game spells it), or None."""
        return self._gm.get(fold_pseudo(name))

    def match(self, written: str) -> NameMatch | None:
        """The player named ``written``: exact, or the nearest as a suggestion."""
        text = written.strip().lstrip("@").strip(" ,.;:!?«»\"'")
        if not text:
            return None
        key = fold_pseudo(text)
        if key in self._exact:
            return NameMatch(self._exact[key], True, 100.0, text)
        same = self._plain.get(fold_text(key), [])
        if len(same) == 1:
            return NameMatch(same[0], False, 99.0, text)
        shortened = [p for p in self.players if pseudo_prefix(text, p)]
        if len(shortened) == 1:
            return NameMatch(shortened[0], False, 98.0, text, prefix=True)
        if not self.players:
            return None
        folded = [fold_text(fold_pseudo(p)) for p in self.players]
        best = process.extractOne(fold_text(key), folded, scorer=fuzz.ratio)
        if best is None or best[1] < PSEUDO_CUTOFF:
            return None
        return NameMatch(self.players[best[2]], False, float(best[1]), text)

    def mentioned(self, text: str, *, exclude: Iterable[str] = ()) -> list[NameMatch]:
        """Players named in free text (exact matches of 1 to 3 words, then typos of
        single words of 4 letters or more), in order of appearance, each once."""
        skip = {fold_pseudo(e) for e in exclude}
        words = text.replace("@", " ").split()
        found: list[NameMatch] = []
        seen: set[str] = set()
        i = 0
        while i < len(words):
            hit: NameMatch | None = None
            width = 1
            for w in (3, 2, 1):
                chunk = " ".join(words[i : i + w]).strip(" ,.;:!?«»\"'()")
                key = fold_pseudo(chunk)
                if key in self._exact:
                    hit, width = NameMatch(self._exact[key], True, 100.0, chunk), w
                    break
            if hit is None:
                chunk = words[i].strip(" ,.;:!?«»\"'()")
                if len(chunk) >= 4 and chunk[:1].isupper():
                    m = self.match(chunk)
                    if m is not None and m.score >= 85 and not m.prefix:
                        hit = m
            if hit is not None and fold_pseudo(hit.value) not in skip and hit.value not in seen:
                seen.add(hit.value)
                found.append(hit)
            i += width
        return found


def _character_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for c in CAST_TABLE:
        for name in (c.id, c.fr, c.en):
            table[normalize(name)] = c.id
    table.update(EXTRA_ALIASES)
    return table


_CHARACTERS = _character_table()


def match_character(written: str) -> NameMatch | None:
    """The Character named at the start of ``written`` (extra words after it are
    ignored): exact with any case, accents, article or short name; a typo is a
    flagged suggestion."""
    words = written.replace("’", "'").split()
    for w in range(min(len(words), 6), 0, -1):
        chunk = " ".join(words[:w]).strip(" ,.;:!?«»\"'()")
        if not chunk:
            continue
        try:
            return NameMatch(resolve_character(chunk), True, 100.0, chunk)
        except RuleViolation:
            pass
        key = normalize(chunk)
        if key in _CHARACTERS:
            return NameMatch(_CHARACTERS[key], True, 100.0, chunk)
    for w in range(min(len(words), 5), 0, -1):
        chunk = " ".join(words[:w]).strip(" ,.;:!?«»\"'()")
        key = normalize(chunk)
        if len(key) < 4:
            continue
        best = process.extractOne(key, list(_CHARACTERS), scorer=fuzz.ratio)
        if best is not None and best[1] >= CHARACTER_CUTOFF:
            return NameMatch(_CHARACTERS[best[0]], False, float(best[1]), chunk)
    return None


def characters_mentioned(text: str) -> list[NameMatch]:
    """Characters named anywhere in ``text`` (exact names only), each once."""
    words = text.replace("’", "'").split()
    found: list[NameMatch] = []
    seen: set[str] = set()
    i = 0
    while i < len(words):
        width = 1
        for w in (5, 4, 3, 2, 1):
            chunk = " ".join(words[i : i + w]).strip(" ,.;:!?«»\"'()")
            key = normalize(chunk)
            cid = _CHARACTERS.get(key)
            if cid is None:
                try:
                    cid = resolve_character(chunk) if chunk else None
                except RuleViolation:
                    cid = None
            if cid is not None:
                if cid not in seen:
                    seen.add(cid)
                    found.append(NameMatch(cid, True, 100.0, chunk))
                width = w
                break
        i += width
    return found
