"""Constraints, exemptions and Jokers as a mechanism (R6.1–R6.13, R3.10, A1, A24).

Judgement-based constraints are presumed met (A1 default) until a game master
records a failure; the failure takes effect at the end of its day if recorded
during that day, at once if recorded later (R6.21), at 13:13 on J13 (R6.5).
"""

from __future__ import annotations

from datetime import datetime

from .character import answering, character_of
from .clock import LAST_DAY, cutoff_1313
from .commands import Command
from .context import Context
from .errors import RuleViolation
from .events import ConstraintRecorded, ExemptionGranted, ItemsSent, JokerUsed
from .items import ONE_PER_GAME_MASTER
from .state import GameState, Player
from .trials import check_active, player_seat, running
from .verdicts import unmask

#: Jokers a character may use in a game (R6.10)
JOKERS = 2


def jokers_left(p: Player) -> int:
    """The Jokers ``p`` may still use to cover his constraint (R6.10; the monstrous
    Joker, A24, is not one of them)."""
    used = sum(1 for kind in p.joker_days.values() if kind == "constraint")
    return max(0, JOKERS - used)


def constraint_range(g: GameState, p: Player) -> tuple[int, int] | None:
    """First and last day of the player's daily constraint, or ``None`` (R3.7, A3, A67)."""
    module = character_of(g, p)
    days = module.constraint_span(g, p)
    if days is None or not p.masked:
        return None
    first, last = days
    return (module.constraint_first(g, p, first), last)


def covered(g: GameState, seat: str, day: int) -> str | None:
    """Why the player's constraint is not checked on ``day``, or ``None``.

    A Joker, an exemption or sleep covers a day (R6.9, R3.10, R6.8)."""
    p = g.players[seat]
    if day in p.joker_days and p.joker_days[day] == "constraint":
        return "couvert par un Joker"
    if day in g.exemptions.get(seat, set()):
        return "exemption accordée par les MJ"
    if seat in g.asleep.get(day, set()):
        return "endormi ce jour-là"
    return None


def record_constraint(ctx: Context, cmd: Command, actor: str) -> None:
    """``record_constraint`` (game master): ``player``, ``day``, ``met`` (R0.2, A1, R6.21).

    The verdict is always recorded; it has no effect (and the MJs get a note) when
    the player has no constraint that day or the day is covered by a Joker, an
    exemption or sleep.

    Raises:
        RuleViolation: ``invalid_argument`` (day out of 1–13), ``out_of_window`` (a
            day still to come), ``not_allowed`` (player already unmasked).
    """
    g = ctx.g
    seat = player_seat(g, cmd.require("player"))
    day = cmd.integer("day")
    met = cmd.flag("met", True)
    if not 1 <= day <= LAST_DAY:
        raise RuleViolation("invalid_argument", f"Jour hors de la partie : {day}.")
    p = g.players[seat]
    if not p.masked:
        raise RuleViolation("not_allowed", f"{p.pseudo} est déjà démasqué.")
    if day > g.day(ctx.now):
        raise RuleViolation("out_of_window", f"Le J{day} n'est pas encore arrivé.")
    ctx.emit(ConstraintRecorded(at=ctx.now, player=seat, day=day, met=met, by=cmd.by))
    span = constraint_range(g, p)
    why = covered(g, seat, day)
    if span is None or not span[0] <= day <= span[1]:
        why = "sans contrainte ce jour-là"
    if why and not met:
        # recorded, but the constraint is not checked that day (R6.8, R6.9, R6.3)
        ctx.tell([], "verdict_ignored", f"Contrainte de {p.pseudo} au J{day} : {why}, sans effet.")
        return
    if not met and ctx.now >= effect_instant(g, day):
        unmask(ctx, seat, "constraint", "R6.2", detail=f"J{day}", cause_day=day)


def effect_instant(g: GameState, day: int) -> datetime:
    """When a failure of ``day`` recorded during that day takes effect (R6.21, R6.5)."""
    if day == LAST_DAY:
        return cutoff_1313(g.start)
    return g.day_start(day + 1)


def failures_due(g: GameState, day: int) -> list[str]:
    """Seats whose constraint of ``day`` fails at its end (verdicts, or A1 ``require_proof``)."""
    verdicts: dict[tuple[str, int], tuple[bool, datetime]] = g.flags.get("verdicts", {})
    deadline = effect_instant(g, day)
    proof = g.opt("A1") == "require_proof"
    # (a failure needs a recorded one but with A1 ``require_proof``: only those seats)
    failed = None if proof else {s for (s, d), (met, _) in verdicts.items() if d == day and not met}
    out: list[str] = []
    for seat, p in g.players.items():
        if not p.masked or (failed is not None and seat not in failed):
            continue
        span = constraint_range(g, p)
        if span is None or not span[0] <= day <= span[1] or covered(g, seat, day):
            continue
        verdict = verdicts.get((seat, day))
        if verdict is not None:
            met, at = verdict
            if not met and at < deadline:
                out.append(seat)
        elif proof:
            out.append(seat)
    return out


def exempt(ctx: Context, cmd: Command, actor: str) -> None:
    """``exempt`` (game master): ``player``, ``days``, ``until`` (R3.10, R6.3)."""
    g = ctx.g
    seat = player_seat(g, cmd.require("player"))
    raw = cmd.require("days")
    days_raw = raw if isinstance(raw, list | tuple) else [raw]
    try:
        days = tuple(sorted({int(d) for d in days_raw}))
    except (TypeError, ValueError):
        raise RuleViolation("invalid_argument", f"Jours illisibles : {raw}.") from None
    if not days or not all(1 <= d <= LAST_DAY for d in days):
        raise RuleViolation("invalid_argument", f"Jours hors de la partie : {raw}.")
    ctx.emit(
        ExemptionGranted(
            at=ctx.now, player=seat, days=days, until=str(cmd.get("until", "") or ""), by=cmd.by
        )
    )


def game_master_name(g: GameState, cmd: Command) -> str:
    """The game master named by ``to`` (default: the first one).

    Raises:
        RuleViolation: ``invalid_argument`` if ``to`` is not a game master.
    """
    to = cmd.get("to")
    if to is None:
        return g.game_masters[0]
    for gm in g.game_masters:
        if gm.casefold() == str(to).casefold():
            return gm
    raise RuleViolation("invalid_argument", f"« {to} » n'est pas un MJ de cette partie.")


def items_arg(g: GameState, cmd: Command) -> list[str]:
    """The ``items`` argument as catalogue ids (aliases resolved).

    Raises:
        RuleViolation: ``invalid_argument`` for an empty list or an unknown item.
    """
    raw = cmd.require("items")
    listed = raw if isinstance(raw, list | tuple) else [raw]
    out: list[str] = []
    for item in listed:
        cid = g.catalog.canonical(str(item))
        if cid is None:
            raise RuleViolation("invalid_argument", f"Objet inconnu du catalogue : {item}.")
        out.append(cid)
    if not out:
        raise RuleViolation("invalid_argument", "Aucun objet envoyé.")
    return out


def use_joker(ctx: Context, cmd: Command, actor: str) -> None:
    """``use_joker``: ``items`` sent to a game master (``to``) claim a Joker (R6.9–R6.13, A24).

    Raises:
        RuleViolation: ``not_allowed`` (no Jokers for this character),
            ``invalid_argument`` (items that do not make his Joker, an item the MJ
            already holds, A25), ``power_exhausted`` (two already used),
            ``out_of_window`` (no constraint that day, or J13 after 13:13).
    """
    g = ctx.g
    running(g)
    p = g.players[actor]
    check_active(g, p)
    items = items_arg(g, cmd)
    to = game_master_name(g, cmd)
    module = character_of(g, p)
    day = g.day(ctx.now)
    if g.opt("A24") == "named_day" and cmd.get("day") is not None:
        day = cmd.integer("day")
        if not 1 <= day <= LAST_DAY:
            raise RuleViolation("invalid_argument", f"Jour hors de la partie : {day}.")
        if day < g.day(ctx.now):
            raise RuleViolation("out_of_window", "Un Joker ne couvre pas un jour passé.")
    if any(other.special_joker(ctx, cmd, actor, items) for other in answering(g, "special_joker")):
        return  # a Joker of another kind (the monstrous Joker, A24)
    if not module.jokers_allowed(g, p):
        raise RuleViolation("not_allowed", "Ce personnage n'a pas de Joker.")
    if jokers_left(p) == 0:
        raise RuleViolation("power_exhausted", "Deux Jokers déjà utilisés dans la partie.")
    if day == LAST_DAY and ctx.now >= cutoff_1313(g.start):
        raise RuleViolation("out_of_window", "Au J13, un Joker doit arriver avant 13h13.")
    span = constraint_range(g, p)
    if span is None or not span[0] <= day <= span[1]:
        raise RuleViolation("out_of_window", f"Pas de contrainte à couvrir le J{day}.")
    if day in p.joker_days:
        raise RuleViolation("not_allowed", f"Le J{day} est déjà couvert par un Joker.")
    why = module.joker_refusal(g, p, items)
    if why:
        raise RuleViolation("invalid_argument", why)
    refuse_duplicates(g, to, items)
    ctx.emit(ItemsSent(at=ctx.now, player=actor, to=to, items=tuple(items), joker=True))
    ctx.emit(JokerUsed(at=ctx.now, player=actor, day=day, items=tuple(items)))


def refuse_duplicates(g: GameState, to: str, items: list[str]) -> None:
    """Teckel and chain only if the receiving MJ has none yet (R6.15, A25)."""
    held = set(g.gm_items.get(to, []))
    group = g.opt("A25") == "group"
    for item in items:
        if item in ONE_PER_GAME_MASTER and (item in held or (group and held & ONE_PER_GAME_MASTER)):
            raise RuleViolation(
                "invalid_argument", f"{to} a déjà {g.catalog.name(item)} : objet refusé (A25)."
            )


def send_items(ctx: Context, cmd: Command, actor: str) -> None:
    """``send_items``: ``to`` a game master, ``items``.

    Boxes score +7 / +13 (R6.18, R6.19, R9.24, A27)."""
    g = ctx.g
    running(g)
    items = items_arg(g, cmd)
    to = game_master_name(g, cmd)
    refuse_duplicates(g, to, items)
    ctx.emit(ItemsSent(at=ctx.now, player=actor, to=to, items=tuple(items)))
    cap_value = g.opt("A27")
    cap = int(cap_value.split("_")[1]) if cap_value.startswith("cap_") else None
    already = g.boxes_scored.get(actor, 0) - sum(
        1 for i in items if i in ("item_home_box", "item_home_box_xl")
    )
    for item in items:
        points = {"item_home_box": 7, "item_home_box_xl": 13}.get(item)
        if points is None:
            continue
        if cap is not None and already >= cap:
            continue
        already += 1
        name = "carton" if item == "item_home_box" else "cantine en fer"
        ctx.award(actor, points, f"Envoi d'un {name} aux MJ", "R9.24")
    definition = g.opt("A73")
    sender = g.players[actor]
    requested = character_of(g, sender).items_requested(g, sender)
    forbidden = [
        i
        for i in items
        if i not in ("item_home_box", "item_home_box_xl")
        and i not in requested
        and not g.catalog.is_decoration(i, definition=definition)
    ]
    if forbidden:
        names = ", ".join(g.catalog.name(i) for i in forbidden)
        ctx.tell(
            [],
            "forbidden_items",
            f"Objets non décoratifs reçus de {g.pseudo(actor)} : {names} (R6.17, A26).",
            player=actor,
        )
