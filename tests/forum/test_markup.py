"""Every message ``ronde announce`` writes is valid forum markup, French, with game
times, and a public one holds no secret (the forum's parser: ``ronde.forum.markup``).

Over whole simulated games and games stopped mid-way (the demo's way, where verdicts
may wait for their announcement, A77).
"""

from __future__ import annotations

import random
import re
from datetime import UTC, date, datetime

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ronde.engine.clock import at_clock
from ronde.engine.events import MessageSent, PlayerUnmasked, TrialAnnounced, TrialOpened
from ronde.engine.game import Game
from ronde.engine.names import CAST_TABLE, french_name
from ronde.forum.markup import problems
from ronde.forum.render import (
    ZWSP,
    ForumContext,
    forum_messages,
    heading,
    load_templates,
    plain,
    render,
    render_message,
)
from ronde.sim import play
from ronde.web.games import demo

TEMPLATES = load_templates()

# -- the checker itself ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("[b]gras[/b] et [i]italique[/i]", ""),
        ("[rp=Les Metteurs en scène]Bonjour [b]Ana[/b].[/rp]", ""),
        ("[collapse=Vos règles]…[/collapse]", ""),
        ("allez en [1, -1] puis [0, 0]", ""),
        (f"[{ZWSP}/quote][{ZWSP}b]tapé par un joueur", ""),
        ("[b]jamais fermée", "jamais fermée"),
        ("[b][i]croisées[/b][/i]", "fermée alors que"),
        ("fermée seule[/b]", "sans avoir été ouverte"),
        ("Moi, [votre pseudo], pose une plainte", "inconnue"),
        ("[FM] « Moi »", "inconnue"),
        ("[titre]x[/titre]", "inconnue"),
        ("[collapse]sans titre[/collapse]", "sans son titre"),
        ("[b]un [b]dans[/b] un[/b]", "dans une autre"),
        ("[rp=A]un [rp=B]dans[/rp] un[/rp]", "dans une autre"),
        ("lancez {d6} ou {habitant}", "insert"),
        ("merci @Ana", "mention"),
        ("c'est **gras** ici", "forme courte"),
        ("voir https://myhordes.eu/jx/forum//x", "forme courte"),
        ("trop :smile: ici", "émoticône"),
        ("[*] un point", "liste"),
    ],
)
def test_the_checker(text: str, found: str) -> None:
    got = problems(text)
    if not found:
        assert got == []
    else:
        assert any(found in p for p in got), got


# -- what a message may say ------------------------------------------------------------

#: English names of Characters that differ from the French ones (R1.6)
_ENGLISH = [c.en for c in CAST_TABLE if c.en != c.fr and not c.fr.startswith(c.en)]
_ENGLISH_RE = re.compile(r"\b(?:" + "|".join(re.escape(e) for e in _ENGLISH) + r")\b")
_IDENT_RE = re.compile(
    r"\b[a-z]+_[a-z_]+\b|\b(?:None|True|False|null|just|unjust|lapsed|cancelled|void|open"
    r"|trial|chorus|player)\b|\{\{|\}\}|\{%|%\}|\[\u200b?F[MV]\]"
)
_TIME_RE = re.compile(r"(?<![\dh])(\d{1,2})[:h](\d{2})(?!\d)")
_GAME_TIME_BEFORE = re.compile(r"J\d{1,2} $")
_ISO_RE = re.compile(r"\d{4}-\d{2}-\d{2}|\d{2}/\d{2}/\d{4}|T\d{2}:\d{2}")
# a French high punctuation glued to the word before it (times such as 14:04 apart)
_GLUED_RE = re.compile(r"[\w\)»\]](?:[!?;»]|:(?!\d))")


def french_problems(text: str) -> list[str]:
    """Raw identifiers, English names, times that are not game times, glued ':' ..."""
    out: list[str] = []
    bare = re.sub(r"\[/?[a-z_.]+(?:=[^\]]*)?\]", " ", text)  # the markup itself apart
    for m in _IDENT_RE.finditer(bare):
        out.append(f"identifiant brut {m.group(0)!r}")
    for m in _ENGLISH_RE.finditer(bare):
        out.append(f"nom anglais {m.group(0)!r}")
    for m in _ISO_RE.finditer(bare):
        out.append(f"date technique {m.group(0)!r}")
    for m in _TIME_RE.finditer(bare):
        if m.group(0) == "13h13":
            continue  # the rules' own name of the end (R3.3)
        if not _GAME_TIME_BEFORE.search(bare[: m.start()]):
            out.append(f"heure sans son jour de jeu {m.group(0)!r}")
    for m in _GLUED_RE.finditer(bare):
        context = bare[max(0, m.start() - 15) : m.end() + 5]
        if "://" in context or m.group(0)[-1] == "«":
            continue
        out.append(f"ponctuation sans espace avant : {context!r}")
    for m in re.finditer(r"[.!?…:]\[(?:i|b|u|s)\]", text):
        out.append(f"phrase collée à la suivante : {text[max(0, m.start() - 20) : m.end() + 10]!r}")
    for m in re.finditer(r"«\s*«|»\s*»", bare):
        out.append(f"guillemets doublés : {bare[max(0, m.start() - 10) : m.end() + 10]!r}")
    for m in re.finditer(r"«(?! )| (?<! )»|(?<! )»", bare):
        out.append(f"guillemets sans espace : {bare[max(0, m.start() - 10) : m.end() + 10]!r}")
    return out


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("[b]Contrainte :[/b] J5 14:04, fin à 13h13 (J13 13:13) « oui » !", ""),
        ("Contrainte: x", "ponctuation"),
        ("c'est fini!", "ponctuation"),
        ("«oui»", "guillemets"),
        ("Extrait : « « oui » »", "guillemets doublés"),
        ("C'était faux.[i]1 plainte nulle.[/i]", "phrase collée"),
        ("à 14:04", "heure sans son jour"),
        ("le 2026-12-03", "date technique"),
        ("Procès just", "identifiant brut"),
        ("little_mermaid", "identifiant brut"),
        ("None", "identifiant brut"),
        ("— [\u200bFM] « Moi »", "identifiant brut"),
        ("Vive le Seer", "nom anglais"),
        ("Straw Man ici", "nom anglais"),
    ],
)
def test_the_french_checker(text: str, found: str) -> None:
    got = french_problems(text)
    if not found:
        assert got == []
    else:
        assert any(found in p for p in got), got


def _pseudo_line_re(pseudo: str, name: str) -> re.Pattern[str]:
    p, n = re.escape(pseudo), re.escape(name)
    return re.compile(rf"(?<!\w){p}(?!\w)[^\n]*?(?<!\w){n}(?!\w)")


_NAMES = {c.id for c in CAST_TABLE}

#: kinds whose text may pair a pseudo and a Character without telling who plays whom
_ACCUSATIONS = {"trial_opened"}


def check_game(game: Game) -> tuple[int, list[str]]:
    """Every rendered message's problems (markup, French, secrets in public ones)."""
    ctx = ForumContext.from_game(game)
    g = game.state
    # every Character each seat held in the game (a new mask, a Revenant's role ...)
    # (from what assigns or reveals a role, never from a claim such as a chorus secret)
    held: dict[str, set[str]] = {s: {str(p.character)} for s, p in g.players.items()}
    for e in game.log:
        if isinstance(e, PlayerUnmasked) and e.player in held:
            held[e.player].add(e.character)
        elif isinstance(e, MessageSent) and len(e.to) == 1 and e.to[0] in held:
            role = {
                "role_reveal": e.data.get("character"),
                "revenant_role": e.data.get("role"),
                "transfigured": "extra",
            }.get(e.kind)
            if isinstance(role, str):
                held[e.to[0]].add(role)
    announced: dict[int, datetime] = {}
    anonymous_openers: dict[int, str] = {}
    for e in game.log:
        if isinstance(e, TrialAnnounced):
            announced.setdefault(e.trial, e.at)
        elif isinstance(e, TrialOpened) and e.anonymous and e.opener != "chorus":
            anonymous_openers[e.trial] = e.opener
    names = sorted(ctx.pseudos.values(), key=len, reverse=True)

    def unnamed(text: str) -> str:
        for name in names:
            text = text.replace(plain(name), "Pseudo").replace(name, "Pseudo")
        return text

    known: set[tuple[str, str]] = set()  # (seat, character) told to everyone so far
    out: list[str] = []
    count = 0
    for m in forum_messages(game):
        r = render(m, TEMPLATES, ctx)
        kind, data, text = m["kind"], m.get("data") or {}, r.text
        where = f"{ctx.when(m['at'])} {kind}"
        count += 1
        if r.problem:
            out.append(f"{where}: {r.problem}")
        out += [f"{where}: {p}" for p in problems(text)]
        # a pseudo is the player's own text, not Ronde's French
        out += [f"{where}: {p}" for p in french_problems(unnamed(text))]
        out += [f"{where} (titre): {p}" for p in french_problems(unnamed(heading(m, ctx)))]
        at = datetime.fromisoformat(m["at"])
        waits = data.get("held")
        if isinstance(waits, int) and (waits not in announced or at < announced[waits]):
            out.append(f"{where}: message dû au verdict n°{waits} listé avant son annonce")
        if not m["public"]:
            continue
        # what this public message itself tells everyone
        if kind in ("unmasking", "diva_public") and isinstance(data.get("player"), str):
            known.add((data["player"], str(data.get("character") or "diva")))
        if kind in ("secret", "chorus_secret") and data.get("true", True):
            known.add((str(data.get("player")), str(data.get("character"))))
        if kind == "trial_ended" and data.get("status") == "just":
            for s in data.get("accused") or ():
                known.add((s, str(data.get("supposed"))))
        if kind == "diva_designation":
            for s in data.get("players") or ():
                known.add((s, str(data.get("character"))))
        if kind == "final_reveal":
            known |= {(s, c) for s, cs in held.items() for c in cs}
        # A77: a verdict (and what it caused) is public only from its announcement
        number = data.get("trial")
        if kind == "trial_ended" and data.get("status") in ("just", "unjust"):
            when = announced.get(number)
            if when is None or at < when:
                out.append(f"{where}: verdict n°{number} publié avant son annonce")
        if kind == "unmasking" and isinstance(number, int):
            when = announced.get(number)
            if when is None or at < when:
                out.append(f"{where}: démasquage du Procès n°{number} avant son annonce")
        # an anonymous opener stays secret (R5.9)
        n = data.get("trial")
        if (
            isinstance(n, int)
            and n in anonymous_openers
            and kind in ("trial_opened", "trial_ended")
            and re.search(rf"(?<!\w){re.escape(ctx.pseudo(anonymous_openers[n]))}(?!\w)", text)
        ):
            out.append(f"{where}: l'auteur anonyme du Procès n°{n} est nommé")
        if kind in _ACCUSATIONS:
            continue
        # an identity is named only once told to everyone
        for seat, characters in held.items():
            pseudo = ctx.pseudo(seat)
            if pseudo not in text:
                continue
            for c in characters:
                if (seat, c) in known or c not in _NAMES:
                    continue
                for line in text.splitlines():
                    if "accusé" in line or "accusés" in line:
                        continue  # a trial's accusation, not an identity
                    if _pseudo_line_re(pseudo, french_name(c)).search(line):
                        out.append(f"{where}: {pseudo} = {french_name(c)} dit en public : {line!r}")
    return count, out


@pytest.fixture(scope="module")
def whole_games() -> list[Game]:
    return [play(28, random.Random(seed)).game for seed in (3, 5, 8, 13)]


def test_every_message_of_whole_games_is_valid_markup(whole_games: list[Game]) -> None:
    total = 0
    for game in whole_games:
        count, found = check_game(game)
        assert found == [], found[:20]
        total += count
    assert total > 1000


@pytest.mark.parametrize("until", ["J3 10:00", "J5 14:00", "J8 09:40", "J13 13:00"])
def test_games_stopped_midway_say_no_secret(until: str) -> None:
    """The demo's games (played to a time, as ``ronde serve --demo``): verdicts may
    still wait for their announcement."""
    start = date(2026, 12, 1)
    day, clock = until[1:].split(" ")
    hour, minute = (int(x) for x in clock.split(":"))
    played = demo.play_until(at_clock(start, int(day), hour, minute), start=start, seed=2026)
    count, found = check_game(played.game)
    assert found == [], found[:20]
    assert count > 10


def test_a_verdict_waiting_for_its_announcement_is_not_listed() -> None:
    """A77 on a game where a verdict waits: nothing it caused is in the list."""
    start = date(2026, 12, 1)
    for seed in range(2026, 2040):
        for day in range(3, 13):
            played = demo.play_until(at_clock(start, day, 9, 5), start=start, seed=seed)
            game = played.game
            waiting = [
                t.number
                for t in game.state.trials
                if t.status in ("just", "unjust") and not t.announced
            ]
            if not waiting:
                continue
            ctx = ForumContext.from_game(game)
            texts = [render_message(m, TEMPLATES, ctx) for m in forum_messages(game) if m["public"]]
            for n in waiting:
                verdicts = (f"Procès n°{n} : JUSTE", f"Procès n°{n} : INJUSTE")
                assert not any(v in t for v in verdicts for t in texts)
            _count, found = check_game(game)
            assert found == [], found[:20]
            return
    pytest.skip("no simulated game with a verdict waiting at 09:05")


def test_game_times_are_in_paris() -> None:
    """The heading's time is the game time in Europe/Paris (J5 14:04)."""
    start = date(2026, 12, 1)
    ctx = ForumContext(pseudos={"A": "Ana"}, start=start)
    utc = datetime(2026, 12, 5, 13, 4, tzinfo=UTC)
    msg = {"kind": "theme", "at": utc.isoformat(), "to": ["A"], "public": False, "text": "x"}
    assert heading(msg, ctx).startswith("J5 14:04 ")
    summer = datetime(2026, 7, 5, 12, 4, tzinfo=UTC)
    ctx = ForumContext(pseudos={"A": "Ana"}, start=date(2026, 7, 1))
    assert heading({**msg, "at": summer.isoformat()}, ctx).startswith("J5 14:04 ")


def test_player_text_is_inert_markup() -> None:
    """A trial's arguments (player text) cannot make the game masters' post roll dice,
    mention an account, show an emote or open a tag."""
    arguments = "Il ment [/quote][b]gras {d6} {habitant} @Ana :smile: **fort** //x// --y-- a:b"
    ctx = ForumContext(pseudos={"A": "Ana", "B": "Bob"})
    ctx.trials[1] = {
        "number": 1,
        "accused": ["Bob"],
        "supposed": "woody",
        "supposed_fr": "Woody",
        "anonymous": False,
        "opener": "Ana",
        "arguments": arguments,
        "opened": "J2 10:00",
        "deadline": "J3 10:00",
    }
    msg = {"kind": "trial_opened", "public": True, "to": [], "text": "", "data": {"trial": 1}}
    text = render_message(msg, TEMPLATES, ctx)
    assert problems(text) == []
    assert text.replace(ZWSP, "").count(arguments) == 1  # what players read is unchanged


def test_the_heading_is_french_and_says_where() -> None:
    ctx = ForumContext(pseudos={"A": "Ana"}, start=date(2026, 12, 1))
    at = datetime(2026, 12, 2, 11, 30, tzinfo=UTC).isoformat()
    hero = {
        "kind": "hero_declaration",
        "at": at,
        "to": [],
        "public": True,
        "text": "[FM] « Moi, le grand héros, je ne suis pas ce manant de Ana ! »",
        "data": {"player": "A", "forum": "FM"},
    }
    assert heading(hero, ctx) == "J2 12:30 — FM (Forum Monde) — déclaration du Héros"
    text = render_message(hero, TEMPLATES, ctx)
    assert text == "[b]« Moi, le grand héros, je ne suis pas ce manant de Ana ! »[/b]"
    fv = {**hero, "data": {"player": "A", "forum": "FV"}}
    assert heading(fv, ctx).startswith("J2 12:30 — FV (public) — ")
    odd = {**hero, "kind": "nouveau_genre"}
    assert heading(odd, ctx).endswith(" — message")


def test_a_public_channel_message_says_whom_it_is_for() -> None:
    """The Diva's messages are posted on the FV (R7.14.1): a templated one names her."""
    ctx = ForumContext(pseudos={"D": "Dina"}, start=date(2026, 12, 1))
    msg = {
        "kind": "target_added",
        "at": datetime(2026, 12, 3, 8, 0, tzinfo=UTC).isoformat(),
        "to": ["D"],
        "public": True,
        "text": "Dina : Nouveau Personnage à démasquer : Destinée.",
        "data": {"characters": ["destiny"]},
    }
    text = render_message(msg, TEMPLATES, ctx)
    assert text.startswith("[b]Pour Dina :[/b]\n") and "Destinée" in text
    assert problems(text) == []


@pytest.mark.parametrize(
    ("status", "one", "two"),
    [
        ("just", "Ana incarnait bien le Personnage Woody.", "Ana et Bob incarnaient bien les"),
        ("unjust", "L'accusation contre Ana était fausse.", "L'accusation contre Ana et Bob"),
        ("void", "Ana n'est plus masqué :", "Ana et Bob ne sont plus masqués :"),
    ],
)
def test_the_end_of_a_trial_agrees_with_its_accused(status: str, one: str, two: str) -> None:
    ctx = ForumContext(pseudos={"A": "Ana", "B": "Bob"})
    base = {"number": 1, "supposed": "woody", "supposed_fr": "Woody", "anonymous": False}
    data = {"trial": 1, "status": status, "nulls": 1, "null_notice": True, "anonymous": 0}
    msg = {"kind": "trial_ended", "public": True, "to": [], "text": "", "data": data}
    ctx.trials[1] = {**base, "accused": ["Ana"]}
    text = render_message(msg, TEMPLATES, ctx)
    assert one in text and problems(text) == [] and french_problems(text) == []
    ctx.trials[1] = {**base, "accused": ["Ana", "Bob"]}
    assert two in render_message(msg, TEMPLATES, ctx)


def test_the_secret_check_finds_a_leak(
    whole_games: list[Game], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check itself: an identity said in public before anyone was told is found."""
    game = whole_games[0]
    first = next(p for p in game.state.players.values() if p.character not in (None, "extra"))
    real = forum_messages(game)
    leak = {
        "kind": "theme",
        "at": real[0]["at"],
        "to": [],
        "public": True,
        "text": "",
        "data": {"day": 1, "theme": f"{first.pseudo} : {french_name(first.character)}"},
    }
    monkeypatch.setattr(__name__ + ".forum_messages", lambda g: [leak, *real])
    _count, found = check_game(game)
    assert any(f"{first.pseudo} = " in f for f in found), found[:5]


def test_pseudos_stay_text_whatever_they_hold() -> None:
    """Town aliases are any 4 to 22 characters (FORUM-PAGE.md): "--Bob--", "@lice",
    "**Star**" … stay text in every message, never strike, mention or close a tag."""
    from ronde.sim import draw, play_cast

    weird = ["[b]Zed", "@lice", "Max{d6}", "--Bob--", ":smile:Sam", "**Star**", "Ann//B//"]
    names = [f"Joueur{i:02d}" for i in range(1, 29 - len(weird))] + weird
    rng = random.Random(5)
    cast, ronde = draw(names, random.Random(rng.random()))  # type: ignore[arg-type]
    game = play_cast(cast, ronde, rng).game
    count, found = check_game(game)
    assert found == [], found[:10]
    assert count > 100


@settings(max_examples=300, deadline=None)
@example("a\n * b")
@example("[=")
@given(st.text(alphabet=st.sampled_from(list("ab [/]{}@:*-_=.\n d6quotebrp")), max_size=60))
def test_plain_makes_any_player_text_inert(text: str) -> None:
    """Whatever a player types (arguments, a theme, a pseudo), once through plain()
    inside Ronde's markup it is text: no tag, inset, mention, short form or emote."""
    inert = plain(text)
    assert inert.replace(ZWSP, "") == text
    assert problems(f"[quote=Arguments]{inert}[/quote]") == []


@pytest.mark.parametrize(
    ("nulls", "notice"),
    [(2, "2 plaintes étaient nulles."), (0, "Au moins une plainte était nulle.")],
)
def test_the_null_notice_follows_a19(nulls: int, notice: str) -> None:
    """R5.13: a quorate trial with a null complaint says so; A19 `generic` (the engine
    gives no count) says only that one at least was null (before: nothing at all)."""
    ctx = ForumContext(pseudos={"A": "Ana"})
    ctx.trials[1] = {"number": 1, "accused": ["Ana"], "supposed": "woody", "supposed_fr": "Woody"}
    data = {"trial": 1, "status": "unjust", "nulls": nulls, "null_notice": True, "anonymous": 0}
    msg = {"kind": "trial_ended", "public": True, "to": [], "text": "", "data": data}
    assert notice in render_message(msg, TEMPLATES, ctx)
    quiet = {**msg, "data": {**data, "null_notice": False, "nulls": 0}}
    assert "nulle" not in render_message(quiet, TEMPLATES, ctx)


def test_an_unmasking_for_a_constraint_gives_its_day() -> None:
    """The engine's public text says which day's constraint failed ("(J7)"): so does the
    forum's; a duty's detail (Destiny's schedule, the monster …) never."""
    ctx = ForumContext(pseudos={"A": "Ana"})
    data = {"player": "A", "character": "pianist", "cause": "constraint", "detail": "J7"}
    msg = {"kind": "unmasking", "public": True, "to": [], "text": "", "data": data}
    assert "[i]Cause : contrainte non respectée (J7).[/i]" in render_message(msg, TEMPLATES, ctx)
    duty = {**msg, "data": {**data, "cause": "duty", "detail": "J7"}}
    assert "[i]Cause : devoir non accompli.[/i]" in render_message(duty, TEMPLATES, ctx)
