"""Per-viewer views: the only way anything outside the engine reads a game (R1.12).

``view(g, viewer)`` returns plain data (dicts, lists, strings, numbers) holding
exactly what that viewer may know: the game masters see everything, a player
sees his own character, his legal targets (never their order in the Ronde),
what the rules told him, and the public board; the public sees the board.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .character import character_of
from .chorus import available
from .clock import format_time
from .constraints import constraint_range, covered
from .names import fold_name, french_name
from .ronde import boost_on, window
from .state import CHORUS, GameState, Player, ScoreLine, Trial
from .trials import anonymous_right, frozen_by, legal_targets, quorum_count, quota_refusal
from .unmasking import (
    awaiting_verdict,
    before_verdicts,
    held_by,
    hidden_unmaskings,
    pending_now,
    pending_verdicts,
    reading,
)
from .work import KINDS, Todo, day_end

if TYPE_CHECKING:
    from _collections_abc import dict_items, dict_keys, dict_values

PUBLIC = "public"
GAME_MASTER = "game_master"

View = dict[str, Any]


def _time(g: GameState, t: datetime) -> str:
    """``format_time(g.start, t)`` (``J3 10:00``), kept per instant: views show the same
    times again and again."""
    shown = g.times("shown")
    text = shown.get(t)
    if text is None:
        text = shown[t] = format_time(g.start, t)
    shown_text: str = text
    return shown_text


def public_identities(g: GameState) -> dict[str, str]:
    """Seat -> character known to every participant: the unmasked (with the character
    they had) and identities made public by a rule (e.g. the Diva, R7.14.1)."""
    # verdicts not yet announced (R4.8), until the end publishes every Character (A72)
    hidden = hidden_unmaskings(g) if not g.game_ended else {}
    out = {s: c for s, c in g.revealed.items() if s not in hidden}
    # (a transfigured player's new mask is secret again: he left g.revealed)
    for seat, character in g.flags.get("public_identities", {}).items():
        p = g.players[seat]
        # (still public while the unmasking of an unannounced verdict is hidden)
        if (p.masked and p.character == character) or hidden.get(seat) == character:
            out[seat] = character
    if g.game_ended:  # A72: at the end the game masters publish every Character
        for seat, p in g.players.items():
            if p.masked and p.character is not None:
                out.setdefault(seat, p.character)
    return out


def _trial_public(g: GameState, t: Trial, viewer: str | None) -> View:
    if held_by(g, t) is not None:  # ended by a verdict not yet public (R4.8)
        ended, pending = False, False
        shown_status = "open"
    else:
        ended = t.status != "open"
        pending = t.concluded and not t.announced
        shown_status = "concluded" if pending else t.status
    complaints = []
    for c in t.complaints:
        anonymous = t.anonymous_to_others(c)  # the Diva's are hers: R7.14.1
        if anonymous and c.author != viewer:
            continue
        complaints.append(
            {
                "author": "chœur" if c.author == CHORUS else g.pseudo(c.author),
                "anonymous": anonymous,
                "time": _time(g, c.at),
            }
        )
    out: View = {
        "number": t.number,
        "accused": [g.pseudo(s) for s in t.accused],
        "supposed": t.supposed,
        "supposed_fr": french_name(t.supposed),
        "opener": (
            None
            if t.anonymous_to_others() and t.opener != viewer
            else ("chœur" if t.opener == CHORUS else g.pseudo(t.opener))
        ),
        "anonymous": t.anonymous_to_others(),
        "opened": _time(g, t.opened_at),
        "deadline": _time(g, t.deadline),
        # a verdict is public once the game masters announce it (R4.8): until then the
        # trial shows as concluded, outcome pending
        "status": shown_status,
        "complaints": complaints,
        "arguments": t.arguments,
    }
    if ended and not pending:
        out["anonymous_published"] = sum(1 for c in t.complaints if t.anonymous_to_others(c))
        nulls = sum(1 for c in t.complaints if c.null)
        if t.concluded and nulls and quorum_count(g, t) >= 4:  # R5.13, A19
            out["null_notice"] = nulls if g.opt("A19") == "count" else True
    return out


def _held(g: GameState, data: dict[str, Any]) -> bool:
    """A message a verdict's consequences sent, waiting for its announcement (A77)."""
    held = data.get("held")
    return held is not None and held in pending_verdicts(g)


def _messages_for(g: GameState, seat: str, chorus_since: datetime | None = None) -> list[View]:
    """The messages ``seat`` may read; ``chorus_since``: he is in the chorus since then
    by a verdict not yet announced, and what the chorus was sent since waits (A77)."""
    out = []
    for at, to, kind, text, data, public in g.messages:
        if (public or seat in to) and not _held(g, data):
            if chorus_since is not None and not public and at >= chorus_since:
                others = [s for s in to if s != seat]
                if others and all(not g.players[s].masked for s in others):
                    continue
            out.append({"time": _time(g, at), "kind": kind, "text": text, "public": public})
    return out


def _known(g: GameState, p: Player) -> dict[str, str]:
    known = {g.pseudo(s): c for s, c in public_identities(g).items()}
    for other, character in p.learned.items():
        known[g.pseudo(other)] = character
    return known


def player_view(g: GameState, seat: str) -> View:
    """What the player at ``seat`` may know now: nothing that depends on a verdict the
    game masters have not announced (A77, :func:`before_verdicts`)."""
    with reading():
        pending = awaiting_verdict(g, seat)
        awaiting = frozen_by(g, seat) is not None
        hidden = pending is not None and seat in hidden_unmaskings(g)
        since = pending.ended_at if pending is not None and hidden else None
        with before_verdicts(g):
            return _player_view(g, seat, awaiting=awaiting, chorus_since=since)


def _player_view(g: GameState, seat: str, *, awaiting: bool, chorus_since: datetime | None) -> View:
    p = g.players[seat]
    revealed = g.days_closed >= 1
    module = character_of(g, p)
    me: View = {
        "pseudo": p.pseudo,
        "masked": p.masked,
        "alive": p.alive,
        # (not while a verdict against him awaits its announcement: A77)
        "unofficially_unmasked": p.masked and p.unofficial is not None and not awaiting,
        "asleep_today": seat in g.asleep.get(g.day(), set()),
        # the character his own unmasking revealed (he knows it; R8.1)
        "was": g.revealed.get(seat) if not p.masked else None,
    }
    if revealed or not p.masked:
        me.update(
            {
                "character": p.character if p.masked else None,
                "character_fr": french_name(p.character) if p.character else None,
                "new_extra": p.new_extra,
                "constraint": module.constraint_fr,
                "power": module.power_fr,
                "jokers_used": sorted(p.joker_days),
            }
        )
        private = module.private_view(g, p)
        me.update(private)
        # the same knowledge in French sentences, for his page (no key, no identifier)
        me["private_fr"] = module.describe_private(g, p, private)
    # (read within ``before_verdicts``: the slots a waiting verdict freed are live again)
    targets = sorted(legal_targets(g, p, anonymous=False)) if revealed else []
    day = g.day()
    used = len(p.actions.get(day, []))
    can_act = (
        p.masked
        and p.unofficial is None
        and not awaiting
        and quota_refusal(g, p, opening=False, anonymous=p.new_extra) is None
    )
    out: View = {
        "viewer": p.pseudo,
        "kind": "player",
        "day": day,
        "time": _time(g, g.clock) if g.clock else "",
        "me": me,
        "targets": targets,
        "targets_fr": sorted(french_name(c) for c in targets),
        "quota": {"used_today": used, "can_act": bool(can_act)},
        "known": _known(g, p),
        "trials": [_trial_public(g, t, seat) for t in g.trials],
        "messages": _messages_for(g, seat, chorus_since),
        "guess_made": p.guess is not None,
    }
    if g.opt("A70") in ("own_score", "public") or g.game_ended:
        pending = {t.number for t in g.trials if t.concluded and not t.announced}
        shown = shown_lines(g, p, pending)
        out["points"] = sum(line.points for line in shown)
        out["lines"] = [
            {"points": line.points, "reason": line.reason, "rule": line.rule} for line in shown
        ]
    if not p.masked and p.alive:
        out["chorus"] = chorus_view(g, seat)
    if g.opt("A70") == "public" or g.game_ended:
        out["scoreboard"] = scoreboard(g, public=True)
    return out


def chorus_view(g: GameState, seat: str) -> View:
    """What a member of the chorus sees: members, Secretary, today's votes (R8.5, R8.6)."""
    with before_verdicts(g):
        return _chorus_view(g, seat)


def _chorus_view(g: GameState, seat: str) -> View:
    day = g.day()
    # with Woody unmasked the investigation votes are kept apart (R7.12.5): shown here
    # with the others, one line a member (his investigation vote last)
    apart = g.flags.get("investigate_votes", {}).get(day, {})
    members = set(g.chorus())  # (a vote by an accused whose verdict is not public: hidden)
    votes = {s: v for s, v in {**g.chorus_votes.get(day, {}), **apart}.items() if s in members}
    hidden = set(hidden_unmaskings(g)) - {seat}  # not yet publicly unmasked (R4.8)
    return {
        "members": sorted(g.pseudo(s) for s in g.chorus() if s not in hidden),
        "secretary": g.pseudo(g.secretary) if g.secretary and g.secretary not in hidden else None,
        "available": sorted(available(g)),
        "votes_today": {
            g.pseudo(s): {
                "action": a,
                "args": {k: (g.pseudo(v) if k == "player" else v) for k, v in args.items()},
            }
            for s, (a, args) in votes.items()
        },
        "investigations": [
            {"day": d, "player": g.pseudo(s), "character": c}
            for d, s, c, members, _ok in g.investigations
            if seat in members
        ],
    }


def chorus_available(g: GameState) -> list[str]:
    """The chorus's actions available now as its members see them (the ``available`` of
    :func:`chorus_view`), without the rest of that view: for bots."""
    if not pending_now(g):  # (no verdict waits: the game reads as it is known)
        return sorted(available(g))
    with before_verdicts(g):
        return sorted(available(g))


def public_view(g: GameState) -> View:
    """The public board: trials, verdicts, the unmasked and their cause, announcements."""
    with before_verdicts(g):
        return _public_view(g)


def _public_view(g: GameState) -> View:
    return {
        "kind": PUBLIC,
        "day": g.day(),
        "time": _time(g, g.clock) if g.clock else "",
        "trials": [_trial_public(g, t, None) for t in g.trials],
        "known": {g.pseudo(s): c for s, c in public_identities(g).items()},
        "announcements": [
            {"time": _time(g, at), "kind": kind, "text": text}
            for at, _to, kind, text, data, public in g.messages
            if public and not _held(g, data)
        ],
        "ended": g.game_ended,
        **(
            {"scoreboard": scoreboard(g, public=True)}
            if g.opt("A70") == "public" or g.game_ended
            else {}
        ),
    }


def shown_lines(g: GameState, p: Player, pending: Collection[int]) -> list[ScoreLine]:
    """``p``'s score lines as players know them (A77): without those of the verdicts not
    yet announced (``pending``) nor, while such a verdict's unmasking of him is not
    announced, what he earned after it without a trial (as a member of the chorus: he is
    one from his fall, R4.10, but it is told with the verdict; the chorus is paid by
    timers, which run before any command of the same instant: a line of the verdict's
    instant was earned before it)."""
    since = next(
        (
            g.trials[n - 1].ended_at
            for n in sorted(pending)
            if p.seat in g.trials[n - 1].flags.get("unmasked", ())
        ),
        None,
    )
    return [
        line
        for line in p.lines
        if line.trial not in pending
        and (since is None or line.trial is not None or line.at <= since)
    ]


def scoreboard(g: GameState, *, public: bool = False) -> list[View]:
    """Players ranked by score, ties sharing a rank (A72); ``public``: without the points
    of verdicts not yet announced (A77)."""
    pending = pending_verdicts(g) if public else set()

    def points(p: Player) -> int:
        if not pending:
            return p.points
        return sum(line.points for line in shown_lines(g, p, pending))

    rows = sorted(
        ((points(p), p) for p in g.players.values()), key=lambda r: (-r[0], r[1].pseudo.casefold())
    )
    out: list[View] = []
    rank = 0
    last: int | None = None
    for i, (score, p) in enumerate(rows, 1):
        if score != last:
            rank, last = i, score
        out.append({"rank": rank, "player": p.pseudo, "points": score})
    return out


def game_master_view(g: GameState) -> View:
    """Everything, plus what the game masters must do today."""
    with reading():  # not while another thread reads the players' what-if
        return _game_master_view(g)


def _game_master_view(g: GameState) -> View:
    day = g.day()
    items = work(g)
    players = []
    for seat, p in g.players.items():
        span = constraint_range(g, p)
        players.append(
            {
                "pseudo": p.pseudo,
                "seat": seat,
                "character": p.character,
                "original": p.original,
                "masked": p.masked,
                "new_extra": p.new_extra,
                "unofficial": p.unofficial,
                # a failure waiting for the verdicts naming his Character (A77)
                "waits": p.waits[0] if p.waits is not None else None,
                "alive": p.alive,
                "targets": sorted(legal_targets(g, p, anonymous=False)),
                "points": p.points,
                "constraint_today": bool(span and span[0] <= day <= span[1])
                and not covered(g, seat, day),
                "jokers": sorted(p.joker_days),
                "actions_today": len(p.actions.get(day, [])),
            }
        )
    trials = []
    for t in g.trials:
        trials.append(
            {
                **_trial_public(g, t, None),
                "opener": "chœur" if t.opener == CHORUS else g.pseudo(t.opener),
                "anonymous": t.anonymous,
                "complaints": [
                    {
                        "author": "chœur" if c.author == CHORUS else g.pseudo(c.author),
                        "anonymous": c.anonymous,
                        "null": c.null,
                        "compelled": c.compelled,
                        "late": c.late,
                        "time": _time(g, c.at),
                    }
                    for c in t.complaints
                ],
                "valid": len(t.valid()),
                "status": t.status,
                "truth": t.truth,
                "announced": t.announced,
            }
        )
    return {
        "kind": GAME_MASTER,
        "day": day,
        "time": _time(g, g.clock) if g.clock else "",
        "ronde": list(g.ronde),
        "window": window(g),
        "boost": boost_on(g),
        "options": dict(g.options),
        "players": players,
        "trials": trials,
        "secretary": g.pseudo(g.secretary) if g.secretary else None,
        "todo": [x.text for x in items],
        "work": work_view(g, items),
        "messages": [
            {
                "time": _time(g, at),
                "to": [g.pseudo(s) for s in to],
                "kind": kind,
                "text": text,
                "public": public,
            }
            for at, to, kind, text, _d, public in g.messages
        ],
        "scoreboard": scoreboard(g),
    }


def work(g: GameState) -> list[Todo]:
    """What the game masters must rule on or send today, as data (see
    :class:`ronde.engine.work.Todo`), by deadline (none last), then kind."""
    day = g.day()
    out: list[Todo] = []
    for t in g.trials:
        if t.concluded and not t.announced:
            verdict = "juste" if t.status == "just" else "injuste"
            out.append(
                Todo(
                    f"Annoncer le verdict du Procès n°{t.number} ({verdict}).",
                    "announce",
                    deadline=t.ended_at,
                    consequence="le verdict reste secret et les plaintes tardives restent "
                    "acceptées jusqu'à l'annonce",
                    action="announce",
                    args={"trial": t.number},
                )
            )
    theme_day = max(day, 1)  # before J1: the theme of J1
    if (
        theme_day <= 13
        and theme_day not in g.themes
        and any(p.masked and p.character == "extra" for p in g.players.values())
    ):
        out.append(
            Todo(
                f"Donner le thème du J{theme_day} aux Figurants.",
                "setup",
                deadline=day_end(g.start, theme_day),
                consequence="les Figurants n'ont pas de thème pour leur allusion du jour",
                action="set_theme",
                args={"day": theme_day},
            )
        )
    for p in g.players.values():
        if p.masked:
            for item in character_of(g, p).game_master_todo(g, p, day):
                out.append(
                    dataclasses.replace(item, text=f"{p.pseudo} : {item.text}", player=p.seat)
                )
    far = datetime.max.replace(tzinfo=UTC)
    rank = {k: i for i, k in enumerate(KINDS)}
    out.sort(key=lambda x: (x.deadline or far, rank.get(x.kind, len(KINDS))))
    return out


def work_view(g: GameState, items: list[Todo]) -> list[View]:
    """The to-do items as the game masters' view shows them (pseudos, game times)."""
    return [
        {
            "text": x.text,
            "kind": x.kind,
            "player": g.pseudo(x.player) if x.player else None,
            "deadline": _time(g, x.deadline) if x.deadline else None,
            "deadline_at": x.deadline.isoformat() if x.deadline else None,
            "consequence": x.consequence,
            "action": x.action,
            "args": dict(x.args),
            "by": x.by,
        }
        for x in items
    ]


def view(g: GameState, viewer: str) -> View:
    """The view of ``viewer``: ``"public"``, ``"game_master"`` (or a game master's
    name), or a player's pseudo.

    Raises:
        KeyError: ``viewer`` is none of these.
    """
    with reading():
        return _view(g, viewer)


def _view(g: GameState, viewer: str) -> View:
    if viewer == PUBLIC:
        return public_view(g)
    if viewer == GAME_MASTER or g.is_game_master(viewer):
        return game_master_view(g)
    seat = g.seat_of(viewer)
    if seat is None:
        raise KeyError(viewer)
    return player_view(g, seat)


def _brief_trials(g: GameState) -> list[tuple[frozenset[str], View, View]]:
    """The open (or unannounced) trials as bots need them, shared by every viewer (read
    them, do not change them): for each, who is involved (opener and complainants) and
    the trial as it shows to one of them (``mine``) and to anyone else.

    Each trial's row is kept (in a table of the game's, by number) with what it is made
    of that changes: its number of complaints (a trial's complaints are only ever
    appended, never changed), its status and its accused's pseudos; a new board (a
    complaint in one trial) makes only that trial's row again."""
    rows: dict[int, tuple[tuple[int, str, list[str]], tuple[frozenset[str], View, View]]]
    rows = g.constant("brief_trial_rows", dict)  # (a table of rows, each checked as read)
    out = []
    for t in g.unsettled_trials():
        status = t.status
        # ended by a verdict not yet public: open as players know it (R4.8, A77)
        held = status != "open" and held_by(g, t) is not None
        if status != "open" and not held and not (t.concluded and not t.announced):
            continue
        if held:
            status = "open"
        complaints = t.complaints
        accused = [g.pseudo(s) for s in t.accused]
        key = (len(complaints), status, accused)
        hit = rows.get(t.number)
        if hit is not None and hit[0] == key:
            out.append(hit[1])
            continue
        involved = frozenset({t.opener, *[c.author for c in complaints]})
        shown = {
            "number": t.number,
            "accused": accused,
            "supposed": t.supposed,
            "mine": False,
            "public_complaints": len([c for c in complaints if not c.anonymous]),
            "open": status == "open",
        }
        row = (involved, {**shown, "mine": True}, shown)
        rows[t.number] = (key, row)
        out.append(row)
    return out


class LazyView(dict[str, Any]):
    """A bot's view whose costly entries are computed when first read, on the state as it
    was when the view was made (reading one after the state changed raises
    ``RuntimeError``: :meth:`settle` it before acting if it is read again afterwards).
    Reading, iterating or comparing it as a whole settles it first."""

    __slots__ = ("_clock", "_count", "_g", "_known", "_later", "_seat")
    _g: GameState
    _count: int
    _clock: datetime | None
    #: the viewer's seat (``""`` for the game masters)
    _seat: str
    #: whether its entries read the game as players know it (A77: made while a verdict
    #: waits for its announcement; each entry is then computed within the what-if)
    _known: bool
    #: the entries not computed yet: name -> how to compute it from the view (its
    #: ``_g`` and ``_seat``; module functions shared by every view, not closures)
    _later: dict[str, Callable[[LazyView], Any]]

    def __missing__(self, key: str) -> Any:
        compute = self._later.pop(key, None)
        if compute is None:
            raise KeyError(key)
        if self._g.event_count != self._count or self._g.clock != self._clock:
            raise RuntimeError(f"vue lue après un changement de la partie : « {key} »")
        if self._known:
            with reading(), before_verdicts(self._g):
                value = self[key] = compute(self)
            return value
        value = self[key] = compute(self)
        return value

    def made_on(
        self, g: GameState, seat: str, later: dict[str, Callable[[LazyView], Any]]
    ) -> LazyView:
        """This view, made now on ``g`` for ``seat`` (``""``: the game masters), with the
        entries ``later`` computes when read (a copy: each is popped once computed)."""
        self._g, self._count, self._clock, self._seat = g, g.event_count, g.clock, seat
        self._known = False
        self._later = later.copy()
        return self

    def fresh(self) -> bool:
        """Whether the state is still the one the view was made on."""
        return self._g.event_count == self._count and self._g.clock == self._clock

    def settle(self) -> LazyView:
        """Compute every entry not read yet (now, while the state is the view's)."""
        for key in list(self._later):
            self.__missing__(key)
        return self

    # whole-view reads see every entry
    def __iter__(self) -> Iterator[str]:
        return super(LazyView, self.settle()).__iter__()

    def __len__(self) -> int:
        return super(LazyView, self.settle()).__len__()

    def __contains__(self, key: object) -> bool:
        return super(LazyView, self.settle()).__contains__(key)

    def __eq__(self, other: object) -> bool:
        return super(LazyView, self.settle()).__eq__(other)

    def __repr__(self) -> str:
        return super(LazyView, self.settle()).__repr__()

    def get(self, key: str, default: Any = None) -> Any:
        return super(LazyView, self.settle()).get(key, default)

    def keys(self) -> dict_keys[str, Any]:
        return super(LazyView, self.settle()).keys()

    def values(self) -> dict_values[str, Any]:
        return super(LazyView, self.settle()).values()

    def items(self) -> dict_items[str, Any]:
        return super(LazyView, self.settle()).items()

    def copy(self) -> dict[str, Any]:
        return dict(super(LazyView, self.settle()).items())


def _cached_brief(g: GameState, key: str) -> LazyView | None:
    hit = g.memo_cache.get(key)
    if hit is not None and hit[0] == g.event_count:
        brief: LazyView = hit[1]
        if brief._clock == g.clock:  # (what ``fresh`` checks: its count is the key's)
            return brief
    return None


def player_brief(g: GameState, seat: str) -> View:
    """A compact player view for bots (a subset of :func:`player_view`): his targets,
    whether he can act, the open trials as the public sees them, and known identities.
    A :class:`LazyView` kept until the next event or a new instant (read it, do not
    change it; :func:`settle_briefs` before his action if it is read again after)."""
    key = f"brief:{seat}"
    brief = _cached_brief(g, key)
    if brief is None:
        brief = _player_brief(g, seat)
        g.memo_cache[key] = (g.event_count, brief)
    return brief


def settle_briefs(g: GameState, name: str) -> None:
    """Compute what is not read yet of the brief given to ``name`` (a player's pseudo or
    a game master) at this state: before he acts, so that it still reads as it was."""
    folded = fold_name(name)  # (``is_game_master`` and ``seat_of``, in one reading)
    key = "brief:game_master" if folded in g.gm_index else f"brief:{g.index.get(folded)}"
    hit = g.memo_cache.get(key)
    if hit is not None and hit[0] == g.event_count:
        brief: LazyView = hit[1]
        if brief._later and brief._clock == g.clock:
            brief.settle()


def _brief_open_trials(v: LazyView) -> list[View]:
    g, seat = v._g, v._seat
    return [
        mine if seat in involved else other
        for involved, mine, other in g.memoized_board("brief_trials", lambda: _brief_trials(g))
    ]


def _brief_known(v: LazyView) -> dict[str, str]:
    g = v._g
    public: dict[str, str] = g.memoized_board(
        "brief_known", lambda: {g.pseudo(s): c for s, c in public_identities(g).items()}
    )
    learned = g.players[v._seat].learned
    if not learned:
        return public  # (shared: read it, do not change it)
    return public | {g.pseudo(o): c for o, c in learned.items()}


def _brief_masked_players(v: LazyView) -> list[str]:
    g = v._g
    pseudos: list[str] = g.memoized_board(
        "masked_pseudos", lambda: sorted([q.pseudo for q in g.players.values() if q.masked])
    )
    return pseudos


def _brief_targets(v: LazyView) -> list[str]:
    p = v._g.players[v._seat]
    return sorted(legal_targets(v._g, p, anonymous=p.new_extra))


def _brief_anonymous_right(v: LazyView) -> str | None:
    # his own anonymous right now (Halus, Pinocchio, a Polichinelle gift ...), if any
    return anonymous_right(v._g, v._g.players[v._seat], opening=False)


def _brief_told(v: LazyView) -> frozenset[str]:
    # what the game masters told him privately, by kind (e.g. "monstrous")
    return frozenset(v._g.told_kinds.get(v._seat, ()))


#: the lazy entries of a masked player's brief, and of an unmasked one's (copied into
#: each brief, which pops them as they are computed)
_MASKED_LATER: dict[str, Callable[[LazyView], Any]] = {
    "open_trials": _brief_open_trials,
    "known": _brief_known,
    "masked_players": _brief_masked_players,
    # (read only when he can act: most of his turns, not all)
    "targets": _brief_targets,
    "anonymous_right": _brief_anonymous_right,
}
_UNMASKED_LATER: dict[str, Callable[[LazyView], Any]] = {
    "open_trials": _brief_open_trials,
    "known": _brief_known,
    "masked_players": _brief_masked_players,
    "told": _brief_told,
}


def drop_briefs(g: GameState) -> None:
    """Forget the briefs kept in ``g`` (each holds the state it was made on: kept, they
    keep a game that is done with alive until the cycle collector finds it)."""
    for key in [k for k in g.memo_cache if k.startswith("brief:")]:
        del g.memo_cache[key]


def _player_brief(g: GameState, seat: str) -> LazyView:
    if not pending_now(g):  # (the game reads as it is known)
        return _brief_of(g, seat, awaiting=False)
    # a verdict waits for its announcement: the brief is the game as players know it
    # (A77, as :func:`player_view`): what it holds at once is computed so, and each
    # other entry, when read, within the same what-if (``LazyView._known``)
    with reading():
        awaiting = frozen_by(g, seat) is not None
        with before_verdicts(g):
            brief = _brief_of(g, seat, awaiting=awaiting)
    brief._known = True
    brief._later.pop("told", None)
    brief["told"] = _told(g, seat)
    return brief


def _told(g: GameState, seat: str) -> frozenset[str]:
    """The kinds of the private messages ``seat`` was sent, but those a verdict's
    consequences sent that wait for its announcement (A77): such messages are sent from
    the instant of a waiting verdict on, so only the last ones are looked at, unless
    one of them is his."""
    kinds = g.told_kinds.get(seat, ())
    if not kinds:
        return frozenset()
    ends = [g.trials[n - 1].ended_at for n in pending_verdicts(g)]
    since = min((e for e in ends if e is not None), default=None) if None not in ends else None
    for at, to, _kind, _text, data, public in reversed(g.messages):
        if since is not None and at < since:
            return frozenset(kinds)  # (none of his held)
        if not public and seat in to and _held(g, data):
            break
    else:
        return frozenset(kinds)
    return frozenset(
        kind
        for _at, to, kind, _text, data, public in g.messages
        if not public and seat in to and not _held(g, data)
    )


def _brief_of(g: GameState, seat: str, *, awaiting: bool) -> LazyView:
    p = g.players[seat]
    day = g.day()
    if p.masked:  # (what a masked bot reads on nearly every turn: computed at once)
        brief = LazyView(
            pseudo=p.pseudo,
            masked=True,
            character=p.character,
            new_extra=p.new_extra,
            chorus=False,
            day=day,
            told=frozenset(g.told_kinds.get(seat, ())),
            can_act=(
                p.unofficial is None
                and not awaiting
                and seat not in g.asleep.get(day, ())
                and quota_refusal(g, p, opening=False, anonymous=p.new_extra) is None
            ),
        )
        later = _MASKED_LATER
    else:  # (none of these once unmasked)
        brief = LazyView(
            pseudo=p.pseudo,
            masked=False,
            character=None,
            new_extra=p.new_extra,
            chorus=p.alive,
            day=day,
            targets=[],
            can_act=False,
            anonymous_right=None,
        )
        later = _UNMASKED_LATER
    return brief.made_on(g, seat, later)


def private_brief(g: GameState, seat: str) -> View:
    """What the player at ``seat`` knows through his character (the ``private_view`` part
    of :func:`player_view`'s ``me``), without the rest of the view: for bots (as players
    know the game while a verdict waits for its announcement, A77)."""
    if pending_now(g):
        with reading(), before_verdicts(g):
            return _private_brief(g, seat)
    return _private_brief(g, seat)


def _private_brief(g: GameState, seat: str) -> View:
    p = g.players[seat]
    if not p.masked or g.days_closed < 1:
        return {}
    return character_of(g, p).private_view(g, p)


def game_master_brief(g: GameState) -> View:
    """A compact game-master view for the simulator's game-master bot (a
    :class:`LazyView`, as :func:`player_brief`)."""
    key = "brief:game_master"
    brief = _cached_brief(g, key)
    if brief is None:
        brief = _game_master_brief(g)
        g.memo_cache[key] = (g.event_count, brief)
    return brief


def _gm_constraint_today(v: LazyView) -> list[str]:
    g, day = v._g, v["day"]
    return [
        p.pseudo
        for seat, p in g.players.items()
        if p.masked
        and (span := constraint_range(g, p)) is not None
        and span[0] <= day <= span[1]
        and not covered(g, seat, day)
    ]


def _gm_extra_vacancies(v: LazyView) -> int:
    g = v._g
    return g.n_extras - len([p for p in g.players.values() if p.masked and p.character == "extra"])


def _gm_chorus(v: LazyView) -> list[str]:
    g = v._g
    return sorted([g.pseudo(s) for s in g.chorus()])


_GAME_MASTER_LATER: dict[str, Callable[[LazyView], Any]] = {
    "constraint_today": _gm_constraint_today,
    "extra_vacancies": _gm_extra_vacancies,
    "chorus": _gm_chorus,
}


def _game_master_brief(g: GameState) -> LazyView:
    day = g.day()
    brief = LazyView(
        day=day,
        to_announce=[t.number for t in g.trials if t.concluded and not t.announced],
        theme_set=day in g.themes,
    )
    return brief.made_on(g, "", _GAME_MASTER_LATER)  # (the game masters: the game as it is)
