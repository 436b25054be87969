"""The forum bridge as game masters use it: pages pasted as they come (quotes, edits,
unicode pseudos, pages out of order or twice, game masters' posts, withdrawals, the
French page's phrasings), in both forms of FORUM-PAGE.md, and ``--apply`` twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ronde.cli import app
from ronde.engine.events import Posted
from ronde.engine.views import view
from ronde.forum.proposals import ParseResult, parse_pages

from .conftest import GMS, TODAY, new_game
from .fixtures.build_fixtures import P, ThreadSpec, page_html, page_text

runner = CliRunner()
F = "pose une plainte contre Grodoudou pour avoir trop cabotiné dans son rôle de Woody."
OPENING = P(
    "KaktusJoe",
    "7 nov. 2025, 09:40",
    "[2, -1]",
    [("text", "J'accuse Grodoudou d'être Woody ! Il poste de l'ouest.", "")],
    title="Ami des bêtes",
)


def T(who: str, when: str, text: str, **kw: Any) -> P:
    return P(who, when, kw.pop("note", "town"), [("text", text, "")], **kw)


def thread(*posts: P) -> ThreadSpec:
    return ThreadSpec("x", "Procès : Grodoudou est Woody !", [OPENING, *posts])


FORMS = {"texte": page_text, "html": page_html}


def parse(*pages: str, game: Any = None) -> ParseResult:
    g = game or new_game()
    return parse_pages(list(pages), view(g.state, "game_master"), today=TODAY, game_masters=GMS)


def steps(r: ParseResult) -> list[tuple[str, str, str, bool]]:
    return [
        (p.action, p.by, p.at.strftime("%d %H:%M") if p.at else "", p.sure) for p in r.proposals
    ]


def complaints(r: ParseResult) -> dict[str, bool]:
    return {p.by: p.sure for p in r.proposals if p.action == "complain"}


@pytest.mark.parametrize("form", FORMS)
def test_quoting_a_complaint_is_not_complaining(form: str) -> None:
    quoted = ("quote", "Tartine\0Moi, Tartine, " + F, "12")
    spec = thread(
        T("Tartine", "7 nov. 2025, 09:52", f"Moi, Tartine, {F}"),
        P("Loulou", "7 nov. 2025, 10:00", "town", [quoted, ("text", "Pareil.", "")]),
        P("Zorro", "7 nov. 2025, 10:05", "town", [quoted, ("text", f"Moi, Zorro, {F}", "")]),
    )
    r = parse(FORMS[form](spec, 1, 1))
    assert complaints(r) == {"Tartine": True, "Zorro": True}
    assert ("post", "Loulou", "07 10:00", True) in steps(r)


@pytest.mark.parametrize("form", FORMS)
def test_a_withdrawal_is_never_a_complaint(form: str) -> None:
    """The rules have no withdrawal: "j'annule ma plainte" is listed apart, with why."""
    spec = thread(
        T("Zorro", "7 nov. 2025, 10:30", f"Moi, Zorro, {F}"),
        T("Zorro", "7 nov. 2025, 11:30", "Je retire ma plainte contre Grodoudou, finalement."),
        T(
            "Tartine",
            "7 nov. 2025, 11:40",
            "Moi, Tartine, j'annule ma plainte contre Grodoudou pour avoir trop cabotiné "
            "dans son rôle de Woody.",
        ),
    )
    r = parse(FORMS[form](spec, 1, 1))
    assert complaints(r) == {"Zorro": True}
    reasons = {(f.author, f.reason.split(" :")[0]) for f in r.ignored}
    assert reasons == {("Zorro", "retrait d'une plainte"), ("Tartine", "retrait d'une plainte")}


@pytest.mark.parametrize("form", FORMS)
def test_the_phrasings_players_use(form: str) -> None:
    """Sure when the rules' formula is there (any verb, case, "du", "en tant que"),
    doubtful when a part is missing, never silently dropped."""
    spec = thread(
        T(
            "Zorro",
            "7 nov. 2025, 10:30",
            "Moi, Zorro, je porte plainte contre Grodoudou pour avoir trop cabotiné dans "
            "son rôle de Woody !",
        ),
        T(
            "Loulou",
            "7 nov. 2025, 10:31",
            "Moi Loulou, dépose une plainte contre Grodoudou en tant que Woody.",
        ),
        T(
            "Petitpois",
            "7 nov. 2025, 10:32",
            "Moi, Petitpois, pose une plainte contre Grodoudou pour avoir trop cabotiné dans "
            "son rôle du shérif Woody.",
        ),
        T("Sirius", "7 nov. 2025, 10:33", "MOI, SIRIUS, " + F.upper()),
        T(
            "Chuck",
            "7 nov. 2025, 10:34",
            "Moi, Chuck, porte également plainte contre Grodoudou pour avoir trop cabotiné "
            "dans son rôle de Woody.",
        ),
        # doubtful: no pseudo, the Character in brackets, no "Moi", the example copied
        T(
            "Brindille",
            "7 nov. 2025, 10:35",
            "Je porte plainte contre Grodoudou pour avoir trop cabotiné dans son rôle de Woody.",
        ),
        T("Tartine", "7 nov. 2025, 10:36", "Moi, Tartine, pose plainte contre Grodoudou (Woody)."),
        T(
            "Mirabelle",
            "7 nov. 2025, 10:37",
            "Plainte contre Grodoudou pour avoir trop cabotiné dans son rôle de Woody.",
        ),
        T("Pantalon", "7 nov. 2025, 10:38", "Moi, votre pseudo, " + F),
    )
    r = parse(FORMS[form](spec, 1, 1))
    assert complaints(r) == {
        "Zorro": True,
        "Loulou": True,
        "Petitpois": True,
        "Sirius": True,
        "Chuck": True,
        "Brindille": False,
        "Tartine": False,
        "Mirabelle": False,
        "Pantalon": False,
    }
    doubts = {p.by: " ".join(p.doubts) for p in r.proposals}
    assert "parenthèses" in doubts["Tartine"]
    assert "modèle recopié" in doubts["Pantalon"]


@pytest.mark.parametrize("form", FORMS)
def test_game_masters_posts_propose_nothing(form: str) -> None:
    """The game masters post the example formula and the anonymous complaints: never
    a player's action."""
    spec = thread(
        P(
            "Mj_Rose",
            "7 nov. 2025, 09:45",
            "",
            [
                (
                    "text",
                    "Ce Procès a besoin de 4 plaintes. Pour en poser une, postez ici :\n"
                    "Moi, votre pseudo, " + F,
                    "",
                )
            ],
        ),
        P("Mj_Rose", "7 nov. 2025, 11:45", "", [("text", "Plainte anonyme : un joueur " + F, "")]),
        T("Zorro", "7 nov. 2025, 10:30", f"Moi, Zorro, {F}"),
    )
    r = parse(FORMS[form](spec, 1, 1))
    assert {p.by for p in r.proposals} == {"KaktusJoe", "Zorro"}


@pytest.mark.parametrize("form", FORMS)
def test_edited_and_unicode_posts(form: str) -> None:
    """An edited post counts at its creation time (a reply is editable for 10 minutes);
    town aliases with an emoji, accents or an underscore match exactly; "Aujourd'hui"
    is the copy's date (within the trial's 24 hours)."""
    from ronde.catalog import default_catalog
    from ronde.engine.game import Game

    from .conftest import CAST, RONDE, START

    cast = {k: v for k, v in CAST.items() if k not in ("Tartine", "Zorro", "Loulou")}
    cast |= {"🌸Fleur🌸": "extra", "Zoé la Zébrée": "extra", "Ça_va": "extra"}
    game = Game.create(
        start=START, cast=cast, ronde=RONDE, catalog=default_catalog(), seed=7, game_masters=GMS
    )
    spec = thread(
        T("🌸Fleur🌸", "7 nov. 2025, 09:52", f"Moi, 🌸Fleur🌸, {F}", edited="7 nov. 2025, 09:58"),
        T("Zoé la Zébrée", "Hier à 09:53", f"Moi, Zoé la Zébrée, {F}"),
        T("Ça_va", "7 nov. 2025 à 09:54", f"Moi, Ça_va, {F}"),
        T("Elodie", "Aujourd'hui à 09:35", f"Moi, Elodie, {F}"),
    )
    r = parse(FORMS[form](spec, 1, 1), game=game)
    assert steps(r)[1:] == [
        ("complain", "🌸Fleur🌸", "07 09:52", True),
        ("complain", "Zoé la Zébrée", "07 09:53", True),
        ("complain", "Ça_va", "07 09:54", True),
        ("complain", "Elodie", "08 09:35", True),
    ]


LONG = thread(
    *(
        T(
            name,
            f"7 nov. 2025, 1{i // 6}:{(i % 6) * 10:02d}",
            f"Moi, {name}, {F}" if i % 2 == 0 else "Bof.",
        )
        for i, name in enumerate(
            [
                "Tartine",
                "Zorro",
                "Loulou",
                "Petitpois",
                "Brindille",
                "Elodie",
                "Mirabelle",
                "Fanfan",
                "Pantalon",
                "Bidule",
                "Zorro",
                "Élodie",
                "KaktusJoe",
            ]
        )
    )
)


@pytest.mark.parametrize("form", FORMS)
def test_pages_in_any_order_or_twice_give_the_same_steps(form: str) -> None:
    page = FORMS[form]
    p1, p2 = page(LONG, 1, 2), page(LONG, 2, 2)
    expected = steps(parse(p1, p2))
    assert expected[0][:2] == ("open_trial", "KaktusJoe") and all(s[3] for s in expected)
    assert len(expected) == 14
    assert steps(parse(p2, p1)) == expected
    assert steps(parse(p1, p1, p2, p2)) == expected
    # a saved page and a copy of the same page (the other form)
    other = page_text if form == "html" else page_html
    assert steps(parse(p1, other(LONG, 1, 2), p2)) == expected
    if form == "texte":  # pasted one after the other in one box
        assert steps(parse(p1 + p2)) == expected
        assert steps(parse(p2 + p1)) == expected
        assert steps(parse(p1 + p1 + p2)) == expected


def test_apply_twice_records_nothing_twice(db: Any, tmp_path: Path) -> None:
    """--apply on the thread's one page, then on its pages 1 and 2 (the thread went on),
    then again: each action once, and the second run says what was already there."""
    from dataclasses import replace

    from ronde.web.games import service, transfer

    service.clear_cache()
    game = transfer.create("forum", new_game(), clock="manual")
    early, p1, p2 = tmp_path / "early.txt", tmp_path / "p1.txt", tmp_path / "p2.txt"
    early.write_text(page_text(replace(LONG, posts=LONG.posts[:10]), 1, 1), encoding="utf-8")
    p1.write_text(page_text(LONG, 1, 2), encoding="utf-8")
    p2.write_text(page_text(LONG, 2, 2), encoding="utf-8")
    base = ["forum", "parse", "--game", "forum", "--today", TODAY.isoformat()]
    before = len(service.current(game).log)
    res = runner.invoke(app, [*base, str(p1), str(p2)])  # without --apply: nothing
    assert res.exit_code == 0 and "do: complain" in res.output
    assert len(service.current(game).log) == before
    res = runner.invoke(app, [*base, str(early), "--apply"])
    assert res.exit_code == 0, res.output
    first = service.current(game)
    count = len(first.log)
    trial = view(first.state, "game_master")["trials"][0]
    assert [c["author"] for c in trial["complaints"]] == [
        "Tartine",
        "Loulou",
        "Brindille",
        "Mirabelle",
        "Pantalon",
    ]
    for _ in range(2):
        res = runner.invoke(app, [*base, str(p1), str(p2), "--apply"])
        assert res.exit_code == 0, res.output
    g = service.current(game)
    trial = view(g.state, "game_master")["trials"][0]
    authors = [c["author"] for c in trial["complaints"]]
    assert len(authors) == len(set(authors))
    posts = [(e.player, e.at) for e in g.log if isinstance(e, Posted)]
    assert len(posts) == len(set(posts)) >= 6  # 4 on page 1, Bidule, Élodie ...
    assert "Déjà enregistré" in res.output and "Enregistré : 0 action(s)" in res.output
    assert len(g.log) > count


DECO = (
    "pose une plainte contre Deco1 et Deco2 pour avoir trop cabotiné dans leur rôle de Décorateurs."
)


@pytest.mark.parametrize("form", FORMS)
def test_a_trial_against_the_decorators(form: str) -> None:
    """Opened by a game master with Ronde's announcement (an anonymous trial): its
    opening waits for the real author; a complaint naming the two is sure, one naming
    them after "les Décorateurs" or only one of them is a doubt, never dropped."""
    announcement = (
        "⚖ Procès n°1 : Deco1 et Deco2 accusés d'être Décorateurs\n"
        "Ouvert par : un joueur anonyme, par l'intermédiaire des Metteurs en scène\n"
        "Pour en poser une, postez ici :\nMoi, votre pseudo, " + DECO
    )
    spec = ThreadSpec(
        "d",
        "Procès n°1 : Deco1 et Deco2 sont les Décorateurs",
        [
            P("Mj_Rose", "7 nov. 2025, 09:00", "", [("text", announcement, "")]),
            T("Tartine", "7 nov. 2025, 09:52", f"Moi, Tartine, {DECO}"),
            T(
                "Zorro",
                "7 nov. 2025, 09:53",
                "Moi, Zorro, pose une plainte contre les Décorateurs Deco1 et Deco2.",
            ),
            T(
                "Loulou",
                "7 nov. 2025, 09:54",
                "Moi, Loulou, pose une plainte contre Deco1 pour avoir trop cabotiné dans son "
                "rôle de Décorateur.",
            ),
            T("Deco1", "7 nov. 2025, 09:55", f"Moi, Deco1, {DECO}"),
        ],
    )
    r = parse(FORMS[form](spec, 1, 1))
    opening = r.proposals[0]
    assert opening.action == "open_trial" and not opening.sure
    assert opening.args["against"] == ["Deco1", "Deco2"] and opening.args["as"] == "decorators"
    assert complaints(r) == {"Tartine": True, "Zorro": False, "Loulou": False}
    assert any("A13" in f.reason for f in r.ignored if f.author == "Deco1")


@pytest.mark.parametrize("form", FORMS)
def test_an_edited_complaint_says_so(form: str) -> None:
    """A post keeps its creation time after an edit (FORUM-PAGE.md): the game master
    is told a complaint may date from the edit; a moderator's edit is a doubt."""
    spec = thread(
        T("Zorro", "7 nov. 2025, 10:30", f"Moi, Zorro, {F}", edited="7 nov. 2025, 10:38"),
        T("Tartine", "7 nov. 2025, 10:40", f"Moi, Tartine, {F}"),
    )
    r = parse(FORMS[form](spec, 1, 1))
    zorro = next(p for p in r.proposals if p.by == "Zorro")
    assert zorro.sure and zorro.at is not None and zorro.at.strftime("%H:%M") == "10:30"
    assert any("7 nov. 2025, 10:38" in n for n in zorro.notes)
    tartine = next(p for p in r.proposals if p.by == "Tartine")
    assert tartine.notes == []
    assert r.proposals[0].action == "open_trial" and r.proposals[0].notes == []
    # the opening post may be edited at any time: the game master is told
    edited = P(**{**OPENING.__dict__, "edited": "8 nov. 2025, 08:00"})
    spec = ThreadSpec("x", "Procès : Grodoudou est Woody !", [edited, *spec.posts[1:]])
    r = parse(FORMS[form](spec, 1, 1))
    assert r.proposals[0].action == "open_trial"
    assert any("8 nov. 2025, 08:00" in n for n in r.proposals[0].notes)


def test_a_moderators_edit_is_a_doubt() -> None:
    text = page_text(thread(T("Zorro", "7 nov. 2025, 10:30", f"Moi, Zorro, {F}")), 1, 1)
    text = text.replace(
        "[ Lien ] [ Copier ] [ Citer ] [ ! ]\nÉpingler",
        "Édité par un Modérateur.[ Lien ] [ Copier ] [ Citer ] [ ! ]\nÉpingler",
    )
    r = parse(text)
    zorro = next(p for p in r.proposals if p.by == "Zorro")
    assert not zorro.sure and "modérateur" in " ".join(zorro.doubts)


_W = " contre Grodoudou pour avoir trop cabotiné dans son rôle de Woody."


@pytest.mark.parametrize(
    ("sentence", "outcome"),
    [
        ("Moi, Zorro, je pose une plainte" + _W, "sure"),
        ("Moi, Zorro, je poste ma plainte" + _W, "sure"),
        # announced, wished, advised or recalled: the game master decides (R5.1)
        ("Moi, Zorro, je poserai une plainte" + _W, "doubt"),
        ("Moi, Zorro, je porterai plainte" + _W, "doubt"),
        ("Moi, Zorro, je vais poser une plainte" + _W, "doubt"),
        ("Moi, Zorro, je compte poser une plainte" + _W, "doubt"),
        ("Moi, Zorro, je veux poser une plainte" + _W, "doubt"),
        ("Moi, Zorro, j'hésite à poser une plainte" + _W, "doubt"),
        ("Moi, Zorro, je vous conseille de poser une plainte" + _W, "doubt"),
        ("Moi, Zorro, j'ai posé une plainte" + _W, "doubt"),
        ("Moi, Zorro, je vais pas poser de plainte" + _W, "doubt"),
        ("Moi, Zorro, je pose pas plainte" + _W, "doubt"),
        ("Moi, Zorro, jamais je ne poserai de plainte" + _W, "doubt"),
        # not a complaint
        ("Moi, Zorro, je ne poserai aucune plainte" + _W, "ignored"),
        ("Moi, Zorro, je pourrais poser une plainte" + _W, "ignored"),
        ("Moi, Zorro, j'aimerais poser une plainte" + _W, "ignored"),
        ("Moi, Zorro, je pose une plainte" + _W[:-1] + " ? Non, je rigole.", "ignored"),
        ("Tartine a posé une plainte" + _W, "ignored"),
        ("Il faut poser une plainte" + _W, "ignored"),
    ],
)
def test_a_complaint_not_made_here_is_never_sure(sentence: str, outcome: str) -> None:
    r = parse(page_text(thread(T("Zorro", "7 nov. 2025, 10:30", sentence)), 1, 1))
    got = complaints(r)
    if outcome == "ignored":
        assert got == {} and any(f.author == "Zorro" for f in r.ignored)
    else:
        assert got == {"Zorro": outcome == "sure"}


def test_an_old_thread_goes_to_its_own_trial() -> None:
    """Two recorded trials against Grodoudou as Woody (the first lapsed): the first
    thread, pasted late, is the first trial's, never the latest one's."""
    from datetime import datetime

    from ronde.engine.commands import Command

    from .conftest import START

    game = new_game()

    def act(verb: str, by: str, when: str, **args: Any) -> None:
        at = datetime.fromisoformat(when)
        game.advance(at)
        game.execute(Command(verb, by, at, args))

    act(
        "open_trial",
        "KaktusJoe",
        "2025-11-07T09:40:00+01:00",
        against="Grodoudou",
        **{"as": "woody"},
    )
    act(
        "open_trial", "Tartine", "2025-11-08T10:00:00+01:00", against="Grodoudou", **{"as": "woody"}
    )
    trials = view(game.state, "game_master")["trials"]
    assert [t["status"] for t in trials] == ["lapsed", "open"]
    spec = thread(T("Zorro", "7 nov. 2025, 10:30", f"Moi, Zorro, {F}"))
    for pages in ([page_text(spec, 1, 1)], [page_html(spec, 1, 1)]):
        r = parse_pages(
            pages, view(game.state, "game_master"), today=TODAY, game_masters=GMS, start=START
        )
        assert r.trial is not None and r.trial.number == 1, r.trial
        assert [(p.action, p.args) for p in r.proposals] == [("complain", {"trial": 1})]
    # page 2 alone: the last trial opened before its first post, with a doubt on each step
    r = parse_pages(
        [page_text(LONG, 2, 2)],
        view(game.state, "game_master"),
        today=TODAY,
        game_masters=GMS,
        start=START,
    )
    assert r.trial is not None and r.trial.number == 1
    assert r.proposals and all(p.args["trial"] == 1 and not p.sure for p in r.proposals)
    assert all("plusieurs Procès semblables" in " ".join(p.doubts) for p in r.proposals)


def test_a_new_trial_after_a_lapsed_one_is_opened() -> None:
    """Grodoudou accused of Woody again after the first trial lapsed: the new thread
    opens trial n°2 (before: read as the lapsed n°1, its opening dropped and its
    complaints sure steps of a closed trial)."""
    from datetime import datetime

    from ronde.engine.commands import Command

    from .conftest import START

    game = new_game()
    at = datetime.fromisoformat("2025-11-06T09:40:00+01:00")
    game.advance(at)
    game.execute(Command("open_trial", "KaktusJoe", at, {"against": "Grodoudou", "as": "woody"}))
    game.advance(datetime.fromisoformat("2025-11-07T12:00:00+01:00"))
    assert [t["status"] for t in view(game.state, "game_master")["trials"]] == ["lapsed"]
    spec = ThreadSpec(
        "x",
        "Procès : Grodoudou est Woody !",
        [
            T("Tartine", "7 nov. 2025, 14:00", "J'accuse Grodoudou d'être Woody, encore !"),
            T("Zorro", "7 nov. 2025, 14:30", f"Moi, Zorro, {F}"),
        ],
    )
    for form in FORMS.values():
        r = parse_pages(
            [form(spec, 1, 1)],
            view(game.state, "game_master"),
            today=TODAY,
            game_masters=GMS,
            start=START,
        )
        assert r.trial is not None and (r.trial.number, r.trial.exists) == (2, False)
        assert [(p.action, p.by, p.sure) for p in r.proposals] == [
            ("open_trial", "Tartine", True),
            ("complain", "Zorro", True),
        ]
        assert any("nouveau Procès" in d.message for d in r.diagnostics)


def test_a_refused_complaint_is_still_a_post_in_the_trial(db: Any, tmp_path: Path) -> None:
    """Chuck may not accuse Woody: his complaint is refused, his post in the trial is
    recorded (R4.5: it counts for Chucky's trials and the days on the forum), once."""
    from ronde.web.games import service, transfer

    service.clear_cache()
    game = transfer.create("forum", new_game(), clock="manual")
    f = tmp_path / "p.txt"
    spec = thread(T("Chuck", "7 nov. 2025, 10:30", f"Moi, Chuck, {F}"))
    f.write_text(page_text(spec, 1, 1), encoding="utf-8")
    args = ["forum", "parse", "--game", "forum", "--today", TODAY.isoformat(), str(f), "--apply"]
    res = runner.invoke(app, args)
    assert res.exit_code == 1  # the refusal is reported
    assert "Refusé not_your_target" in res.output
    res = runner.invoke(app, args)  # again: recognised
    assert res.exit_code == 0 and "déjà enregistrée comme message" in res.output
    g = service.current(game)
    assert [(e.player, e.trial) for e in g.log if isinstance(e, Posted)] == [("Chuck", 1)]
    assert view(g.state, "game_master")["trials"][0]["complaints"] == []
