"""Shapes the character modules share: a duty judged at the end of each of its windows
(Pinocchio's lies, the Straw Man's trials, the Devil's Advocate's defences) and the
checks of a once-per-window attempt on a trial (Chucky, the Devil's Advocate)."""

from __future__ import annotations

from collections.abc import Callable

from .character import Character
from .clock import LAST_DAY, cutoff_1313, duty_window
from .commands import Command
from .context import Context
from .errors import RuleViolation
from .state import Player, Trial
from .trials import running, trial_of
from .verdicts import unmask


def judge_windows(
    ctx: Context,
    p: Player,
    day: int,
    windows: tuple[tuple[int, int], ...],
    *,
    since: int | None,
    missed: Callable[[int, int], str | None],
    cause: str,
    rule: str,
) -> None:
    """The end of ``day``: the window of ``windows`` (first, last day) that ends on it is
    judged, unless it began before ``since`` (the first day ``p`` is bound: the
    Revenant's roles bind him from the day after the assignment, A61; ``None``: not
    bound). ``missed(first, last)`` gives the French detail of a duty not done (``None``:
    done, or waived); ``p`` is then unmasked for it (``cause``, ``rule``)."""
    for first, last in windows:
        if last != day:
            continue
        if since is None or first < since:
            return
        detail = missed(first, last)
        if detail is not None:
            unmask(ctx, p.seat, cause, rule, detail=detail, cause_day=day)


def window_attempt(
    ctx: Context,
    cmd: Command,
    actor: str,
    module: Character,
    *,
    not_holder: str,
    out_of_window: str,
    attempts: str,
    exhausted: str,
    accused: str | None = None,
) -> tuple[Trial, Player, int, int]:
    """The checks of a power used once per duty window on a trial he posted in (R3.8,
    A37), in this order; returns the trial, the actor, the day and the window (1 or 2).

    ``not_holder``: the refusal when ``actor`` does not hold ``module``;
    ``out_of_window``: outside W1 and W2 (J1, J13 from 13:13); ``attempts``: the key of
    his attempts in ``p.data``; ``exhausted``: the window's attempt made (``{w}`` is
    the window); ``accused``: the refusal when he is among the accused (``None``: he may).

    Raises:
        RuleViolation: ``unknown_trial``, ``actor_unmasked``, ``not_allowed``,
            ``out_of_window``, ``power_exhausted``, ``trial_closed``.
    """
    g = ctx.g
    t = trial_of(g, cmd)
    running(g)
    p = g.players[actor]
    if not p.masked or p.unofficial is not None:
        raise RuleViolation("actor_unmasked", f"{p.pseudo} est démasqué.")
    if not module.holds(g, p):
        raise RuleViolation("not_allowed", f"{p.pseudo} {not_holder}")
    day = g.action_day(ctx.now)
    w = duty_window(day)
    if w is None or (day == LAST_DAY and ctx.now >= cutoff_1313(g.start)):
        raise RuleViolation("out_of_window", out_of_window)
    if str(w) in p.data.get(attempts, {}):
        raise RuleViolation("power_exhausted", exhausted.format(w=w))
    if t.status != "open" or ctx.now >= t.deadline:
        raise RuleViolation("trial_closed", f"Le Procès n°{t.number} est terminé.")
    if accused is not None and actor in t.accused:
        raise RuleViolation("not_allowed", accused)
    if actor not in t.posters:
        raise RuleViolation(
            "not_allowed", f"{p.pseudo} n'a pas posté dans le Procès n°{t.number} (A37)."
        )
    return t, p, day, w
