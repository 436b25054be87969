"""Identifiers and names of the Characters (R0.4, R1.6, Appendix C).

French names are what users read and type; identifiers are English
``snake_case``. Input is accepted in either language, case and accents ignored.
"""

from __future__ import annotations

import difflib
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from .errors import RuleViolation


@dataclass(frozen=True, slots=True)
class CharacterName:
    """One row of the cast table R1.6."""

    id: str
    fr: str
    en: str
    players: int
    in_ronde: bool


CAST_TABLE: Final[tuple[CharacterName, ...]] = (
    CharacterName("extra", "Figurant", "Extra", 6, False),
    CharacterName("prompter", "Souffleur", "Prompter", 1, True),
    CharacterName("devils_advocate", "Avocat du Diable", "Devil's Advocate", 1, True),
    CharacterName("alice", "Alice", "Alice", 1, True),
    CharacterName("guignol", "Guignol", "Guignol", 1, True),
    CharacterName("decorators", "Décorateurs", "Decorators", 2, True),
    CharacterName("chucky", "Chucky", "Chucky", 1, True),
    CharacterName("seer", "Voyante", "Seer", 1, True),
    CharacterName("mime", "Mime", "Mime", 1, True),
    CharacterName("little_mermaid", "Petite Sirène", "Little Mermaid", 1, True),
    CharacterName("halus", "Halus", "Halus", 1, True),
    CharacterName("woody", "Woody", "Woody", 1, True),
    CharacterName("pierrot", "Pierrot lunaire", "Pierrot", 1, True),
    CharacterName("diva", "Diva", "Diva", 1, True),
    CharacterName("pianist", "Pianiste", "Pianist", 1, True),
    CharacterName("destiny", "Destinée", "Destiny", 1, True),
    CharacterName("tragic_hero", "Héros tragique", "Tragic Hero", 1, True),
    CharacterName("knight", "Chevalier de la table ronde", "Knight of the Round Table", 1, True),
    CharacterName("polichinelle", "Polichinelle", "Polichinelle", 1, True),
    CharacterName("straw_man", "Homme de paille", "Straw Man", 1, True),
    CharacterName("pinocchio", "Pinocchio", "Pinocchio", 1, True),
    CharacterName("revenant", "Revenant", "Revenant", 1, True),
)

BY_ID: Final[dict[str, CharacterName]] = {c.id: c for c in CAST_TABLE}
RONDE_IDS: Final[tuple[str, ...]] = tuple(c.id for c in CAST_TABLE if c.in_ronde)
#: the seats of R1.6's full cast (28), the Extras among them (6); A76: 29 to 32 players
#: seat 1 to 4 more Extras
FULL_CAST: Final[int] = sum(c.players for c in CAST_TABLE)
EXTRAS: Final[int] = BY_ID["extra"].players
MAX_PLAYERS: Final[int] = FULL_CAST + 4

# Extra spellings people use (articles are stripped before lookup).
_ALIASES: Final[dict[str, str]] = {
    "decorator": "decorators",
    "decorateur": "decorators",
    "avocat": "devils_advocate",
    "avocat_du_diable": "devils_advocate",
    "devil_s_advocate": "devils_advocate",
    "sirene": "little_mermaid",
    "petite_sirene": "little_mermaid",
    "pierrot_lunaire": "pierrot",
    "chevalier": "knight",
    "chevalier_de_la_table_ronde": "knight",
    "heros": "tragic_hero",
    "heros_tragique": "tragic_hero",
    "homme_de_paille": "straw_man",
    "destinee": "destiny",
    "figurant": "extra",
    "nouveau_figurant": "extra",
    "pianiste": "pianist",
    "voyante": "seer",
    "souffleur": "prompter",
    "figurants": "extra",
    "decorateurs": "decorators",
}

_ARTICLES: Final[tuple[str, ...]] = ("l_", "le_", "la_", "les_", "the_", "un_", "une_")


#: names Ronde uses itself (the chorus as an author, the views' viewers), folded: no
#: player or game master may bear one (a roster, a game master's seat, a replacement)
RESERVED_NAMES = frozenset({"chorus", "choeur", "chœur", "public", "game_master", "engine"})


@lru_cache(maxsize=8192)
def fold_name(text: str) -> str:
    """Fold a pseudo for an exact match (R0.4, issue Forum bridge): Unicode NFKC
    (compatibility forms such as full-width letters), case folded, invisible
    characters removed, runs of spaces as one. Accents stay significant: « Élodie »
    and « Elodie » are two citizens; anything short of this match is a suggestion."""
    composed = unicodedata.normalize("NFKC", text)
    visible = "".join(ch for ch in composed if unicodedata.category(ch) != "Cf")
    return " ".join(visible.casefold().split())


@lru_cache(maxsize=8192)
def normalize(text: str) -> str:
    """Fold a Character's name for lookups: accents and case ignored, separators as
    ``_``, articles dropped ("la petite sirène" is ``petite_sirene``)."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
    chars = [ch if ch.isalnum() else "_" for ch in plain]
    folded = "_".join(part for part in "".join(chars).split("_") if part)
    for art in _ARTICLES:
        if folded.startswith(art) and len(folded) > len(art):
            folded = folded[len(art) :]
            break
    return folded


def _lookup_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for c in CAST_TABLE:
        table[normalize(c.id)] = c.id
        table[normalize(c.fr)] = c.id
        table[normalize(c.en)] = c.id
    for alias, cid in _ALIASES.items():
        table[alias] = cid
    return table


_LOOKUP: Final[dict[str, str]] = _lookup_table()


def resolve_character(text: str) -> str:
    """Return the identifier of the Character named ``text`` (id, French or English name).

    Raises:
        RuleViolation: ``unknown_character``, with the nearest name as suggestion.
    """
    key = normalize(str(text))
    if key in _LOOKUP:
        return _LOOKUP[key]
    close = difflib.get_close_matches(key, list(_LOOKUP), n=1, cutoff=0.6)
    suggestion = _LOOKUP[close[0]] if close else None
    hint = f" Vouliez-vous dire « {french_name(suggestion)} » ?" if suggestion else ""
    raise RuleViolation(
        "unknown_character", f"Personnage inconnu : « {text} ».{hint}", suggestion=suggestion
    )


def french_name(character: str) -> str:
    """The French name of a Character id (the id itself if unknown)."""
    row = BY_ID.get(character)
    return row.fr if row else character


def nearest(text: str, candidates: list[str]) -> str | None:
    """The candidate closest to ``text`` after folding, or ``None``."""
    folded = {normalize(c): c for c in candidates}
    close = difflib.get_close_matches(normalize(text), list(folded), n=1, cutoff=0.5)
    return folded[close[0]] if close else None


#: the causes of an unmasking, in French (R8.1): the announcements and every page
#: the chorus actions' French names (R8.6): the engine's messages and the web's forms
CHORUS_ACTIONS_FR = {
    "investigate": "Enquêter",
    "put_to_sleep": "Endormir",
    "spread_secret": "Répandre un secret",
    "prompt": "Souffler (bougie)",
    "cut_thread": "Couper un fil",
}

CAUSES_FR = {
    "trial": "Procès juste",
    "constraint": "contrainte non respectée",
    "duty": "devoir non accompli",
    "power": "pouvoir d'un autre personnage",
    "death": "mort du citoyen",
    "hunt": "accusation fausse du Héros tragique",
}
