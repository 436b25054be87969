"""The state of a game, rebuilt from its events (never read directly by the UI).

Everything outside the engine reads the state through :mod:`ronde.engine.views`.
Times are timezone-aware datetimes (Europe/Paris).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from .clock import TRIAL_WINDOW, counting_day, counting_start, cutoff_1313, elapsed
from .items import ItemCatalog
from .names import fold_name
from .options import HOUSE_RULES

if TYPE_CHECKING:  # (the Character base reads the state: no import at run time)
    from .character import Character

CHORUS = "chorus"
T = TypeVar("T")


@dataclass(slots=True)
class Complaint:
    """A recorded complaint (R5.3); ``author`` is a seat or ``"chorus"``."""

    author: str
    at: datetime
    anonymous: bool
    null: bool
    compelled: bool
    scores: bool
    members: tuple[str, ...]
    late: bool
    kind: str = ""


@dataclass(slots=True)
class Trial:
    """A trial (R4): its opening, complaints and ending."""

    number: int
    opener: str
    accused: tuple[str, ...]
    supposed: str
    anonymous: bool
    arguments: str
    opened_at: datetime
    members: tuple[str, ...]
    complaints: list[Complaint] = field(default_factory=list)
    status: str = "open"
    truth: bool | None = None
    concluded: bool = False
    ended_at: datetime | None = None
    announced: bool = False
    reason: str = ""
    posters: set[str] = field(default_factory=set)
    flags: dict[str, Any] = field(default_factory=dict)

    @property
    def deadline(self) -> datetime:
        """t0 + 24 h, elapsed time (R3.6, R4.6): computed in UTC, shown in Paris time."""
        return elapsed(self.opened_at, TRIAL_WINDOW)

    def valid(self) -> list[Complaint]:
        """The valid (non-null) complaints, in recording order (R5.3)."""
        return [c for c in self.complaints if not c.null]

    def complained(self, seat: str) -> bool:
        return any(c.author == seat for c in self.complaints)

    def anonymous_to_others(self, c: Complaint | None = None) -> bool:
        """Whether its opening (``c`` is ``None``) or complaint ``c`` stays anonymous to the
        other players and the public: an anonymous one, unless its author's channel was
        public when he filed it (the Diva's are announced as hers, R7.14.1, R5.5)."""
        if c is None:
            return self.anonymous and not self.flags.get("public_opener", False)
        return c.anonymous and c.author not in self.flags.get("public_anonymous", ())


@dataclass(slots=True)
class ScoreLine:
    """One line of a player's score (Section 9)."""

    points: int
    reason: str
    rule: str
    at: datetime
    trial: int | None


@dataclass(slots=True)
class Player:
    """A seat: one player and his Character (R1.10). ``seat`` is the first pseudo."""

    seat: str
    pseudo: str
    original: str
    character: str | None
    masked: bool = True
    new_extra: bool = False
    alive: bool = True
    unofficial: str | None = None
    unofficial_rule: str = ""
    #: a failure whose unmasking waits for verdicts naming his Character (A77): cause,
    #: rule, detail, day of the failure, the verdicts (``UnmaskingWaits``)
    waits: tuple[str, str, str, int | None, tuple[int, ...]] | None = None
    unmask_count: int = 0
    unmasked_at: datetime | None = None
    transfigured_day: int | None = None
    actions: dict[int, list[tuple[str, int, bool]]] = field(default_factory=dict)
    learned: dict[str, str] = field(default_factory=dict)
    told_targets: set[str] = field(default_factory=set)
    joker_days: dict[int, str] = field(default_factory=dict)
    rehearsal_days: set[int] = field(default_factory=set)
    rehearsal_posts: int = 0
    forum_days: set[int] = field(default_factory=set)
    guess: tuple[str, ...] | None = None
    lines: list[ScoreLine] = field(default_factory=list)
    points: int = 0
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        """Masked and not unofficially unmasked (R4.15)."""
        return self.masked and self.unofficial is None


@dataclass(slots=True)
class GameState:
    """Everything that happened in one game, as the engine knows it."""

    start: date
    game_masters: tuple[str, ...]
    options: dict[str, str]
    seed: int
    ronde: tuple[str, ...]
    players: dict[str, Player]
    catalog: ItemCatalog
    holders: dict[str, list[str]] = field(default_factory=dict)
    index: dict[str, str] = field(default_factory=dict)
    gm_index: dict[str, str] = field(default_factory=dict)
    trials: list[Trial] = field(default_factory=list)
    clock: datetime | None = None
    days_closed: int = 0
    cutoff_done: bool = False
    play_ended: bool = False
    game_ended: bool = False
    n_extras: int = 0
    extra_unmaskings: int = 0
    original_extra_unmaskings: int = 0
    secretary: str | None = None
    unmask_order: list[str] = field(default_factory=list)
    chorus_votes: dict[int, dict[str, tuple[str, dict[str, Any]]]] = field(default_factory=dict)
    chorus_decisions: list[tuple[int, str, dict[str, Any], tuple[str, ...]]] = field(
        default_factory=list
    )
    asleep: dict[int, set[str]] = field(default_factory=dict)
    investigations: list[tuple[int, str, str, tuple[str, ...], bool]] = field(default_factory=list)
    constraint_failures: list[tuple[str, int, datetime]] = field(default_factory=list)
    exemptions: dict[str, set[int]] = field(default_factory=dict)
    themes: dict[int, str] = field(default_factory=dict)
    gm_items: dict[str, list[str]] = field(default_factory=dict)
    items_log: list[tuple[datetime, str, str, tuple[str, ...]]] = field(default_factory=list)
    boxes_scored: dict[str, int] = field(default_factory=dict)
    first_right_guess: str | None = None
    flags: dict[str, Any] = field(default_factory=dict)
    messages: list[tuple[datetime, tuple[str, ...], str, str, dict[str, Any], bool]] = field(
        default_factory=list
    )
    event_count: int = 0
    #: the event count after the last event that may change the trials, masks,
    #: Characters, identities or pseudos (see ``evolve``; a key of :meth:`memoized_board`)
    board_count: int = 0
    #: ``evolve._verdict_due`` of the state, kept by ``evolve`` (the only one that changes
    #: :attr:`verdict_flags` and the trials' ends and announcements it depends on)
    verdict_due: datetime | None = None
    #: the event count after the last event that may change :attr:`flags` or a Character's
    #: data (``Player.data``, changed by its facts only; see ``evolve``): what the flags'
    #: comparisons of a verdict's instant are dated by (A77), and the Little Mermaid's
    #: index of her orders
    flags_count: int = 0
    live_cache: tuple[int, frozenset[str]] = (-1, frozenset())
    #: seat -> the character his public unmasking revealed (until a new mask, R8.1)
    revealed: dict[str, str] = field(default_factory=dict)
    memo_cache: dict[str, tuple[int, Any]] = field(default_factory=dict)
    #: the last day :meth:`day` found, as (its start, its end, its number): most
    #: instants asked fall in it (time only: kept across events and what-ifs)
    day_cache: tuple[datetime, datetime, int] | None = field(default=None, compare=False)
    #: the last snapshot of :attr:`flags` taken for a verdict (A77): the next one shares
    #: with it what has not changed since (snapshots are only ever read)
    snapshot_cache: dict[str, Any] | None = field(default=None, compare=False)
    #: seat -> kinds of the private messages he was sent (what he has been told)
    told_kinds: dict[str, set[str]] = field(default_factory=dict)
    #: trial -> (flags before its verdict's consequences, flags once the instant of
    #: the verdict is over or ``None`` while it lasts): what views hide until the
    #: verdict is announced (A77)
    verdict_flags: dict[int, tuple[dict[str, Any], dict[str, Any] | None]] = field(
        default_factory=dict
    )
    #: character id -> its module: the registry the game was built with (never an
    #: event's content; see :mod:`ronde.engine.registry`)
    characters: Mapping[str, Character] = field(default_factory=dict, repr=False, compare=False)

    def memoized_board(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()``, cached until the next event that may change the trials, masks,
        Characters, identities or pseudos (:attr:`board_count`): for what views share."""
        hit = self.memo_cache.get(key)
        if hit is not None and hit[0] == self.board_count:
            kept: T = hit[1]  # (no ``cast``: a call, on a hot path)
            return kept
        value = compute()
        self.memo_cache[key] = (self.board_count, value)
        return value

    def memoized(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()``, cached until the next event (the state only changes by events)."""
        hit = self.memo_cache.get(key)
        if hit is not None and hit[0] == self.event_count:
            kept: T = hit[1]
            return kept
        value = compute()
        self.memo_cache[key] = (self.event_count, value)
        return value

    # -- time ---------------------------------------------------------------
    def day(self, t: datetime | None = None) -> int:
        """The game day ``t`` (default: the state's clock) counts for: its calendar day,
        or the day before in the first N minutes after midnight under A9 ``grace_N``
        (:func:`~ronde.engine.clock.counting_day`, the rules' one notion of "today")."""
        when = t if t is not None else self.clock
        if when is None:
            return 0
        found = self.day_cache
        if found is not None:
            try:
                if found[0] <= when < found[1]:
                    return found[2]
            except TypeError:  # a naive datetime
                pass
        days: dict[datetime, int] = self.times("days")
        n = days.get(when)
        if n is None:
            n = days[when] = counting_day(self.start, when, self.options)
        self.day_cache = (self.day_start(n), self.day_start(n + 1), n)
        return n

    def day_start(self, n: int) -> datetime:
        """When day J*n* starts counting; ``day_start(n + 1)`` is the end of J*n*, when
        its end-of-day checks run (J*n+1* 00:00, plus N minutes under ``grace_N``)."""
        starts: dict[int, datetime] = self.times("day_starts")
        at = starts.get(n)
        if at is None:
            at = starts[n] = counting_start(self.start, n, self.options)
        return at

    def times(self, key: str) -> dict[Any, Any]:
        """A table of what depends only on instants, the start date, the options and the
        Ronde (days, day starts, game times as shown, walks of the Ronde), which never
        change: kept across events and what-ifs (in :attr:`memo_cache`; bounded)."""
        hit = self.memo_cache.get(key)
        if hit is None or len(hit[1]) > 4096:
            hit = self.memo_cache[key] = (-1, {})
        table: dict[Any, Any] = hit[1]
        return table

    def constant(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()``, kept for the game's life (what depends only on its registry and
        options; in :attr:`memo_cache`, which a what-if may empty)."""
        hit = self.memo_cache.get(key)
        if hit is None:
            hit = self.memo_cache[key] = (-1, compute())
        kept: T = hit[1]
        return kept

    def opt(self, rid: str) -> str:
        """The value of house rule ``rid`` for this game (:func:`~.options.option`)."""
        value = self.options.get(rid)
        return value if value is not None else HOUSE_RULES[rid][0]

    # -- people -------------------------------------------------------------
    def seat_of(self, name: str) -> str | None:
        """The seat of a player named by his current pseudo (normalised), or ``None``."""
        return self.index.get(fold_name(name))

    def is_game_master(self, name: str) -> bool:
        return fold_name(name) in self.gm_index

    def pseudo(self, seat: str) -> str:
        return self.players[seat].pseudo if seat in self.players else seat

    def masked_holders(self, character: str) -> list[str]:
        """Seats that incarnate ``character`` and are still masked."""
        return [
            s
            for s in self.holders.get(character, ())
            if self.players[s].masked and self.players[s].character == character
        ]

    def chorus(self) -> list[str]:
        """Members of the chorus: unmasked players still alive (R8.5)."""
        return [s for s, p in self.players.items() if not p.masked and p.alive]

    # -- trials -------------------------------------------------------------
    def trial(self, number: int) -> Trial | None:
        if 1 <= number <= len(self.trials):
            return self.trials[number - 1]
        return None

    def open_trials(self) -> list[Trial]:
        return [t for t in self.unsettled_trials() if t.status == "open"]

    def unsettled_trials(self) -> list[Trial]:
        """The trials from the first one not settled for good (still open, or concluded
        with its verdict not announced), in order: every open or unannounced trial is
        among them. A trial once settled stays so (it ends once, is announced once), so
        the first unsettled one only moves forward (kept in :attr:`memo_cache`)."""
        trials = self.trials
        hit = self.memo_cache.get("trial_floor")
        floor: int = hit[1] if hit is not None else 0
        start, n = floor, len(trials)
        while floor < n:
            t = trials[floor]
            if t.status == "open" or (t.concluded and not t.announced):
                break
            floor += 1
        if floor != start:
            self.memo_cache["trial_floor"] = (-1, floor)
        return trials[floor:] if floor else trials

    def end_of_play(self) -> datetime:
        """When play stops (A12): the end of J13 (J13 24:00, plus the grace of A9) by
        default, J13 13:13 with ``1313_*``."""
        if self.opt("A12").startswith("1313"):
            return cutoff_1313(self.start)
        return self.day_start(14)

    #: the day an action at ``t`` counts for (R5.15, A9): :meth:`day` itself
    action_day = day
