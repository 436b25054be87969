"""evolve(state, event): apply one recorded fact to the state (no checks, no I/O).

The state is updated in place and returned; replaying a log is folding this
function over its events, so a live game and its replay end in the same state.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, date, datetime
from typing import Any

from .character import Character
from .events import (
    CharacterFact,
    ChorusDecided,
    ChorusVoted,
    ComplaintFiled,
    ConstraintRecorded,
    CutoffPassed,
    DayClosed,
    Event,
    ExemptionGranted,
    GameCreated,
    GameEnded,
    IdentityLearned,
    InvestigationMade,
    ItemsSent,
    JokerUsed,
    MessageSent,
    PlayEnded,
    PlayerDied,
    PlayerReplaced,
    PlayerUnmasked,
    PointsAwarded,
    Posted,
    Rehearsed,
    RondeGuessed,
    SecretaryAppointed,
    ThemeSet,
    Transfigured,
    TrialAnnounced,
    TrialEnded,
    TrialOpened,
    UnmaskingWaits,
    UnofficiallyUnmasked,
)
from .items import ItemCatalog
from .names import fold_name
from .ronde import live_slots
from .state import CHORUS, Complaint, GameState, Player, ScoreLine, Trial


def new_state(
    e: GameCreated, catalog: ItemCatalog, characters: Mapping[str, Character]
) -> GameState:
    """The state right after ``GameCreated`` (R1.6, R1.7, R2.3)."""
    if e.deco_overrides:
        catalog = ItemCatalog(deco={**catalog.deco, **e.deco_overrides}, names_fr=catalog.names_fr)
    players = {
        seat: Player(seat=seat, pseudo=seat, original=e.cast[seat], character=e.cast[seat])
        for seat in e.players
    }
    g = GameState(
        start=date.fromisoformat(e.start),
        game_masters=tuple(e.game_masters),
        options=dict(e.options),
        seed=e.seed,
        ronde=tuple(e.ronde),
        players=players,
        catalog=catalog,
        characters=characters,
    )
    for seat in e.players:
        c = e.cast[seat]
        g.holders.setdefault(c, []).append(seat)
        g.index[fold_name(seat)] = seat
    for gm in e.game_masters:
        g.gm_index[fold_name(gm)] = gm
    g.n_extras = len(g.holders.get("extra", []))
    g.clock = e.at
    g.event_count = 1
    return g


def _trial_opened(g: GameState, e: TrialOpened) -> None:
    t = Trial(
        number=e.trial,
        opener=e.opener,
        accused=tuple(e.accused),
        supposed=e.supposed,
        anonymous=e.anonymous,
        arguments=e.arguments,
        opened_at=e.at,
        members=tuple(e.members),
    )
    if e.kind:
        t.flags["right"] = e.kind  # the anonymous right used to open it (R5.8)
    if e.anonymous and e.opener in g.flags.get("public_channel", ()):
        t.flags["public_opener"] = True  # announced as the Diva's (R7.14.1)
    if e.supposed in g.ronde and e.supposed not in live_slots(g):
        t.flags["named_unmasked"] = True  # only possible with A75 ``any_unmasked``
    g.trials.append(t)
    if e.opener != CHORUS:
        p = g.players[e.opener]
        p.actions.setdefault(g.action_day(e.at), []).append(("open", e.trial, e.anonymous))
        if not e.anonymous:
            t.posters.add(e.opener)
            p.forum_days.add(g.action_day(e.at))


def _complaint(g: GameState, e: ComplaintFiled) -> None:
    t = g.trials[e.trial - 1]
    t.complaints.append(
        Complaint(
            author=e.author,
            at=e.at,
            anonymous=e.anonymous,
            null=e.null,
            compelled=e.compelled,
            scores=e.scores,
            members=tuple(e.members),
            late=t.concluded,
            kind=e.kind,
        )
    )
    if e.anonymous and e.author in g.flags.get("public_channel", ()):
        t.flags.setdefault("public_anonymous", set()).add(e.author)  # the Diva's (R7.14.1)
    if e.author != CHORUS:
        p = g.players[e.author]
        if e.quota:
            p.actions.setdefault(g.action_day(e.at), []).append(("complain", e.trial, e.anonymous))
        if not e.anonymous:
            t.posters.add(e.author)
            p.forum_days.add(g.action_day(e.at))


_IMMUTABLE = (str, int, float, bool, type(None), datetime, date, frozenset)
#: the types of the flags' leaves, shared by a snapshot as they are
_ATOMS = frozenset(_IMMUTABLE)


def _snapshot(value: Any) -> Any:
    """A copy of ``value`` that later changes to the original cannot reach: what
    :func:`copy.deepcopy` gives, but quicker on the flags' plain data (dicts, lists,
    sets and tuples of strings, numbers and datetimes; anything else is deep-copied).
    Leaves and tuples of leaves are shared, as they cannot change."""
    kind = type(value)
    atoms = _ATOMS
    if kind in atoms:
        return value
    if kind is dict:
        return {k: v if type(v) in atoms else _snapshot(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in atoms else _snapshot(v) for v in value]
    if kind is set:
        return set(value)  # (its elements are hashable, thus immutable here)
    if kind is tuple:
        for v in value:
            if type(v) not in atoms:
                return tuple([_snapshot(v) for v in value])
        return value
    if isinstance(value, _IMMUTABLE):
        return value
    return copy.deepcopy(value)


_MISSING = object()


def _flags_snapshot(g: GameState) -> dict[str, Any]:
    """A :func:`_snapshot` of the flags, kept for a verdict (A77), that shares with the
    last one taken each value still equal to it: snapshots are only ever read (the
    what-if that hides a verdict reads them), so what has not changed since is copied
    once. (The flags a rule writes for a key are always of the same types.)"""
    last = g.snapshot_cache
    atoms = _ATOMS
    out: dict[str, Any] = {}
    for key, value in g.flags.items():
        if last is not None:
            kept = last.get(key, _MISSING)
            if kept is not _MISSING and type(kept) is type(value) and kept == value:
                out[key] = kept
                continue
        out[key] = value if type(value) in atoms else _snapshot(value)
    g.snapshot_cache = out
    return out


#: :func:`_verdict_due` when a verdict was announced: at the next event
_NOW = datetime.min.replace(tzinfo=UTC)


def _verdict_due(g: GameState) -> datetime | None:
    """After which instant the next event has flags to keep or forget
    (:func:`_verdict_instant_over`): :data:`_NOW` once a verdict is announced, the end
    of the first verdict instant still lasting, or ``None``: nothing to do."""
    due = None
    trials = g.trials
    for number, (_before, after) in g.verdict_flags.items():
        t = trials[number - 1]
        if t.announced:
            return _NOW
        if after is None and t.ended_at is not None and (due is None or t.ended_at < due):
            due = t.ended_at
    return due


def _verdict_instant_over(g: GameState, e: Event) -> None:
    """Once time moves past a verdict's instant, keep the flags as its consequences
    left them (the views' what-if before the announcement, A77); forget announced ones."""
    for number, (before, after) in list(g.verdict_flags.items()):
        t = g.trials[number - 1]
        if t.announced:
            del g.verdict_flags[number]
        elif after is None and t.ended_at is not None and e.at > t.ended_at:
            g.verdict_flags[number] = (before, _flags_snapshot(g))


def _trial_ended(g: GameState, e: TrialEnded) -> None:
    t = g.trials[e.trial - 1]
    if e.concluded:  # what its consequences change stays hidden until announced (A77)
        g.verdict_flags[e.trial] = (_flags_snapshot(g), None)
    t.status = e.status
    t.reason = e.reason
    t.truth = e.truth
    t.concluded = e.concluded
    t.ended_at = e.at


def _unmasked(g: GameState, e: PlayerUnmasked) -> None:
    p = g.players[e.player]
    if e.character == "extra":
        g.extra_unmaskings += 1
        if not p.new_extra:
            g.original_extra_unmaskings += 1
    p.masked = False
    p.character = None
    p.new_extra = False
    p.unofficial = None
    p.waits = None
    p.unmask_count += 1
    p.unmasked_at = e.at
    g.unmask_order.append(e.player)
    g.revealed[e.player] = e.character
    if e.trial is not None:  # the verdict that unmasked him (A77: told at its announcement)
        t = g.trials[e.trial - 1]
        t.flags["unmasked"] = (*t.flags.get("unmasked", ()), e.player)


def _points(g: GameState, e: PointsAwarded) -> None:
    if e.player == CHORUS:  # A64 ``at_end``: held back, paid at the end of the game
        g.flags_count = g.event_count + 1
        g.flags.setdefault("chorus_held", []).append(
            ScoreLine(e.points, e.reason, e.rule, e.at, e.trial)
        )
        return
    p = g.players[e.player]  # (the flags as they were: ``_KEEPS_FLAGS``)
    p.lines.append(ScoreLine(e.points, e.reason, e.rule, e.at, e.trial))
    p.points += e.points


def _learned(g: GameState, e: IdentityLearned) -> None:
    g.players[e.player].learned[e.other] = e.character
    if e.player in g.flags.get("public_channel", ()):  # told on the FV (R7.14.1)
        g.flags.setdefault("public_identities", {})[e.other] = e.character


def _constraint(g: GameState, e: ConstraintRecorded) -> None:
    records: dict[tuple[str, int], tuple[bool, Any]] = g.flags.setdefault("verdicts", {})
    records[(e.player, e.day)] = (e.met, e.at)


def _items(g: GameState, e: ItemsSent) -> None:
    g.items_log.append((e.at, e.player, e.to, tuple(e.items)))
    g.gm_items.setdefault(e.to, []).extend(e.items)
    boxes = sum(1 for i in e.items if i in ("item_home_box", "item_home_box_xl"))
    if boxes:
        g.boxes_scored[e.player] = g.boxes_scored.get(e.player, 0) + boxes


def _message(g: GameState, e: MessageSent) -> None:
    g.messages.append((e.at, tuple(e.to), e.kind, e.text, dict(e.data), e.public))
    if not e.public:
        for seat in e.to:
            g.told_kinds.setdefault(seat, set()).add(e.kind)
    if e.kind in ("role_reveal", "target_added"):
        for seat in e.to:
            g.players[seat].told_targets.update(e.data.get("characters", ()))


def _replaced(g: GameState, e: PlayerReplaced) -> None:
    p = g.players[e.player]
    g.index.pop(fold_name(e.old), None)
    g.index[fold_name(e.new)] = e.player
    p.pseudo = e.new


def _transfigured(g: GameState, e: Transfigured) -> None:
    p = g.players[e.player]
    p.masked = True
    p.character = "extra"
    p.new_extra = True
    p.transfigured_day = g.day(e.at)
    # a new mask starts clean: an unmasking that waited for the verdict that unmasked him
    # meanwhile has nothing left to settle (A77)
    p.unofficial, p.unofficial_rule = None, ""
    p.waits = None
    # a new mask is secret: what the MJs send him is private again (R7.14.1 was the Diva's)
    if e.player in g.flags.get("public_channel", ()):
        g.flags["public_channel"] = [s for s in g.flags["public_channel"] if s != e.player]
    # what the public learned stays: the new mask is told to him only (A67)
    p.told_targets = set()
    g.holders.setdefault("extra", []).append(e.player)
    _leaves_chorus(g, e.player)


def _died(g: GameState, e: PlayerDied) -> None:
    g.players[e.player].alive = False
    _leaves_chorus(g, e.player)


def _leaves_chorus(g: GameState, seat: str) -> None:
    """A Secretary who dies or leaves the chorus leaves the post empty until the game
    masters appoint another member (A78; the engine appoints only the first)."""
    if g.secretary == seat:
        g.secretary = None
        g.flags["secretary_vacated"] = True


def _guess(g: GameState, e: RondeGuessed) -> None:
    g.players[e.player].guess = tuple(e.order)
    if e.correct and g.first_right_guess is None:
        g.first_right_guess = e.player


def _fact(g: GameState, e: CharacterFact) -> None:
    g.characters[e.character].apply_fact(g, g.players[e.player], e)


def _unofficial(g: GameState, e: UnofficiallyUnmasked) -> None:
    p = g.players[e.player]
    p.unofficial = e.cause
    p.unofficial_rule = e.rule


def _waits(g: GameState, e: UnmaskingWaits) -> None:
    p = g.players[e.player]
    p.waits = None if e.settled else (e.cause, e.rule, e.detail, e.cause_day, tuple(e.trials))


def _rehearsed(g: GameState, e: Rehearsed) -> None:
    p = g.players[e.player]
    p.rehearsal_days.add(e.day)
    p.rehearsal_posts += 1
    p.forum_days.add(e.day)


def _known_flag(g: GameState, name: str) -> Any:
    """Flag ``name`` as players know it (A77): as before a verdict not yet announced
    whose consequences changed it (a vote is recorded as its author could cast it)."""
    for number, (before, later) in g.verdict_flags.items():
        if g.trials[number - 1].announced:
            continue
        then = g.flags if later is None else later
        if before.get(name) != then.get(name):
            return before.get(name)
    return g.flags.get(name)


def _chorus_voted(g: GameState, e: ChorusVoted) -> None:
    """A member's vote; with Woody unmasked his investigation vote is kept apart from
    his vote for the other action (R7.12.5, R8.6)."""
    double = e.action == "investigate" and _known_flag(g, "chorus_double")
    votes = g.flags.setdefault("investigate_votes", {}) if double else g.chorus_votes
    votes.setdefault(e.day, {})[e.player] = (e.action, dict(e.args))


def _set(attr: str, value: object) -> Callable[[GameState, Any], None]:
    def apply(g: GameState, e: Any) -> None:
        setattr(g, attr, value)

    return apply


#: event type -> what applies it (``Posted``, most events of a game, is applied in
#: :func:`evolve_all`'s loop itself: it changes no mask nor the board)
_APPLY: dict[type[Event], Callable[[GameState, Any], None]] = {
    TrialOpened: _trial_opened,
    ComplaintFiled: _complaint,
    TrialEnded: _trial_ended,
    TrialAnnounced: lambda g, e: setattr(g.trials[e.trial - 1], "announced", True),
    PlayerUnmasked: _unmasked,
    UnofficiallyUnmasked: _unofficial,
    UnmaskingWaits: _waits,
    PointsAwarded: _points,
    ConstraintRecorded: _constraint,
    ExemptionGranted: lambda g, e: g.exemptions.setdefault(e.player, set()).update(e.days),
    ItemsSent: _items,
    JokerUsed: lambda g, e: g.players[e.player].joker_days.__setitem__(e.day, e.kind),
    ThemeSet: lambda g, e: g.themes.__setitem__(e.day, e.theme),
    Rehearsed: _rehearsed,
    ChorusVoted: _chorus_voted,
    ChorusDecided: lambda g, e: g.chorus_decisions.append(
        (e.day, e.action, dict(e.args), tuple(e.members))
    ),
    InvestigationMade: lambda g, e: g.investigations.append(
        (e.day, e.player, e.character, tuple(e.members), e.correct)
    ),
    SecretaryAppointed: lambda g, e: setattr(g, "secretary", e.player),
    Transfigured: _transfigured,
    RondeGuessed: _guess,
    PlayerReplaced: _replaced,
    IdentityLearned: _learned,
    MessageSent: _message,
    DayClosed: lambda g, e: setattr(g, "days_closed", e.day),
    CutoffPassed: _set("cutoff_done", True),
    PlayEnded: _set("play_ended", True),
    GameEnded: _set("game_ended", True),
    PlayerDied: _died,
    CharacterFact: _fact,
}


#: events that change no mask, Character or holder: the live slots stay as cached
_KEEPS_LIVE_SLOTS: frozenset[type[Event]] = frozenset(_APPLY) - {
    PlayerUnmasked,
    Transfigured,
    CharacterFact,
}


#: events that change no trial, mask, Character, identity or pseudo (what
#: :meth:`GameState.memoized_board` keeps)
_KEEPS_BOARD: frozenset[type[Event]] = frozenset(
    {
        Rehearsed,
        MessageSent,
        PointsAwarded,
        ChorusVoted,
        ChorusDecided,
        ThemeSet,
        ItemsSent,
        JokerUsed,
        ConstraintRecorded,
        ExemptionGranted,
        DayClosed,
        CutoffPassed,
        PlayEnded,
        InvestigationMade,
        RondeGuessed,
    }
)


#: events that never change :attr:`GameState.flags` (``PointsAwarded`` changes them only
#: for the chorus, and says so itself); any other may (a Character's facts ...)
_KEEPS_FLAGS: frozenset[type[Event]] = frozenset(
    {
        Posted,
        Rehearsed,
        MessageSent,
        PointsAwarded,
        ComplaintFiled,
        TrialOpened,
        TrialEnded,
        TrialAnnounced,
        PlayerUnmasked,
        UnofficiallyUnmasked,
        UnmaskingWaits,
        ThemeSet,
        ItemsSent,
        JokerUsed,
        ExemptionGranted,
        DayClosed,
        CutoffPassed,
        PlayEnded,
        GameEnded,
        ChorusDecided,
        InvestigationMade,
        SecretaryAppointed,
        RondeGuessed,
        PlayerReplaced,
    }
)


# (the live slots are cached by board count: an event that keeps the board keeps them;
# a Character's fact may change its data, kept by ``flags_count``)
assert _KEEPS_BOARD <= _KEEPS_LIVE_SLOTS and CharacterFact not in _KEEPS_FLAGS


#: event type -> (its apply, keeps the live slots, keeps the board, moves the verdicts'
#: instants, keeps the flags): one lookup per event
_STEPS: dict[type[Event], tuple[Callable[[GameState, Any], None], bool, bool, bool, bool]] = {
    kind: (
        apply,
        kind in _KEEPS_LIVE_SLOTS,
        kind in _KEEPS_BOARD,
        kind is TrialEnded or kind is TrialAnnounced,
        kind in _KEEPS_FLAGS,
    )
    for kind, apply in _APPLY.items()
}


def evolve(g: GameState, e: Event) -> GameState:
    """Apply event ``e`` to ``g`` (in place) and return ``g``."""
    return evolve_all(g, (e,))


def evolve_all(g: GameState, events: Iterable[Event]) -> GameState:
    """Apply every event of ``events`` in turn, in one loop (a replay's; :func:`evolve`
    is this loop over one event)."""
    steps = _STEPS
    due = g.verdict_due  # (kept by this loop from one call to the next: ``_verdict_due``)
    for e in events:
        at = e.at
        if due is not None and (due is _NOW or at > due):
            _verdict_instant_over(g, e)
            due = g.verdict_due = _verdict_due(g)
        kind = type(e)
        if kind is Posted:  # (most events of a game: applied here, without a call)
            post: Posted = e  # type: ignore[assignment]  # (no call of ``cast`` here)
            g.trials[post.trial - 1].posters.add(post.player)
            found = g.day_cache  # (``GameState.day``'s window, read here: most posts fall in it)
            try:
                day = found[2] if found is not None and found[0] <= at < found[1] else g.day(at)
            except TypeError:  # a naive datetime
                day = g.day(at)
            g.players[post.player].forum_days.add(day)  # (its action day, R5.15)
        else:
            apply, keeps_live, keeps_board, moves_due, keeps_flags = steps[kind]
            apply(g, e)
            if moves_due:
                due = g.verdict_due = _verdict_due(g)
            if not keeps_board:
                board = g.board_count
                g.board_count = g.event_count + 1
                live = g.live_cache
                if keeps_live and live[0] == board:
                    # (kept across events that change no mask: ``ronde.live_slots``)
                    g.live_cache = (g.board_count, live[1])
            if not keeps_flags:
                g.flags_count = g.event_count + 1
        g.clock = at
        g.event_count += 1
    return g
