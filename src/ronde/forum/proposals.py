"""From a pasted thread to proposed actions in the scenario vocabulary.

Stable API: ``parse_thread(text_or_html, game_view, *, today=None, trial=None,
game_masters=()) -> ParseResult``. ``game_view`` is the game master's view
(``ronde.engine.views.view(state, "game_master")``) or ``None``; nothing is
recorded here: each :class:`Proposal` is an action (``open_trial``,
``complain``, ``post``, ``rehearse``) with its source post, for a game master
to confirm. A proposal with ``doubts`` must never be applied without a person
saying yes.

The complaint formula of the rules (R5.1) is "Moi, *pseudo*, pose une plainte
contre *pseudo* pour avoir trop cabotiné dans son rôle de *Personnage*". It is
read tolerantly where players are (case, accents, typos of the keywords,
articles and short names of Characters, extra words, line breaks) and strictly
where the rules are:

- quoted text never counts (only the author's own blocks are read);
- a complaint naming another accused or another Character is not a complaint
  in this trial (reported in ``ignored``);
- a conditional ("je poserais", "si …") or a question is not a complaint;
- first person: "Moi, X" must name the post's author; "je pose une plainte"
  without the pseudo is proposed with a doubt;
- the accused does not complain in his own trial (A13), and a formula inside a
  spoiler is proposed with a doubt;
- a page other than the first never proposes the opening: its first post is a
  reply like the others (a trial not recorded yet makes every step doubtful);
- a browser copy that does not prove who wrote its posts (``Thread.unproven``: a
  post's text can imitate another player's post) makes every step doubtful.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from rapidfuzz import fuzz

from ..engine.clock import parse_time
from ..engine.errors import RuleViolation
from ..engine.names import french_name
from .names import NameMatch, Roster, characters_mentioned, match_character
from .render import STATUS_FR
from .thread import Diagnostic, Post, Thread, fold_text, merge_threads, read_thread

REHEARSAL_LINES = (3, 20)


@dataclass
class Proposal:
    """One proposed action, with the post it comes from."""

    action: str
    by: str
    at: datetime | None
    args: dict[str, Any]
    post: int
    excerpt: str
    doubts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def sure(self) -> bool:
        return not self.doubts

    def step(self) -> dict[str, Any]:
        """The scenario step (``ronde act`` / FORMAT.md) of this proposal."""
        out: dict[str, Any] = {}
        if self.at is not None:
            out["at"] = self.at.isoformat()
        out["by"] = self.by
        out["do"] = self.action
        out.update(self.args)
        return out


@dataclass
class Finding:
    """A candidate that is not an action, and why (French)."""

    post: int
    author: str
    reason: str
    excerpt: str


@dataclass
class TrialRef:
    """The trial a thread is about."""

    number: int | None
    accused: list[str]
    supposed: str | None
    exists: bool
    doubts: list[str] = field(default_factory=list)
    opener: str | None = None


@dataclass
class ParseResult:
    """What a pasted thread gives: posts, then proposals for a game master."""

    thread: Thread
    kind: str  # "trial" | "rehearsals" | "other"
    trial: TrialRef | None
    proposals: list[Proposal]
    ignored: list[Finding]
    diagnostics: list[Diagnostic]

    @property
    def complaints(self) -> list[Proposal]:
        return [p for p in self.proposals if p.action == "complain"]


# -- game facts from the view ---------------------------------------------------------
@dataclass
class _Game:
    roster: Roster
    characters: dict[str, str | None]
    trials: list[Mapping[str, Any]]
    #: why the authors of the copied posts are not proven (``Thread.unproven``)
    unproven: str | None = None


#: how to get sure steps from a browser copy (French)
HOW_TO_PROVE = (
    "pour des actions sûres, collez toutes les pages du sujet, chacune copiée en entier "
    "(Ctrl+A puis Ctrl+C) au même moment, ou envoyez les pages enregistrées (Ctrl+S)"
)


def unproven_doubt(reason: str) -> str:
    """The doubt of a step read from a browser copy that does not prove who wrote it."""
    return (
        f"copie du navigateur : auteur non prouvé ({reason}) ; pour des actions sûres, "
        "toutes les pages copiées en entier, ou les pages enregistrées (Ctrl+S)"
    )


def _game(view: Mapping[str, Any] | None, game_masters: Iterable[str]) -> _Game:
    players: list[str] = []
    characters: dict[str, str | None] = {}
    trials: list[Mapping[str, Any]] = []
    if view is not None:
        for p in view.get("players", []):
            players.append(str(p["pseudo"]))
            characters[str(p["pseudo"])] = p.get("character")
        trials = list(view.get("trials", []))
    return _Game(Roster(players, game_masters), characters, trials)


# -- the complaint formula ---------------------------------------------------------------
_SENTENCE = re.compile(r"[^.!?…]+(?:[.!?…]+|$)")
_WORD = re.compile(r"[\w'’-]+", re.UNICODE)
_COMPLAINT_WORDS = ("plainte", "plaintes")
_CONDITIONAL = re.compile(
    r"\bsi\s+(?:je|j'|tu|il|elle|on|nous|vous|ils|elles|c'|ca|ce)\b|\bs'ils?\b|\bau cas ou\b"
    r"|\b(?:poser|porter|deposer|voudr|pourr|aimer|devr|fer|ser|aur|irai?)"
    r"(?:ais|ait|ions|iez|aient)\b",
)
_NEGATION = re.compile(
    r"\b(?:ne|n')\s*(?:\S+\s+){0,3}?(?:pas|jamais|plus|point|aucune?|rien)\b|\bpas de plainte\b"
)
#: a complaint announced, wished, advised, recalled or denied without "ne": a doubt
_NOT_NOW = (
    (
        re.compile(r"\b(?:pas|jamais|aucune?)\b"),
        "négation ? (« pas », « jamais » sans « ne ») : une plainte ?",
    ),
    (
        re.compile(r"\b(?:pos|port|depos|post)er(?:ai|as|a|ons|ez|ont)\b"),
        "au futur : une plainte annoncée, pas posée ?",
    ),
    (
        re.compile(
            r"\b(?:vais|vas|va|allons|allez|vont|compte|comptons|veux|voulons|souhaite"
            r"|souhaitons|pense|pensons|hesite|envisage|prevois|conseille|propose|invite"
            r"|demande|suggere)\b(?:\s+\S+){0,3}?\s+(?:a\s+|de\s+|d')?"
            r"(?:poser|porter|deposer|poster)\b"
        ),
        "une intention ou un conseil (« je vais / veux / compte … poser ») : posée ici ?",
    ),
    (
        re.compile(
            r"\b(?:j'ai|ai|as|a|avons|avez|ont)\s+(?:deja\s+|bien\s+)?(?:pose|porte|depose|poste)\b"
        ),
        "au passé : le rappel d'une plainte, ou une plainte posée ici ?",
    ),
)
_NOT_A_NAME = {"je", "j'", "aussi", "meme", "moi", "perso", "personnellement", "egalement"}
_QUESTION_START = re.compile(
    r"^\s*(?:est[- ]ce que|est[- ]ce qu'|faut[- ]il|dois[- ]je|puis[- ]je)\b"
)
_SPEAKER = re.compile(
    r"\bmoi\s*,?\s*(?P<name>[^,;:]+?)\s*(?:,|\bje\b|\bj'|\bpose|\bporte|\bdepose|\bpost)"
)
_FIRST_PERSON = re.compile(r"\b(?:je|j'|jpose|jporte)\b")
_AGAINST = re.compile(
    r"\bcontre\s+(?P<who>.+?)\s*"
    r"(?:\bpour\b|\bdans\b|\bd'avoir\b|\bqui\b|\bcar\b|\ben tant\b|[,;:(]|$)"
)
#: "je retire / j'annule ma plainte": the rules have no withdrawal, never a complaint
_WITHDRAWAL = re.compile(
    r"\b(?:retir|annul|enlev|supprim|retract|efface)\w*\s+(?:\S+\s+){0,2}?plaintes?\b"
    r"|\bplaintes?\s+(?:est\s+|sont\s+)?(?:retiree|annulee|supprimee)s?\b"
)
#: "Plainte contre X pour …": the formula without "Moi, pseudo, pose"
_ELLIPTIC = re.compile(r"^\W*(?:une\s+|ma\s+)?plainte\s+contre\b")
#: "… contre X (Woody)": the Character in brackets after the accused
_BRACKETED = re.compile(r"\bcontre\b[^()]*\((?P<what>[^()]+)\)")
#: the example's placeholder copied as it is ("Moi, votre pseudo, pose …")
_PLACEHOLDERS = {"votre pseudo", "ton pseudo", "mon pseudo", "pseudo", "[pseudo]"}
_ROLE = re.compile(
    r"\b(?:role|personnage)\s+(?:de\s+|d'|du\s+|des\s+)(?P<what>.+)$"
    r"|\ben tant que\s+(?P<as>.+)$"
    r"|\bd'(?:etre|incarner)\s+(?P<be>.+)$"
)


def _has_complaint_word(folded: str) -> bool:
    for w in _WORD.findall(folded):
        if w in _COMPLAINT_WORDS:
            return True
        if len(w) >= 6 and w.startswith("pl") and fuzz.ratio(w, "plainte") >= 80:
            return True
    return False


@dataclass
class _Formula:
    sentence: str
    speaker: NameMatch | None
    speaker_written: str | None
    first_person: bool
    accused: list[NameMatch]
    accused_written: str | None
    character: NameMatch | None
    character_written: str | None
    rejected: str | None
    elliptic: bool = False
    bracketed: bool = False
    not_now: str | None = None


def _sentences(text: str) -> list[str]:
    """Sentences of a post, its line breaks joined (a formula may span lines)."""
    joined = " ".join(text.split())
    return [s.strip() for s in _SENTENCE.findall(joined) if s.strip()]


def _aligned(text: str) -> str:
    """``text`` with every character whose folded form has another length replaced by
    its fold (ligatures, ß), so that spans in the folded text index the original."""
    out = []
    for ch in text:
        folded = fold_text(ch)
        out.append(ch if len(folded) == 1 else folded)
    return "".join(out)


def read_formulas(text: str, roster: Roster) -> list[_Formula]:
    """Every sentence of ``text`` that looks like a complaint, read part by part."""
    out: list[_Formula] = []
    for sentence in _sentences(text):
        sentence = _aligned(sentence)
        folded = fold_text(sentence).replace("’", "'")
        if not _has_complaint_word(folded):
            continue
        rejected: str | None = None
        clause = folded.split("contre", 1)[0]
        if folded.rstrip().endswith("?") or _QUESTION_START.search(folded):
            rejected = "question, pas une plainte"
        elif _CONDITIONAL.search(folded):
            rejected = "conditionnel, pas une plainte"
        elif _WITHDRAWAL.search(folded):
            rejected = "retrait d'une plainte : les règles n'en prévoient pas (à voir par les MJ)"
        elif _NEGATION.search(clause):
            rejected = "négation, pas une plainte"
        speaker: NameMatch | None = None
        speaker_written: str | None = None
        m = _SPEAKER.search(folded)
        if m and m.group("name").strip() in _NOT_A_NAME:
            m = None
        if m:
            start, end = m.span("name")
            speaker_written = sentence[start:end].strip()
            speaker = roster.match(speaker_written)
        first = m is not None or bool(_FIRST_PERSON.search(folded))
        accused: list[NameMatch] = []
        accused_written: str | None = None
        m_against = _AGAINST.search(folded)
        if m_against:
            start, end = m_against.span("who")
            accused_written = sentence[start:end].strip()
            for part in re.split(r"\s+(?:et|&)\s+|\s*,\s*", accused_written):
                hit = roster.match(part)
                if hit is not None:
                    accused.append(hit)
                else:  # "les Décorateurs Deco1": the pseudo among other words
                    accused.extend(h for h in roster.mentioned(part) if h.exact)
        character: NameMatch | None = None
        character_written: str | None = None
        m_role = _ROLE.search(folded)
        if m_role:
            group = "what" if m_role.group("what") else ("as" if m_role.group("as") else "be")
            start, end = m_role.span(group)
            character_written = sentence[start:end].strip(" .!…")
            prefix = fold_text(sentence[m_role.start() : start])
            if prefix.rstrip().endswith("du"):
                character_written = "le " + character_written
            character = match_character(character_written)
        bracketed = False
        if m_role is None:
            m_bracket = _BRACKETED.search(folded)
            if m_bracket:
                start, end = m_bracket.span("what")
                character_written = sentence[start:end].strip()
                character = match_character(character_written)
                bracketed = character is not None
        out.append(
            _Formula(
                sentence,
                speaker,
                speaker_written,
                first,
                accused,
                accused_written,
                character,
                character_written,
                rejected,
                elliptic=bool(_ELLIPTIC.search(folded)) and not first,
                bracketed=bracketed,
                not_now=next((why for r, why in _NOT_NOW if r.search(clause)), None),
            )
        )
    return out


# -- the thread ------------------------------------------------------------------------
def _excerpt(text: str, limit: int = 160) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _kind(thread: Thread) -> str:
    title = fold_text(thread.title or "")
    if "repetition" in title:
        return "rehearsals"
    if "proces" in title:
        return "trial"
    if thread.posts and "proces" in fold_text(thread.posts[0].own_text[:200]):
        return "trial"
    return "other"


def _author(post: Post, game: _Game, doubts: list[str]) -> str | None:
    """The player who wrote ``post`` (None for a game master or an unknown author);
    a doubt when the copy does not prove it (a post's text can imitate another)."""
    if game.roster.is_game_master(post.author):
        return None
    hit = game.roster.match(post.author)
    if hit is None:
        return None
    d = hit.doubt("auteur")
    if d:
        doubts.append(d)
    if not post.proven:
        doubts.append(unproven_doubt(game.unproven or "copie non vérifiée"))
    return hit.value


def _opened_at(t: Mapping[str, Any], start: date | None) -> datetime | None:
    return _game_time(t.get("opened"), start)


def _deadline_at(t: Mapping[str, Any], start: date | None) -> datetime | None:
    return _game_time(t.get("deadline"), start)


def _game_time(text: object, start: date | None) -> datetime | None:
    if start is None or not text:
        return None
    try:
        return parse_time(str(text), start)
    except (RuleViolation, ValueError):
        return None


#: a recorded opening this close to a page 1's first post is that post (typed times)
_SAME_OPENING = timedelta(minutes=15)


def _pick_trial(
    matches: list[Mapping[str, Any]], thread: Thread, start: date | None, doubts: list[str]
) -> Mapping[str, Any] | None:
    """The recorded trial a thread is about, among those against the same accused as
    the same Character (one lapsed, another opened later): the one opened at the
    thread's first post (page 1), or the last opened before it; a doubt if unsure.
    None: a page 1 opened after every such trial ended is a new trial."""
    first = next((p.time for p in thread.posts if p.time is not None), None)
    numbers = ", ".join(f"n°{t['number']}" for t in matches)
    if first is not None and start is not None:
        minute = first.replace(second=0, microsecond=0)
        timed = [(t, _opened_at(t, start)) for t in matches]
        if thread.first_page == 1:
            same = [t for t, at in timed if at is not None and at == minute]
            if len(same) == 1:
                return same[0]
            near = [t for t, at in timed if at is not None and abs(at - minute) <= _SAME_OPENING]
            if len(near) == 1:
                doubts.append(
                    f"Procès n°{near[0]['number']} enregistré ouvert à {near[0]['opened']}, "
                    "pas à l'heure du premier message"
                )
                return near[0]
            ended = [_deadline_at(t, start) for t in matches if t.get("status") != "open"]
            if len(ended) == len(matches) and all(d is not None and d <= minute for d in ended):
                return None
        if len(matches) == 1:
            return matches[0]
        before = [(at, t) for t, at in timed if at is not None and at <= minute]
        if before:
            chosen = max(before, key=lambda it: it[0])[1]
            if thread.first_page != 1:
                doubts.append(
                    f"plusieurs Procès semblables ({numbers}) : n°{chosen['number']}, le dernier "
                    "ouvert avant le premier message de la page"
                )
            return chosen
    doubts.append(f"plusieurs Procès semblables ({numbers}) : le dernier retenu, à vérifier")
    return matches[-1]


def _find_trial(
    thread: Thread,
    game: _Game,
    number: int | None,
    result: list[Diagnostic],
    start: date | None = None,
) -> TrialRef | None:
    if number is not None:
        for t in game.trials:
            if int(t["number"]) == number:
                return TrialRef(
                    number,
                    list(t["accused"]),
                    str(t["supposed"]),
                    True,
                    opener=t.get("opener"),
                )
        result.append(Diagnostic("error", f"Procès n°{number} inconnu de la partie"))
        return None
    if not thread.posts:
        return None
    first = thread.posts[0]
    doubts: list[str] = []
    text = (thread.title or "") + "\n" + first.own_text
    accused = game.roster.mentioned(text, exclude=[first.author])
    characters = characters_mentioned(fold_text(thread.title or "")) or characters_mentioned(
        first.own_text
    )
    if not accused or not characters:
        result.append(
            Diagnostic(
                "warning",
                "le Procès n'a pas été reconnu (accusé ou Personnage introuvable dans le "
                "titre et le premier message) : indiquez-le avec --trial",
            )
        )
        return None
    supposed = characters[0].value
    needed = 2 if supposed == "decorators" else 1
    names = [a.value for a in accused[:needed]]
    for a in accused[:needed]:
        d = a.doubt("accusé")
        if d:
            doubts.append(d)
    if len(characters) > 1:
        doubts.append(
            "plusieurs Personnages nommés ("
            + ", ".join(french_name(c.value) for c in characters)
            + f") : {french_name(supposed)} retenu"
        )
    if len(accused) > needed:
        doubts.append(
            "plusieurs joueurs nommés ("
            + ", ".join(a.value for a in accused)
            + ") : "
            + " et ".join(names)
            + " retenu(s)"
        )
    matches = [
        t
        for t in game.trials
        if sorted(t["accused"]) == sorted(names) and t["supposed"] == supposed
    ]
    if matches:
        picked = _pick_trial(matches, thread, start, doubts)
        if picked is not None:
            return TrialRef(
                int(picked["number"]), names, supposed, True, doubts, picked.get("opener")
            )
        ended = ", ".join(
            f"le n°{m['number']} ({STATUS_FR.get(str(m.get('status')), m.get('status'))})"
            for m in matches
        )
        result.append(
            Diagnostic(
                "info",
                f"un nouveau Procès : {ended}, contre le même accusé, était fini avant",
            )
        )
    return TrialRef(len(game.trials) + 1, names, supposed, False, doubts)


def parse_thread(
    text_or_html: str,
    game_view: Mapping[str, Any] | None,
    *,
    today: date | None = None,
    trial: int | None = None,
    game_masters: Iterable[str] = (),
    start: date | None = None,
) -> ParseResult:
    """Read a pasted thread page and propose its actions (never raises).

    ``start`` (the game's J1) lets the copy date come from the page header when
    ``today`` is not given."""
    return parse_pages(
        [text_or_html],
        game_view,
        today=today,
        trial=trial,
        game_masters=game_masters,
        start=start,
    )


def parse_pages(
    pages: Iterable[str],
    game_view: Mapping[str, Any] | None,
    *,
    today: date | None = None,
    trial: int | None = None,
    game_masters: Iterable[str] = (),
    start: date | None = None,
) -> ParseResult:
    """Like :func:`parse_thread` for pages of one thread given apart (saved pages
    uploaded together): each is read on its own, then put in order by its page
    number; a missing page is reported."""
    try:
        return _parse_thread(list(pages), game_view, today, trial, list(game_masters), start)
    except Exception as exc:  # a parser never crashes: bad input gives a diagnostic
        thread = Thread(title=None, posts=[], source="text")
        problem = Diagnostic("error", f"lecture impossible : {exc.__class__.__name__} : {exc}")
        return ParseResult(thread, "other", None, [], [], [problem])


def _parse_thread(
    pages: list[str],
    game_view: Mapping[str, Any] | None,
    today: date | None,
    trial: int | None,
    gms: list[str],
    start: date | None = None,
) -> ParseResult:
    game = _game(game_view, gms)
    names = game.roster.players + gms
    thread = merge_threads(
        read_thread(str(text), today=today, known_names=names, start=start) for text in pages
    )
    diagnostics = list(thread.diagnostics)
    game.unproven = thread.unproven
    if thread.unproven is not None:
        diagnostics.append(
            Diagnostic(
                "warning",
                f"copie du navigateur, auteurs non prouvés : {thread.unproven}. Dans une copie, "
                "le texte d'un message peut imiter l'en-tête et le message d'un autre joueur ; "
                "seuls la liste des sujets (nombre de réponses, dernier auteur) et la pagination, "
                "écrits par le forum, prouvent qu'aucun message n'est imité (un message de "
                "trop, une page collée deux fois ou un sujet qui a changé pendant la copie les "
                f"contredisent) : aucune action tirée de la copie n'est sûre ; {HOW_TO_PROVE}.",
            )
        )
    missing = thread.missing_pages()
    if missing:
        diagnostics.append(
            Diagnostic(
                "warning",
                "page(s) manquante(s) : "
                + ", ".join(str(k) for k in missing)
                + (f" (sur {thread.page_count})" if thread.page_count else ""),
            )
        )
    kind = "trial" if trial is not None else _kind(thread)
    proposals: list[Proposal] = []
    ignored: list[Finding] = []
    ref: TrialRef | None = None
    if kind == "trial":
        ref = _find_trial(thread, game, trial, diagnostics, start)
        first_page = thread.first_page == 1
        if ref is not None and not ref.exists and not first_page:
            diagnostics.append(
                Diagnostic(
                    "warning",
                    f"page {thread.first_page} sans la page 1 : l'ouverture du Procès n'y est "
                    "pas et le Procès n'est pas encore enregistré (collez aussi la page 1)",
                )
            )
            ref.doubts.append(
                f"Procès n°{ref.number} pas encore enregistré : son ouverture est sur la page 1"
            )
        if ref is not None:
            _trial_proposals(
                thread, game, ref, proposals, ignored, opening=trial is None and first_page
            )
    elif kind == "rehearsals":
        _rehearsal_proposals(thread, game, proposals, ignored)
    else:
        diagnostics.append(
            Diagnostic(
                "info",
                "sujet ni « Procès » ni « Répétitions » : aucune action proposée "
                "(--trial N pour le lire comme un Procès)",
            )
        )
    for p in thread.posts:
        unknown = not game.roster.is_game_master(p.author) and game.roster.match(p.author) is None
        if unknown and game.roster.players:
            diagnostics.append(
                Diagnostic("warning", f"auteur inconnu de la partie : {p.author}", p.line, p.index)
            )
    return ParseResult(thread, kind, ref, proposals, ignored, diagnostics)


def _trial_proposals(
    thread: Thread,
    game: _Game,
    ref: TrialRef,
    proposals: list[Proposal],
    ignored: list[Finding],
    *,
    opening: bool,
) -> None:
    assert ref.number is not None
    posts = list(thread.posts)
    if opening and posts and not ref.exists:
        first = posts[0]
        doubts = list(ref.doubts)
        opener = _author(first, game, doubts)
        if opener is None:
            if game.roster.is_game_master(first.author):
                doubts.append(
                    "ouvert par un MJ (Procès anonyme ?) : indiquez l'auteur réel, anonymous: true"
                )
            else:
                doubts.append(f"auteur inconnu : {first.author}")
        against: str | list[str] = ref.accused if len(ref.accused) > 1 else ref.accused[0]
        proposals.append(
            Proposal(
                "open_trial",
                opener or first.author,
                first.time,
                {
                    "against": against,
                    "as": ref.supposed,
                    "arguments": _excerpt(first.own_text, 400),
                },
                first.index,
                _excerpt(first.own_text),
                doubts,
                [
                    f"message d'ouverture modifié ({first.edited}) : l'accusation lue est "
                    "celle d'après la modification"
                ]
                if first.edited
                else [],
            )
        )
    opener_name = proposals[0].by if proposals else ref.opener
    # the thread → trial reading itself doubtful (a recorded trial among similar ones, a
    # trial not recorded read from a later page): every step carries the doubt
    pending = list(ref.doubts) if ref.exists or not opening else []
    complained: set[str] = set()
    posted: set[tuple[str, str]] = set()
    for i, post in enumerate(posts):
        if opening and i == 0:
            continue
        author_doubts: list[str] = []
        author = _author(post, game, author_doubts)
        if author is None:
            continue
        made_complaint = False
        spoilers = [fold_text(b.text) for b in post.blocks if b.kind == "spoiler"]
        for f in read_formulas(post.own_text, game.roster):
            reason = _judge(f, author, ref)
            if reason is not None:
                ignored.append(Finding(post.index, post.author, reason, _excerpt(f.sentence)))
                continue
            doubts = list(author_doubts) + pending
            if any(_squashed(f.sentence) in _squashed(sp) for sp in spoilers):
                doubts.append("dans un spoiler (texte caché) : une vraie plainte ?")
            missing = sorted(set(ref.accused) - {a.value for a in f.accused})
            if missing:
                doubts.append(
                    "ne nomme pas " + " ni ".join(missing) + " : un Procès contre les "
                    "Décorateurs les nomme tous les deux"
                )
            for a in f.accused:
                d = a.doubt("accusé")
                if d:
                    doubts.append(d)
            if f.character is not None:
                d = f.character.doubt("Personnage")
                if d:
                    doubts.append(d)
            else:
                doubts.append("Personnage non nommé dans la plainte")
            if f.bracketed:
                doubts.append("formule abrégée : le Personnage entre parenthèses")
            if f.not_now:
                doubts.append(f.not_now)
            if f.speaker_written and fold_text(f.speaker_written) in _PLACEHOLDERS:
                doubts.append(f"se nomme « {f.speaker_written} » : le modèle recopié tel quel ?")
            if f.speaker is None:
                doubts.append("le plaignant ne se nomme pas (« Moi, pseudo, … »)")
            elif not f.speaker.exact:
                doubts.append(f"se nomme « {f.speaker_written} » (à confirmer)")
            if any(fold_text(q) in fold_text(f.sentence) for q in post.maybe_quoted):
                doubts.append("citation possible : la ligne précédente est un pseudo")
            if author in complained:
                ignored.append(
                    Finding(
                        post.index,
                        post.author,
                        "deuxième plainte du même joueur",
                        _excerpt(f.sentence),
                    )
                )
                continue
            if author == opener_name:
                ignored.append(
                    Finding(
                        post.index,
                        post.author,
                        "plainte de l'auteur du Procès",
                        _excerpt(f.sentence),
                    )
                )
                continue
            complained.add(author)
            posted.add((author, post.time.date().isoformat() if post.time else post.time_text))
            made_complaint = True
            notes: list[str] = []
            if post.edited == "modérateur":
                doubts.append("modifié par un modérateur : le texte est-il celui du joueur ?")
            elif post.edited:
                notes.append(
                    f"message modifié ({post.edited}) : une plainte ajoutée en le modifiant "
                    "date de ce moment, pas de l'heure du message"
                )
            proposals.append(
                Proposal(
                    "complain",
                    author,
                    post.time,
                    {"trial": ref.number},
                    post.index,
                    _excerpt(f.sentence),
                    doubts,
                    notes,
                )
            )
            break
        if made_complaint:
            continue
        day = post.time.date().isoformat() if post.time else post.time_text
        if (author, day) in posted:
            continue
        posted.add((author, day))
        notes = []
        character = game.characters.get(author)
        if character == "devils_advocate":
            notes.append("Avocat du Diable : une défense ? (ajoutez defends: joueur)")
        elif character == "chucky":
            notes.append("Chucky : ce message compte pour écourter ce Procès (A37)")
        proposals.append(
            Proposal(
                "post",
                author,
                post.time,
                {"trial": ref.number},
                post.index,
                _excerpt(post.own_text),
                author_doubts + pending,
                notes,
            )
        )


def _squashed(text: str) -> str:
    return " ".join(fold_text(text).split())


def _judge(f: _Formula, author: str, ref: TrialRef) -> str | None:
    """Why formula ``f`` of ``author`` is not a complaint in trial ``ref`` (None: it is)."""
    if f.rejected:
        return f.rejected
    if not f.first_person and not f.elliptic:
        return "pas à la première personne"
    if author in ref.accused:
        return "l'accusé ne porte pas plainte dans son propre Procès (A13)"
    if f.speaker is not None and f.speaker.value != author:
        return f"se nomme {f.speaker.value}, mais le message est de {author}"
    placeholder = bool(f.speaker_written) and fold_text(f.speaker_written or "") in _PLACEHOLDERS
    if (
        f.speaker is None
        and f.speaker_written
        and len(f.speaker_written.split()) <= 2
        and not placeholder
    ):
        return f"se nomme « {f.speaker_written} », mais le message est de {author}"
    if not f.accused:
        return "aucun accusé reconnu après « contre »"
    named = {a.value for a in f.accused}
    if named < set(ref.accused):
        return None  # one of the Decorators only: a doubt, see _trial_proposals
    if sorted(named) != sorted(ref.accused):
        names = ", ".join(a.value for a in f.accused)
        return f"vise {names}, pas l'accusé de ce Procès ({', '.join(ref.accused)})"
    if f.character is not None and f.character.value != ref.supposed:
        return (
            f"nomme {french_name(f.character.value)}, pas le Personnage de ce Procès "
            f"({french_name(ref.supposed or '')})"
        )
    if f.character is None and f.character_written:
        return f"Personnage inconnu : « {f.character_written} »"
    return None


def _loose_label(post: Post) -> str | None:
    """The first line of a copied post when it could be an ``[rp]`` label the reader
    did not recognise (short, no sentence punctuation)."""
    lines = post.lines()
    if post.labels or len(lines) < 2:
        return None
    first = lines[0].strip()
    if len(first) > 40 or len(first.split()) > 6 or first[-1] in ".!?…,;:»\"')(":
        return None
    return first


def _rehearsal_proposals(
    thread: Thread, game: _Game, proposals: list[Proposal], ignored: list[Finding]
) -> None:
    done: set[tuple[str, str]] = set()
    low, high = REHEARSAL_LINES
    for post in thread.posts:
        doubts: list[str] = []
        author = _author(post, game, doubts)
        if author is None:
            continue
        n = len(post.lines())
        label = _loose_label(post) if thread.source == "text" else None
        if label is not None and n - 1 in (low - 1, high):
            # n - 1 == high: refused only if the label counts; n == low: accepted only then
            doubts.append(
                f"{n} lignes, ou {n - 1} si « {label} » est l'étiquette d'un bloc RP "
                "(la copie ne la distingue pas)"
            )
        elif not low <= n <= high:
            ignored.append(
                Finding(
                    post.index,
                    post.author,
                    f"{n} ligne(s) : une participation compte de {low} à {high} lignes (A69)",
                    _excerpt(post.own_text),
                )
            )
            continue
        day = post.time.date().isoformat() if post.time else post.time_text
        if (author, day) in done:
            continue
        done.add((author, day))
        proposals.append(
            Proposal(
                "rehearse",
                author,
                post.time,
                {},
                post.index,
                _excerpt(post.own_text),
                doubts,
                [f"{n} lignes"],
            )
        )
