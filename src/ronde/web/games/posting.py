""" "À poster" as a work list: what the game masters post on the forum or send by MP,
day by day, grouped by where it goes.

:func:`to_post` is the one source of the list's items (every page, count and mark
reads it): the messages still to post or send by hand (:func:`.delivery.to_post`:
the private messages the portal delivers are not), each with its game day and its
destination, and one item per verdict waiting for its post.
A verdict's post is its announcement (RULES.md R4.8): marking it posted records
``announce`` at the time given (default: now), through :func:`.service.record`.

Grouping (:func:`groups`): the forum posts of one topic make one combined post
(their texts one after the other, in time order); the private messages to one
recipient (or one set of recipients) make one MP. A verdict's post stays a post of
its own: its instant is the announcement's.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction

from ronde.engine.clock import day_of
from ronde.engine.commands import Command
from ronde.engine.errors import RuleViolation
from ronde.engine.events import MessageSent, TrialAnnounced
from ronde.forum.markup import ZWSP
from ronde.forum.render import KINDS_FR, ForumContext, held_messages, message_dict, render

from . import delivery, service, vocabulary
from . import forum_console as fc
from .models import Game, Posting

#: the key prefix of a verdict's post (not a message of the log yet)
VERDICT = "verdict-"


@dataclass
class Item:
    """One message to post or send (or a verdict's post to write)."""

    key: str
    at: datetime
    #: its game day (0: before J1); a verdict waiting for its post: today
    day: int
    when: str
    public: bool
    #: where it goes, in French (« Sujet du Procès n°3 (Joueur12) », « MP à Ana »)
    where: str
    kind: str
    text: str
    problem: str
    recipients: list[str]
    posting: Posting | None = None
    #: a verdict waiting for its post: the trial's number (marking it announces it)
    trial: int | None = None
    #: why the engine would refuse to announce it now (French), or ""
    refusal: str = ""

    @property
    def kind_fr(self) -> str:
        if self.trial is not None:
            return "verdict à annoncer"
        return KINDS_FR.get(self.kind, "message")

    @property
    def pending(self) -> bool:
        return self.posting is None

    @property
    def group_key(self) -> tuple[str, ...]:
        if self.trial is not None:
            return ("verdict", str(self.trial))
        if self.public:
            return ("forum", self.where)
        return ("mp", *sorted(self.recipients, key=str.casefold))


@dataclass
class Group:
    """The messages of one destination on one day: one forum post, or one MP."""

    id: str
    where: str
    public: bool
    items: list[Item] = field(default_factory=list)

    @property
    def trial(self) -> int | None:
        return self.items[0].trial if self.items else None

    @property
    def pending(self) -> list[Item]:
        return [m for m in self.items if m.pending]

    @property
    def posted(self) -> list[Item]:
        return [m for m in self.items if not m.pending]

    @property
    def done(self) -> bool:
        return not self.pending

    @property
    def text(self) -> str:
        """The pending messages as one post (a blank line between two)."""
        return combined(m.text for m in self.pending)

    @property
    def times(self) -> str:
        whens = list(dict.fromkeys(m.when for m in self.pending))
        return ", ".join(whens)

    @property
    def keys(self) -> list[str]:
        return [m.key for m in self.pending]

    @property
    def rows(self) -> int:
        return max(4, min(18, self.text.count("\n") + 2))


def combined(texts: Iterable[str]) -> str:
    """Several messages as one post: one after the other, a blank line between two. The
    forum's editor drops the first zero-width space of a post (FORUM-PAGE.md): each
    text's own leading one is dropped and the post gets one, if it holds any."""
    parts = [t.removeprefix(ZWSP) for t in texts]
    text = "\n\n".join(p for p in parts if p.strip())
    return ZWSP + text if ZWSP in text else text


def today(game: Game) -> int:
    """The game's day now (0 before J1)."""
    return max(day_of(game.start, service.game_now(game)), 0)


def to_post(game: Game, day: int | None = None, user: Any = None) -> list[Item]:
    """Every message to post or send (posted or not), in time order, each with its
    posting if marked; then a post per verdict waiting for its announcement. With
    ``day``, the items of that game day (the verdicts waiting: on today's list)."""
    rendered = listing(game, user).items
    start = game.start
    out: list[Item] = []
    for m in rendered:
        at = datetime.fromisoformat(m.at)
        n = max(day_of(start, at), 0)
        if day is not None and n != day:
            continue
        out.append(
            Item(
                key=m.key,
                at=at,
                day=n,
                when=vocabulary.game_time_label(start, at),
                public=m.public,
                where=m.where,
                kind=m.kind,
                text=m.text,
                problem=m.problem,
                recipients=list(m.recipients),
                posting=m.posting,
            )
        )
    now_day = today(game)
    if day is None or day == now_day:
        out.extend(verdict_items(game, now_day, user))
    return out


def listing(game: Game, user: Any = None) -> delivery.ToPostList:
    """The messages "À poster" lists (:func:`.delivery.to_post`: the public posts, and
    the private messages still due by MP under the game's delivery setting), those the
    portal carries (``waiting``) and every key a posting may have (``keys``)."""
    return delivery.to_post(game, user)


def groups(items: Sequence[Item], *, by_day: bool = False) -> list[Group]:
    """The items by destination, in the order to post: the forum's topics (and the
    verdicts' posts) by their first message, then the MPs by recipient; ``by_day``:
    a destination's messages of each day apart (the list of every day)."""
    by: dict[tuple[str, ...], Group] = {}
    for m in sorted(items, key=lambda m: m.at):
        key = (str(m.day), *m.group_key) if by_day and m.trial is None else m.group_key
        g = by.get(key)
        if g is None:
            ident = hashlib.sha1("\x1f".join(key).encode()).hexdigest()[:12]
            where = f"J{m.day} — {m.where}" if by_day and m.trial is None else m.where
            g = by[key] = Group(id=ident, where=where, public=m.public)
        g.items.append(m)
    public = [g for g in by.values() if g.public]
    private = sorted((g for g in by.values() if not g.public), key=lambda g: g.where.casefold())
    return public + private


def day_counts(items: Iterable[Item]) -> dict[int, int]:
    """Pending items per game day."""
    out: dict[int, int] = {}
    for m in items:
        if m.pending:
            out[m.day] = out.get(m.day, 0) + 1
    return out


def left(game: Game, user: Any = None) -> tuple[int, int]:
    """What is left to post: (today's, the earlier days')."""
    now_day = today(game)
    counts = day_counts(to_post(game, user=user))
    mine = counts.pop(now_day, 0)
    return mine, sum(counts.values())


# -- marking --------------------------------------------------------------------------------
def mark(game: Game, items: Sequence[Item], user: Any) -> int:
    """Mark ``items`` posted (once each; a mark already made stays): how many were not
    marked yet."""
    who = user if getattr(user, "is_authenticated", False) else None
    t = service.now()
    with transaction.atomic():
        taken = set(
            Posting.objects.filter(game=game, key__in=[m.key for m in items]).values_list(
                "key", flat=True
            )
        )
        new = [
            Posting(
                game=game,
                key=m.key,
                label=f"{m.when} — {m.where}"[:200],
                posted_by=who,
                posted_at=t,
            )
            for m in items
            if m.key not in taken and not m.key.startswith(VERDICT)
        ]
        Posting.objects.bulk_create(new, ignore_conflicts=True)
    return len(new)


def unmark(game: Game, key: str) -> int:
    """Put a message back in the list."""
    deleted, _rows = Posting.objects.filter(game=game, key=key).delete()
    return deleted


def announce(
    game: Game, user: Any, gm_name: str, trial: int, at: datetime | None, confirm: str | None
) -> service.Outcome:
    """A verdict's post was posted at ``at`` (``None``: now): record its announcement
    then (R4.8), and mark the messages of that post (the trial's topic, at that instant)
    posted. A refusal records nothing; a time before the last event is a correction
    (its preview and token in the outcome, as :func:`.service.record` says)."""
    out = service.record(game, user, "announce", gm_name, {"trial": trial}, at=at, confirm=confirm)
    if not out.ok:
        return out
    game.refresh_from_db()
    when = next((e.at for e in out.events if isinstance(e, TrialAnnounced)), None)
    if when is not None:
        topic = f"Sujet du Procès n°{trial} "
        mine = [
            m
            for m in to_post(game, user=user)
            if m.public and m.trial is None and m.at == when and m.where.startswith(topic)
        ]
        mark(game, mine, user)
    return out


# -- the verdicts waiting for their post -----------------------------------------------------
_lock = threading.Lock()
#: per game: (version, templates) -> its verdicts' posts (text, refusal) by trial
_PREVIEWS: dict[int, tuple[tuple[Any, ...], dict[int, tuple[str, str]]]] = {}


def verdict_items(game: Game, day: int, user: Any = None) -> list[Item]:
    """One item per concluded trial whose verdict is not announced yet: the text of its
    post as the announcement would write it now (nothing is recorded)."""
    eng = service.current(game, user)
    g = eng.state
    waiting = [t for t in g.trials if t.concluded and not t.announced]
    if not waiting:
        return []
    game.refresh_from_db(fields=["version"])
    overrides = fc.game_templates(game)
    key = (game.version, tuple(sorted(overrides.items())))
    with _lock:
        cached = _PREVIEWS.get(game.pk)
    if cached is not None and cached[0] == key:
        previews = cached[1]
    else:
        tpl = fc.templates_for(game)
        previews = {t.number: _preview(eng, t.number, tpl) for t in waiting}
        with _lock:
            _PREVIEWS[game.pk] = (key, previews)
    out = []
    for t in waiting:
        text, refusal = previews.get(t.number, ("", ""))
        accused = ", ".join(g.pseudo(s) for s in t.accused)
        ended = t.ended_at or g.clock
        assert ended is not None
        out.append(
            Item(
                key=f"{VERDICT}{t.number}",
                at=ended,
                day=day,
                when=vocabulary.game_time_label(game.start, ended),
                public=True,
                where=f"Sujet du Procès n°{t.number} ({accused})",
                kind="trial_ended",
                text=text,
                problem="",
                recipients=[],
                trial=t.number,
                refusal=refusal,
            )
        )
    return out


def _preview(eng: Any, trial: int, tpl: Any) -> tuple[str, str]:
    """The post of ``trial``'s verdict (its topic's messages of the announcement), and
    why the engine would refuse it now ("" if it would not)."""
    copy = service.replayed(eng)
    g = copy.state
    at = g.clock or eng.log[-1].at
    by = g.game_masters[0] if g.game_masters else "MJ"
    try:
        events = copy.execute(Command("announce", by, at, {"trial": trial}))
    except RuleViolation as rv:
        return "", rv.message
    # (what waits for this announcement: read as the forum's list walked the log)
    held = [{**m, "at": at.isoformat()} for m in held_messages(eng, trial)]
    own = [message_dict(e) for e in events if isinstance(e, MessageSent)]
    ctx = ForumContext.from_game(copy, base=eng)
    texts = []
    for m in [*own, *held]:
        data = m.get("data") or {}
        if m.get("public") and isinstance(data, dict) and data.get("trial") == trial:
            texts.append(render(m, tpl, ctx).text)
    return combined(texts), ""
