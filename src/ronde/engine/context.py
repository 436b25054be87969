"""What a rule handler gets: the state, the acting instant, and a way to emit events."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime

from .events import Event, MessageSent, PointsAwarded
from .state import GameState


class Context:
    """The handle a command or timer handler uses to record facts.

    ``emit`` applies the event to the state at once, appends it to the log and
    runs the reactions it triggers. Handlers check everything first and emit
    afterwards, so a refused command changes nothing.
    """

    __slots__ = ("_draws", "emit", "g", "held", "key", "now")

    def __init__(
        self,
        g: GameState,
        now: datetime,
        emit: Callable[[Event], None],
        key: str | Callable[[], str] = "",
    ) -> None:
        self.g = g
        self.now = now
        #: apply the event to the state at once, append it to the log and run the
        #: reactions it triggers (the game's own, called directly: once per event)
        self.emit: Callable[[Event], None] = emit
        #: the identity of what acts: the recorded command or the timer (see ``rng``), or
        #: how to make it on the first draw (a command's: most commands draw nothing)
        self.key = key
        #: draws made so far, by salt (made on the first draw: most commands draw nothing)
        self._draws: dict[str, int] | None = None
        #: the trial whose verdict's consequences are being recorded: their messages
        #: wait for its announcement (``data["held"]``, A77)
        self.held: int | None = None

    @contextmanager
    def holding(self, trial: int | None) -> Iterator[None]:
        """Within the block, the messages sent wait for ``trial``'s announcement (A77),
        unless an outer block already holds them (``None``: nothing new to hold)."""
        held = self.held
        if trial is not None and held is None:
            self.held = trial
        try:
            yield
        finally:
            self.held = held

    def rng(self, salt: str = "") -> random.Random:
        """A random generator derived from the game's recorded seed, the identity of the
        command or timer that draws (``key``), ``salt`` and how many draws with that salt
        this command or timer made before.

        Never from the position in the log: inserting an unrelated action in the past (a
        correction by replay) leaves every later draw as it was. The results are
        recorded in the events, so a replay from events never draws again."""
        draws = self._draws
        if draws is None:
            draws = self._draws = {}
            if not isinstance(self.key, str):
                self.key = self.key()
        n = draws.get(salt, 0)
        draws[salt] = n + 1
        return random.Random(f"{self.g.seed}|{self.key}|{salt}|{n}")

    def award(
        self, seat: str, points: int, reason: str, rule: str, trial: int | None = None
    ) -> None:
        """Emit one score line (Section 9)."""
        self.emit(
            PointsAwarded(
                at=self.now, player=seat, points=points, reason=reason, rule=rule, trial=trial
            )
        )

    def tell(
        self, seats: list[str] | tuple[str, ...], kind: str, text: str, **data: object
    ) -> None:
        """A private message from the game masters to ``seats`` (R1.13).

        A message to a player whose channel is public (the Diva from J2, R7.14.1:
        ``g.flags["public_channel"]``) is published on the town forum instead.
        """
        if self.held is not None:
            data["held"] = self.held
        channels = self.g.flags.get("public_channel")
        if not channels:  # (nobody's channel is public: the message goes as it is)
            self.emit(
                MessageSent(at=self.now, to=tuple(seats), kind=kind, text=text, data=dict(data))
            )
            return
        public = set(channels)
        private = tuple(s for s in seats if s not in public)
        if private or not seats:
            self.emit(MessageSent(at=self.now, to=private, kind=kind, text=text, data=dict(data)))
        for seat in seats:
            if seat in public:
                self.emit(
                    MessageSent(
                        at=self.now,
                        to=(seat,),
                        kind=kind,
                        text=f"{self.g.pseudo(seat)} : {text}",
                        data=dict(data),
                        public=True,
                    )
                )

    def announce(self, kind: str, text: str, **data: object) -> None:
        """A public announcement on the town forum (R8.1, R4.11)."""
        if self.held is not None:
            data["held"] = self.held
        self.emit(
            MessageSent(at=self.now, to=(), kind=kind, text=text, data=dict(data), public=True)
        )
