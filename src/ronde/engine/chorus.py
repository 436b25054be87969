"""The chorus of the Unmasked: its daily vote and its actions (R8.5–R8.17, A63, A64).

The members an action pays are handed to its executor (A64): those of the decision
(``at_decision``), of the execution (``at_execution``), or, under ``at_end``, the
chorus itself (``CHORUS``): every point paid to it is held back and paid at the end
of the game to the chorus of that moment (``admin.settle_end``).

The core offers ``investigate``; each other action lives in the character module
that hands it down (its ``chorus_actions`` hook) and becomes available when that
module adds its name to ``g.flags["chorus_actions"]`` (on its holder's unmasking).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from .character import Character, every_character
from .clock import LAST_DAY
from .commands import Command
from .context import Context
from .errors import RuleViolation
from .events import ChorusDecided, ChorusVoted, InvestigationMade, SecretaryAppointed
from .names import CHORUS_ACTIONS_FR, resolve_character
from .ronde import slot_live
from .state import CHORUS, GameState
from .trials import player_seat, running
from .unmasking import truly

#: action -> (validate args at vote time, carry out at the start of the next day)
Validator = Callable[[GameState, Command], dict[str, Any]]
Executor = Callable[[Context, dict[str, Any], tuple[str, ...], int], None]


def told(g: GameState) -> list[str]:
    """Who a chorus action's message goes to: the chorus's members now. Never the
    members it pays, handed to its executor: under A64 ``at_end`` they are the chorus
    itself (``CHORUS``), a payee and no recipient."""
    return sorted(g.chorus())


def denunciation(g: GameState, cmd: Command) -> dict[str, Any]:
    """``player`` + ``as``: a masked player and a masked Ronde Character (R8.7, R2.12).

    Raises:
        RuleViolation: ``unknown_player``, ``unknown_character``, ``not_your_target``.
    """
    seat = player_seat(g, cmd.require("player"))
    character = resolve_character(str(cmd.require("as")))
    if character == "extra" or character not in g.ronde or not slot_live(g, character):
        raise RuleViolation(
            "not_your_target",
            "Le chœur ne dénonce qu'un Personnage masqué de la Ronde (pas Figurant).",
        )
    if not g.players[seat].masked:
        raise RuleViolation("not_allowed", f"{g.pseudo(seat)} est déjà démasqué.")
    return {"player": seat, "as": character}


def carry_out_investigation(
    ctx: Context, args: dict[str, Any], members: tuple[str, ...], day: int
) -> None:
    """The denunciation, judged when carried out (R8.7): right if the player is that
    Character and it is still masked."""
    g = ctx.g
    seat, character = str(args["player"]), str(args["as"])
    p = g.players[seat]
    correct = p.masked and p.character == character and slot_live(g, character)
    ctx.emit(
        InvestigationMade(
            at=ctx.now, day=day, player=seat, character=character, members=members, correct=correct
        )
    )


def chorus_actions(characters: Iterable[Character]) -> dict[str, tuple[Validator, Executor]]:
    """Every chorus action: ``investigate`` and those the character modules hand down."""
    actions: dict[str, tuple[Validator, Executor]] = {
        "investigate": (denunciation, carry_out_investigation)
    }
    for module in characters:
        actions.update(module.chorus_actions())
    return actions


def _actions(g: GameState) -> dict[str, tuple[Validator, Executor]]:
    """The chorus actions of ``g``'s registry."""
    return g.constant("chorus_actions", lambda: chorus_actions(every_character(g)))


def available(g: GameState) -> set[str]:
    """The chorus actions available now (R8.6): investigate, plus those unlocked."""
    unlocked: set[str] = set(g.flags.get("chorus_actions", set()))
    return {"investigate"} | (unlocked & set(_actions(g)))


def chorus_vote(ctx: Context, cmd: Command, actor: str) -> None:
    """``chorus_vote``: a member's vote for tomorrow's action (R8.6, A63); a later vote
    of the same member on the same day replaces his earlier one.

    Raises:
        RuleViolation: ``not_allowed`` (not a member, action unavailable),
            ``out_of_window`` (J13: nothing can be carried out after the game),
            and the action's own argument checks.
    """
    g = ctx.g
    running(g)
    p = g.players[actor]
    if p.masked or not p.alive:
        raise RuleViolation("not_allowed", f"{p.pseudo} n'est pas membre du chœur des Démasqués.")
    day = g.day(ctx.now)
    if day >= LAST_DAY:
        raise RuleViolation("out_of_window", "Une action décidée le J13 ne serait jamais exécutée.")
    action = str(cmd.require("action"))
    actions = _actions(g)
    if action not in actions:
        raise RuleViolation("invalid_argument", f"Action du chœur inconnue : « {action} ».")
    if action not in available(g):
        label = CHORUS_ACTIONS_FR.get(action, "inconnue")
        raise RuleViolation(
            "not_allowed", f"L'action du chœur « {label} » n'est pas (encore) disponible."
        )
    args = actions[action][0](g, cmd)
    ctx.emit(ChorusVoted(at=ctx.now, player=actor, day=day, action=action, args=args))


def _key(action: str, args: dict[str, Any]) -> tuple[str, tuple[tuple[str, str], ...]]:
    return (action, tuple(sorted((k, str(v)) for k, v in args.items())))


def decide(ctx: Context, day: int) -> None:
    """Fix the chorus's decision(s) of ``day`` and carry them out at once (R8.17).

    Plurality of the votes of current members; a tie goes to the Secretary's
    choice if he voted for one of the tied options (A63); with Woody unmasked the
    investigation is decided apart from the other action (R7.12.5).
    """
    g = ctx.g
    # the members date from their unmasking, announced or not (R4.10, A77): whose votes
    # count and who is paid; the actions read the game as players know it
    with truly(g):
        members = tuple(sorted(g.chorus()))
        paid_now = tuple(sorted(g.chorus()))
    # a majority of the members as players know them (A63 ``absolute_majority``): the
    # accused of a JUST verdict not yet announced would tell it by counting (A77)
    known = len(g.chorus())
    votes = {s: v for s, v in g.chorus_votes.get(day, {}).items() if s in members}
    apart = g.flags.get("investigate_votes", {}).get(day, {})
    investigations = {s: v for s, v in apart.items() if s in members}
    if not votes and not investigations:
        return
    double = bool(g.flags.get("chorus_double"))
    groups: list[dict[str, tuple[str, dict[str, Any]]]] = []
    if double:
        investigations = {
            **{s: v for s, v in votes.items() if v[0] == "investigate"},
            **investigations,
        }
        groups.append(investigations)
        groups.append({s: v for s, v in votes.items() if v[0] != "investigate"})
    else:
        groups.append(votes)
    for group in groups:
        if group:
            _decide_group(ctx, day, group, members, paid_now, known)


def _decide_group(
    ctx: Context,
    day: int,
    group: dict[str, tuple[str, dict[str, Any]]],
    members: tuple[str, ...],
    paid_now: tuple[str, ...],
    known: int,
) -> None:
    g = ctx.g
    tally = Counter(_key(a, args) for a, args in group.values())
    ranked = tally.most_common()
    best = ranked[0][1]
    tied = [k for k, n in ranked if n == best]
    winner = tied[0] if len(tied) == 1 else None
    tie_break = False
    if winner is None and g.secretary in group:
        sec_key = _key(*group[g.secretary])
        if sec_key in tied:
            winner, tie_break = sec_key, True
    if winner is None:
        return
    if g.opt("A63") == "absolute_majority" and 2 * best <= known:
        return
    action, _ = winner
    args = next(v[1] for v in group.values() if _key(*v) == winner)
    ctx.emit(
        ChorusDecided(
            at=ctx.now,
            day=day,
            action=action,
            args=args,
            members=members,
            votes=best,
            tie_break=tie_break,
        )
    )
    mode = g.opt("A64")
    if mode == "at_end" and action != "investigate":
        # held back and paid at the end of the game to the chorus then (A64, settle_end):
        # the payee is the chorus itself; an investigation is scored at the end anyway
        paid: tuple[str, ...] = (CHORUS,)
    else:
        paid = members if mode == "at_decision" else paid_now
    _actions(g)[action][1](ctx, args, paid, day + 1)


def appoint_secretary(ctx: Context, cmd: Command, actor: str) -> None:
    """``appoint_secretary`` (game master): a member of the chorus, unmasked and alive
    (R8.12, R8.14, A78).

    Raises:
        RuleViolation: ``not_allowed`` (a masked or dead player: outside the chorus).
    """
    g = ctx.g
    seat = player_seat(g, cmd.require("player"))
    if g.players[seat].masked:
        raise RuleViolation("not_allowed", f"{g.pseudo(seat)} n'est pas démasqué.")
    if not g.players[seat].alive:
        raise RuleViolation(
            "not_allowed", f"{g.pseudo(seat)} est mort : il n'est plus du chœur (A78)."
        )
    ctx.emit(SecretaryAppointed(at=ctx.now, player=seat, by=cmd.by))
