"""Constraint helpers: evidence for the game master, who rules (R0.2, R6.20).

Each helper returns a :class:`Suggestion` (``met``: what the evidence suggests,
``evidence``: the posts or lines it rests on, ``text``: French). None of them
records anything: a game master reads the suggestion and records a verdict.

Pasted pages show some of a player's posts, never all of his day (other topics, other
pages): they can prove a constraint met, never that it was not. Without the proof a
helper says ``met=None``, « à vérifier » (:data:`UNSETTLED`), never « non respectée ».

- :func:`cell_posts`: two posts at least 6 hours apart on the day, each from a
  cell with y < 0 (Little Mermaid, R7.10.2), x > 0 (Halus, R7.11.2), x < 0
  (Woody, R7.12.2), y > 0 (Pierrot, R7.13.2), or from one given cell (the
  Mermaid's ``go_to`` order, R7.10.4). The proof is the post's cell stamp.
- :func:`questions`: a post with at least two questions (Alice, R7.4.3).
- :func:`prompter_sentence`: the Prompter's J2 sentence found in a post with at
  most one word changed, the order kept, punctuation free (R7.2.6, A34).
- :func:`participation`: Rehearsals participation days (posts of 3 to 20 lines,
  R9.20, A69) and daily forum participation (R9.19, A68).
- The Seer's future tense is :mod:`ronde.forum.future`; the Mime's Registre is
  :mod:`ronde.forum.registre`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from rapidfuzz.distance import Hamming

from ..engine.clock import PARIS, day_of
from .thread import Post, fold_pseudo, fold_text, is_label

SIX_HOURS = timedelta(hours=6)

#: Character id -> (French description of the area, test on a cell)
AREAS: dict[str, tuple[str, Callable[[int, int], bool]]] = {
    "little_mermaid": ("au sud de la ville (y < 0)", lambda x, y: y < 0),
    "halus": ("à l'est de la ville (x > 0)", lambda x, y: x > 0),
    "woody": ("à l'ouest de la ville (x < 0)", lambda x, y: x < 0),
    "pierrot": ("au nord de la ville (y > 0)", lambda x, y: y > 0),
}


#: what a helper adds when the pages it read cannot settle the constraint
UNSETTLED = "à vérifier : ces pages ne montrent pas toute sa journée"


@dataclass
class Suggestion:
    """What the evidence suggests (``None``: nothing the pages read can settle, to
    check); a game master rules."""

    met: bool | None
    text: str
    evidence: list[str] = field(default_factory=list)


def _ref(p: Post) -> str:
    # a browser copy that does not prove who wrote its posts (``Thread.unproven``)
    unproven = "" if p.proven else " — auteur non prouvé (copie du navigateur)"
    return f"message {p.index} ({p.author}, {p.time_text}, {p.stamp_text()}){unproven}"


def _posts_of(
    posts: Iterable[Post], player: str, day: int | None, start: date | None
) -> list[Post]:
    key = fold_pseudo(player)
    out = []
    for p in posts:
        if fold_pseudo(p.author) != key or p.time is None:
            continue
        if day is not None and start is not None and day_of(start, p.time) != day:
            continue
        out.append(p)
    return sorted(out, key=lambda p: p.time or datetime.min.replace(tzinfo=PARIS))


def cell_posts(
    posts: Iterable[Post],
    player: str,
    *,
    character: str | None = None,
    cell: tuple[int, int] | None = None,
    day: int | None = None,
    start: date | None = None,
) -> Suggestion:
    """Two posts of ``player`` at least 6 hours apart on ``day``, each from the area of
    ``character`` (or from ``cell``, the Mermaid's order)."""
    inside: Callable[[int, int], bool]
    if cell is not None:
        where = f"depuis la case [{cell[0]}, {cell[1]}]"
        target = cell
        inside = lambda x, y: (x, y) == target  # noqa: E731
    elif character in AREAS:
        where, inside = AREAS[character]
        where = "depuis une case " + where
    else:
        raise ValueError(f"pas de contrainte de case pour {character!r}")
    mine = _posts_of(posts, player, day, start)
    good = [p for p in mine if isinstance(p.stamp, tuple) and inside(*p.stamp)]
    for i, first in enumerate(good):
        for second in good[i + 1 :]:
            assert first.time is not None and second.time is not None
            if second.time - first.time >= SIX_HOURS:
                return Suggestion(
                    True,
                    f"{player} : deux messages {where} à au moins 6 h d'écart",
                    [_ref(first), _ref(second)],
                )
    others = [p for p in mine if p not in good]
    text = (
        f"{player} : {len(good)} message(s) {where} sur {len(mine)}, pas deux à 6 h d'écart ou plus"
    )
    if any(p.stamp is None for p in others):
        text += " (certains messages n'ont pas de tampon de case)"
    return Suggestion(None, f"{text} — {UNSETTLED}", [_ref(p) for p in mine])


_QUESTION = re.compile(r"[^?!.…\n]*\?+")


def questions(
    posts: Iterable[Post], player: str, *, day: int | None = None, start: date | None = None
) -> Suggestion:
    """Alice: a post of her own text (quotes excluded) holding at least two questions
    (sentences ending in « ? »; « ?? » counts once)."""
    best: tuple[int, Post | None] = (0, None)
    for p in _posts_of(posts, player, day, start):
        found = [q.strip() for q in _QUESTION.findall(p.own_text) if q.strip(" ?")]
        if len(found) > best[0]:
            best = (len(found), p)
        if len(found) >= 2:
            return Suggestion(True, f"{player} : {len(found)} questions", [_ref(p), *found[:4]])
    if best[1] is None:
        return Suggestion(None, f"{player} : aucune question dans ses messages — {UNSETTLED}")
    return Suggestion(
        None,
        f"{player} : au plus {best[0]} question(s) par message — {UNSETTLED}",
        [_ref(best[1])],
    )


_WORDS = re.compile(r"[\w]+(?:['’][\w]+)*", re.UNICODE)


def words(text: str) -> list[str]:
    """Words of ``text``, folded (case, accents), punctuation and elisions kept apart."""
    return [w for w in _WORDS.findall(fold_text(text).replace("’", "'"))]


@dataclass(frozen=True)
class SentenceMatch:
    """Where the Prompter's sentence was found: the words as written, and the change."""

    found: str
    changed: str | None


def find_sentence(sentence: str, text: str) -> SentenceMatch | None:
    """The J2 sentence in ``text`` with at most one word replaced, order kept,
    punctuation, case and accents free (A34 ``from_original``)."""
    target = words(sentence)
    if not target:
        return None
    raw = _WORDS.findall(text.replace("’", "'"))
    folded = [fold_text(w) for w in raw]
    n = len(target)
    best: SentenceMatch | None = None
    for i in range(0, len(folded) - n + 1):
        window = folded[i : i + n]
        dist = Hamming.distance(window, target)
        if dist == 0:
            return SentenceMatch(" ".join(raw[i : i + n]), None)
        if dist == 1 and best is None:
            k = next(j for j in range(n) if window[j] != target[j])
            best = SentenceMatch(" ".join(raw[i : i + n]), f"« {target[k]} » → « {raw[i + k]} »")
    return best


def prompter_sentence(
    posts: Iterable[Post],
    player: str,
    sentence: str,
    *,
    day: int | None = None,
    start: date | None = None,
) -> Suggestion:
    """The Prompter's sentence in one of his posts of the day (R7.2.6)."""
    note = " (la phrase a moins de 8 mots, R7.2.6)" if len(words(sentence)) < 8 else ""
    for p in _posts_of(posts, player, day, start):
        m = find_sentence(sentence, p.own_text)
        if m is not None:
            how = "telle quelle" if m.changed is None else f"un mot changé : {m.changed}"
            return Suggestion(True, f"{player} : phrase trouvée, {how}{note}", [_ref(p), m.found])
    return Suggestion(
        None, f"{player} : phrase introuvable (au plus un mot changé){note} — {UNSETTLED}"
    )


#: A69: a post of 3 to 20 written lines; under 3 lines but longer than this, the MJs judge
REHEARSAL_LINES = (3, 20)
LONG_PARAGRAPH = 240

#: a line of out-of-play text (A69): « HRP : … », « (hrp) … », « [hrp] … [/hrp] », « Hors RP »
_HRP = re.compile(
    r"^\W*(?:hrp|h\.r\.p\.?|hors[ -]?rp|hors[ -]?jeu|ooc|edit|edition)\b"
    r"|^\W*\[\s*/?\s*hrp\s*\]",
    re.IGNORECASE,
)
_HRP_OPEN = re.compile(r"^\W*\[\s*hrp\s*\]", re.IGNORECASE)
_HRP_CLOSE = re.compile(r"\[\s*/\s*hrp\s*\]", re.IGNORECASE)
_SENTENCE_END = ".!?…,;:»\"')("


@dataclass(frozen=True)
class LineCount:
    """A Rehearsals post's written lines (RULES.md A69): non-empty lines as written,
    quotes, out-of-play text and the speaker's label line left out.

    ``unsure`` lines may or may not count (a copy's first line that may be the label
    of an ``[rp]`` block whose speaker is not the author's pseudo); ``chars`` is the
    length of the lines counted; ``left_out`` says what was not counted (French)."""

    lines: int
    unsure: int
    chars: int
    left_out: tuple[str, ...] = ()
    unsure_line: str = ""

    def verdict(
        self, low: int = REHEARSAL_LINES[0], high: int = REHEARSAL_LINES[1]
    ) -> tuple[str, str]:
        """``("yes" | "no" | "judge", why)``: a participation, not one, or the MJs judge
        (the copy cannot tell the count, or a post under ``low`` lines is longer than
        :data:`LONG_PARAGRAPH` characters: the forum wraps it over several lines)."""
        counts = {self.lines - self.unsure, self.lines}
        fits = {low <= n <= high for n in counts}
        if fits == {True}:
            return "yes", f"{self.lines} lignes"
        if fits == {True, False}:
            return "judge", (
                f"{self.lines} lignes, ou {self.lines - self.unsure} si « {self.unsure_line} » "
                "est l'étiquette d'un bloc RP (la copie ne la distingue pas) : aux MJ de juger"
            )
        if max(counts) < low and self.chars > LONG_PARAGRAPH:
            return "judge", (
                f"{max(counts)} ligne(s) écrite(s) mais {self.chars} caractères (plus de "
                f"{LONG_PARAGRAPH}, le forum les affiche sur plusieurs lignes) : aux MJ de "
                "juger (A69)"
            )
        return (
            "no",
            f"{self.lines} ligne(s) : une participation compte de {low} à {high} lignes (A69)",
        )


#: words a speaker's name does not end with, nor a sentence start with (« Un », « Il était »)
_FUNCTION_WORDS = re.compile(
    r"un|une|deux|trois|le|la|les|l|de|du|des|d|et|ou|il|elle|on|je|j|tu|nous|vous|ils"
    r"|elles|mais|donc|car|ni|or|a|au|aux|en|dans|sur|sous|pour|par|avec|sans|que|qui"
    r"|quoi|ce|c|cette|ces|mon|ma|mes|ton|ta|tes|son|sa|ses|oui|non|y"
)


def _may_be_label(first: str, second: str) -> bool:
    """Whether a copy's first line may be the label of an ``[rp]`` block the reader did
    not recognise (a speaker that is not the author's pseudo, « Le narrateur »): a short
    capitalised name, no sentence punctuation, not a sentence's start (a pronoun, a
    function word at its end, the next line going on in lower case)."""
    words = re.findall(r"[\w'’-]+", fold_text(first))
    if not words or len(first) > 30 or len(words) > 4 or first[-1] in _SENTENCE_END:
        return False
    if not first[:1].isupper() or second[:1].islower():
        return False
    pronouns = {"il", "elle", "on", "je", "j", "tu", "nous", "vous", "ils", "elles", "c", "ce"}
    head = words[0].split("'")[0]
    return head not in pronouns and not _FUNCTION_WORDS.fullmatch(words[-1].split("'")[-1])


def _out_of_play(lines: list[str]) -> tuple[list[str], list[str]]:
    """``lines`` without out-of-play text (« HRP : … », « [hrp] … [/hrp] »), and the
    lines left out."""
    kept: list[str] = []
    out: list[str] = []
    inside = False
    for line in lines:
        if inside or _HRP_OPEN.match(line):
            out.append(line)
            inside = not _HRP_CLOSE.search(line)
            continue
        if _HRP.match(fold_text(line).strip()):
            out.append(line)
            continue
        kept.append(line)
    return kept, out


def written_lines(post: Post) -> LineCount:
    """The written lines of a Rehearsals post (A69): its own blocks (an ``[rp]`` block's
    label is not a line: a saved page marks it; a copy's label is recognised when it is
    the author's pseudo or a prefix of it, :func:`ronde.forum.thread.is_label`), quotes
    and out-of-play lines left out, a label typed by hand (« Gribouille : » alone)
    too."""
    left: list[str] = [f"étiquette « {label} »" for label in post.labels]
    counted: list[str] = []
    for block in post.blocks:
        if block.kind == "quote":
            left.append("citation")
            continue
        if block.kind == "rp" and block.author and not post.copied:
            left.append(f"étiquette « {block.author} »")
        lines = [ln.strip() for ln in block.text.splitlines() if ln.strip()]
        kept, out = _out_of_play(lines)
        left.extend(f"hors jeu « {ln[:40]} »" for ln in out)
        for ln in kept:
            if is_label(ln, post.author):
                left.append(f"étiquette « {ln} »")
            else:
                counted.append(ln)
    unsure = 0
    unsure_line = ""
    if post.copied and not post.labels and len(counted) >= 2 and _may_be_label(*counted[:2]):
        unsure, unsure_line = 1, counted[0]
    chars = sum(len(ln) for ln in counted)
    return LineCount(len(counted), unsure, chars, tuple(left), unsure_line)


@dataclass
class Participation:
    """Days on which each player took part (A68, A69)."""

    rehearsal_days: dict[str, set[int]]
    forum_days: dict[str, set[int]]
    refused: list[str]
    #: posts whose count the MJs judge (A69: a long paragraph, a copy's unsure label)
    judge: list[str] = field(default_factory=list)


def participation(
    rehearsals: Iterable[Post],
    others: Iterable[Post],
    start: date,
    *,
    lines: tuple[int, int] = (3, 20),
    game_masters: Iterable[str] = (),
) -> Participation:
    """Rehearsals days per author (posts of 3 to 20 written lines, :func:`written_lines`;
    several posts on one day count once, A69; those the MJs judge are listed in
    ``judge``) and forum days (any post, A68). Game masters' posts count for nobody;
    a post without a time is listed in ``refused`` (never dropped silently)."""
    gms = {fold_pseudo(g) for g in game_masters}
    rehearsals = [p for p in rehearsals if fold_pseudo(p.author) not in gms]
    others = [p for p in others if fold_pseudo(p.author) not in gms]
    rehearsal_days: dict[str, set[int]] = {}
    forum_days: dict[str, set[int]] = {}
    refused: list[str] = []
    judge: list[str] = []
    for p in [*rehearsals, *others]:
        if p.time is None:
            refused.append(f"{_ref(p)} : sans heure (date de la copie inconnue), non compté")
    for p in rehearsals:
        if p.time is None:
            continue
        day = day_of(start, p.time)
        forum_days.setdefault(p.author, set()).add(day)
        verdict, why = written_lines(p).verdict(*lines)
        if verdict == "yes":
            rehearsal_days.setdefault(p.author, set()).add(day)
        elif verdict == "judge":
            judge.append(f"{_ref(p)} : {why}")
        else:
            refused.append(f"{_ref(p)} : {why}")
    for p in others:
        if p.time is not None:
            forum_days.setdefault(p.author, set()).add(day_of(start, p.time))
    return Participation(rehearsal_days, forum_days, refused, judge)
