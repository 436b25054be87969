# ruff: noqa: E501
"""Issue 27: the forum bridge reads what players really write (RULES.md §5, A69) and
knows when a verdict was posted (R4.8), on the saved page and on the browser copy
alike.

Two sources: focused pages built from FORUM-PAGE.md's structure
(``fixtures/build_fixtures.py``, one case each), and French threads written as
players write them in the real page structure, whose copies (a desktop window, a
phone) were measured in Chromium with MyHordes' stylesheet (``fixtures/fr/``,
``fixtures/threads_fr.py``, ``fixtures/measure_copies.py``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from ronde.catalog import default_catalog
from ronde.engine.clock import PARIS
from ronde.engine.commands import Command
from ronde.engine.game import Game
from ronde.engine.views import view
from ronde.forum.apply import Result, plan, record_or_refuse
from ronde.forum.checks import participation, written_lines
from ronde.forum.proposals import ParseResult, Proposal, parse_pages, stated_verdict
from ronde.forum.thread import is_label, read_thread

from .conftest import GMS, START, TODAY, new_game
from .fixtures import threads_fr as fr
from .fixtures.build_fixtures import P, ThreadSpec, page_html, page_text
from .fixtures.measure_reading import figures, measure

FORMS = {"copie": page_text, "html": page_html}
F = "pose une plainte contre Grodoudou pour avoir trop cabotiné dans son rôle de Woody."
OPENING = P(
    "KaktusJoe",
    "7 nov. 2025, 09:40",
    "[2, -1]",
    [("text", "J'accuse Grodoudou d'être Woody ! Il poste de l'ouest.", "")],
)


def T(who: str, when: str, text: str, **kw: Any) -> P:
    return P(who, when, kw.pop("note", "town"), [("text", text, "")], **kw)


def thread(*posts: P, title: str = "Procès : Grodoudou est Woody !") -> ThreadSpec:
    return ThreadSpec("x", title, [OPENING, *posts])


def parse(*pages: str, game: Game | None = None, **kw: Any) -> ParseResult:
    g = game or new_game()
    kw.setdefault("today", TODAY)
    return parse_pages(
        list(pages), view(g.state, "game_master"), game_masters=GMS, start=START, **kw
    )


def by_author(r: ParseResult, action: str = "complain") -> dict[str, Proposal]:
    return {p.by: p for p in r.proposals if p.action == action}


def paris(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=PARIS)


# -- the role-play label: only the author's pseudo (or a prefix of it), alone ------------------
def test_a_label_is_the_authors_pseudo_or_a_prefix_of_it() -> None:
    assert is_label("Gribouille", "Gribouille_37")
    assert is_label("Anouk", "Anouk77")
    assert is_label("Tartine la conteuse", "Tartine")
    assert is_label("Gribouille :", "Gribouille_37")
    assert not is_label("Gri", "Gribouille_37")
    assert not is_label("Moi", "Moinette")
    assert not is_label("pose une plainte contre Grodoudou", "Tartine")
    assert not is_label("Accusé : ZorroDu13", "KaktusJoe")
    assert not is_label("Grodoudou", "Tartine")  # another player: a quote's author, not a label
    assert not is_label("Gribouille entre en scène", "Gribouille_37")
    assert is_label("Mélusine", "Melusine_42")  # accents aside
    assert is_label("Bidule le chevalier", "Bidule")


@pytest.mark.parametrize("form", FORMS)
def test_a_complaints_middle_line_is_never_a_label(form: str) -> None:
    """« pose une plainte contre Grodoudou » on its own line names a player: it stays a
    line of the complaint."""
    spec = thread(
        T(
            "Tartine",
            "7 nov. 2025, 09:52",
            "Moi, Tartine,\npose une plainte contre Grodoudou\npour avoir trop cabotiné "
            "dans son rôle de Woody.",
        )
    )
    r = parse(FORMS[form](spec, 1, 1))
    assert r.thread.posts[1].labels == []
    (tartine,) = r.complaints
    assert (tartine.by, tartine.sure) == ("Tartine", True)


@pytest.mark.parametrize("form", FORMS)
def test_an_openings_fields_are_read_not_taken_for_a_label(form: str) -> None:
    """The accused only on « Accusé : ZorroDu13 »: the trial is read (before, a copy lost
    it; the saved page had it)."""
    from ronde.engine.views import view as view_of

    g = Game.create(
        start=fr.START,
        cast=fr.CAST,
        ronde=fr.RONDE,
        catalog=default_catalog(),
        seed=7,
        game_masters=GMS,
    )
    spec = ThreadSpec(
        "x",
        "Procès : le shérif est parmi nous",
        [
            T(
                "KaktusJoe",
                "7 nov. 2025, 09:40",
                "J'ouvre un procès.\nAccusé : ZorroDu13\nPersonnage : Woody\nArguments : son "
                "chapeau, et il appelle Bidule « Buzz ».",
            ),
            T(
                "Anouk77",
                "7 nov. 2025, 10:00",
                "Moi, Anouk77, pose une plainte contre ZorroDu13 pour avoir trop cabotiné "
                "dans son rôle de Woody.",
            ),
        ],
    )
    r = parse_pages(
        [FORMS[form](spec, 1, 1)],
        view_of(g.state, "game_master"),
        today=TODAY,
        game_masters=GMS,
        start=fr.START,
    )
    assert r.trial is not None and (r.trial.accused, r.trial.supposed) == (["ZorroDu13"], "woody")
    opening, complaint = r.proposals
    assert (opening.action, opening.sure, opening.args["against"]) == (
        "open_trial",
        True,
        "ZorroDu13",
    )
    assert (complaint.by, complaint.sure) == ("Anouk77", True)


@pytest.mark.parametrize("form", FORMS)
def test_an_rp_block_labelled_with_the_authors_pseudo_holds_his_complaint(form: str) -> None:
    spec = thread(
        P(
            "Tartine",
            "7 nov. 2025, 09:52",
            "town",
            [("rp", f"Tartine se lève.\nMoi, Tartine, {F}", "Tartine")],
        )
    )
    r = parse(FORMS[form](spec, 1, 1))
    assert [(p.by, p.sure) for p in r.complaints] == [("Tartine", True)]


# -- conditions: only those that bear on the complaint ----------------------------------------------
@pytest.mark.parametrize("form", FORMS)
def test_conditions_on_speaking_leave_a_firm_complaint(form: str) -> None:
    spec = thread(
        T("Tartine", "7 nov. 2025, 09:52", f"Au cas où il manquerait une voix : moi, Tartine, {F}"),
        T("Zorro", "7 nov. 2025, 09:55", f"Si vous voulez mon avis : moi, Zorro, {F}"),
        T(
            "Loulou",
            "7 nov. 2025, 10:01",
            f"S'il faut une quatrième plainte, la voici : moi, Loulou, {F}",
        ),
        T("Elodie", "7 nov. 2025, 10:05", f"Même si je doute encore, moi, Elodie, {F}"),
        T("Brindille", "7 nov. 2025, 10:10", f"Plainte : moi, Brindille, {F}"),
    )
    r = parse(FORMS[form](spec, 1, 1))
    assert {p.by: p.sure for p in r.complaints} == {
        "Tartine": True,
        "Zorro": True,
        "Loulou": True,
        "Elodie": True,
        "Brindille": True,
    }


@pytest.mark.parametrize("form", FORMS)
def test_a_condition_on_the_complaint_and_a_future_are_not_complaints_posted(form: str) -> None:
    spec = thread(
        T(
            "Tartine",
            "7 nov. 2025, 09:52",
            "Si personne ne le fait avant ce soir : moi, Tartine, je poserai une plainte contre "
            "Grodoudou pour avoir trop cabotiné dans son rôle de Woody.",
        ),
        T(
            "Zorro",
            "7 nov. 2025, 09:55",
            f"Si Grodoudou ne répond pas d'ici ce soir, moi, Zorro, {F}",
        ),
        T(
            "Loulou",
            "7 nov. 2025, 10:01",
            "Si j'étais sûre, je poserais une plainte contre Grodoudou pour son rôle de Woody.",
        ),
    )
    r = parse(FORMS[form](spec, 1, 1))
    tartine = by_author(r)["Tartine"]
    assert not tartine.sure and any("futur" in d for d in tartine.doubts)
    assert "Zorro" not in by_author(r) and "Loulou" not in by_author(r)
    reasons = {f.author: f.reason for f in r.ignored}
    assert reasons["Zorro"].startswith("condition sur la plainte (« Si Grodoudou ne répond pas")
    assert reasons["Loulou"] == "conditionnel, pas une plainte"


# -- the MJs' verdict post is the announcement (R4.8) -------------------------------------------------
def _verdict_thread(verdict: str, *, late: bool = True) -> ThreadSpec:
    posts = [
        T("Tartine", "7 nov. 2025, 09:52", f"Moi, Tartine, {F}"),
        T("Zorro", "7 nov. 2025, 10:30", f"Moi, Zorro, {F}"),
        T("Loulou", "7 nov. 2025, 11:02", f"Moi, Loulou, {F}"),
        T("Brindille", "7 nov. 2025, 11:40", f"Moi, Brindille, {F}"),
        T("Mj_Rose", "7 nov. 2025, 14:00", verdict),
    ]
    if late:
        posts.append(T("Petitpois", "7 nov. 2025, 14:40", f"Moi, Petitpois, {F}"))
    return thread(*posts)


@pytest.mark.parametrize("form", FORMS)
def test_the_verdict_post_is_the_announcement_and_closes_the_trial(form: str) -> None:
    spec = _verdict_thread("⚖ Procès n°1 : JUSTE\nGrodoudou incarnait bien le Personnage Woody.")
    r = parse(FORMS[form](spec, 1, 1))
    (announce,) = [p for p in r.proposals if p.action == "announce"]
    assert (announce.by, announce.at, announce.args, announce.expect) == (
        "Mj_Rose",
        paris("2025-11-07T14:00"),
        {"trial": 1},
        "just",
    )
    assert announce.sure  # the four complaints before it give the engine a verdict
    late = by_author(r)["Petitpois"]
    assert not late.sure and late.refusal is not None
    assert late.refusal[0] == "trial_closed" and "Ce Procès est terminé." in late.refusal[1]
    assert "J5 14:00" in late.refusal[1]
    # said once: by the refusal, not again among the doubts (the console shows both)
    assert not any(late.refusal[1] in d for d in late.doubts), late.doubts
    assert announce.plain  # « JUSTE »: the verdict is stated plainly
    assert [p.by for p in r.complaints if p.sure] == ["Tartine", "Zorro", "Loulou", "Brindille"]


def _concluded_game() -> Game:
    """Grodoudou's Woody trial recorded with its four complaints (JUST, not announced)."""
    g = new_game()
    g.execute(
        Command(
            "open_trial",
            "KaktusJoe",
            paris("2025-11-07T09:40"),
            {"against": "Grodoudou", "as": "woody", "arguments": "l'ouest"},
        )
    )
    for k, who in enumerate(["Tartine", "Zorro", "Loulou", "Brindille"]):
        g.execute(Command("complain", who, paris(f"2025-11-07T1{k}:00"), {"trial": 1}))
    assert view(g.state, "game_master")["trials"][0]["status"] == "just"
    return g


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(
    ("text", "doubt"),
    [
        ("⚖ Procès n°1 : INJUSTE", "le message annonce INJUSTE, la partie a calculé JUSTE"),
        ("⚖ Procès n°2 : JUSTE", "nomme le Procès n°2, pas celui de ce sujet (n°1)"),
        ("Verdict : JUSTE !", "ne nomme pas le Procès"),
    ],
)
def test_a_verdict_post_the_game_does_not_confirm_is_a_doubt(
    form: str, text: str, doubt: str
) -> None:
    r = parse(FORMS[form](_verdict_thread(text), 1, 1), game=_concluded_game())
    (announce,) = [p for p in r.proposals if p.action == "announce"]
    assert not announce.sure and any(doubt in d for d in announce.doubts), announce.doubts
    assert by_author(r)["Petitpois"].refusal is not None


@pytest.mark.parametrize("form", FORMS)
def test_a_verdict_before_four_complaints_is_a_doubt(form: str) -> None:
    spec = thread(
        T("Tartine", "7 nov. 2025, 09:52", f"Moi, Tartine, {F}"),
        T("Mj_Rose", "7 nov. 2025, 14:00", "Procès n°1 : JUSTE, Grodoudou était bien Woody."),
    )
    (announce,) = [p for p in parse(FORMS[form](spec, 1, 1)).proposals if p.action == "announce"]
    assert not announce.sure
    assert "1 plainte(s) valide(s)" in announce.doubts[0]


@pytest.mark.parametrize("form", FORMS)
def test_a_verdict_in_other_words_is_a_doubt_and_refuses_nothing(form: str) -> None:
    """« Bravo, le procès est gagné » is no plain verdict: the announcement is a doubt,
    the complaint after it too (refused only if that post is the announcement)."""
    spec = _verdict_thread("Bravo, le procès est gagné : Grodoudou était bien Woody.")
    r = parse(FORMS[form](spec, 1, 1))
    (announce,) = [p for p in r.proposals if p.action == "announce"]
    assert not announce.sure and announce.expect == "just" and not announce.plain
    late = by_author(r)["Petitpois"]
    assert late.refusal is None and not late.sure
    assert any("semble annoncer le verdict (message 6)" in d for d in late.doubts)


def test_what_a_game_masters_post_states() -> None:
    assert stated_verdict("[b]⚖ Procès n°3 : JUSTE[/b]") == "just"
    assert stated_verdict("Verdict : juste.") == "just"
    assert stated_verdict("Rappel : ce procès se termine dans juste 2 heures.") is None
    assert (
        stated_verdict("Le procès de Bob : INJUSTE. L'accusation était juste fausse.") == "unjust"
    )
    assert stated_verdict("Verdict : l'accusation était fausse, le Procès est INJUSTE.") == "unjust"
    assert stated_verdict("Le procès est juste : Bidule est démasqué !") == "just"
    assert stated_verdict("Juste pour rappel : les plaintes se posent ici.") is None
    assert stated_verdict("⚖ Procès n°2 : annulé\nFaute de 4 plaintes en 24 heures.") is None
    assert stated_verdict("Rappel : il reste 3 heures pour porter plainte.") is None


# -- times ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("form", FORMS)
def test_a_step_without_a_time_is_never_sure_and_says_how_to_give_the_date(form: str) -> None:
    spec = thread(T("Tartine", "Aujourd'hui à 09:52", f"Moi, Tartine, {F}"))
    text = FORMS[form](spec, 1, 1)
    r = parse_pages([text], view(new_game().state, "game_master"), game_masters=GMS)
    (tartine,) = r.complaints
    assert tartine.at is None and not tartine.sure
    assert any("--today AAAA-MM-JJ" in d and "Aujourd'hui à 09:52" in d for d in tartine.doubts)
    assert any("--today" in d.message for d in r.diagnostics)
    ready, held = plan([tartine])
    assert ready == [] and "date de la copie" in held[0].reason


@pytest.mark.parametrize("form", FORMS)
def test_an_edit_across_the_deadline_is_a_doubt_naming_both_times(form: str) -> None:
    """Posted 13:58, edited 14:06, the trial's deadline 14:03 (opened the day before at
    14:03): the complaint decides the quorum; one posted at 14:20 is refused."""
    opening = P(
        "KaktusJoe",
        "6 nov. 2025, 14:03",
        "town",
        [("text", "J'accuse Grodoudou d'être Woody !", "")],
    )
    spec = ThreadSpec(
        "x",
        "Procès : Grodoudou est Woody !",
        [
            opening,
            T("Tartine", "6 nov. 2025, 15:00", f"Moi, Tartine, {F}"),
            T("Zorro", "7 nov. 2025, 09:00", f"Moi, Zorro, {F}"),
            T("Loulou", "7 nov. 2025, 10:00", f"Moi, Loulou, {F}"),
            T("Elodie", "7 nov. 2025, 13:58", f"Moi, Elodie, {F}", edited="7 nov. 2025, 14:06"),
            T("Brindille", "7 nov. 2025, 14:20", f"Moi, Brindille, {F}"),
        ],
    )
    r = parse(FORMS[form](spec, 1, 1))
    elodie = by_author(r)["Elodie"]
    assert not elodie.sure
    (doubt,) = [d for d in elodie.doubts if "modifié" in d]
    assert "posté à J5 13:58, modifié à J5 14:06" in doubt and "(J5 14:03)" in doubt
    assert "décide du quorum" in doubt
    late = by_author(r)["Brindille"]
    assert (
        late.refusal is not None and "Les 24 heures de ce Procès sont écoulées." in late.refusal[1]
    )


# -- a trial opened in another topic ----------------------------------------------------------------
@pytest.mark.parametrize("form", FORMS)
def test_a_trial_opened_in_another_topic_is_a_warning_and_nothing_is_sure(form: str) -> None:
    spec = thread(T("Tartine", "7 nov. 2025, 09:52", f"Moi, Tartine, {F}"), title="Taverne")
    r = parse(FORMS[form](spec, 1, 1))
    (warning,) = [d for d in r.diagnostics if "n'est pas un sujet de Procès" in d.message]
    assert warning.level == "warning" and "« Taverne »" in warning.message
    assert [p.action for p in r.proposals] == ["open_trial", "complain"]
    assert not any(p.sure for p in r.proposals)


# -- Rehearsals (A69) -----------------------------------------------------------------------------
def _rehearsal(author: str, label: str, lines: int, after: str = "") -> ThreadSpec:
    text = "\n".join(f"Vers numéro {k} de la scène." for k in range(1, lines + 1))
    parts: list[tuple[str, str, str]] = [("rp", text, label)]
    if after:
        parts.append(("text", "\n" + after, ""))
    return ThreadSpec("reh", "Répétitions du J5", [P(author, "7 nov. 2025, 08:00", "town", parts)])


def _cast(**extra: str) -> Game:
    from .conftest import CAST, RONDE

    cast = {k: v for k, v in CAST.items() if k not in ("Tartine", "Zorro")}
    cast |= dict.fromkeys(extra, "extra")
    return Game.create(
        start=START, cast=cast, ronde=RONDE, catalog=default_catalog(), seed=7, game_masters=GMS
    )


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("lines", [3, 20])
@pytest.mark.parametrize(
    ("author", "label"), [("Gribouille_37", "Gribouille"), ("Anouk77", "Anouk")]
)
def test_a_label_that_prefixes_the_pseudo_is_not_a_line(
    form: str, lines: int, author: str, label: str
) -> None:
    g = _cast(Gribouille_37="extra", Anouk77="extra")
    r = parse(FORMS[form](_rehearsal(author, label, lines), 1, 1), game=g)
    (p,) = r.proposals
    assert (p.action, p.by, p.sure, p.notes[0]) == ("rehearse", author, True, f"{lines} lignes")


@pytest.mark.parametrize("form", FORMS)
def test_an_out_of_play_line_outside_the_block_is_not_a_line(form: str) -> None:
    g = _cast(Gribouille_37="extra")
    spec = _rehearsal("Gribouille_37", "Gribouille", 20, "HRP : pardon pour le retard !")
    (p,) = parse(FORMS[form](spec, 1, 1), game=g).proposals
    assert p.sure and p.notes[0] == "20 lignes" and "hors jeu" in p.notes[1]
    posts = read_thread(FORMS[form](spec, 1, 1), today=TODAY).posts
    assert participation(posts, [], START).rehearsal_days == {"Gribouille_37": {5}}


@pytest.mark.parametrize("form", FORMS)
def test_a_long_paragraph_and_an_unknown_label_are_for_the_mjs(form: str) -> None:
    long = "Une phrase qui n'en finit pas, " * 9 + "et qui s'arrête là."
    spec = ThreadSpec(
        "reh",
        "Répétitions du J5",
        [
            T("Tartine", "7 nov. 2025, 08:00", long),
            T("Zorro", "7 nov. 2025, 08:10", "Court.\nTrès court."),
        ],
    )
    r = parse(FORMS[form](spec, 1, 1))
    (tartine,) = r.proposals
    assert not tartine.sure and "aux MJ de juger (A69)" in tartine.doubts[0]
    assert [f.author for f in r.ignored] == ["Zorro"]
    assert written_lines(r.thread.posts[0]).lines == 1


# -- record_or_refuse: the one writer of the CLI and the console -----------------------------------------
class FakeWriter:
    """A writer whose engine refuses complaints from ``refuse`` (code ``daily_limit``)."""

    def __init__(self, trials: list[dict[str, Any]], refuse: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        self.done: list[tuple[str, str, datetime, dict[str, Any]]] = []
        self._trials = trials
        self.refuse = refuse

    def record(
        self,
        action: str,
        by: str,
        args: dict[str, Any],
        at: datetime,
        *,
        confirm: str | None = None,
        note: str = "",
    ) -> Any:
        from types import SimpleNamespace

        if action == "complain" and by in self.refuse:
            return SimpleNamespace(
                ok=False,
                code="daily_limit",
                message="Plus de plainte aujourd'hui.",
                events=[],
                preview=None,
                token="",
            )
        self.done.append((action, by, at, args))
        return SimpleNamespace(
            ok=True, code="", message="", events=[object()], preview=None, token=""
        )

    def standing(self) -> list[tuple[str, str, datetime, dict[str, Any]]]:
        return list(self.done)

    def trials(self) -> list[dict[str, Any]]:
        return self._trials


def _prop(action: str, by: str, **kw: Any) -> Proposal:
    return Proposal(action, by, paris("2025-11-07T14:00"), {"trial": 1}, 3, "", **kw)


def test_record_or_refuse_checks_the_verdict_and_never_records_a_refused_complaint() -> None:
    trial = {"number": 1, "status": "just", "announced": False, "complaints": []}
    w = FakeWriter([trial], refuse={"Zorro"})
    wrong = record_or_refuse(_prop("announce", "Mj_Rose", expect="unjust"), w)
    assert (wrong.status, wrong.code) == ("refused", "verdict_mismatch") and w.done == []
    right = record_or_refuse(_prop("announce", "Mj_Rose", expect="just"), w)
    assert right.status == "recorded" and w.done[-1][0] == "announce"
    closed = _prop("complain", "Tartine", refusal=("trial_closed", "Ce Procès est terminé."))
    out: Result = record_or_refuse(closed, w)
    assert (out.status, out.code) == ("as_post", "trial_closed") and w.done[-1][:2] == (
        "post",
        "Tartine",
    )
    assert record_or_refuse(closed, w).status == "already"
    refused = record_or_refuse(_prop("complain", "Zorro"), w)
    assert (refused.status, refused.code, refused.posted) == ("refused", "daily_limit", True)
    assert w.done[-1][:2] == ("post", "Zorro")
    trial["announced"] = True
    assert record_or_refuse(_prop("announce", "Mj_Ficelle", expect="just"), w).status == "already"


# -- the French threads, in their three measured forms ------------------------------------------
MEASURED = ("html", "txt", "phone.txt")


def _fr_game() -> Game:
    return Game.create(
        start=fr.START,
        cast=fr.CAST,
        ronde=fr.RONDE,
        catalog=default_catalog(),
        seed=7,
        game_masters=fr.GMS,
    )


def _fr(t: Any, form: str, **kw: Any) -> ParseResult:
    pages = [p.read_text(encoding="utf-8") for p in fr.files(t, form)]
    kw.setdefault("start", fr.START)
    return parse_pages(pages, view(_fr_game().state, "game_master"), game_masters=fr.GMS, **kw)


@pytest.mark.parametrize("form", MEASURED)
def test_the_sheriffs_trial_as_pasted(form: str) -> None:
    r = _fr(fr.SHERIFF, form)
    assert r.trial is not None and r.trial.accused == ["ZorroDu13"]
    steps = [(p.action, p.by, p.sure) for p in r.proposals if p.action != "post"]
    assert steps == [
        ("open_trial", "KaktusJoe", True),
        ("complain", "Melusine_42", True),
        ("complain", "Anouk77", True),
        ("complain", "Tartine", False),
        ("complain", "Gribouille_37", True),
        ("complain", "Petitpois", True),
        ("announce", "Mj_Rose", True),
        ("complain", "Brindille", False),
    ]
    announce = by_author(r, "announce")["Mj_Rose"]
    assert announce.at == paris("2025-11-07T18:05") and announce.expect == "just"
    assert by_author(r)["Brindille"].refusal is not None
    assert any("futur" in d for d in by_author(r)["Tartine"].doubts)


@pytest.mark.parametrize("form", MEASURED)
def test_a_page_without_its_date_gives_no_sure_step_of_its_relative_posts(form: str) -> None:
    """Without the game's start (the page header's « Jour 6 » unread) nor --today."""
    r = _fr(fr.SHERIFF, form, start=None)
    timeless = [p for p in r.proposals if p.at is None]
    assert len(timeless) == 9 and not any(p.sure for p in timeless)
    assert all(any("--today" in d for d in p.doubts) for p in timeless)


@pytest.mark.parametrize("form", MEASURED)
def test_the_knights_trial_over_two_pages(form: str) -> None:
    r = _fr(fr.KNIGHT, form)
    assert [p.by for p in r.complaints if p.sure] == ["Loulou", "Tartine", "Sirius"]
    mirabelle = by_author(r)["Mirabelle"]
    assert any("J6 13:58" in d and "J6 14:06" in d and "J6 14:03" in d for d in mirabelle.doubts)
    assert by_author(r)["Pantalon"].refusal is not None
    assert "announce" not in {p.action for p in r.proposals}  # a lapse is no verdict


@pytest.mark.parametrize("form", MEASURED)
def test_the_dolls_trial_and_its_unjust_verdict(form: str) -> None:
    r = _fr(fr.DOLL, form)
    assert [p.by for p in r.complaints if p.sure] == [
        "Gribouille_37",
        "Anouk77",
        "Tartine",
        "Loulou",
    ]
    announce = by_author(r, "announce")["Mj_Ficelle"]
    assert announce.sure and announce.expect == "unjust"
    assert by_author(r)["Fanfan"].refusal is not None


@pytest.mark.parametrize("form", MEASURED)
def test_shortened_pseudos_mentions_and_a_character_in_other_words(form: str) -> None:
    """« Moi, Anouk » for Anouk77, « contre Luna » for LunaTic, « @LunaTic », « son rôle
    du clown triste » (for the MJs), the verdict in the thread, a complaint after it."""
    r = _fr(fr.MOON, form)
    assert r.trial is not None and (r.trial.accused, r.trial.supposed) == (["LunaTic"], "pierrot")
    assert [p.by for p in r.complaints if p.sure] == ["Anouk77", "Tartine", "Loulou", "Melusine_42"]
    brindille = by_author(r)["Brindille"]
    assert not brindille.sure
    assert "Personnage inconnu : « le clown triste » (à confirmer)" in brindille.doubts
    assert by_author(r, "announce")["Mj_Rose"].sure
    assert by_author(r)["Sirius"].refusal is not None


@pytest.mark.parametrize("form", MEASURED)
def test_the_trial_opened_in_the_tavern(form: str) -> None:
    r = _fr(fr.TAVERN, form)
    assert any("n'est pas un sujet de Procès" in d.message for d in r.diagnostics)
    assert r.proposals and not any(p.sure for p in r.proposals)


@pytest.mark.parametrize("form", MEASURED)
def test_the_fairs_rehearsals(form: str) -> None:
    r = _fr(fr.REHEARSALS, form)
    got = {p.post: "yes" if p.sure else "judge" for p in r.proposals}
    for k, post in enumerate(fr.REHEARSALS.posts, 1):
        if post.truth:
            assert got.get(k, "no") in post.truth.split("|"), (k, post.author)


def test_the_measured_figures() -> None:
    """Every form reads the French threads as an MJ does (the figures of the report)."""
    for form, counts in measure().items():
        f = figures(counts)
        assert f["messages lus"] == "70/70", form
        assert f["plaintes sûres, précision"] == "15/15", form
        assert f["plaintes sûres, rappel"] == "15/15", form
        assert f["plaintes, précision"] == "15/16", form  # Tartine's future, rightly doubtful
        assert f["plaintes, rappel"] == "15/15", form
        assert f["doutes jamais sûrs"] == "3/3", form
        assert f["plaintes refusées non comptées"] == "4/4", form
        assert f["verdicts lus comme l'annonce"] == "3/3", form
        assert f["ouvertures lues"] == "5/5", form
        assert f["Répétitions bien lues"] == "18/18", form


# -- the command line records through record_or_refuse ------------------------------------------
def test_cli_apply_records_the_verdict_post_as_the_announcement(db: Any) -> None:
    """The Sheriff's trial as copied: opening, four complaints, then the MJs' verdict post
    recorded as the announcement at its time; Brindille's complaint after it is refused
    and, confirmed, recorded as a post of the trial, never as a complaint."""
    import re

    from typer.testing import CliRunner

    from ronde.cli import app
    from ronde.web.games import service, transfer
    from ronde.web.games.models import Action

    runner = CliRunner()
    service.clear_cache()
    game = transfer.create("fr", _fr_game(), clock="manual")
    copy = str(fr.files(fr.SHERIFF, "txt")[0])
    res = runner.invoke(app, ["forum", "parse", "--game", "fr", copy, "--apply"])
    assert res.exit_code == 0, res.output
    assert "# refusée (trial_closed) : Ce Procès est terminé." in res.output
    assert res.output.count("Ce Procès est terminé.") == 1  # once, not again as a doubt
    trial = view(service.current(game).state, "game_master")["trials"][0]
    authors = [c["author"] for c in trial["complaints"]]
    assert authors == ["Melusine_42", "Anouk77", "Gribouille_37", "Petitpois"]
    assert trial["status"] == "just" and trial["announced"]
    announce = Action.objects.get(game=game, action="announce")
    assert (announce.by, announce.at) == ("Mj_Rose", paris("2025-11-07T18:05"))
    # the steps are numbered anew at each reading (the opening is recorded now)
    res = runner.invoke(app, ["forum", "parse", "--game", "fr", copy])
    (n,) = re.findall(r"# \[(\d+)\] message 10 :", res.output)
    res = runner.invoke(app, ["forum", "parse", "--game", "fr", copy, "--apply", "--confirm", n])
    assert res.exit_code == 0, res.output
    assert "Plainte refusée (trial_closed) : Brindille" in res.output
    assert "Déjà enregistré : announce de Mj_Rose" in res.output
    assert Action.objects.filter(game=game, action="post", by="Brindille").count() == 1
    assert not Action.objects.filter(game=game, action="complain", by="Brindille").exists()


def test_cli_says_how_to_give_the_copys_date(tmp_path: Any) -> None:
    """A saved page has no « Jour N » the reader can date « Aujourd'hui » by: its steps
    are commented out and say to give --today."""
    from typer.testing import CliRunner

    from ronde import store
    from ronde.cli import app

    path = tmp_path / "partie.jsonl"
    store.write_events(path, new_game().log)
    page = tmp_path / "page.html"
    page.write_text(
        page_html(thread(T("Tartine", "Aujourd'hui à 09:52", f"Moi, Tartine, {F}")), 1, 1),
        encoding="utf-8",
    )
    res = CliRunner().invoke(app, ["forum", "parse", "--game", str(path), str(page)])
    assert res.exit_code == 0, res.output
    assert "doute : heure inconnue (« Aujourd'hui à 09:52 » sans la date de la copie)" in res.output
    assert "--today AAAA-MM-JJ" in res.output
    assert "  #? - {by: Tartine, do: complain, trial: 1}" in res.output
