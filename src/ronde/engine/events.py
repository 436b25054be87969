"""Events: the facts a game is made of, in the order they happened.

Every event type has a stable ``TYPE`` name and a ``VERSION``; the JSON Lines
form is ``{"type": ..., "v": ..., "at": ISO 8601, ...fields}``. Older versions
are upcast on reading (:data:`UPCASTERS`). Events are past-tense facts;
commands are imperative (see :mod:`ronde.engine.commands`).
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, ClassVar, Literal, cast, get_args, get_origin

import msgspec

JSON = dict[str, Any]


class Event(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    forbid_unknown_fields=True,
    gc=False,
    tag_field="type",
    tag=lambda name: re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower(),
):
    """Base of every event: ``at`` is a timezone-aware instant (Europe/Paris); ``v`` is
    the version of its type, the JSON line's ``"v"``: always its ``VERSION``, which
    msgspec's decoder checks (a type whose VERSION becomes N redeclares
    ``v: Literal[N] = N``; older lines fail that check and are upcast by
    :func:`from_json`)."""

    TYPE: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1
    at: datetime
    v: Literal[1] = 1


class GameCreated(Event, frozen=True, kw_only=True):
    """A new game: roster, the drawn (or given) cast and Ronde, options, seed (R1.7, R2.3)."""

    TYPE: ClassVar[str] = "game_created"
    start: str  # ISO date of J1
    players: tuple[str, ...]
    cast: dict[str, str]
    ronde: tuple[str, ...]
    game_masters: tuple[str, ...]
    options: dict[str, str]
    seed: int
    deco_overrides: dict[str, int] = msgspec.field(default_factory=dict)


class TrialOpened(Event, frozen=True, kw_only=True):
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


class ComplaintFiled(Event, frozen=True, kw_only=True):
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


class TrialEnded(Event, frozen=True, kw_only=True):
    """A trial's ending: ``just``/``unjust`` (quorum or shortening), ``lapsed``,
    ``cancelled`` or ``void`` (R4.9–R4.15, A12, A17)."""

    TYPE: ClassVar[str] = "trial_ended"
    trial: int
    status: str
    truth: bool | None = None
    reason: str = ""
    concluded: bool = False


class TrialAnnounced(Event, frozen=True, kw_only=True):
    """The game masters published a concluded trial's outcome (R4.8)."""

    TYPE: ClassVar[str] = "trial_announced"
    trial: int
    by: str = ""


class PlayerUnmasked(Event, frozen=True, kw_only=True):
    """A mask fell (R8.1–R8.4): ``character`` is what the player incarnated."""

    TYPE: ClassVar[str] = "player_unmasked"
    player: str
    character: str
    cause: str
    rule: str = ""
    trial: int | None = None


class UnofficiallyUnmasked(Event, frozen=True, kw_only=True):
    """An accused of an open trial failed a duty: his unmasking waits (R4.15)."""

    TYPE: ClassVar[str] = "unofficially_unmasked"
    player: str
    cause: str
    rule: str = ""


class UnmaskingWaits(Event, frozen=True, kw_only=True):
    """A player's failure at a deadline would unmask him as a Character that verdicts not
    yet announced name (``trials``): it waits for their announcement, judged then (A77
    clarification 2); ``settled``: the wait is over (judged, or void)."""

    TYPE: ClassVar[str] = "unmasking_waits"
    player: str
    cause: str
    rule: str = ""
    detail: str = ""
    cause_day: int | None = None
    trials: tuple[int, ...] = ()
    settled: bool = False


class PointsAwarded(Event, frozen=True, kw_only=True):
    """One line of a player's score (Section 9)."""

    TYPE: ClassVar[str] = "points_awarded"
    player: str
    points: int
    reason: str
    rule: str = ""
    trial: int | None = None


class ConstraintRecorded(Event, frozen=True, kw_only=True):
    """A game master's verdict on a player's constraint for a day (R0.2, A1, R6.21)."""

    TYPE: ClassVar[str] = "constraint_recorded"
    player: str
    day: int
    met: bool
    by: str = ""
    note: str = ""


class ExemptionGranted(Event, frozen=True, kw_only=True):
    """A negotiated real-life exemption (R3.10, R6.3)."""

    TYPE: ClassVar[str] = "exemption_granted"
    player: str
    days: tuple[int, ...]
    until: str = ""
    by: str = ""


class ItemsSent(Event, frozen=True, kw_only=True):
    """Items received by a game master from a player (R6.12, R6.18, R6.19)."""

    TYPE: ClassVar[str] = "items_sent"
    player: str
    to: str
    items: tuple[str, ...]
    joker: bool = False


class JokerUsed(Event, frozen=True, kw_only=True):
    """A Joker covers ``day`` for the player's constraint (R6.9–R6.12, A24)."""

    TYPE: ClassVar[str] = "joker_used"
    player: str
    day: int
    items: tuple[str, ...]
    kind: str = "constraint"


class ThemeSet(Event, frozen=True, kw_only=True):
    """The theme of the day given privately to the Extras (R7.1.3)."""

    TYPE: ClassVar[str] = "theme_set"
    day: int
    theme: str
    by: str = ""


class Rehearsed(Event, frozen=True, kw_only=True):
    """A post in the day's Rehearsals topic (R7.1.2, R9.20)."""

    TYPE: ClassVar[str] = "rehearsed"
    player: str
    day: int


class Posted(Event, frozen=True, kw_only=True):
    """A post in a trial topic (R4.5); ``defends`` when an MJ records it as a defence."""

    TYPE: ClassVar[str] = "posted"
    player: str
    trial: int
    defends: str | None = None


class ChorusVoted(Event, frozen=True, kw_only=True):
    """A chorus member's vote for the next day's action (R8.6, A63)."""

    TYPE: ClassVar[str] = "chorus_voted"
    player: str
    day: int
    action: str
    args: dict[str, Any] = msgspec.field(default_factory=dict)


class ChorusDecided(Event, frozen=True, kw_only=True):
    """The chorus's decision of ``day``, fixed at its end (R8.6, R8.17, A63)."""

    TYPE: ClassVar[str] = "chorus_decided"
    day: int
    action: str
    args: dict[str, Any]
    members: tuple[str, ...]
    votes: int = 0
    tie_break: bool = False


class InvestigationMade(Event, frozen=True, kw_only=True):
    """The chorus's denunciation carried out on ``day`` (R8.7)."""

    TYPE: ClassVar[str] = "investigation_made"
    day: int
    player: str
    character: str
    members: tuple[str, ...]
    correct: bool


class SecretaryAppointed(Event, frozen=True, kw_only=True):
    """The Secretary of the Unmasked (R8.12, R8.14)."""

    TYPE: ClassVar[str] = "secretary_appointed"
    player: str
    by: str = ""


class Transfigured(Event, frozen=True, kw_only=True):
    """An unmasked player receives a new Extra mask (R8.16, A67)."""

    TYPE: ClassVar[str] = "transfigured"
    player: str
    by: str = ""


class RondeGuessed(Event, frozen=True, kw_only=True):
    """A player's single guess of the whole Ronde (R10.3, A71)."""

    TYPE: ClassVar[str] = "ronde_guessed"
    player: str
    order: tuple[str, ...]
    correct: bool


class PlayerReplaced(Event, frozen=True, kw_only=True):
    """Another person takes over a seat: character, points and history (replace_player)."""

    TYPE: ClassVar[str] = "player_replaced"
    player: str
    old: str
    new: str
    by: str = ""


class IdentityLearned(Event, frozen=True, kw_only=True):
    """``player`` is told that ``other`` incarnates ``character`` (R1.12)."""

    TYPE: ClassVar[str] = "identity_learned"
    player: str
    other: str
    character: str
    source: str = ""


class MessageSent(Event, frozen=True, kw_only=True):
    """A message from the game masters: private to ``to`` players, or public (``to`` empty).

    ``kind`` is a stable key (``target_added``, ``unmasking``, ``verdict`` ...) and
    ``data`` its parameters; ``text`` is the French text.
    """

    TYPE: ClassVar[str] = "message_sent"
    to: tuple[str, ...]
    kind: str
    text: str
    data: dict[str, Any] = msgspec.field(default_factory=dict)
    public: bool = False


class DayClosed(Event, frozen=True, kw_only=True):
    """The end of game day ``day`` has been processed (R3.1, R6.2, R8.17)."""

    TYPE: ClassVar[str] = "day_closed"
    day: int


class CutoffPassed(Event, frozen=True, kw_only=True):
    """J13 13:13 has passed (R3.3, R6.5)."""

    TYPE: ClassVar[str] = "cutoff_passed"


class PlayEnded(Event, frozen=True, kw_only=True):
    """End of play (A12): no more trials, complaints or powers."""

    TYPE: ClassVar[str] = "play_ended"


class GameEnded(Event, frozen=True, kw_only=True):
    """The game masters closed the game; end-of-game points are settled (R10.2, R10.4)."""

    TYPE: ClassVar[str] = "game_ended"
    by: str = ""


class PlayerDied(Event, frozen=True, kw_only=True):
    """A player's citizen died in the town (R1.11, A4)."""

    TYPE: ClassVar[str] = "player_died"
    player: str


class CharacterFact(Event, frozen=True, kw_only=True):
    """A fact owned by one character module (its ``apply_fact`` hook applies it)."""

    TYPE: ClassVar[str] = "character_fact"
    character: str
    player: str
    kind: str
    data: dict[str, Any] = msgspec.field(default_factory=dict)


CORE_EVENTS: tuple[type[Event], ...] = (
    GameCreated,
    TrialOpened,
    ComplaintFiled,
    TrialEnded,
    TrialAnnounced,
    PlayerUnmasked,
    UnofficiallyUnmasked,
    UnmaskingWaits,
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
for _cls in CORE_EVENTS:  # the JSON tag msgspec reads is the event's TYPE; ``v`` its VERSION
    if _cls.__struct_config__.tag != _cls.TYPE:
        raise TypeError(f"{_cls.__name__}: TYPE {_cls.TYPE!r} is not its tag")
    _v = {f.name: f for f in msgspec.structs.fields(_cls)}["v"]
    if _v.default != _cls.VERSION or get_args(_v.type) != (_cls.VERSION,):
        raise TypeError(f"{_cls.__name__}: its v is not its VERSION {_cls.VERSION}")

#: (type, version) -> function upgrading a JSON dict to the next version.
UPCASTERS: dict[tuple[str, int], Callable[[JSON], JSON]] = {}


def _kinds(cls: type[Event]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    dates, tuples, optional_dates = set(), set(), set()
    for f in msgspec.structs.fields(cls):
        if f.type is datetime:
            dates.add(f.name)
        elif f.type == datetime | None:
            optional_dates.add(f.name)
        elif get_origin(f.type) is tuple:
            tuples.add(f.name)
    return frozenset(dates), frozenset(tuples), frozenset(optional_dates)


def to_json(event: Event) -> JSON:
    """The JSON-ready dict of an event (datetimes as ISO 8601, tuples as lists)."""
    out: JSON = {"type": event.TYPE, "v": event.VERSION}
    for name in event.__struct_fields__:
        if name == "v":
            continue
        value = getattr(event, name)
        if isinstance(value, datetime):
            value = value.isoformat()
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    return out


class EventFormatError(ValueError):
    """A JSON object that is not a known event (message in French)."""


def _decoder(cls: type[Event]) -> Callable[[Mapping[str, Any]], Event]:
    """One prebuilt decoder of a JSON dict for ``cls`` (its current version): it reads
    each field by name, converts datetimes and tuples, refuses a missing or unknown
    field. A dict with every field (what :func:`to_json` writes) takes one call of the
    constructor; the code is written once per event type, as :mod:`dataclasses` writes
    ``__init__``. (No type is checked: what :func:`decode_line` does not take, this
    reads as it always did.)"""
    dates, tuples, optional_dates = _kinds(cls)
    fields = [f for f in msgspec.structs.fields(cls) if f.name != "v"]  # (its VERSION)
    namespace: dict[str, Any] = {"cls": cls, "fromiso": datetime.fromisoformat}

    def value(name: str) -> str:
        if name in dates:
            return f"fromiso(d[{name!r}])"
        if name in optional_dates:
            return f"(None if d[{name!r}] is None else fromiso(d[{name!r}]))"
        if name in tuples:
            return f"tuple(d[{name!r}])"
        return f"d[{name!r}]"

    every = ", ".join(f"{f.name}={value(f.name)}" for f in fields)
    lines = [
        "def decode(d):",
        "    given = len(d) - ('type' in d) - ('v' in d)",
        f"    if given == {len(fields)}:",
        f"        return cls(v=cls.VERSION, {every})",
        "    kw = {'v': cls.VERSION}",
    ]
    for f in fields:
        if f.required:
            lines.append(f"    kw[{f.name!r}] = {value(f.name)}")
        else:
            lines += [f"    if {f.name!r} in d:", f"        kw[{f.name!r}] = {value(f.name)}"]
    namespace["names"] = frozenset(f.name for f in fields)
    lines += [
        "    if len(kw) != given + 1:",
        "        extra = sorted(set(d) - names - {'type', 'v'})",
        "        raise TypeError('champ inconnu : ' + ', '.join(extra))",
        "    return cls(**kw)",
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


#: any event type (msgspec reads which by its ``"type"`` tag)
_ANY_EVENT: Any = functools.reduce(operator.or_, CORE_EVENTS)
#: msgspec's decoder of one line
_LINE_DECODER: msgspec.json.Decoder[Event] = msgspec.json.Decoder(_ANY_EVENT)
_LINE_ERRORS = (msgspec.DecodeError, ValueError, TypeError)


def decode_line(line: str) -> Event | None:
    """The event of one JSON Lines line at its type's current version (as Ronde writes
    it), parsed, checked and built in one pass of msgspec's decoder, or ``None`` for any
    other line (an older version, a field of an unexpected type, an unknown or missing
    field, invalid JSON ...): then read it with :func:`from_json`, which upcasts it or
    says what is wrong."""
    try:
        event: Event = _LINE_DECODER.decode(line)
    except _LINE_ERRORS:
        return None
    return event


def decode_lines(lines: Sequence[str]) -> tuple[list[Event | None], list[int]]:
    """:func:`decode_line` of each line, in one loop (a whole log's), and the indexes
    of the lines it leaves to :func:`from_json` (``None`` in the list)."""
    decode = _LINE_DECODER.decode
    out: list[Event | None] = []
    missed: list[int] = []
    append = out.append
    for line in lines:
        try:
            append(decode(line))
            continue
        except _LINE_ERRORS:
            pass
        missed.append(len(out))
        append(None)
    return out, missed


def decode_text(text: str | bytes) -> list[Event] | None:
    """Every event of a JSON Lines text whose every line is one event at its type's
    current version (what Ronde writes), each line read by msgspec's decoder straight
    from the text's bytes, or ``None`` for any other text (a blank line, an older
    version, an export, invalid JSON ...): then read it line by line again
    (:func:`decode_lines`, :func:`from_json`), which upcasts or says what is wrong where.

    Bytes are read as UTF-8 (msgspec checks it); a ``str`` only when it is ASCII (for
    any other, msgspec would first copy each line as UTF-8: :func:`decode_lines` does,
    for the lines that need it)."""
    if isinstance(text, str):
        if not text.isascii():
            return None
        text = text.encode("ascii")  # (a copy, as the lines below are)
    body = text[:-1] if text.endswith(b"\n") else text
    if not body:
        return None
    try:  # (each line alone: one event at its current version, or an error)
        return list(map(_LINE_DECODER.decode, body.split(b"\n")))
    except _LINE_ERRORS:
        return None
