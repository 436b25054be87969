"""The forum reader's defects of issue 12, each on a page built like the real
MyHordes templates (``fixtures/build_fixtures.py``, ``shared/catalog/FORUM-PAGE.md``),
in both forms (browser copy and saved HTML) where both can show it."""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ronde import store
from ronde.cli import app
from ronde.engine.clock import PARIS
from ronde.engine.views import view
from ronde.forum.checks import participation
from ronde.forum.proposals import ParseResult, parse_thread
from ronde.forum.thread import Block, Post, Thread, check_copies, merge_threads, read_thread

from .conftest import GMS, START, TODAY, new_game, page
from .fixtures.build_fixtures import TRIAL, P, ThreadSpec, page_html, page_text
from .fixtures.build_fixtures import text_post as _text

runner = CliRunner()
FORMULA = "pose une plainte contre Grodoudou pour avoir trop cabotiné dans son rôle de Woody."


def complaint(author: str, when: str, uid: int) -> P:
    return P(author, when, "town", [("text", f"Moi, {author}, {FORMULA}", "")], uid=uid)


def forms(spec: ThreadSpec, page: int = 1, pages: int = 1) -> list[str]:
    return [page_text(spec, page, pages), page_html(spec, page, pages)]


def parse(text: str, gm_view: dict[str, Any] | None = None, **kw: Any) -> ParseResult:
    if gm_view is None:
        gm_view = view(new_game().state, "game_master")
    return parse_thread(text, gm_view, game_masters=GMS, start=START, **kw)


# -- a doubtful opening left unconfirmed does not block the thread ---------------------
DOUBTFUL = ThreadSpec(
    name="doubtful",
    title="Procès : Grododou est Woody",
    posts=[
        P(
            "KaktusJoe",
            "7 nov. 2025, 09:40",
            "[2, -1]",
            [("text", "J'accuse Grododou d'être Woody !", "")],
            uid=11,
        ),
        complaint("Tartine", "7 nov. 2025, 09:52", 12),
        complaint("Zorro", "7 nov. 2025, 10:30", 14),
    ],
)


def _game_file(tmp_path: Path) -> Path:
    """A game in a JSON Lines file (read-only commands still accept one)."""
    path = tmp_path / "partie.jsonl"
    store.write_events(path, new_game().log)
    return path


def _stored_game(slug: str = "forum") -> Any:
    """A new game in the store (``--apply`` records through the service; files are
    read-only)."""
    from ronde.web.games import service, transfer

    service.clear_cache()
    return transfer.create(slug, new_game(), clock="manual")


def _state(game: Any) -> Any:
    from ronde.web.games import service

    return service.current(game).state


def _rows(game: Any) -> int:
    from ronde.web.games.models import Action, Event

    return Event.objects.filter(game=game).count() + Action.objects.filter(game=game).count()


def test_unconfirmed_opening_records_nothing_and_a_later_confirmation_records_all(
    tmp_path: Path, db: Any
) -> None:
    game = _stored_game()
    pasted = tmp_path / "page.txt"
    pasted.write_text(page_text(DOUBTFUL, 1, 1), encoding="utf-8")
    before = _rows(game)
    res = runner.invoke(app, ["forum", "parse", "--game", "forum", str(pasted), "--apply"])
    assert res.exit_code == 1
    assert "pas encore ouvert" in res.output
    # nothing moved: no timer fired by a refused step, the thread stays recordable
    assert _rows(game) == before
    res = runner.invoke(
        app, ["forum", "parse", "--game", "forum", str(pasted), "--apply", "--confirm", "1"]
    )
    assert res.exit_code == 0, res.output
    trial = view(_state(game), "game_master")["trials"][0]
    assert trial["accused"] == ["Grodoudou"]
    assert [c["author"] for c in trial["complaints"]] == ["Tartine", "Zorro"]


# -- two trials overlapping in time, applied in any order ------------------------------
TRIAL_A = ThreadSpec(
    name="a",
    title="Procès : Grodoudou est Woody !",
    posts=[
        P(
            "KaktusJoe",
            "7 nov. 2025, 09:40",
            "town",
            [("text", "J'accuse Grodoudou d'être Woody.", "")],
            uid=11,
        ),
        complaint("Tartine", "7 nov. 2025, 11:00", 12),
        complaint("Zorro", "7 nov. 2025, 16:00", 14),
    ],
)
TRIAL_B = ThreadSpec(
    name="b",
    title="Procès : Bidule est le Chevalier !",
    posts=[
        P(
            "Loulou",
            "7 nov. 2025, 09:00",
            "town",
            [("text", "J'accuse Bidule d'être le Chevalier.", "")],
            uid=15,
        ),
        P(
            "Petitpois",
            "7 nov. 2025, 10:00",
            "town",
            [
                (
                    "text",
                    "Moi, Petitpois, pose une plainte contre Bidule pour avoir trop cabotiné "
                    "dans son rôle du Chevalier.",
                    "",
                )
            ],
            uid=16,
        ),
    ],
)


@pytest.mark.parametrize("order", [("a", "b"), ("b", "a")])
def test_overlapping_trials_are_recorded_whatever_the_order(
    tmp_path: Path, order: tuple[str, str], db: Any
) -> None:
    game = _stored_game()
    files = []
    for name in order:
        spec = TRIAL_A if name == "a" else TRIAL_B
        f = tmp_path / f"{name}.txt"
        f.write_text(page_text(spec, 1, 1), encoding="utf-8")
        files.append(str(f))
    res = runner.invoke(app, ["forum", "parse", "--game", "forum", *files, "--apply"])
    assert res.exit_code == 0, res.output
    trials = view(_state(game), "game_master")["trials"]
    got = {t["number"]: (t["accused"], [c["author"] for c in t["complaints"]]) for t in trials}
    # numbered by opening time: B opened at 09:00, A at 09:40
    assert got == {1: (["Bidule"], ["Petitpois"]), 2: (["Grodoudou"], ["Tartine", "Zorro"])}


# -- a thread's page 2 read alone ---------------------------------------------------------
LONG = ThreadSpec(
    name="long",
    title="Procès : Grodoudou est Woody !",
    posts=[
        P(
            "KaktusJoe",
            "7 nov. 2025, 09:00",
            "town",
            [("text", "J'accuse Grodoudou d'être Woody.", "")],
            uid=11,
        ),
        *[
            P(name, f"7 nov. 2025, 09:{10 + k:02d}", "town", [("text", "Hmm, à voir.", "")], uid=k)
            for k, name in enumerate(
                [
                    *["Loulou", "Brindille", "Pouet_42", "Chuck", "Sirius", "Bidule", "Mirabelle"],
                    "Fanfan",
                    "Elodie",
                ]
            )
        ],
        complaint("Tartine", "7 nov. 2025, 10:00", 12),  # the first post of page 2
        complaint("Zorro", "7 nov. 2025, 10:05", 14),
    ],
)


@pytest.mark.parametrize("form", [0, 1])
def test_page_two_alone_never_proposes_an_opening_nor_drops_its_first_post(form: int) -> None:
    text = forms(LONG, 2, 2)[form]
    result = parse(text)
    assert result.thread.first_page == 2
    assert result.thread.missing_pages() == [1]
    assert not [p for p in result.proposals if p.action == "open_trial"]
    assert [p.by for p in result.complaints] == ["Tartine", "Zorro"]
    # the trial is not recorded yet: nothing of page 2 is sure
    assert all(not p.sure for p in result.proposals)
    assert any("page 1" in d.message for d in result.diagnostics)


@pytest.mark.parametrize("form", [0, 1])
def test_page_two_of_a_recorded_trial_gives_sure_complaints(form: int) -> None:
    """A saved page 2 alone gives sure complaints; a browser copy proves who wrote its
    posts only with every page of the thread: page 2 copied alone gives them as doubts
    that say so, pages 1 and 2 copied give them sure."""
    game = new_game()
    game.act(
        "open_trial",
        "KaktusJoe",
        datetime(2025, 11, 7, 9, 0, tzinfo=PARIS),
        against="Grodoudou",
        **{"as": "woody"},
    )
    gv = view(game.state, "game_master")
    result = parse(forms(LONG, 2, 2)[form], gv)
    assert result.trial is not None and result.trial.exists
    sure = [(p.by, p.sure) for p in result.complaints]
    if form == 1:  # the saved page
        assert sure == [("Tartine", True), ("Zorro", True)]
        return
    assert sure == [("Tartine", False), ("Zorro", False)]
    for p in result.complaints:
        assert any("auteur non prouvé (page(s) manquante(s) : 1 (sur 2))" in d for d in p.doubts)
    both = parse(forms(LONG, 1, 2)[0] + forms(LONG, 2, 2)[0], gv)
    assert [(p.by, p.sure) for p in both.complaints] == [("Tartine", True), ("Zorro", True)]


# -- Rehearsals: the [rp] label line of a copy is not a line ----------------------------
def _rehearsal(label: str, n: int) -> ThreadSpec:
    lines = "\n".join(f"Vers numéro {k} de la scène." for k in range(1, n + 1))
    return ThreadSpec(
        name="reh",
        title="Répétitions du J5",
        posts=[P("Tartine", "7 nov. 2025, 08:00", "town", [("rp", lines, label)], uid=12)],
    )


@pytest.mark.parametrize("form", [0, 1])
def test_rehearsal_rp_label_does_not_count(form: int) -> None:
    twenty = parse(forms(_rehearsal("Tartine la conteuse", 20))[form])
    assert [(p.action, p.sure, p.notes[0]) for p in twenty.proposals] == [
        ("rehearse", True, "20 lignes")
    ]
    assert "étiquette « Tartine la conteuse »" in twenty.proposals[0].notes[1]
    two = parse(forms(_rehearsal("Tartine la conteuse", 2))[form])
    assert two.proposals == []
    assert "2 ligne(s)" in two.ignored[0].reason


def test_rehearsal_unknown_label_at_the_limit_is_a_doubt_not_a_verdict() -> None:
    result = parse(page_text(_rehearsal("Le narrateur", 20), 1, 1))
    assert len(result.proposals) == 1 and not result.proposals[0].sure
    assert "Le narrateur" in result.proposals[0].doubts[0]


def test_participation_counts_rp_posts_without_their_label_and_never_game_masters() -> None:
    spec = _rehearsal("Tartine la conteuse", 20)
    spec.posts.append(
        P("Mj_Rose", "7 nov. 2025, 09:00", "town", [("text", "Un\nDeux\nTrois\nQuatre", "")])
    )
    posts = read_thread(page_text(spec, 1, 1)).posts
    part = participation(posts, [], START, game_masters=GMS)
    assert part.rehearsal_days == {"Tartine": {5}}
    assert "Mj_Rose" not in part.forum_days


# -- the accused's own "complaint" in a spoiler -------------------------------------------
SPOILER = ThreadSpec(
    name="spoiler",
    title="Procès : Grodoudou est Woody !",
    posts=[
        P(
            "KaktusJoe",
            "7 nov. 2025, 09:40",
            "town",
            [("text", "J'accuse Grodoudou d'être Woody.", "")],
            uid=11,
        ),
        P(
            "Grodoudou",
            "7 nov. 2025, 10:00",
            "town",
            [("spoiler", f"Moi, Grodoudou, {FORMULA}", ""), ("text", "Bonne journée !", "")],
            uid=13,
        ),
        P(
            "Tartine",
            "7 nov. 2025, 10:30",
            "town",
            [("spoiler", f"Moi, Tartine, {FORMULA}", ""), ("text", " Voilà.", "")],
            uid=12,
        ),
    ],
)


@pytest.mark.parametrize("form", [0, 1])
def test_accused_complaint_in_a_spoiler_is_not_proposed(form: int) -> None:
    result = parse(forms(SPOILER)[form])
    assert "Grodoudou" not in [p.by for p in result.complaints]
    assert any("A13" in f.reason and f.author == "Grodoudou" for f in result.ignored)


def test_a_complaint_in_a_spoiler_is_doubtful() -> None:
    result = parse(page_html(SPOILER, 1, 1))
    (tartine,) = result.complaints
    assert not tartine.sure and "spoiler" in tartine.doubts[0]


# -- decomposed accents ---------------------------------------------------------------------
@pytest.mark.parametrize("name", ["trial_anonymous.txt", "trial_woody.txt", "trial_anonymous.html"])
def test_decomposed_accents_read_the_same(name: str) -> None:
    text = page(name)
    nfc = parse(text, today=TODAY)
    nfd = parse(unicodedata.normalize("NFD", text), today=TODAY)
    summary = [(p.action, p.by, p.sure) for p in nfc.proposals]
    assert summary and summary == [(p.action, p.by, p.sure) for p in nfd.proposals]
    assert len(nfd.complaints) == len(nfc.complaints) > 0


# -- the copy date from the page header -------------------------------------------------------
def test_copy_date_comes_from_the_page_header() -> None:
    # "Jour 5" of a game whose J1 is 3 nov. 2025: the copy is of 7 nov.
    thread = read_thread(page("trial_anonymous.txt"), start=START)
    assert thread.today is not None and thread.today.isoformat() == "2025-11-07"
    assert [p.time.isoformat() if p.time else None for p in thread.posts] == [
        "2025-11-06T21:00:00+01:00",
        "2025-11-07T08:15:00+01:00",
        "2025-11-07T08:30:00+01:00",
    ]


def test_copy_date_unknown_is_a_warning_never_silence() -> None:
    text = page("trial_anonymous.txt").replace("Jour 5\n", "")
    thread = read_thread(text, start=START)
    assert thread.today is None
    assert any(d.level == "warning" and "date de la copie" in d.message for d in thread.diagnostics)


def test_copy_date_contradicted_by_the_page_is_not_used() -> None:
    # the header says Jour 2 (4 nov.) but a post is dated 7 nov.: no guess
    spec = ThreadSpec(
        name="x",
        title="Répétitions",
        posts=[
            P("Tartine", "7 nov. 2025, 08:00", "town", [("text", "a\nb\nc", "")]),
            P("Zorro", "Hier à 09:00", "town", [("text", "a\nb\nc", "")]),
        ],
    )
    text = page_text(spec, 1, 1).replace("Jour 5", "Jour 2")
    thread = read_thread(text, start=START)
    assert thread.today is None and thread.posts[1].time is None


def test_cli_participation_without_today_uses_the_header_and_skips_game_masters(
    tmp_path: Path,
) -> None:
    path = _game_file(tmp_path)
    spec = ThreadSpec(
        name="reh",
        title="Répétitions du J5",
        posts=[
            P("Tartine", "Aujourd'hui à 08:00", "town", [("text", "Un\nDeux\nTrois", "")]),
            P("Mj_Rose", "Aujourd'hui à 09:00", "town", [("text", "Un\nDeux\nTrois", "")]),
        ],
    )
    f = tmp_path / "reh.txt"
    f.write_text(page_text(spec, 1, 1), encoding="utf-8")
    res = runner.invoke(
        app, ["forum", "participation", "--game", str(path), "--rehearsals", str(f)]
    )
    assert res.exit_code == 0, res.output
    assert "Tartine : Répétitions 1 jour (J5) ; FV 1 jour (J5)" in res.output
    assert "[" not in res.output.replace("[ Lien ]", "")  # no Python list on a French line
    assert "Mj_Rose" not in res.output.replace("# ", "")
    # without the header line, the posts are not dropped silently
    f.write_text(page_text(spec, 1, 1).replace("Jour 5\n", ""), encoding="utf-8")
    res = runner.invoke(
        app, ["forum", "participation", "--game", str(path), "--rehearsals", str(f)]
    )
    assert "date de la copie inconnue" in res.output
    assert "sans heure" in res.output


def test_cli_check_without_today_reads_relative_posts(tmp_path: Path) -> None:
    path = _game_file(tmp_path)
    spec = ThreadSpec(
        name="x",
        title="Discussion",
        posts=[
            P("Mirabelle", "Aujourd'hui à 08:00", "town", [("text", "Qui ? Pourquoi ?", "")]),
        ],
    )
    f = tmp_path / "x.txt"
    f.write_text(page_text(spec, 1, 1), encoding="utf-8")
    res = runner.invoke(
        app, ["forum", "check", "Mirabelle", str(f), "--game", str(path), "--day", "5"]
    )
    assert res.exit_code == 0, res.output
    assert "Suggestion : remplie" in res.output


# -- a long thread is read whole (speed is measured by make bench, never asserted) ------------
def test_a_long_thread_is_read_whole() -> None:
    spec = ThreadSpec(
        name="long",
        title="Procès : Grodoudou est Woody !",
        posts=[
            P(
                "KaktusJoe",
                "7 nov. 2025, 09:40",
                "town",
                [("text", "J'accuse Grodoudou d'être Woody.", "")],
                uid=11,
            ),
            *[
                P(
                    ["Loulou", "Zorro", "Tartine"][k % 3],
                    "7 nov. 2025, 10:00",
                    "town",
                    [("text", f"Message {k}.", "")],
                )
                for k in range(299)
            ],
        ],
    )
    text = "".join(page_text(spec, k, 30) for k in range(1, 31))
    thread = read_thread(text)
    assert len(thread.posts) == 300 and thread.pages == list(range(1, 31))


def test_cli_reads_the_pages_of_one_thread_together_in_any_order(db: Any) -> None:
    from .conftest import FIXTURES

    game = _stored_game()
    res = runner.invoke(
        app,
        [
            "forum",
            "parse",
            "--game",
            "forum",
            str(FIXTURES / "trial_woody.p2.html"),
            str(FIXTURES / "trial_woody.p1.html"),
            "--apply",
        ],
    )
    assert "Procès n°1 (à ouvrir)" in res.output
    assert res.output.count("# Sujet :") == 1
    trial = view(_state(game), "game_master")["trials"][0]
    assert [c["author"] for c in trial["complaints"]][:3] == ["Tartine", "Zorro", "Elodie"]


def test_a_saved_post_without_its_header_name_is_read_by_its_content_else_skipped() -> None:
    """A saved page where a post's header lost its name (a template change, a deleted
    account): the content still names its author; with neither, the post is skipped
    with a warning, and the others are read."""
    html = page("trial_woody.p1.html")
    nameless = html.replace(
        '<span class="username" x-user-id="12">Tartine</span>',
        '<span class="username" x-user-id="12"></span>',
        1,
    )
    assert nameless != html
    thread = read_thread(nameless, today=TODAY)
    assert [p.author for p in thread.posts] == [
        p.author for p in read_thread(html, today=TODAY).posts
    ]
    anonymous = nameless.replace('x-post-content-author="Tartine"', "", 1)
    thread = read_thread(anonymous, today=TODAY)
    assert "Tartine" not in [p.author for p in thread.posts] and thread.posts
    where = next(
        i for i, p in enumerate(read_thread(html, today=TODAY).posts, 1) if p.author == "Tartine"
    )
    assert [str(d) for d in thread.diagnostics] == [
        f"warning : [message {where}] message sans auteur, ignoré"
    ]


def test_a_saved_post_in_paragraphs_headings_and_lists_reads_line_by_line() -> None:
    """The forum's editor writes paragraphs, headings and lists: each is a line of its
    own, as the browser shows it; an image that is not a smiley adds nothing."""
    html = page("trial_woody.p1.html")
    body = (
        "Moi, Tartine, pose une plainte contre Grodoudou pour avoir trop cabotiné dans son "
        "rôle de Woody."
    )
    written = html.replace(
        f'x-post-content-author="Tartine">{body}</div>',
        'x-post-content-author="Tartine"><h3>Ma plainte</h3>'
        + body
        + '<p>Preuves : <img src="/x.png" alt="capture:"></p><ul><li>un</li><li>deux</li></ul>'
        "</div>",
        1,
    )
    assert written != html
    post = next(p for p in read_thread(written, today=TODAY).posts if p.author == "Tartine")
    assert post.lines() == ["Ma plainte", body, "Preuves :", "un", "deux"]


# == rarer shapes of a copy, word for word =================================================
# What a game master reads from a copy the fixture pages do not show: each diagnostic as
# the forum command prints it (``str(d)``: level, place, message) and the forum page shows
# it, and the pages, stamps, edits and ``[rp]`` labels of copies of rarer shapes
# (Firefox's header, a cut copy, pages pasted out of order or apart, a saved page's own
# markup).
FOOTER = "[ Lien ] [ Copier ] [ Citer ] [ ! ]"
INCOHERENT = (
    "la pagination de la copie est incohérente (une page collée deux fois, ou une "
    "pagination imitée dans le texte d'un message)"
)


REHEARSAL = ThreadSpec(
    name="rehearsal",
    title="Répétitions du J5",
    posts=[
        _text("KaktusJoe", "7 nov. 2025, 09:40", "Je répète mon rôle ce soir."),
        _text("Tartine", "7 nov. 2025, 09:52", "Moi aussi, au puits.", "outside"),
        _text("Zorro", "7 nov. 2025, 10:30", "Et moi demain."),
    ],
    other_threads=["Procès : Bidule est le Chevalier"],
)


def line_of(text: str, line: str, nth: int = 1) -> int:
    """The number (from 1) of the ``nth`` line of ``text`` that is ``line``."""
    found = [k for k, ln in enumerate(text.splitlines(), 1) if ln == line]
    return found[nth - 1]


def shown(thread: Thread) -> list[str]:
    """The diagnostics as the forum command prints them."""
    return [str(d) for d in thread.diagnostics]


# -- diagnostics, word for word -----------------------------------------------------------
def test_a_relative_date_without_the_copy_date_is_explained_where_it_is() -> None:
    spec = replace(
        REHEARSAL,
        posts=[
            _text("KaktusJoe", "Aujourd'hui à 09:40", "Je répète mon rôle ce soir."),
            *REHEARSAL.posts[1:],
        ],
    )
    text = page_text(spec, 1, 1)
    thread = read_thread(text)
    at = line_of(text, "Aujourd'hui à 09:40KaktusJoe")
    assert shown(thread) == [
        "warning : date de la copie inconnue (pas de « Jour N » en tête de page) : les "
        "messages « Aujourd'hui » et « Hier » n'ont pas d'heure ; indiquez la date de la "
        "copie (--today AAAA-MM-JJ)",
        f"warning : [ligne {at}, message 1] message sans heure (date illisible, ou relative sans "
        "date de la copie) : « Aujourd'hui à 09:40 » ; aucune action n'en est sûre : "
        "indiquez la date de la copie (--today AAAA-MM-JJ)",
    ]
    assert thread.posts[0].time is None and thread.posts[1].time is not None


def test_pages_pasted_out_of_order_are_read_in_page_order_and_said_so() -> None:
    p1, p2 = page_text(TRIAL, 1, 2), page_text(TRIAL, 2, 2)
    thread = read_thread(p2 + p1, today=TODAY)
    assert shown(thread) == ["info : pages collées dans l'ordre 2, 1 : lues dans l'ordre des pages"]
    in_order = read_thread(p1 + p2, today=TODAY)
    assert [p.author for p in thread.posts] == [p.author for p in in_order.posts]
    assert [p.author for p in thread.posts][:2] == ["KaktusJoe", "Tartine"]
    assert [p.page for p in thread.posts] == [1] * 10 + [2] * 7
    assert [p.index for p in thread.posts] == list(range(1, 18))
    assert (thread.pages, thread.page_count, thread.unproven) == ([1, 2], 2, None)


def test_a_page_pasted_twice_names_each_post_left_out_and_where() -> None:
    p1 = page_text(REHEARSAL, 1, 1)
    thread = read_thread(p1 + p1, today=TODAY)
    at = [line_of(p1 + p1, f"{p.date}{p.author}", 2) for p in REHEARSAL.posts]  # the second paste
    assert shown(thread) == [
        f"info : [ligne {at[0]}, message 4] message de KaktusJoe en double, ignoré",
        f"info : [ligne {at[1]}, message 5] message de Tartine en double, ignoré",
        f"info : [ligne {at[2]}, message 6] message de Zorro en double, ignoré",
    ]
    assert [p.author for p in thread.posts] == ["KaktusJoe", "Tartine", "Zorro"]


def test_a_post_cut_from_its_footer_is_named_and_proves_nothing() -> None:
    text = page_text(REHEARSAL, 1, 1)
    lines = text.splitlines()
    # the first post loses its footer (a line dropped by the copy), the last post too
    first_footer = lines.index(FOOTER)
    del lines[first_footer]
    last_footer = len(lines) - 1 - lines[::-1].index(FOOTER)
    cut = "\n".join(lines[:last_footer]) + "\n"
    thread = read_thread(cut, today=TODAY)
    assert [p.author for p in thread.posts] == ["KaktusJoe", "Tartine", "Zorro"]
    assert [p.own_text for p in thread.posts] == [
        "Je répète mon rôle ce soir.",
        "Moi aussi, au puits.",
        "Et moi demain.",
    ]
    assert shown(thread) == [
        f"warning : [ligne {line_of(cut, '7 nov. 2025, 09:40KaktusJoe')}] message de "
        "KaktusJoe sans pied « [ Lien ] »",
        f"warning : [ligne {line_of(cut, '7 nov. 2025, 10:30Zorro')}] message de "
        "Zorro sans pied « [ Lien ] »",
    ]
    assert thread.unproven == "le dernier message n'a pas de pied « [ Lien ] » (copie coupée ?)"


def test_a_copy_without_the_top_of_its_page_proves_nothing() -> None:
    text = page_text(REHEARSAL, 1, 1)
    posts_only = text[text.index("7 nov. 2025, 09:40") :]
    thread = read_thread(posts_only, today=TODAY)
    assert [p.author for p in thread.posts] == ["KaktusJoe", "Tartine", "Zorro"]
    assert thread.unproven == (
        "le haut de la page (liste des sujets, titre du sujet) manque à la copie"
    )
    assert not any(p.proven for p in thread.posts)


def test_a_one_page_copy_with_a_post_too_many_says_how_many_without_a_page() -> None:
    spec = replace(
        REHEARSAL, posts=[*REHEARSAL.posts, _text("Loulou", "7 nov. 2025, 11:00", "Ah.")]
    )
    text = page_text(spec, 1, 1)
    # the thread list counted one reply less (copied before Loulou's post, say)
    text = text.replace("Répétitions du J5\n3\nLoulou", "Répétitions du J5\n2\nLoulou")
    thread = read_thread(text, today=TODAY)
    assert thread.unproven == (
        "4 message(s) lu(s) pour 3 d'après la liste des sujets (2 réponse(s))"
    )


def test_pages_read_apart_merge_with_their_page_count_and_a_repeat_said() -> None:
    p1, p2 = page_text(TRIAL, 1, 2), page_text(TRIAL, 2, 2)
    merged = merge_threads(read_thread(p, today=TODAY) for p in (p2, p1, p1))
    assert (merged.pages, merged.page_count, merged.unproven) == ([1, 2], 2, None)
    assert [p.author for p in merged.posts][:2] == ["KaktusJoe", "Tartine"]
    assert "info : page 1 donnée deux fois" in shown(merged)
    assert [d for d in merged.diagnostics if d.level != "info"] == []


def test_pages_of_two_threads_merged_are_said_to_differ() -> None:
    one = read_thread(page_text(REHEARSAL, 1, 1), today=TODAY)
    other = read_thread(page_text(replace(REHEARSAL, title="Le puits"), 1, 1), today=TODAY)
    merged = merge_threads([one, other])
    assert "warning : pages de sujets différents : « Répétitions du J5 » et « Le puits »" in (
        shown(merged)
    )
    assert merged.unproven == "pages de sujets différents"


def test_a_copied_post_without_its_copy_is_not_proven() -> None:
    post = Post(1, "Zorro", "7 nov. 2025, 10:30", None, "town", [Block("text", "Ah.")])
    post.copied = True
    thread = Thread(title="Répétitions du J5", posts=[post], source="text")
    check_copies(thread)
    assert thread.unproven == "aucune copie lisible" and not post.proven


# -- browser copies of rarer shapes ---------------------------------------------------------
def test_firefox_puts_the_pseudo_under_the_date() -> None:
    text = page_text(REHEARSAL, 1, 1)
    firefox = text.replace("7 nov. 2025, 09:52Tartine", "7 nov. 2025, 09:52\nTartine")
    thread = read_thread(firefox, today=TODAY)
    tartine = thread.posts[1]
    assert (tartine.author, tartine.time_text, tartine.stamp) == (
        "Tartine",
        "7 nov. 2025, 09:52",
        "outside",
    )
    assert tartine.own_text == "Moi aussi, au puits." and tartine.stamp_text() == "dehors"
    assert thread.unproven is None and not tartine.banished


def test_non_breaking_spaces_of_a_copy_read_as_spaces() -> None:
    spec = replace(
        REHEARSAL,
        posts=[
            _text("KaktusJoe", "7 nov. 2025, 09:40", "Qui vient\xa0? Moi\xa0!"),
            *REHEARSAL.posts[1:],
        ],
    )
    thread = read_thread(page_text(spec, 1, 1), today=TODAY)
    assert thread.posts[0].own_text == "Qui vient ? Moi !"


def test_an_edit_by_a_moderator_glued_to_the_footer_is_read() -> None:
    text = page_text(REHEARSAL, 1, 1).replace(
        "Moi aussi, au puits.\n" + FOOTER, "Moi aussi, au puits.\nÉdité par un Modérateur." + FOOTER
    )
    thread = read_thread(text, today=TODAY)
    tartine = thread.posts[1]
    assert (tartine.edited, tartine.edited_at, tartine.own_text) == (
        "modérateur",
        None,
        "Moi aussi, au puits.",
    )
    assert [p.edited for p in thread.posts] == [None, "modérateur", None]


def test_each_page_of_a_copy_keeps_its_number_and_the_count() -> None:
    thread = read_thread(page_text(TRIAL, 2, 2), today=TODAY)
    assert (thread.pages, thread.page_count, thread.first_page) == ([2], 2, 2)
    assert {p.page for p in thread.posts} == {2}


def test_a_page_without_its_bottom_pager_proves_nothing_but_is_read() -> None:
    text = page_text(TRIAL, 1, 2)
    assert text.endswith("Page\n 1\n/2\n")
    thread = read_thread(text.removesuffix("Page\n 1\n/2\n"), today=TODAY)
    assert len(thread.posts) == 10 and thread.unproven == INCOHERENT


def test_a_bottom_pager_naming_another_page_proves_nothing() -> None:
    p1, p2 = page_text(TRIAL, 1, 2), page_text(TRIAL, 2, 2)
    # page 1's pager under its posts says 2/2, as an imitated pager would
    odd = p1.removesuffix("Page\n 1\n/2\n") + "Page\n 2\n/2\n"
    thread = read_thread(odd + p2, today=TODAY)
    assert len(thread.posts) == 17 and thread.unproven == INCOHERENT


def test_a_page_pasted_twice_with_a_post_edited_between_proves_nothing() -> None:
    p1, p2 = page_text(TRIAL, 1, 2), page_text(TRIAL, 2, 2)
    mark = f"Dernière édition : {TRIAL.posts[9].edited}{FOOTER}"
    assert p1.count(mark) == 1  # the last post of page 1, edited again between copies
    edited = p1.replace(mark, f"Dernière édition : 7 nov. 2025, 23:59{FOOTER}")
    assert read_thread(p1 + p1 + p2, today=TODAY).unproven is None
    assert read_thread(p1 + edited + p2, today=TODAY).unproven == INCOHERENT


# -- [rp] labels and quotes in a copy --------------------------------------------------------
def _one_post(author: str, text: str) -> Post:
    spec = ThreadSpec(
        name="rp", title="Répétitions du J5", posts=[_text(author, "7 nov. 2025, 09:40", text)]
    )
    thread = read_thread(page_text(spec, 1, 1), today=TODAY, known_names=["Tartine"])
    assert len(thread.posts) == 1
    return thread.posts[0]


def test_a_two_letter_pseudo_labels_an_rp_block() -> None:
    post = _one_post("Jo", "Jo\nJe monte la garde.")
    assert post.labels == ["Jo"]
    assert post.own_text == "Je monte la garde."


def test_a_label_with_an_epithet_after_a_comma() -> None:
    post = _one_post("Gribouille_37", "Gribouille, la conteuse\nIl était une fois un puits.")
    assert post.labels == ["Gribouille, la conteuse"]
    assert post.own_text == "Il était une fois un puits."


def test_a_pseudo_signing_the_end_of_a_post_is_text() -> None:
    post = _one_post("Gribouille_37", "Il était une fois un puits.\nGribouille")
    assert post.labels == []
    assert post.own_text == "Il était une fois un puits.\nGribouille"


def test_a_line_of_invisible_characters_is_no_label() -> None:
    post = _one_post("Gribouille_37", "\u200b\u200b\nIl était une fois un puits.")
    assert post.labels == []


def test_another_players_name_before_words_found_nowhere_is_a_doubtful_quote() -> None:
    post = _one_post("Zorro", "Tartine\nJe n'ai jamais dit ça.\nEt voilà.")
    assert post.maybe_quoted == ["Je n'ai jamais dit ça."]
    assert post.quotes == []
    assert post.own_text == "Tartine\nJe n'ai jamais dit ça.\nEt voilà."


# -- a saved page's own markup ----------------------------------------------------------------
def _saved(spec: ThreadSpec) -> str:
    return page_html(spec, 1, 1)


def test_a_saved_title_bar_written_with_its_chevron() -> None:
    html = _saved(REHEARSAL).replace('<img alt=">"> Répétitions', "&gt; Répétitions")
    assert read_thread(html, today=TODAY).title == "Répétitions du J5"


def test_a_saved_page_marker_that_is_not_a_number_gives_no_page() -> None:
    html = page_html(TRIAL, 2, 2).replace(
        '<span class="current_page_marker">&nbsp;2</span>',
        '<span class="current_page_marker">…</span>',
    )
    thread = read_thread(html, today=TODAY)
    assert len(thread.posts) == 7 and thread.pages == [] and thread.page_count is None
    assert shown(thread) == []


def test_a_saved_post_outside_and_its_hidden_parts() -> None:
    html = _saved(REHEARSAL).replace(
        "Moi aussi, au puits.",
        "Moi aussi,<template>brouillon caché</template>"
        '<div class="clear">au puits.</div><div class="clear"></div>',
    )
    thread = read_thread(html, today=TODAY)
    tartine = thread.posts[1]
    assert (tartine.stamp, tartine.stamp_text()) == ("outside", "dehors")
    assert tartine.own_text == "Moi aussi,\nau puits."
    assert thread.source == "html" and thread.unproven is None
