"""Constraint helpers: suggestions for the game master (R6.20), never verdicts."""

from __future__ import annotations

from datetime import datetime

from ronde.engine.clock import PARIS
from ronde.forum.checks import (
    cell_posts,
    find_sentence,
    participation,
    prompter_sentence,
    questions,
)
from ronde.forum.registre import mime_check, read_entries
from ronde.forum.thread import Block, Post, read_thread

from .conftest import START, page


def post(author: str, hhmm: str, stamp: object, text: str, day: int = 5, i: int = 1) -> Post:
    h, m = (int(x) for x in hhmm.split(":"))
    at = datetime(2025, 11, 2 + day, h, m, tzinfo=PARIS)
    return Post(i, author, hhmm, at, stamp, [Block("text", text)])  # type: ignore[arg-type]


def test_cell_posts_need_two_posts_six_hours_apart_in_the_area() -> None:
    posts = [
        post("Élodie", "08:00", (2, -3), "a"),
        post("Élodie", "13:59", (0, -1), "b"),
        post("Élodie", "14:00", (1, -2), "c"),
        post("Élodie", "20:00", (1, 2), "d"),
    ]
    s = cell_posts(posts, "Élodie", character="little_mermaid", day=5, start=START)
    assert s.met and len(s.evidence) == 2 and "08:00" in s.evidence[0]
    assert not cell_posts(posts[:2], "Élodie", character="little_mermaid", day=5, start=START).met
    assert not cell_posts(posts, "Élodie", character="pierrot", day=5, start=START).met
    # another player with a name that differs by an accent is someone else
    assert not cell_posts(posts, "Elodie", character="little_mermaid", day=5, start=START).met
    # the Mermaid's go_to order: one given cell
    order = [post("Zorro", "07:00", (2, 1), "x"), post("Zorro", "19:30", (2, 1), "y")]
    assert cell_posts(order, "Zorro", cell=(2, 1), day=5, start=START).met
    assert not cell_posts(order, "Zorro", cell=(2, 2), day=5, start=START).met


def test_cell_stamps_come_from_the_pasted_page() -> None:
    thread = read_thread(page("trial_woody.txt"))
    s = cell_posts(thread.posts, "Grodoudou", character="woody", day=5, start=START)
    assert not s.met and "1 message(s)" in s.text  # one post from [-3, 1] only
    texts_in_town = [p for p in thread.posts if p.stamp == "town"]
    assert texts_in_town and all(isinstance(p.stamp, str) for p in texts_in_town)


def test_alice_needs_two_questions_in_one_post_quotes_excluded() -> None:
    one = post("Mirabelle", "10:00", "town", "Qui est la Diva ?? Je me le demande.")
    two = post("Mirabelle", "11:00", "town", "Qui est la Diva ? Et pourquoi Woody se cache-t-il ?")
    assert not questions([one], "Mirabelle").met
    assert questions([one, two], "Mirabelle").met
    quoted = Post(3, "Mirabelle", "12:00", two.time, "town", [Block("quote", two.own_text, "X")])
    assert not questions([quoted], "Mirabelle").met


def test_prompter_sentence_one_word_changed_order_kept_punctuation_free() -> None:
    sentence = "Les pantins dansent toujours quand la lune se lève"
    assert find_sentence(sentence, "Hé ! les Pantins, dansent toujours quand la lune se leve...")
    changed = find_sentence(sentence, "Les pantins chantent toujours quand la lune se lève.")
    assert changed is not None and changed.changed == "« dansent » → « chantent »"
    assert find_sentence(sentence, "Les pantins chantent souvent quand la lune se lève.") is None
    assert find_sentence(sentence, "Toujours les pantins dansent quand la lune se lève.") is None
    p = post(
        "Sirius", "09:00", "town", "Bref. Les pantins dansent toujours quand la lune se lève !"
    )
    assert prompter_sentence([p], "Sirius", sentence, day=5, start=START).met


def test_rehearsal_participation_days_and_forum_days() -> None:
    rehearsals = read_thread(page("rehearsals_j5.txt")).posts
    trial = read_thread(page("trial_woody.txt")).posts
    part = participation(rehearsals, trial, START)
    assert part.rehearsal_days == {"Tartine": {5}, "Loulou": {5}}
    assert "Zorro" not in part.rehearsal_days and any("2 ligne" in r for r in part.refused)
    assert part.forum_days["Zorro"] == {5} and part.forum_days["Grodoudou"] == {5}


MODEL_DAY = """
08:02 Pantalon a pris une ration d’eau.
08:10 Pantalon a ramassé Planche tordue qui traînait là…
09:00 Pantalon a quitté la ville vers le Nord.
09:05 Pantalon a déposé Planche tordue.
10:00 Pantalon a travaillé sur le projet Muraille en bois.
11:00 Pantalon est rentré en ville depuis le Nord.
11:30 Pantalon a donné Ferraille à la ville.
12:00 Pantalon a pris Eau dans les coffres de la Banque !
"""

MIME_DAY = """
[07:00] Deco1 a pris une ration d'eau.
07:30 Deco1 a ramassé Planche tordue qui traînait là...
07:31 Deco1 a ramassé Planche tordue qui traînait là...
08:00 Deco1 a quitté la ville vers le Nord.
08:05 Deco1 a déposé Planche tordue.
09:00 Deco1 a travaillé sur le projet Muraille en bois.
10:00 Deco1 est rentré en ville depuis le Nord.
Cette entrée du registre a été raturée... Qu'a-t-on bien pu vouloir cacher ?
"""


def test_mime_needs_seven_distinct_identical_entries_times_ignored() -> None:
    entries, problems = read_entries(MODEL_DAY, "Pantalon")
    assert len(entries) == 8 and not problems
    short = mime_check(MODEL_DAY, MIME_DAY, model="Pantalon", mime="Deco1")
    assert not short.met and len(short.matched) == 6  # the duplicate counts once
    assert any("raturée" in e for e in short.evidence)
    full = mime_check(
        MODEL_DAY,
        MIME_DAY + "11:00 Deco1 a donné Ferraille à la ville.\n",
        model="Pantalon",
        mime="Deco1",
    )
    assert full.met and len(full.matched) == 7
    other = mime_check(MODEL_DAY, MIME_DAY.replace("Nord", "Sud"), model="Pantalon", mime="Deco1")
    assert len(other.matched) == 4
