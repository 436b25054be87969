"""Events: the facts a game is made of, in the order they happened.

Every event type has a stable ``TYPE`` name and a ``VERSION``; the JSON Lines
form is ``{"type": ..., "v": ..., "at": ISO 8601, ...fields}``. Older versions
are upcast on reading (:data:`UPCASTERS`). Events are past-tense facts;
commands are imperative (see :mod:`ronde.engine.commands`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, cast

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every event: ``at`` is a timezone-aware instant (Europe/Paris)."""

    TYPE: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1
    at: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class GameCreated(Event):
    """A new game: roster, the drawn (or given) cast and Ronde, options, seed (R1.7, R2.3)."""

    TYPE: ClassVar[str] = "game_created"
    start: str  # ISO date of J1
    players: tuple[str, ...]
    cast: dict[str, str]
    ronde: tuple[str, ...]
    game_masters: tuple[str, ...]
    options: dict[str, str]
    seed: int
    deco_overrides: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class TrialOpened(Event):
    """A trial opened (R4.2–R4.4); ``opener`` is a seat or ``"chorus"`` (R8.11)."""

    TYPE: ClassVar[str] = "trial_opened"
    trial: int
    opener: str
    accused: tuple[str, ...]
    supposed: str
    anonymous: bool = False
    arguments: str = ""
    members: tuple[str, ...] = ()
    by: str = ""
    kind: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ComplaintFiled(Event):
    """A complaint recorded in a trial, valid or null (R5.1–R5.13)."""

    TYPE: ClassVar[str] = "complaint_filed"
    trial: int
    author: str
    anonymous: bool = False
    null: bool = False
    compelled: bool = False
    scores: bool = True
    quota: bool = True
    members: tuple[str, ...] = ()
    kind: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class TrialEnded(Event):
    """A trial's ending: ``just``/``unjust`` (quorum or shortening), ``lapsed``,
    ``cancelled`` or ``void`` (R4.9–R4.15, A12, A17)."""

    TYPE: ClassVar[str] = "trial_ended"
    trial: int
    status: str
    truth: bool | None = None
    reason: str = ""
    concluded: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class TrialAnnounced(Event):
    """The game masters published a concluded trial's outcome (R4.8)."""

    TYPE: ClassVar[str] = "trial_announced"
    trial: int
    by: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerUnmasked(Event):
    """A mask fell (R8.1–R8.4): ``character`` is what the player incarnated."""

    TYPE: ClassVar[str] = "player_unmasked"
    player: str
    character: str
    cause: str
    rule: str = ""
    trial: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class UnofficiallyUnmasked(Event):
    """An accused of an open trial failed a duty: his unmasking waits (R4.15)."""

    TYPE: ClassVar[str] = "unofficially_unmasked"
    player: str
    cause: str
    rule: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class PointsAwarded(Event):
    """One line of a player's score (Section 9)."""

    TYPE: ClassVar[str] = "points_awarded"
    player: str
    points: int
    reason: str
    rule: str = ""
    trial: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ConstraintRecorded(Event):
    """A game master's verdict on a player's constraint for a day (R0.2, A1, R6.21)."""

    TYPE: ClassVar[str] = "constraint_recorded"
    player: str
    day: int
    met: bool
    by: str = ""
    note: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExemptionGranted(Event):
    """A negotiated real-life exemption (R3.10, R6.3)."""

    TYPE: ClassVar[str] = "exemption_granted"
    player: str
    days: tuple[int, ...]
    until: str = ""
    by: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ItemsSent(Event):
    """Items received by a game master from a player (R6.12, R6.18, R6.19)."""

    TYPE: ClassVar[str] = "items_sent"
    player: str
    to: str
    items: tuple[str, ...]
    joker: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class JokerUsed(Event):
    """A Joker covers ``day`` for the player's constraint (R6.9–R6.12, A24)."""

    TYPE: ClassVar[str] = "joker_used"
    player: str
    day: int
    items: tuple[str, ...]
    kind: str = "constraint"


@dataclass(frozen=True, slots=True, kw_only=True)
class ThemeSet(Event):
    """The theme of the day given privately to the Extras (R7.1.3)."""

    TYPE: ClassVar[str] = "theme_set"
    day: int
    theme: str
    by: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Rehearsed(Event):
    """A post in the day's Rehearsals topic (R7.1.2, R9.20)."""

    TYPE: ClassVar[str] = "rehearsed"
    player: str
    day: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Posted(Event):
    """A post in a trial topic (R4.5); ``defends`` when an MJ records it as a defence."""

    TYPE: ClassVar[str] = "posted"
    player: str
    trial: int
    defends: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ChorusVoted(Event):
    """A chorus member's vote for the next day's action (R8.6, A63)."""

    TYPE: ClassVar[str] = "chorus_voted"
    player: str
    day: int
    action: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class ChorusDecided(Event):
    """The chorus's decision of ``day``, fixed at its end (R8.6, R8.17, A63)."""

    TYPE: ClassVar[str] = "chorus_decided"
    day: int
    action: str
    args: dict[str, Any]
    members: tuple[str, ...]
    votes: int = 0
    tie_break: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class InvestigationMade(Event):
    """The chorus's denunciation carried out on ``day`` (R8.7)."""

    TYPE: ClassVar[str] = "investigation_made"
    day: int
    player: str
    character: str
    members: tuple[str, ...]
    correct: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class SecretaryAppointed(Event):
    """The Secretary of the Unmasked (R8.12, R8.14)."""

    TYPE: ClassVar[str] = "secretary_appointed"
    player: str
    by: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Transfigured(Event):
    """An unmasked player receives a new Extra mask (R8.16, A67)."""

    TYPE: ClassVar[str] = "transfigured"
    player: str
    by: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class RondeGuessed(Event):
    """A player's single guess of the whole Ronde (R10.3, A71)."""

    TYPE: ClassVar[str] = "ronde_guessed"
    player: str
    order: tuple[str, ...]
    correct: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerReplaced(Event):
    """Another person takes over a seat: character, points and history (replace_player)."""

    TYPE: ClassVar[str] = "player_replaced"
    player: str
    old: str
    new: str
    by: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class IdentityLearned(Event):
    """``player`` is told that ``other`` incarnates ``character`` (R1.12)."""

    TYPE: ClassVar[str] = "identity_learned"
    player: str
    other: str
    character: str
    source: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageSent(Event):
    """A message from the game masters: private to ``to`` players, or public (``to`` empty).

    ``kind`` is a stable key (``target_added``, ``unmasking``, ``verdict`` ...) and
    ``data`` its parameters; ``text`` is the French text.
    """

    TYPE: ClassVar[str] = "message_sent"
    to: tuple[str, ...]
    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    public: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class DayClosed(Event):
    """The end of game day ``day`` has been processed (R3.1, R6.2, R8.17)."""

    TYPE: ClassVar[str] = "day_closed"
    day: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CutoffPassed(Event):
    """J13 13:13 has passed (R3.3, R6.5)."""

    TYPE: ClassVar[str] = "cutoff_passed"


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayEnded(Event):
    """End of play (A12): no more trials, complaints or powers."""

    TYPE: ClassVar[str] = "play_ended"


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEnded(Event):
    """The game masters closed the game; end-of-game points are settled (R10.2, R10.4)."""

    TYPE: ClassVar[str] = "game_ended"
    by: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerDied(Event):
    """A player's citizen died in the town (R1.11, A4)."""

    TYPE: ClassVar[str] = "player_died"
    player: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CharacterFact(Event):
    """A fact owned by one character module (its ``apply_fact`` hook applies it)."""

    TYPE: ClassVar[str] = "character_fact"
    character: str
    player: str
    kind: str
    data: dict[str, Any] = field(default_factory=dict)


CORE_EVENTS: tuple[type[Event], ...] = (
    GameCreated,
    TrialOpened,
    ComplaintFiled,
    TrialEnded,
    TrialAnnounced,
    PlayerUnmasked,
    UnofficiallyUnmasked,
    PointsAwarded,
    ConstraintRecorded,
    ExemptionGranted,
    ItemsSent,
    JokerUsed,
    ThemeSet,
    Rehearsed,
    Posted,
    ChorusVoted,
    ChorusDecided,
    InvestigationMade,
    SecretaryAppointed,
    Transfigured,
    RondeGuessed,
    PlayerReplaced,
    IdentityLearned,
    MessageSent,
    DayClosed,
    CutoffPassed,
    PlayEnded,
    GameEnded,
    PlayerDied,
    CharacterFact,
)

EVENT_TYPES: dict[str, type[Event]] = {cls.TYPE: cls for cls in CORE_EVENTS}

#: (type, version) -> function upgrading a JSON dict to the next version.
UPCASTERS: dict[tuple[str, int], Callable[[JSON], JSON]] = {}


def _kinds(cls: type[Event]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    dates, tuples, optional_dates = set(), set(), set()
    for f in dataclasses.fields(cls):
        t = str(f.type)
        if t == "datetime":
            dates.add(f.name)
        elif t == "datetime | None":
            optional_dates.add(f.name)
        elif t.startswith("tuple"):
            tuples.add(f.name)
    return frozenset(dates), frozenset(tuples), frozenset(optional_dates)


_KINDS = {name: _kinds(cls) for name, cls in EVENT_TYPES.items()}


def to_json(event: Event) -> JSON:
    """The JSON-ready dict of an event (datetimes as ISO 8601, tuples as lists)."""
    out: JSON = {"type": event.TYPE, "v": event.VERSION}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        if isinstance(value, datetime):
            value = value.isoformat()
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


class EventFormatError(ValueError):
    """A JSON object that is not a known event (message in French)."""


def _decoder(cls: type[Event]) -> Callable[[Mapping[str, Any]], Event]:
    """One prebuilt decoder for ``cls`` (its current version): it reads each field by
    name, converts datetimes and tuples, refuses a missing or unknown field, and fills
    the event's slots directly (what the frozen ``__init__`` does, without its
    per-field ``object.__setattr__``). The code is written once per event type, as
    :mod:`dataclasses` writes ``__init__``."""
    dates, tuples, optional_dates = _kinds(cls)
    namespace: dict[str, Any] = {
        "cls": cls,
        "new": object.__new__,
        "fromiso": datetime.fromisoformat,
    }
    lines = ["def decode(d):", "    e = new(cls)", "    n = 0"]
    required = 0
    for i, f in enumerate(dataclasses.fields(cls)):
        name = f.name
        slot = next(c.__dict__[name] for c in cls.__mro__ if name in c.__dict__)
        namespace[f"set{i}"] = slot.__set__
        if name in dates:
            value = f"fromiso(d[{name!r}])"
        elif name in optional_dates:
            value = f"(None if d[{name!r}] is None else fromiso(d[{name!r}]))"
        elif name in tuples:
            value = f"tuple(d[{name!r}])"
        else:
            value = f"d[{name!r}]"
        if f.default is not dataclasses.MISSING:
            namespace[f"default{i}"] = f.default
            lines += [
                f"    if {name!r} in d:",
                f"        set{i}(e, {value})",
                "        n += 1",
                "    else:",
                f"        set{i}(e, default{i})",
            ]
        elif f.default_factory is not dataclasses.MISSING:
            namespace[f"factory{i}"] = f.default_factory
            lines += [
                f"    if {name!r} in d:",
                f"        set{i}(e, {value})",
                "        n += 1",
                "    else:",
                f"        set{i}(e, factory{i}())",
            ]
        else:
            required += 1
            lines.append(f"    set{i}(e, {value})")
    names = frozenset(f.name for f in dataclasses.fields(cls))
    namespace["names"] = names
    lines += [
        f"    if {required} + n != len(d) - ('type' in d) - ('v' in d):",
        "        extra = sorted(set(d) - names - {'type', 'v'})",
        "        raise TypeError('champ inconnu : ' + ', '.join(extra))",
        "    return e",
    ]
    exec("\n".join(lines), namespace)  # the code is built above from the fields
    return cast(Callable[[Mapping[str, Any]], Event], namespace["decode"])


#: type name -> its decoder (current version)
_DECODERS = {name: _decoder(cls) for name, cls in EVENT_TYPES.items()}


def from_json(data: Mapping[str, Any]) -> Event:
    """Rebuild an event from its JSON dict, upcasting older versions.

    Raises:
        EventFormatError: unknown type, newer version, or missing/extra fields.
    """
    etype = data.get("type")
    decode = _DECODERS.get(etype) if isinstance(etype, str) else None
    if decode is None:
        raise EventFormatError(f"type d'événement inconnu : {etype!r}")
    cls = EVENT_TYPES[etype]  # type: ignore[index]
    version = data.get("v", 1)
    if not isinstance(version, int) or version > cls.VERSION:
        raise EventFormatError(f"version {version!r} de {etype} non prise en charge")
    if version < cls.VERSION:
        raw = {k: v for k, v in data.items() if k not in ("type", "v")}
        while version < cls.VERSION:
            raw = UPCASTERS[(etype, version)](raw)  # type: ignore[index]
            version += 1
        data = raw
    try:
        return decode(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise EventFormatError(f"événement {etype} mal formé : {exc}") from None
