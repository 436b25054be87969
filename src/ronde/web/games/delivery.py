"""The portal as the private channel: which private messages each recipient has seen on
his page, and which are still due by MP (the game's ``delivery`` setting).

- A private message is **delivered** when its recipient opened his page while his own
  view showed it (:func:`saw`, called by his page): a :class:`~.models.Receipt` records
  when (game time), once per message and recipient. Nothing else counts as seen.
- :func:`by_recipient` splits a message to several players into one MP per recipient:
  sent as one group MP, the list of recipients itself would tell each of them who the
  others are (the Extras' theme, R1.12; Polichinelle's secret, sent to him and to the
  players drawn; the chorus's secret ...). Only a message whose recipients are all
  publicly unmasked (the chorus, known to everyone) stays one group MP.
- :func:`due_by_mp` keeps, of the private messages, those the game masters must still
  send by hand: every one under ``mp``; none under ``portal``; under ``portal_mp``,
  those not seen ``delivery_delay`` hours after they were sent.

A message is identified in a recipient's view by :func:`fingerprint` (his seat, the
time his view shows, its kind and text), the same for the forum's list ("À poster")
and for his page: a correction that leaves a message as it was keeps its receipts.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.db.models import Q

from ronde.engine.clock import format_time
from ronde.engine.views import view

from . import clocks, viewcache
from .eventstore import User
from .models import Game, Membership, Posting, Receipt

if TYPE_CHECKING:  # types only
    from ronde.engine.game import Game as EngineGame

    from .forum_console import ToPost


def fingerprint(seat: str, time: str, kind: str, text: str) -> str:
    """A private message as its recipient's view shows it (``time``: « J5 14:04 »)."""
    raw = "\x1f".join((seat, time, kind, text))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:40]


def shown_time(start: date, iso: str) -> str:
    """The game time a view shows for an instant given in ISO form."""
    try:
        return format_time(start, datetime.fromisoformat(iso))
    except ValueError:
        return iso


# -- his page: what he has seen ----------------------------------------------------------------
#: per process: the messages each membership's receipts already hold, and the version of
#: the game they were read from
_RECEIPTED: dict[tuple[int, Any], tuple[tuple[int, str], frozenset[str]]] = {}
_lock = threading.Lock()


def private_keys(eng: EngineGame, pseudo: str) -> tuple[str, ...]:
    """The fingerprints of the private messages the player ``pseudo`` may read now (his
    own view: nothing held for a verdict not yet announced)."""
    g = eng.state
    seat = g.seat_of(pseudo)
    if seat is None:
        return ()
    v = view(g, pseudo)
    return tuple(
        fingerprint(seat, m["time"], m["kind"], m["text"]) for m in v["messages"] if not m["public"]
    )


def saw(game: Game, member: Membership, user: User | None = None) -> int:
    """The player opened his page: every private message it shows is delivered to him
    (the first look is kept). Costs nothing when nothing new is shown (his view is read
    from the page's cache), one insert otherwise; returns the number of messages
    written as newly seen (at most)."""
    mark = (game.generation, game.version)
    who = (member.pk, member.created_at)  # (a restored database may reuse a key)
    with _lock:
        done = _RECEIPTED.get(who)
    if done is not None and done[0] == mark:
        return 0
    keys = frozenset(
        viewcache.cached(
            game, member.pseudo, ("receipts",), lambda eng: private_keys(eng, member.pseudo), user
        )
    )
    missing = keys - (done[1] if done is not None else frozenset())
    if missing:
        seen_at, wall = clocks.game_now(game), clocks.now()
        Receipt.objects.bulk_create(  # (a message he saw before keeps its first look)
            [
                Receipt(game=game, membership=member, key=k, seen_at=seen_at, recorded_at=wall)
                for k in sorted(missing)
            ],
            ignore_conflicts=True,
        )
    with _lock:
        _RECEIPTED[who] = (mark, keys | (done[1] if done is not None else frozenset()))
    return len(missing)


def forget() -> None:
    """Forget what this process knows was receipted (tests)."""
    with _lock:
        _RECEIPTED.clear()


# -- the game masters' list: what is still due by MP --------------------------------------------
@dataclass
class Seen:
    """One recipient of a private message: whether and when he saw it on his page."""

    pseudo: str
    seat: str
    key: str
    seen_at: datetime | None = None
    when: str = ""


@dataclass
class Delivery:
    """A private message for one MP (one recipient, or a group that tells nothing)."""

    item: ToPost
    #: the key of the message it comes from (its own key when not split)
    origin: str = ""
    recipients: list[Seen] = field(default_factory=list)
    sent_at: datetime | None = None
    #: from when it is due by MP (``None``: never by MP, or already due)
    due_at: datetime | None = None
    due: bool = False

    @property
    def seen(self) -> bool:
        return all(r.seen_at is not None for r in self.recipients)


def _unmasked_publicly(eng: EngineGame) -> set[str]:
    """The seats everyone knows are unmasked (the public view's known identities)."""
    g = eng.state
    known = view(g, "public").get("known") or {}
    return {s for s, p in g.players.items() if p.pseudo in known and not p.masked}


def _split_key(key: str, seat: str) -> str:
    return hashlib.sha256(f"{key}\x1f{seat}".encode()).hexdigest()[:40]


def by_recipient(
    game: Game, eng: EngineGame, items: Iterable[ToPost], user: User | None = None
) -> list[Delivery]:
    """The private messages of ``items`` as MPs: one per recipient unless every recipient
    is publicly unmasked (one group MP then), each with who saw it and when; a recipient
    whose own view does not show the message (yet) is left out."""
    g = eng.state
    public_unmasked = _unmasked_publicly(eng)
    shown: dict[str, set[str]] = {}

    def visible(r: Seen) -> bool:
        # what his own view shows him (a message the chorus was sent while his unmasking
        # waits for its verdict's announcement is not his yet, A77): never sent before
        if r.pseudo not in shown:
            shown[r.pseudo] = set(
                viewcache.cached(
                    game, r.pseudo, ("receipts",), lambda e: private_keys(e, r.pseudo), user
                )
            )
        return r.key in shown[r.pseudo]

    out: list[Delivery] = []
    for m in items:
        if m.public or not m.seats:
            continue
        time = shown_time(game.start, m.sent)
        every = [Seen(g.pseudo(s), s, fingerprint(s, time, m.kind, m.engine_text)) for s in m.seats]
        recipients = [r for r in every if visible(r)]
        if not recipients:
            continue
        try:
            sent_at = datetime.fromisoformat(m.at)
        except ValueError:
            sent_at = None
        if len(every) == 1 or (
            len(recipients) == len(every) and all(s in public_unmasked for s in m.seats)
        ):
            out.append(Delivery(m, m.key, recipients, sent_at))
            continue
        for r in recipients:
            one = dataclasses.replace(
                m,
                key=_split_key(m.key, r.seat),
                where=f"MP à {r.pseudo}",
                recipients=[r.pseudo],
                seats=(r.seat,),
                posting=m.posting,  # marked sent as one group MP before: sent to each
            )
            out.append(Delivery(one, m.key, [r], sent_at))
    return out


def with_receipts(game: Game, deliveries: list[Delivery]) -> list[Delivery]:
    """Fill in who saw each message and when (one query)."""
    keys = {r.key for d in deliveries for r in d.recipients}
    if not keys:
        return deliveries
    rows = Receipt.objects.filter(game=game, key__in=keys).values_list(
        "membership__pseudo", "key", "seen_at"
    )
    seen = {(pseudo, key): at for pseudo, key, at in rows}
    for d in deliveries:
        for r in d.recipients:
            at = seen.get((r.pseudo, r.key))
            if at is not None:
                r.seen_at = at
                r.when = format_time(game.start, at)
    return deliveries


def due_by_mp(game: Game, deliveries: list[Delivery], now: datetime) -> list[Delivery]:
    """Mark which private messages are due by MP now (``due``) and from when the others
    will be (``due_at``); returns them all."""
    delay = timedelta(hours=int(game.delivery_delay or 0))
    for d in deliveries:
        if game.delivery == Game.MP:
            d.due = True
        elif game.delivery == Game.PORTAL or d.seen:
            d.due = False
        else:
            start = d.sent_at or now
            d.due = now >= start + delay
            d.due_at = None if d.due else start + delay
        if d.due and len(d.recipients) > 1:
            # a group MP goes to those who have not seen it yet (they are publicly known)
            unseen = [r for r in d.recipients if r.seen_at is None]
            if game.delivery != Game.MP and unseen and len(unseen) < len(d.recipients):
                names = [r.pseudo for r in unseen]
                d.item = dataclasses.replace(
                    d.item, where="MP à " + ", ".join(names), recipients=names
                )
    return deliveries


def deliveries(
    game: Game, eng: EngineGame, items: list[ToPost], user: User | None = None
) -> list[Delivery]:
    """Every private MP of ``items`` with its receipts and whether it is due by MP now."""
    out = with_receipts(game, by_recipient(game, eng, items, user))
    return due_by_mp(game, out, clocks.game_now(game))


def postings_for(game: Game, deliveries: list[Delivery]) -> None:
    """Attach the posting marked on each MP's own key (a split message marked as a group
    before keeps the group's)."""
    keys = {d.item.key for d in deliveries}
    rows = {p.key: p for p in Posting.objects.filter(Q(game=game) & Q(key__in=keys))}
    for d in deliveries:
        own = rows.get(d.item.key)
        if own is not None:
            d.item.posting = own


def mode_label(game: Game) -> str:
    return str(dict(Game.DELIVERIES).get(game.delivery, game.delivery))


def read_setting(post: Any) -> tuple[str, int] | None:
    """The delivery setting posted by the setup page (``None``: not in the form, or
    invalid)."""
    mode = str(post.get("delivery") or "")
    if mode not in dict(Game.DELIVERIES):
        return None
    try:
        delay = int(str(post.get("delivery_delay") or "6"))
    except ValueError:
        return None
    if not 1 <= delay <= 72:
        return None
    return mode, delay


@dataclass
class ToPostList:
    """ "À poster" with the portal as the private channel: ``items`` are the public posts
    and the MPs due (or marked sent), ``waiting`` the private messages the portal
    carries (seen, or not seen yet and not due), ``keys`` every key a posting may have."""

    items: list[ToPost]
    waiting: list[Delivery]
    keys: set[str]


def to_post(game: Game, user: User | None = None) -> ToPostList:
    """The list "À poster" shows (see :class:`ToPostList`)."""
    from . import forum_console as fc  # (the forum's rendering: only for this list)
    from . import service

    everything = fc.to_post(game, user)
    eng = service.current(game, user)
    split = deliveries(game, eng, everything, user)
    postings_for(game, split)
    by_origin: dict[str, list[Delivery]] = {}
    for d in split:
        by_origin.setdefault(d.origin, []).append(d)
    items: list[ToPost] = []
    waiting: list[Delivery] = []
    keys = {m.key for m in everything}
    for m in everything:
        if m.public or not m.seats:
            items.append(m)
            continue
        for d in by_origin.pop(m.key, []):  # its MPs, in order: one, or one per recipient
            keys.add(d.item.key)
            if d.due or d.item.posting is not None:
                items.append(d.item)
            else:
                waiting.append(d)
    return ToPostList(items, waiting, keys)
