"""Names in forum text: pseudos exact only after normalisation, Characters tolerant."""

from __future__ import annotations

import pytest

from ronde.forum.names import Roster, characters_mentioned, match_character
from ronde.forum.proposals import read_formulas

ROSTER = Roster(["Élodie", "Elodie", "Zoé", "KaktusJoe", "Grodoudou"], ["Mj_Rose"])


def test_pseudos_match_exactly_after_nfc_case_folding_and_invisible_characters() -> None:
    for written in ("ZOÉ", "Zoe\u0301", "Zo\u200bé", "\ufeffzoé", "@Zoé,"):
        m = ROSTER.match(written)
        assert m is not None and m.value == "Zoé" and m.exact, written
    # two players differ by an accent only: each matches himself exactly
    assert ROSTER.match("Elodie").value == "Elodie"  # type: ignore[union-attr]
    assert ROSTER.match("élodie").value == "Élodie"  # type: ignore[union-attr]


def test_anything_short_of_exact_is_a_suggestion() -> None:
    zoe = ROSTER.match("Zoe")
    assert zoe is not None and zoe.value == "Zoé" and not zoe.exact
    assert zoe.doubt("accusé") is not None
    typo = ROSTER.match("Grododou")
    assert typo is not None and typo.value == "Grodoudou" and not typo.exact
    assert ROSTER.match("Personne") is None
    assert ROSTER.is_game_master("mj_rose")


@pytest.mark.parametrize(
    ("written", "character"),
    [
        ("l'avocat du diable", "devils_advocate"),
        ("la petite sirene", "little_mermaid"),
        ("le chevalier", "knight"),
        ("LA VOYANTE, cette menteuse", "seer"),
        ("Décorateurs", "decorators"),
        ("les decorateurs", "decorators"),
        ("Pierrot lunaire", "pierrot"),
        ("Tragic Hero", "tragic_hero"),
    ],
)
def test_characters_by_short_names_articles_and_extra_words(written: str, character: str) -> None:
    m = match_character(written)
    assert m is not None and m.value == character and m.exact


def test_a_typo_in_a_character_is_a_flagged_suggestion() -> None:
    m = match_character("Woodie")
    assert m is not None and m.value == "woody" and not m.exact


def test_characters_mentioned_in_a_title() -> None:
    found = [m.value for m in characters_mentioned("Procès : Bidule est le Chevalier !")]
    assert found == ["knight"]


def test_the_formula_across_line_breaks_and_without_accents() -> None:
    (f,) = read_formulas(
        "MOI,   Zoe , POSE une plainte\ncontre grodoudou pour avoir trop cabotine\n"
        "dans son role de la petite sirene, voila.",
        ROSTER,
    )
    assert f.rejected is None and f.speaker is not None and f.speaker.value == "Zoé"
    assert not f.speaker.exact  # "Zoe" lacks the accent: a suggestion
    assert [a.value for a in f.accused] == ["Grodoudou"]
    assert f.character is not None and f.character.value == "little_mermaid"


@pytest.mark.parametrize(
    "text",
    [
        "Je poserais bien une plainte contre Grodoudou dans son rôle de Woody.",
        "Si tu insistes, je pose une plainte contre Grodoudou dans son rôle de Woody.",
        "Je pose une plainte contre Grodoudou dans son rôle de Woody ?",
        "Je ne pose pas de plainte contre Grodoudou dans son rôle de Woody.",
    ],
)
def test_conditionals_questions_and_negations_are_not_complaints(text: str) -> None:
    (f,) = read_formulas(text, ROSTER)
    assert f.rejected is not None
