"""From a pasted thread to proposed actions in the scenario vocabulary.

Stable API: ``parse_thread(text_or_html, game_view, *, today=None, trial=None,
game_masters=()) -> ParseResult``. ``game_view`` is the game master's view
(``ronde.engine.views.view(state, "game_master")``) or ``None``; nothing is
recorded here: each :class:`Proposal` is an action (``open_trial``,
``complain``, ``post``, ``rehearse``, ``announce``) with its source post, for a
game master to confirm. A proposal that is not :attr:`Proposal.sure` must never
be applied without a person saying yes.

The complaint formula of the rules (R5.1) is "Moi, *pseudo*, pose une plainte
contre *pseudo* pour avoir trop cabotiné dans son rôle de *Personnage*". It is
read tolerantly where players are (case, accents, typos of the keywords,
articles and short names of Characters, a pseudo shortened as players do,
« Zorro » for ZorroDu13, extra words, line breaks) and strictly where the rules
are:

- quoted text never counts (only the author's own blocks are read);
- a complaint naming another accused or another Character is not a complaint
  in this trial (reported in ``ignored``); a Character in other words is a doubt;
- only what bears on the complaint itself makes it no complaint: its verb in the
  conditional (« je poserais »), a negation, a question, a real condition on it
  (« si Grodoudou ne répond pas, moi, X, pose … »); a condition on speaking
  (« si vous voulez mon avis : moi, X, pose … »), a precaution (« au cas où il
  manquerait une voix : … ») or a concession (« même si … ») leaves a complaint;
  a future (« je poserai ») or an intention is a doubt that says so;
- first person: "Moi, X" must name the post's author; "je pose une plainte"
  without the pseudo is proposed with a doubt;
- the accused does not complain in his own trial (A13), and a formula inside a
  spoiler is proposed with a doubt;
- the MJs' verdict post is the announcement at its time (R4.8): an ``announce``,
  sure when it states the verdict plainly, names the trial and the engine has
  (or will have, once the complaints read before it are recorded) that verdict;
  every complaint after it, or 24 hours or more after t0, is proposed refused
  (:attr:`Proposal.refusal`, ``trial_closed``); an edit that crosses the trial's
  deadline is a doubt naming both times;
- a page other than the first never proposes the opening: its first post is a
  reply like the others (a trial not recorded yet makes every step doubtful); a
  thread whose first post opens a trial in a topic that is not a trial topic is
  read with a warning, every step a doubt (R4.2);
- a step without a time is never sure (its doubt says how to give the copy's
  date);
- a browser copy that does not prove who wrote its posts (``Thread.unproven``: a
  post's text can imitate another player's post) makes every step doubtful.

Rehearsals posts are counted in written lines (RULES.md A69,
:func:`ronde.forum.checks.written_lines`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from rapidfuzz import fuzz

from ..engine.clock import PARIS, format_time, parse_time
from ..engine.errors import RuleViolation
from ..engine.names import french_name
from ..engine.trials import CLOSED_BY_TIME, CLOSED_BY_VERDICT
from .checks import REHEARSAL_LINES, written_lines
from .names import NameMatch, Roster, characters_mentioned, match_character
from .render import STATUS_FR
from .thread import Diagnostic, Post, Thread, fold_text, merge_threads, read_thread


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
    #: a complaint the engine will refuse, ``(code, French reason)``: posted after the
    #: MJs' verdict post or past the 24 hours (R4.8, R5.2); recorded, if confirmed, as a
    #: post of its trial (R4.5), never as a complaint
    refusal: tuple[str, str] | None = None
    #: an ``announce``: the verdict the MJs' post states (``"just"`` / ``"unjust"``),
    #: checked against the engine's before it is recorded
    expect: str | None = None
    #: an ``announce``: whether its post states the verdict plainly (« JUSTE »,
    #: « INJUSTE », « le procès est juste »); if not, the verdict is only read from the
    #: text (a doubt says so) and the post closes the trial only if nothing plainer does
    plain: bool = True

    @property
    def sure(self) -> bool:
        """Recorded without a person saying yes: no doubt, a time, not refused."""
        return not self.doubts and self.at is not None and self.refusal is None

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
#: a verb in the conditional mood (« je poserais », « je voudrais porter »)
_CONDITIONAL_MOOD = re.compile(r"\b\w{2,}(?:rais|rait|rions|riez|raient)\b")
_NEGATION = re.compile(
    r"\b(?:ne|n')\s*(?:\S+\s+){0,3}?(?:pas|jamais|plus|point|aucune?|rien)\b|\bpas de plainte\b"
)
_FUTURE = re.compile(r"\b(?:(?:pos|port|depos|post)e|fe|mett)r(?:ai|as|a|ons|ez|ont)\b")
#: a complaint announced, wished, advised, recalled or denied without "ne": a doubt
_NOT_NOW = (
    (
        re.compile(r"\b(?:pas|jamais|aucune?)\b"),
        "négation ? (« pas », « jamais » sans « ne ») : une plainte ?",
    ),
    (
        _FUTURE,
        "au futur (« je poserai ») : une plainte annoncée, pas posée ?",
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
#: a condition: « si … », « au cas où … », « à moins que … » (see :func:`_condition`)
_IF = re.compile(
    r"(?:^|[,;:(.!?]\s*|\b(?:et|mais|donc|alors|ou|sinon)\s+)(?P<even>meme\s+)?"
    r"(?P<kind>si\b|s'ils?\b|au cas ou\b|dans le cas ou\b|a condition qu|a moins qu"
    r"|sauf si\b|sauf s'ils?\b|pour peu qu)"
)
#: a condition on speaking, not on the complaint (« si vous voulez mon avis : … »,
#: « s'il manque une voix », « si ça peut aider »): the complaint stands (R5.1)
_RELEVANCE = re.compile(
    r"^(?:si|s'il|s'ils)\s+(?:jamais\s+)?(?:"
    r"(?:vous|tu|on)\s+(?:\w+\s+)?(?:voul|veu|souhait|desir|demand|ten|interess|permet|"
    r"me\s+demand|me\s+permet|doute|dout|hesit|cherch|compt|attend|en\s+dout)"
    r"|(?:ca|cela|c'|ce)\s*(?:\w+\s+)?(?:peu|pouv|aide|sert|serv|interess|compte|change|"
    r"vous|fait|dit|manqu|rassur)"
    r"|(?:il\s+)?(?:en\s+)?(?:faut|fallait|faudrait|manqu|reste|restait|en\s+manque)"
    r"|besoin|necessaire|utile|jamais\s+(?:vous|quelqu'un|on|il|ca)\s+(?:en\s+)?dout"
    r"|(?:je\s+)?(?:peux|puis|ose|puisse)\s+(?:me\s+)?(?:permettre|dire|donner)"
    r"|j'ose|je\s+(?:peux|puis)\b|quelqu'un\s+(?:en\s+)?dout|certains\s+(?:en\s+)?dout"
    r"|d'autres|personne\s+n'(?:a|ose)\s+encore|vous\s+me\s+suivez"
    r"|(?:il\s+|ce\s+)?n'est\s+pas\s+(?:trop\s+|deja\s+)?tard"
    r")"
)


@dataclass(frozen=True)
class _Mood:
    """How a sentence files its complaint: ``rejected`` (not a complaint, why) or
    ``doubt`` (a complaint to confirm, why), both None for a firm one."""

    rejected: str | None = None
    doubt: str | None = None


def _mood(folded: str, sentence: str, verb_from: int, k: int) -> _Mood:
    """The mood of the complaint of ``sentence`` (``folded``: the same, folded) whose
    subject starts at ``verb_from`` and whose word « plainte » is at ``k``: only what
    bears on the complaint itself (its verb, a condition put on it) counts; a
    condition on speaking (« si vous voulez mon avis : … »), a precaution (« au cas où
    il manquerait une voix : moi, X, pose une plainte ») or a concession (« même si
    … ») leaves a firm complaint (R5.1)."""
    verb = folded[verb_from:k]
    if _CONDITIONAL_MOOD.search(verb):
        return _Mood(rejected="conditionnel, pas une plainte")
    if _NEGATION.search(verb):
        return _Mood(rejected="négation, pas une plainte")
    span = _condition(folded, 0, verb_from) or _condition(folded, k, len(folded))
    condition = " ".join(sentence[span[0] : span[1]].split()) if span else ""
    if _FUTURE.search(verb):
        why = "au futur (« je poserai ») : une plainte annoncée, pas posée ?"
        if condition:
            why += f" (et sous condition : « {condition} »)"
        return _Mood(doubt=why)
    if condition:
        return _Mood(rejected=f"condition sur la plainte (« {condition} ») : pas une plainte")
    return _Mood()


def _condition(folded: str, start: int, end: int) -> tuple[int, int] | None:
    """The span of the condition ``folded[start:end]`` (before the complaint's subject,
    or after its word « plainte ») puts on the complaint; None if it has none: no
    « si », or a precaution (« au cas où »), a concession (« même si ») or a condition
    on speaking (:data:`_RELEVANCE`)."""
    text = folded[start:end]
    for m in _IF.finditer(text):
        if m.group("even"):
            continue
        kind = m.group("kind")
        clause = text[m.start("kind") :]
        clause = re.split(r"[,;:.!?)]|\balors\b|\bmoi\b", clause, maxsplit=1)[0].rstrip()
        if kind.startswith(("au cas", "dans le cas")):
            continue  # a precaution: filed all the same
        if kind.startswith(("si", "s'il")) and _RELEVANCE.match(clause):
            continue
        first = start + m.start("kind")
        return first, first + min(len(clause), 80)
    return None


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


def _complaint_at(folded: str) -> int:
    """Where the complaint's word « plainte » (or a typo of it) is in ``folded``: the
    last one before the first « contre » after one (« Plainte : moi, X, pose une
    plainte contre … », « S'il faut une quatrième plainte : moi, X, pose une plainte
    contre … »); its end if none."""
    found = [
        m.start()
        for m in _WORD.finditer(folded)
        if m.group(0) in _COMPLAINT_WORDS
        or (
            len(m.group(0)) >= 6
            and m.group(0).startswith("pl")
            and fuzz.ratio(m.group(0), "plainte") >= 80
        )
    ]
    if not found:
        return len(folded)
    against = re.search(r"\bcontre\b", folded[found[0] :])
    if against is None:
        return found[0]
    limit = found[0] + against.start()
    return max(k for k in found if k < limit)


#: the first person before « plainte »: « je », « j' », or the formula's « moi, X, »
_SUBJECT = re.compile(r"\b(?:je\b|j'|jpose\b|jporte\b)")


def _subject_at(folded: str, k: int, speaker: re.Match[str] | None) -> int:
    """Where the complaint's clause starts, before ``k`` (« plainte »): its « Moi, X, »,
    else its last « je » (a « je » inside an earlier clause is not its subject), else
    the start of the part after the last colon or semicolon."""
    if speaker is not None:
        return speaker.start()
    last = None
    for m in _SUBJECT.finditer(folded, 0, k):
        last = m
    start = max(folded.rfind(":", 0, k), folded.rfind(";", 0, k)) + 1
    if last is not None and last.start() >= start:
        return last.start()
    return start


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
        k = _complaint_at(folded)
        speaker: NameMatch | None = None
        speaker_written: str | None = None
        m = _SPEAKER.search(folded, 0, k)
        if m and m.group("name").strip() in _NOT_A_NAME:
            m = None
        verb_from = _subject_at(folded, k, m)
        clause = folded[verb_from:k]
        mood = _mood(folded, sentence, verb_from, k)
        if folded.rstrip().endswith("?") or _QUESTION_START.search(folded):
            rejected = "question, pas une plainte"
        elif mood.rejected and mood.rejected.startswith(("conditionnel", "condition ")):
            rejected = mood.rejected
        elif _WITHDRAWAL.search(folded):
            rejected = "retrait d'une plainte : les règles n'en prévoient pas (à voir par les MJ)"
        elif mood.rejected:
            rejected = mood.rejected
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
                not_now=mood.doubt or next((why for r, why in _NOT_NOW if r.search(clause)), None),
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
    elif hit.prefix:  # an author is his pseudo exactly: a shortened one is someone else?
        doubts.append(f"auteur « {post.author} » lu comme « {hit.value} » (à confirmer)")
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


#: an opening's fields typed on their own lines (« Accusé : X », « Personnage : Woody »)
_FIELD_ACCUSED = re.compile(
    r"^\W*accus[ée]e?s?(?:\s*\(e\))?\s*:\s*(?P<who>.+?)\s*$", re.IGNORECASE | re.MULTILINE
)
_FIELD_CHARACTER = re.compile(
    r"^\W*(?:personnage|r[oô]le)(?:\s+suppos[ée]e?)?\s*:\s*(?P<what>.+?)\s*$",
    re.IGNORECASE | re.MULTILINE,
)
#: the accused named by the accusation itself (« j'accuse X », « un procès contre X »)
_ACCUSE_VERB = re.compile(
    r"\bj[' ]?accuse\s+(?P<a>.+?)(?:\s+d'(?:etre|incarner)\b|[.!?,;:\n]|$)"
    r"|\bproces\s+(?:contre|a)\s+(?P<b>.+?)(?:\s+(?:qui|que|pour|car|d'(?:etre|incarner))\b|[.!?,;:\n]|$)"
    r"|\baccuse\s+(?P<c>\S+(?:\s+et\s+\S+)?)\s+d'(?:etre|incarner)\b",
    re.MULTILINE,
)


def _is_character(word: str) -> bool:
    hit = match_character(word)
    return hit is not None and hit.exact


def _accused(text: str, opener: str, roster: Roster) -> list[NameMatch]:
    """The players an opening accuses, first those its accusation designates (a field
    « Accusé : X », « j'accuse X », « un procès contre X »), then the others it
    names. A word that is a Character's name (« Chucky ») is not a typo of a pseudo;
    suggestions are dropped when a pseudo is named exactly."""
    folded = _aligned(text)
    lowered = fold_text(folded).replace("’", "'")
    designated: list[NameMatch] = []
    for m in [*_FIELD_ACCUSED.finditer(folded), *_ACCUSE_VERB.finditer(lowered)]:
        group = next(g for g in m.groupdict() if m.group(g) is not None)
        start, end = m.span(group)
        designated += [h for h in roster.mentioned(folded[start:end], exclude=[opener]) if h.exact]
    mentioned = [
        h
        for h in roster.mentioned(text, exclude=[opener])
        if h.exact or not _is_character(h.written)
    ]
    if any(h.exact for h in mentioned):
        mentioned = [h for h in mentioned if h.exact]
    out: list[NameMatch] = []
    for h in [*designated, *mentioned]:
        if h.value not in {o.value for o in out}:
            out.append(h)
    out_designated = len({h.value for h in designated})
    if out_designated:
        # the designated ones are the accused; the others are named in the arguments
        return out[:out_designated]
    return out


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
    accused = _accused(text, first.author, game.roster)
    field = _FIELD_CHARACTER.search(first.own_text)
    named = match_character(field.group("what")) if field else None
    characters = (
        [named]
        if named is not None and named.exact
        else characters_mentioned(fold_text(thread.title or ""))
        or characters_mentioned(first.own_text)
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
    opened = _opens_trial(thread, game) if kind != "trial" else None
    wrong_topic = False
    if opened is not None:
        topic = f"« {thread.title} »" if thread.title else "sans titre"
        what = "un sujet de Répétitions" if kind == "rehearsals" else "n'est pas un sujet de Procès"
        diagnostics.append(
            Diagnostic(
                "warning",
                f"le premier message ({thread.posts[0].author}) ouvre un Procès ({opened}) dans "
                f"le sujet {topic}, qui est {what} : un Procès s'ouvre dans un nouveau sujet "
                "marqué Procès (R4.2) ; à voir par les MJ"
                + (" (actions proposées en doute)" if kind == "other" else ""),
                post=thread.posts[0].index,
            )
        )
        if kind == "other":
            kind, wrong_topic = "trial", True
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
        if ref is not None and wrong_topic:
            ref.doubts.append(
                f"Procès ouvert dans le sujet « {thread.title or ''} », qui n'est pas un sujet "
                "de Procès (R4.2)"
            )
        if ref is not None:
            _trial_proposals(
                thread,
                game,
                ref,
                proposals,
                ignored,
                opening=trial is None and first_page,
                start=start,
                wrong_topic=wrong_topic,
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
    posts = {p.index: p for p in thread.posts}
    for prop in proposals:
        if prop.at is None:
            source = posts.get(prop.post)
            prop.doubts.append(no_time_doubt(source.time_text if source is not None else ""))
    return ParseResult(thread, kind, ref, proposals, ignored, diagnostics)


#: how to give a copy's date (the command line's option; the console says its own)
TODAY_HINT = "indiquez la date de la copie (--today AAAA-MM-JJ)"


def no_time_doubt(time_text: str) -> str:
    """The doubt of a step whose post has no time: why, and how to give the date."""
    if _RELATIVE_DATE.search(time_text):
        why = f"« {time_text} » sans la date de la copie"
    elif time_text.strip():
        why = f"date illisible « {time_text} »"
    else:
        why = "le message n'a pas de date"
    return f"heure inconnue ({why}) : {TODAY_HINT}, puis relisez la page"


_RELATIVE_DATE = re.compile(r"aujourd|hier", re.IGNORECASE)
_ACCUSING = re.compile(r"\baccus|\bproces\b|\bdemasqu|\bplainte|\bje denonce")


def _opens_trial(thread: Thread, game: _Game) -> str | None:
    """What the first post of a thread that is not a trial topic accuses (« X d'être
    Woody »), when it opens a trial (R4.2: accuses a player, names a Character, in
    the words of an accusation); None otherwise."""
    if not thread.posts:
        return None
    first = thread.posts[0]
    if game.roster.is_game_master(first.author) or game.roster.match(first.author) is None:
        return None
    text = first.own_text
    if not _ACCUSING.search(fold_text(text).replace("’", "'")):
        return None
    accused = game.roster.mentioned(text, exclude=[first.author])
    characters = characters_mentioned(text)
    if not accused or not characters:
        return None
    return f"{accused[0].value} accusé d'être {french_name(characters[0].value)}"


VERDICT_FR = {"just": "JUSTE", "unjust": "INJUSTE"}


def _when(t: datetime, start: date | None) -> str:
    """A forum time as the MJs read it (« J5 14:03 », or the date without ``start``)."""
    if start is not None:
        try:
            return format_time(start, t)
        except (RuleViolation, ValueError):
            pass
    return t.astimezone(PARIS).strftime("%d/%m/%Y %H:%M")


def _trial_proposals(
    thread: Thread,
    game: _Game,
    ref: TrialRef,
    proposals: list[Proposal],
    ignored: list[Finding],
    *,
    opening: bool,
    start: date | None = None,
    wrong_topic: bool = False,
) -> None:
    assert ref.number is not None
    posts = list(thread.posts)
    recorded = _recorded_trial(game, ref)
    deadline = _deadline_at(recorded, start) if recorded is not None else None
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
        if first.time is not None:
            deadline = first.time + timedelta(hours=24)
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
    # trial not recorded read from a later page, a trial in the wrong topic): every
    # step carries the doubt
    pending = list(ref.doubts) if ref.exists or not opening or wrong_topic else []
    complained: set[str] = set()
    # the valid complaints the trial holds before each post: those recorded, then
    # those read here (the quorum a verdict or an edit decides, R4.6)
    counted: set[str] = set()
    if recorded is not None:
        counted = {
            str(c["author"])
            for c in recorded.get("complaints", [])
            if not c.get("null") and not c.get("anonymous")
        }
    anonymous = (
        0
        if recorded is None
        else sum(
            1 for c in recorded.get("complaints", []) if c.get("anonymous") and not c.get("null")
        )
    )
    # the MJs' verdict post (R4.8), and one that only seems to be one
    verdict: Proposal | None = None
    weak: Proposal | None = None
    posted: set[tuple[str, str]] = set()
    for i, post in enumerate(posts):
        if opening and i == 0:
            continue
        author_doubts: list[str] = []
        if game.roster.is_game_master(post.author) or game.roster.match(post.author) is None:
            found = _announcement(post, game, ref, recorded, len(counted) + anonymous, start)
            if found is not None:
                found.doubts.extend(d for d in pending if d not in found.doubts)
                proposals.append(found)
                if verdict is None and found.plain:
                    verdict = found
                elif verdict is None and weak is None:
                    weak = found
            continue
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
            elif f.character_written:
                doubts.append(f"Personnage inconnu : « {f.character_written} » (à confirmer)")
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
            elif not (f.speaker.exact or f.speaker.prefix):
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
            # R4.8: after the MJs' verdict post (its announcement), or past the 24
            # hours: refused (said once, by the proposal's refusal), the post stays a
            # post of the trial (R4.5)
            refusal = _closed(post, verdict, deadline, start)
            if refusal is None:
                if weak is not None:
                    doubts.append(
                        f"postée après un message des MJ qui semble annoncer le verdict (message "
                        f"{weak.post}) : si c'est l'annonce, elle est refusée (R4.8)"
                    )
                elif post.edited == "modérateur":
                    doubts.append("modifié par un modérateur : le texte est-il celui du joueur ?")
                elif post.edited:
                    crossing = _edit_crossing(post, deadline, start)
                    if crossing is not None:
                        if len(counted | {author}) + anonymous <= 4:
                            crossing += " ; elle décide du quorum (R4.6)"
                        doubts.append(crossing)
                    else:
                        notes.append(
                            f"message modifié ({post.edited}) : une plainte ajoutée en le "
                            "modifiant date de ce moment, pas de l'heure du message"
                        )
                counted.add(author)
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
                    refusal=refusal,
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


def _recorded_trial(game: _Game, ref: TrialRef) -> Mapping[str, Any] | None:
    """The game masters' view of the trial ``ref`` when it is recorded."""
    if not ref.exists:
        return None
    return next((t for t in game.trials if int(t["number"]) == ref.number), None)


def _closed(
    post: Post, verdict: Proposal | None, deadline: datetime | None, start: date | None
) -> tuple[str, str] | None:
    """Why a complaint in ``post`` is refused (``trial_closed``, R4.8, R5.2): posted after
    the MJs' verdict post (the announcement's instant), or 24 hours or more after t0."""
    if verdict is not None:
        at = f" à {_when(verdict.at, start)}" if verdict.at is not None else ""
        return (
            "trial_closed",
            f"{CLOSED_BY_VERDICT} Plainte postée après le verdict annoncé par les MJ"
            f"{at} (message {verdict.post}, R4.8).",
        )
    if deadline is not None and post.time is not None and post.time >= deadline:
        return (
            "trial_closed",
            f"{CLOSED_BY_TIME} Plainte postée à {_when(post.time, start)}, échéance "
            f"{_when(deadline, start)}.",
        )
    return None


def _edit_crossing(post: Post, deadline: datetime | None, start: date | None) -> str | None:
    """A doubt when ``post`` was posted before the trial's deadline and edited at or
    after it: a complaint added by the edit came too late (the edit's time is its
    time), one already there counts (the post's)."""
    if deadline is None or post.time is None or post.edited_at is None:
        return None
    if not post.time < deadline <= post.edited_at:
        return None
    return (
        f"posté à {_when(post.time, start)}, modifié à {_when(post.edited_at, start)} : "
        f"l'échéance du Procès ({_when(deadline, start)}) tombe entre les deux ; la plainte "
        "était-elle dans le message avant la modification ? (ajoutée en modifiant, elle "
        "arrive trop tard)"
    )


_TRIAL_NUMBER = re.compile(
    r"\bn\s*[°ºo]\s*(\d{1,3})\b|\bproces\s+(?:numero\s+|no\s+|#\s*)?(\d{1,3})\b|#\s*(\d{1,3})\b"
)
#: a verdict as a game master states it: its word in capitals (« JUSTE », « INJUSTE »),
#: or a clause that ends on it (« le procès est juste. », « Verdict : injuste »)
_VERDICT_WORD = re.compile(r"\b(?P<in>IN)?JUSTE\b")
_VERDICT_CLAUSE = re.compile(
    r"\b(?:proces|verdict|accusation|jugement|sentence)\b[^.!?\n]{0,40}?"
    r"(?:\best\b|\betait\b|:|=)\s*(?:donc\s+|bien\s+)?(?P<in>in)?juste\s*(?:[.!:;,)\n]|$)",
    re.MULTILINE,
)
_UNJUST_WORDS = re.compile(
    r"\baccusation\s+(?:\w+\s+){0,2}?(?:fausse|infondee|erronee)\b"
    r"|\bproces\s+(?:\w+\s+){0,2}?(?:perdu|rate|echoue)\b"
)
_JUST_WORDS = re.compile(
    r"\b(?:incarnai(?:en)?t|etai(?:en)?t)\s+bien\b"
    r"|\b(?:est|sont)\s+demasquee?s?\b"
    r"|\baccusation\s+(?:\w+\s+){0,2}?(?:fondee|vraie|exacte)\b"
    r"|\bproces\s+(?:\w+\s+){0,2}?(?:gagne|reussi)\b"
)
_NOT_A_VERDICT = re.compile(r"\bannule\b|\bfaute de\b|\bvice de procedure\b|\bsans objet\b")


def stated_verdict(text: str) -> str | None:
    """The verdict a game master's post states: ``"just"``, ``"unjust"``, ``"both"``
    (it says both), or None (not a verdict: a lapse, a cancellation, a reminder, the
    word « juste » in another sense: « il reste juste 2 heures »)."""
    return _verdict(text)[0]


def _verdict(text: str) -> tuple[str | None, bool]:
    """(:func:`stated_verdict`, whether it is stated plainly: the word in capitals, or
    « verdict » / « procès … est juste »)."""
    folded = fold_text(text).replace("’", "'")
    found: set[str] = set()
    plain = False
    for m in _VERDICT_WORD.finditer(text):
        found.add("unjust" if m.group("in") else "just")
        plain = True
    for m in _VERDICT_CLAUSE.finditer(folded):
        found.add("unjust" if m.group("in") else "just")
        plain = True
    if _UNJUST_WORDS.search(folded):
        found.add("unjust")
    if _JUST_WORDS.search(folded):
        found.add("just")
    if not found or (_NOT_A_VERDICT.search(folded) and not plain):
        return None, False
    if len(found) > 1:
        return "both", plain
    return found.pop(), plain


def _announcement(
    post: Post,
    game: _Game,
    ref: TrialRef,
    recorded: Mapping[str, Any] | None,
    valid: int,
    start: date | None,
) -> Proposal | None:
    """A game master's verdict post as the announcement of ``ref`` at its time (R4.8):
    sure when it names the trial and states the verdict the engine computed, or will
    compute once the complaints read before it are recorded (checked again before
    recording, :func:`ronde.forum.apply.record_or_refuse`); a doubt otherwise. None:
    the post states no verdict."""
    text = post.own_text
    stated, plain = _verdict(text)
    if stated is None:
        return None
    doubts: list[str] = []
    if not plain:
        doubts.append(
            "verdict lu dans le texte (ni « JUSTE » ni « INJUSTE », ni « le procès est "
            "juste ») : une annonce ? (à confirmer)"
        )
    notes: list[str] = []
    gm = game.roster.game_master(post.author)
    if gm is None:
        if not game.roster.game_masters:
            return None
        gm = game.roster.game_masters[0]
        doubts.append(
            f"verdict posté par {post.author}, qui n'est pas un MJ de la partie : annoncé au "
            f"nom de {gm} ?"
        )
    if not post.proven:
        doubts.append(unproven_doubt(game.unproven or "copie non vérifiée"))
    folded = fold_text(text)
    numbers = {int(n) for m in _TRIAL_NUMBER.finditer(folded) for n in m.groups() if n}
    named = {a.value for a in game.roster.mentioned(text)}
    assert ref.number is not None
    if numbers and ref.number not in numbers:
        doubts.append(
            "nomme le Procès "
            + ", ".join(f"n°{n}" for n in sorted(numbers))
            + f", pas celui de ce sujet (n°{ref.number})"
        )
    elif not numbers and not set(ref.accused) & named:
        supposed = {c.value for c in characters_mentioned(text)}
        if ref.supposed not in supposed:
            doubts.append(
                f"ne nomme pas le Procès (ni « n°{ref.number} », ni l'accusé, ni le Personnage)"
            )
    if stated == "both":
        doubts.append("le message dit JUSTE et INJUSTE : quel verdict ?")
    computed = str(recorded.get("status")) if recorded is not None else "open"
    if computed in VERDICT_FR:
        if stated != "both" and computed != stated:
            doubts.append(
                f"le message annonce {VERDICT_FR.get(stated, stated)}, la partie a calculé "
                f"{VERDICT_FR[computed]}"
            )
        if recorded is not None and recorded.get("announced"):
            notes.append("verdict déjà annoncé dans la partie")
    elif computed == "open":
        if valid < 4:
            doubts.append(
                f"la partie n'a pas de verdict pour ce Procès : {valid} plainte(s) valide(s) "
                "lue(s) ou enregistrée(s) avant ce message, il en faut 4 (R4.6)"
            )
        else:
            notes.append(
                "verdict comparé à celui que la partie calcule, une fois enregistrées les "
                "plaintes d'avant ce message"
            )
    else:
        status = STATUS_FR.get(computed, computed)
        doubts.append(f"le Procès est « {status} » dans la partie : pas de verdict à annoncer")
    notes.append(
        "l'annonce du verdict date de ce message (R4.8) : les plaintes postées après sont refusées"
    )
    return Proposal(
        "announce",
        gm,
        post.time,
        {"trial": ref.number},
        post.index,
        _excerpt(text),
        doubts,
        notes,
        expect=stated if stated in VERDICT_FR else None,
        plain=plain,
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
    return None


def _rehearsal_proposals(
    thread: Thread, game: _Game, proposals: list[Proposal], ignored: list[Finding]
) -> None:
    """A participation per author and day (A69): a post of 3 to 20 written lines
    (:func:`ronde.forum.checks.written_lines`); one the MJs must judge (a long
    paragraph, a copy's unsure label line) is a doubt."""
    done: set[tuple[str, str]] = set()
    low, high = REHEARSAL_LINES
    for post in thread.posts:
        doubts: list[str] = []
        author = _author(post, game, doubts)
        if author is None:
            continue
        count = written_lines(post)
        verdict, why = count.verdict(low, high)
        if verdict == "no":
            ignored.append(Finding(post.index, post.author, why, _excerpt(post.own_text)))
            continue
        if verdict == "judge":
            doubts.append(why)
        day = post.time.date().isoformat() if post.time else post.time_text
        if (author, day) in done:
            continue
        done.add((author, day))
        notes = [f"{count.lines} lignes"]
        if count.left_out:
            notes.append("non comptées : " + ", ".join(count.left_out))
        proposals.append(
            Proposal(
                "rehearse",
                author,
                post.time,
                {},
                post.index,
                _excerpt(post.own_text),
                doubts,
                notes,
            )
        )
