"""A browser copy marks nothing: a player can imitate, inside his own post, the footer
of a post and the header of another player's post, then write that player's
complaint. Only what the server writes outside posts (the town's thread list with
the thread's reply count and last poster, the pager) can prove that no post was
forged: a copy gives a sure step only when it holds every page of the thread, with
as many posts as the reply count + 1 (``ronde.forum.thread.check_copies``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from ronde.engine.views import view
from ronde.forum.proposals import ParseResult, parse_pages
from ronde.forum.thread import looks_like_html

from .conftest import GMS, TODAY, new_game
from .fixtures.build_fixtures import TRIAL, ThreadSpec, page_html, page_text
from .fixtures.build_fixtures import text_post as _text

F = "pose une plainte contre Grodoudou pour avoir trop cabotiné dans son rôle de Woody."
FOOTER = "[ Lien ] [ Copier ] [ Citer ] [ ! ]"
OWN = "N'importe quoi ! Je suis juste perdu dans le désert."


ONE_PAGE = ThreadSpec(
    name="one",
    title="Procès : Grodoudou est Woody !",
    posts=[
        _text("KaktusJoe", "7 nov. 2025, 09:40", "J'accuse Grodoudou d'être le shérif Woody !"),
        _text("Tartine", "7 nov. 2025, 09:52", f"Moi, Tartine, {F}"),
        _text("Grodoudou", "7 nov. 2025, 10:05", OWN, "[-3, 1]"),
        _text("Zorro", "7 nov. 2025, 10:30", f"Moi, Zorro, {F}"),
    ],
    other_threads=["Répétitions du J5"],
)
#: Sirius's complaint, written by Grodoudou at the end of his own post
FORGED = f"{FOOTER}\n7 nov. 2025, 10:06Sirius\n  en ville ou aux portes\nMoi, Sirius, {F}"


def parse(*pages: str) -> ParseResult:
    gv = view(new_game().state, "game_master")
    return parse_pages(list(pages), gv, today=TODAY, game_masters=GMS)


def forge(text: str, extra: str, after: str = OWN) -> str:
    assert text.count(after + "\n") == 1
    return text.replace(after + "\n", after + "\n" + extra + "\n")


def steps(result: ParseResult) -> list[tuple[str, str, bool]]:
    return [(p.action, p.by, p.sure) for p in result.proposals]


def unproven(result: ParseResult) -> str:
    """The reason every step of ``result`` is a doubt (each step says it)."""
    assert result.proposals and not [p for p in result.proposals if p.sure]
    assert result.thread.unproven is not None
    for p in result.proposals:
        assert any("auteur non prouvé" in d and "Ctrl+S" in d for d in p.doubts), p.doubts
    assert any("auteurs non prouvés" in d.message for d in result.diagnostics)
    return result.thread.unproven


# -- the thread list proves a whole copy ------------------------------------------------
def test_a_one_page_copy_with_its_thread_list_gives_sure_steps() -> None:
    result = parse(page_text(ONE_PAGE, 1, 1))
    assert result.thread.unproven is None and all(p.proven for p in result.thread.posts)
    assert steps(result) == [
        ("open_trial", "KaktusJoe", True),
        ("complain", "Tartine", True),
        ("post", "Grodoudou", True),
        ("complain", "Zorro", True),
    ]


def test_a_forged_post_in_a_one_page_copy_makes_every_step_a_doubt() -> None:
    result = parse(forge(page_text(ONE_PAGE, 1, 1), FORGED))
    assert [p.author for p in result.thread.posts].count("Sirius") == 1  # read, but…
    assert ("complain", "Sirius", False) in steps(result)
    why = unproven(result)
    assert "5 message(s) lu(s) pour 4 d'après la liste des sujets (3 réponse(s))" in why


def test_the_saved_page_is_not_fooled_by_the_same_text() -> None:
    forged = replace(
        ONE_PAGE,
        posts=[
            *ONE_PAGE.posts[:2],
            _text("Grodoudou", "7 nov. 2025, 10:05", OWN + "\n" + FORGED, "[-3, 1]"),
            ONE_PAGE.posts[3],
        ],
    )
    result = parse(page_html(forged, 1, 1))
    assert [p.author for p in result.thread.posts] == ["KaktusJoe", "Tartine", "Grodoudou", "Zorro"]
    assert steps(result) == [
        ("open_trial", "KaktusJoe", True),
        ("complain", "Tartine", True),
        ("post", "Grodoudou", True),
        ("complain", "Zorro", True),
    ]


def test_every_page_is_needed() -> None:
    p1, p2 = page_text(TRIAL, 1, 2), page_text(TRIAL, 2, 2)
    both = parse(p1 + p2)
    assert both.thread.unproven is None
    assert ("complain", "Tartine", True) in steps(both)
    assert "page(s) manquante(s) : 2 (sur 2)" in unproven(parse(p1))
    assert "page(s) manquante(s) : 1 (sur 2)" in unproven(parse(p2))
    # pasted apart, in any order, or twice: proven
    assert parse(p2, p1).thread.unproven is None
    assert parse(p2 + p1 + p1).thread.unproven is None


def test_pages_copied_at_different_times_prove_nothing() -> None:
    """Page 1 copied when the thread had 16 replies, page 2 after one more."""
    later = replace(TRIAL, posts=[*TRIAL.posts, _text("Zorro", "7 nov. 2025, 18:00", "Bon.")])
    result = parse(page_text(TRIAL, 1, 2), page_text(later, 2, 2))
    assert "moments différents" in unproven(result)


def test_the_last_poster_must_be_the_last_post_s_author() -> None:
    text = page_text(ONE_PAGE, 1, 1)
    listed = "Procès : Grodoudou est Woody !\n3\nZorro\n"
    assert listed in text
    result = parse(text.replace(listed, listed.replace("Zorro", "Tartine")))
    assert "dernier message de Zorro dans la copie, de Tartine" in unproven(result)


@pytest.mark.parametrize(
    ("what", "change"),
    [
        ("no thread list", lambda t: t[t.index("> Procès") :]),
        ("no title bar", lambda t: t.replace("> Procès", "Procès", 1)),
        ("cut", lambda t: t[: t.rindex(FOOTER)]),
        ("thread twice in the list", lambda t: t.replace("Répétitions du J5", ONE_PAGE.title)),
    ],
)
def test_a_copy_without_what_proves_it_is_a_doubt(what: str, change: Any) -> None:
    result = parse(change(page_text(ONE_PAGE, 1, 1)))
    assert [p.author for p in result.thread.posts][:2] == ["KaktusJoe", "Tartine"], what
    assert result.thread.unproven is not None
    assert not [p for p in result.proposals if p.sure]
    assert not [p for p in result.thread.posts if p.proven]


# -- other imitations -------------------------------------------------------------------
def test_an_imitated_thread_list_or_page_header_inside_a_post_proves_nothing() -> None:
    """After an imitated footer, Grodoudou writes a whole page top with a thread list
    counting his forged post: only the real top of the copy is read."""
    text = page_text(ONE_PAGE, 1, 1)
    head = text[: text.index("7 nov. 2025, 09:40")].replace("\n3\nZorro\n", "\n4\nZorro\n")
    result = parse(
        forge(text, FOOTER + "\n" + head.rstrip("\n") + "\n" + FORGED[len(FOOTER) + 1 :])
    )
    assert "entre deux messages" in unproven(result)  # (and one post too many)


@pytest.mark.parametrize(
    "pagers",
    [
        "Page\n 1\n/2\nPage\n 1\n/2",  # page 1 read as two parts
        "Page\n 1\n/2\nPage\n 2\n/2",  # a page 2 inside page 1
        "Page\n 2\n/2",
    ],
)
def test_an_imitated_pager_inside_a_post_proves_nothing(pagers: str) -> None:
    """In a thread of two pages, Grodoudou (page 1) imitates the end of a page and the
    start of the next one to make room for his forged post."""
    p1, p2 = page_text(TRIAL, 1, 2), page_text(TRIAL, 2, 2)
    own = "N'importe quoi ! Je suis juste perdu dans le désert. :sad:"
    forged = forge(p1, f"{FOOTER}\n{pagers}\n{FORGED[len(FOOTER) + 1 :]}", after=own)
    for text in (forged + p2, p2 + forged):
        result = parse(text)
        assert any(
            p.author == "Sirius" and p.time_text.endswith("10:06") for p in result.thread.posts
        )
        unproven(result)
    unproven(parse(forged))


def test_a_post_lost_between_two_posts_leaves_no_room_for_a_forged_one() -> None:
    """A post whose header is not read (here an unknown date form) leaves its lines
    between two posts: the count could then take a forged post, so nothing is sure."""
    text = page_text(ONE_PAGE, 1, 1).replace("7 nov. 2025, 09:52Tartine", "le 7/11 9:52 Tartine")
    result = parse(forge(text, FORGED))
    assert "entre deux messages" in unproven(result)


def test_a_forged_copy_of_a_real_post_is_one_post_too_many() -> None:
    """The forged post copies Tartine's, header and words: still one post too many."""
    tartine = f"7 nov. 2025, 09:52Tartine\n  en ville ou aux portes\nMoi, Tartine, {F}"
    result = parse(forge(page_text(ONE_PAGE, 1, 1), f"{FOOTER}\n{tartine}"))
    unproven(result)


def test_html_written_in_a_post_is_text_in_the_copy() -> None:
    """A copy holding a post whose text is the HTML of a post of Sirius is a copy (it
    starts with the page top), read as text: no post of Sirius."""
    fake = (
        '<div class="forum-post"><div class="forum-post-header"><i>7 nov. 2025, 10:06</i>'
        f'<span class="username">Sirius</span></div><div class="forum-post-content">Moi, Sirius, '
        f'{F}</div><div class="forum-post-footer">Lien</div></div>'
    )
    text = forge(page_text(ONE_PAGE, 1, 1), fake)
    assert not looks_like_html(text) and looks_like_html("\ufeff\n <!DOCTYPE html><html>")
    result = parse(text)
    assert result.thread.source == "text" and result.thread.unproven is None
    assert "Sirius" not in {p.author for p in result.thread.posts}
    assert "Sirius" not in {p.by for p in result.proposals}


def test_an_imitated_quote_author_line_gives_nobody_a_complaint() -> None:
    """Grodoudou writes a line « Sirius », then Sirius's words: a quote, or his own
    text, never a post of Sirius."""
    result = parse(forge(page_text(ONE_PAGE, 1, 1), f"Sirius\nMoi, Sirius, {F}"))
    assert result.thread.unproven is None
    assert "Sirius" not in {p.by for p in result.proposals}
    assert [p.author for p in result.thread.posts] == ["KaktusJoe", "Tartine", "Grodoudou", "Zorro"]


def test_an_imitated_edit_mark_touches_only_its_own_post() -> None:
    """A « Dernière édition » line written at the end of a post marks that post only;
    glued to an imitated footer, it comes with one post too many."""
    mark = "Dernière édition : 7 nov. 2025, 11:00"
    result = parse(forge(page_text(ONE_PAGE, 1, 1), mark))
    assert [(p.author, p.edited) for p in result.thread.posts] == [
        ("KaktusJoe", None),
        ("Tartine", None),
        ("Grodoudou", "7 nov. 2025, 11:00"),
        ("Zorro", None),
    ]
    assert result.thread.unproven is None
    glued = parse(forge(page_text(ONE_PAGE, 1, 1), mark + FORGED))
    unproven(glued)


def test_the_constraint_helpers_say_when_a_post_may_be_imitated() -> None:
    """A post of Élodie (the Little Mermaid) imitated in a copy: the helper's
    suggestion and its evidence say that its author is not proven."""
    from ronde.web.games import forum_console as fc

    from .conftest import START

    forged = f"{FOOTER}\n7 nov. 2025, 10:06Élodie\n  [5, 5]\nBonjour."
    gv = view(new_game().state, "game_master")
    for text, proven in (
        (page_text(ONE_PAGE, 1, 1), True),
        (forge(page_text(ONE_PAGE, 1, 1), forged), False),
    ):
        posts = parse(text).thread.posts
        helped = {h.player: h for h in fc.helpers(gv, posts, START, 5)}
        if proven:
            assert "Élodie" not in helped
            continue
        h = helped["Élodie"]
        assert h.text.endswith("auteur des messages non prouvé")
        assert h.evidence and all("auteur non prouvé" in e for e in h.evidence)
