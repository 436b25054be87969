"""What the rules know of a Character: the base of every character module (default,
no-op hooks) and :func:`character_of`, the lookup the rest of the engine dispatches by.

A character module (:mod:`ronde.engine.characters`) subclasses :class:`Character` and
overrides only the hooks its rules need; the trial, complaint and scoring code asks
:func:`character_of` / ``g.characters`` and never names a character itself. The list of
characters is :mod:`ronde.engine.registry`, given to the game when it is built
(:class:`ronde.engine.game.Game`): this module never imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, ValuesView
from typing import Any, ClassVar

from .commands import Command
from .context import Context
from .events import CharacterFact
from .ronde import forward, window
from .state import Complaint, GameState, Player, Trial
from .work import Todo, day_end

ActionHandler = Callable[[Context, Command, str], None]
ChorusValidator = Callable[[GameState, Command], dict[str, Any]]
#: (context, arguments, members to pay, execution day)
ChorusExecutor = Callable[[Context, dict[str, Any], tuple[str, ...], int], None]


class Character:
    """Default behaviour of a Ronde Character with standard visibility (R2.7, R2.10).

    Hooks take the game state ``g`` and the player ``p`` who incarnates the
    character (or is concerned as accused, author ...). They must not mutate
    state: only events emitted through a :class:`Context` do.
    """

    id: ClassVar[str] = ""
    in_ronde: ClassVar[bool] = True
    #: Whether the character has Jokers at all (R6.10).
    has_jokers: ClassVar[bool] = False
    #: First and last day of its daily constraint (R3.7); ``None``: no constraint.
    constraint_days: ClassVar[tuple[int, int] | None] = (2, 13)
    #: French one-line summaries shown to the player (and the MJs).
    constraint_fr: ClassVar[str] = ""
    power_fr: ClassVar[str] = ""

    # -- who exercises the character's rules (R7.22.2) ---------------------------
    def role_since(self, g: GameState, p: Player) -> int | None:
        """The first day on which ``p`` is bound by this character's daily rules: 1 for
        its masked holder, the day after the assignment for the Revenant given its role
        (``p.data["given_roles"]``: role -> day given, A61), ``None`` otherwise."""
        if not p.masked:
            return None
        if p.character == self.id:
            return 1
        given = p.data.get("given_roles", {})
        return int(given[self.id]) + 1 if self.id in given else None

    def holds(self, g: GameState, p: Player) -> bool:
        """Whether ``p`` has this character's powers now: its masked holder, or the
        Revenant given its role (R7.22.2). Power handlers check this, not ``p.character``."""
        return self.role_since(g, p) is not None

    def last_breath_until(self, g: GameState, p: Player) -> int | None:
        """The last day the unmasked ``p`` may still use a power this character leaves
        him after his fall (the Diva's last breath, R7.14.6), or ``None``."""
        return None

    def fact(
        self, ctx: Context, seat: str, kind: str, data: Mapping[str, Any] | None = None
    ) -> None:
        """Record a fact of this character's (a ``CharacterFact`` now, about ``seat``):
        what its rules keep in ``p.data`` is rebuilt from these on replay."""
        ctx.emit(
            CharacterFact(
                at=ctx.now, character=self.id, player=seat, kind=kind, data=dict(data or {})
            )
        )

    # -- visibility and targets (R2) -------------------------------------------
    def slot(self, g: GameState, p: Player) -> str:
        """His slot: this character's, or his own when he exercises it as a given role
        (the Revenant's windows are computed from his own slot, A61)."""
        if p.character is not None and p.character != self.id and p.character in g.ronde:
            return p.character
        return self.id

    def visible_set(self, g: GameState, p: Player) -> list[str]:
        """The Characters he must unmask: Forward(s, k) by default (R2.7)."""
        return forward(g, self.slot(g, p), window(g))

    def legal_targets(self, g: GameState, p: Player, *, anonymous: bool) -> set[str]:
        """The supposed Characters he may name (R2.10): his visible set by default."""
        return set(self.visible_set(g, p))

    # -- trial actions (R4.4, R5.2, R5.12, R5.16) ------------------------------
    def check_open(self, g: GameState, p: Player, *, anonymous: bool) -> None:
        """Raise ``RuleViolation`` if he is barred from opening (R4.4.4)."""

    def check_complaint(self, g: GameState, p: Player, trial: Trial, *, anonymous: bool) -> None:
        """Raise ``RuleViolation`` if he is barred from this form of complaint."""

    def anonymous_right(self, g: GameState, p: Player, *, opening: bool) -> str | None:
        """The name of the right that lets him act anonymously now, or ``None`` (R5.5)."""
        return None

    def extra_actions(self, g: GameState, p: Player, *, anonymous: bool) -> int:
        """Trial actions allowed today beyond the standard quota for this form (R5.16)."""
        return 0

    def null_as_author(self, g: GameState, p: Player, trial: Trial) -> bool:
        """Whether a complaint he files in ``trial`` is null (R5.12)."""
        return False

    def null_against(self, g: GameState, accused: Player, author: Player, trial: Trial) -> bool:
        """Whether ``author``'s complaint against him (the accused) is null (R5.12)."""
        return False

    def scores_in_trials(
        self, g: GameState, p: Player, trial: Trial, complaint: Complaint | None
    ) -> bool:
        """Whether he scores the trial rows for this participation (R9.26): ``complaint``
        is the complaint being filed, ``None`` for his opening of ``trial``."""
        return True

    def accusation_true(self, g: GameState, accused: Player, trial: Trial) -> bool | None:
        """Override of the truth of an accusation against him (R4.9); ``None``: default."""
        return None

    def keeps_mask_if_just(self, g: GameState, accused: Player, trial: Trial) -> bool:
        """Whether a JUST verdict of ``trial``, which names this Character, would leave
        ``accused`` masked whoever he is, as public facts tell (the Diva's first trial,
        R7.14.4; Guignol's from J8, R7.5.3): under A77 ``frozen`` his actions are then
        not frozen while it waits (its outcome changes none of them)."""
        return False

    def escapes_unmasking(
        self, g: GameState, p: Player, cause: str, trial: Trial | None, cause_day: int
    ) -> bool:
        """Whether a cause that occurred on ``cause_day`` and would unmask him leaves him
        masked (R4.9.4, R8.2)."""
        return False

    # -- module-level hooks: called once per registered module, whoever holds it ------
    def intercept_quorum(self, ctx: Context, trial: Trial) -> bool:
        """``trial`` just reached quorum; return True if this character's power ends it
        otherwise (e.g. a cancellation for procedural defect, R7.3.3)."""
        return False

    def after_trial_opened(self, ctx: Context, trial: Trial) -> None:
        """A trial was just opened (e.g. Destiny's immunity judged at opening, A53)."""

    def after_complaint(self, ctx: Context, trial: Trial, complaint: Complaint) -> None:
        """A complaint was just recorded (``complaint.kind`` names the anonymous right used)."""

    def after_trial_ended(self, ctx: Context, trial: Trial) -> None:
        """A trial just ended (any status), after its points and unmaskings."""

    def after_post(self, ctx: Context, trial: Trial, seat: str, defends: str | None) -> None:
        """A post in a trial topic was recorded (R4.5; a defence when ``defends``)."""

    def after_unmasking(self, ctx: Context, seat: str, character: str, cause: str) -> None:
        """Someone was unmasked (e.g. the Tragic Hero's target, the Mime's model)."""

    def after_announcement(self, ctx: Context, trial: Trial) -> None:
        """The game masters announced ``trial``'s verdict (R4.8): what waited for it (A77,
        e.g. a duty judged while the verdict that would fulfil or void it was unknown)."""

    def after_day_closed(self, ctx: Context, day: int) -> None:
        """The end of ``day`` for the game as a whole (after every holder's duties)."""

    def grants_anonymous(self, g: GameState, p: Player, *, opening: bool) -> str | None:
        """A right to act anonymously this character gives to another player (e.g.
        Polichinelle's gift, R7.19.3): its name, or ``None``."""
        return None

    def compels_complaint(self, g: GameState, p: Player, trial: Trial) -> bool:
        """Whether this character's power compels ``p`` to complain in ``trial`` now
        (the Little Mermaid's order, R7.10.4)."""
        return False

    def complaint_null(self, g: GameState, author: Player, trial: Trial) -> bool:
        """Whether this character's power makes ``author``'s complaint in ``trial`` null
        now (e.g. a complaint compelled by the Little Mermaid under A74 ``not_counted``)."""
        return False

    def special_joker(self, ctx: Context, cmd: Command, actor: str, items: list[str]) -> bool:
        """If this character's rules make ``items`` a Joker of their own for ``actor``
        (the monstrous Character's one Joker, outside the limit of 2, A24): check it,
        record it and return True; ``use_joker`` then stops. Raise ``RuleViolation``
        to refuse it."""
        return False

    def after_cutoff(self, ctx: Context) -> None:
        """J13 13:13 for the game as a whole (R3.3): duties this character's power put
        on other players (e.g. a monstrous Character's J13 trial, R7.17.3)."""

    def unlock_chorus(self, ctx: Context, seat: str) -> None:
        """What the chorus inherits from this role (R8.6) when ``seat``, its holder or
        the Revenant given it (R7.22.4), is unmasked. Called by ``on_unmasked``, and by
        the Revenant module for each of his given roles."""

    def gm_actions(self) -> Mapping[str, ActionHandler]:
        """Game-master actions this character brings (``assign_mime_target`` ...)."""
        return {}

    def chorus_actions(self) -> Mapping[str, tuple[ChorusValidator, ChorusExecutor]]:
        """Chorus actions this character hands down when unmasked (R8.6): name ->
        (validate the vote's arguments, carry out the decision the next day). They are
        available once ``g.flags["chorus_actions"]`` holds the name."""
        return {}

    def constraint_span(self, g: GameState, p: Player) -> tuple[int, int] | None:
        """First and last day of his MJ-judged daily constraint (``constraint_days`` by
        default; the Revenant's depends on the roles he was given)."""
        return self.constraint_days

    def constraint_first(self, g: GameState, p: Player, first: int) -> int:
        """The first day his constraint is judged, given ``first`` from
        :meth:`constraint_span` (the Extras' depends on A3 and A67)."""
        return first

    # -- life cycle ---------------------------------------------------------------
    def on_day_closed(self, ctx: Context, p: Player, day: int) -> None:
        """End of ``day``: engine-judged duties of a masked holder (R6.2, R6.20)."""

    def on_cutoff(self, ctx: Context, p: Player) -> None:
        """J13 13:13: J13 duties still unfulfilled (R3.3)."""

    def on_unmasked(self, ctx: Context, p: Player) -> None:
        """After his unmasking: what the Unmasked inherit (R8.6)."""

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        """Apply one of this module's own facts to the state."""

    # -- Jokers (R6.9–R6.13) ------------------------------------------------------
    def jokers_allowed(self, g: GameState, p: Player) -> bool:
        """Whether he may use Jokers at all (R6.10)."""
        return self.has_jokers

    def joker_refusal(self, g: GameState, p: Player, items: list[str]) -> str | None:
        """Why ``items`` do not make a Joker for him (French), or ``None`` if they do."""
        return "Ce personnage n'a pas de Joker."

    def items_requested(self, g: GameState, p: Player) -> frozenset[str]:
        """Items his rules ask him to send although they are not decorative (R6.17: the
        Pianist's guitar parts), so that sending them is not reported as forbidden."""
        return frozenset()

    # -- powers ---------------------------------------------------------------
    def actions(self) -> Mapping[str, ActionHandler]:
        """Power actions of this character, by scenario action name."""
        return {}

    # -- views ------------------------------------------------------------------
    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        """What the holder knows through his character (added to his view)."""
        return {}

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        """``data`` (what :meth:`private_view` gave the holder) as French sentences for his
        page ("Vous avez déjà endormi : Joueur02 (J3)."): never a key or an identifier,
        and nothing that ``data`` does not hold."""
        return []

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        """What a game master must rule on or send for him on ``day`` (French text,
        with the kind, deadline, consequence and the action that settles it)."""
        days = self.constraint_days
        if days and days[0] <= day <= days[1] and self.constraint_fr:
            return [
                self.constraint_todo(g, p, day, f"Vérifier la contrainte : {self.constraint_fr}")
            ]
        return []

    def constraint_todo(self, g: GameState, p: Player, day: int, text: str) -> Todo:
        """The day's constraint to judge (``record_constraint``; met unless judged)."""
        return Todo(
            text,
            "ruling",
            p.seat,
            day_end(g.start, day),
            "sans verdict des MJ, la contrainte est réputée respectée",
            "record_constraint",
            {"player": p.pseudo, "day": day},
        )


class ListedJokers(Character):
    """A character whose Joker is one item out of a fixed list (R6.10, R6.12)."""

    has_jokers: ClassVar[bool] = True
    joker_items: ClassVar[frozenset[str]] = frozenset()

    def joker_refusal(self, g: GameState, p: Player, items: list[str]) -> str | None:
        if len(items) != 1:
            return "Un Joker demande un seul objet de la liste du personnage."
        if items[0] not in self.joker_items:
            names = ", ".join(sorted(g.catalog.name(i) for i in self.joker_items))
            return f"{g.catalog.name(items[0])} n'est pas un Joker de ce personnage ({names})."
        return None


#: the module of an unmasked player: every hook a no-op
NO_CHARACTER = Character()


def character_of(g: GameState, p: Player) -> Character:
    """The module of the Character ``p`` incarnates now (a no-op base when unmasked)."""
    if p.character is None:
        return NO_CHARACTER
    return g.characters[p.character]


def every_character(g: GameState) -> ValuesView[Character]:
    """Every character module of the game's registry, in its order (for hooks that any
    character may answer, e.g. ``after_unmasking``)."""
    return g.characters.values()


def answering(g: GameState, hook: str) -> tuple[Character, ...]:
    """The modules of :func:`every_character`, in its order, whose class overrides the
    base ``hook`` (a no-op answer: asking only these gives the same answer, quicker);
    found once per game (kept in its :attr:`~GameState.memo_cache`)."""

    key = _ANSWERING_KEYS.get(hook)
    if key is None:
        key = _ANSWERING_KEYS[hook] = f"answering:{hook}"
    hit = g.memo_cache.get(key)  # (asked on every command and event: read in place)
    if hit is not None:
        kept: tuple[Character, ...] = hit[1]
        return kept

    def found() -> tuple[Character, ...]:
        base = getattr(Character, hook)
        return tuple(m for m in g.characters.values() if getattr(type(m), hook) is not base)

    return g.constant(key, found)


#: hook -> its key in :attr:`GameState.memo_cache` (made once, not at each question)
_ANSWERING_KEYS: dict[str, str] = {}
