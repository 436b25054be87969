"""What ends a trial or a mask (R4.7–R4.15, R8.1–R8.4, A17, R9): a trial's end and its
consequences, an unmasking and what follows it, a verdict's announcement.

The two are one recursion (an unmasking ends the open trials against the unmasked,
A17; a trial's end unmasks its accused), so they live together, above the queries of
:mod:`ronde.engine.trials` and :mod:`ronde.engine.unmasking`.
"""

from __future__ import annotations

from contextlib import nullcontext

from .character import answering, character_of
from .commands import Command
from .context import Context
from .errors import RuleViolation
from .events import (
    PlayerUnmasked,
    SecretaryAppointed,
    TrialAnnounced,
    TrialEnded,
    UnmaskingWaits,
    UnofficiallyUnmasked,
)
from .names import CAUSES_FR, french_name
from .state import Trial
from .trials import STATUS_FR, accusation_truth, quorum_count, score_trial, trial_of
from .unmasking import (
    DEFERRED_CAUSES,
    MOOT,
    PUBLIC_DETAIL,
    awaiting_verdict,
    held_by,
    hidden_now,
    settles,
    truly,
    verdicts_naming,
)
from .visibility import notify_new_targets


def unmask(
    ctx: Context,
    seat: str,
    cause: str,
    rule: str,
    trial: Trial | None = None,
    *,
    detail: str = "",
    cause_day: int | None = None,
) -> bool:
    """Unmask ``seat`` for ``cause`` if the rules let it happen now; return whether it did.

    A player is unmasked at most once per mask (R8.3). Protected characters keep
    their mask (hook ``escapes_unmasking``). A failed constraint or duty of the
    accused of an open trial only unmasks him unofficially until that trial
    ends (R4.15). Consequences: −300 points (R9.15), the public announcement
    without the author of a power (R8.1), open trials against him become moot
    (A17), the first unmasked becomes the Secretary (R8.12), visible sets move on
    (R2.9) and the character's inheritance passes to the chorus (hook ``on_unmasked``).
    """
    g = ctx.g
    p = g.players[seat]
    if not p.masked:
        return False
    module = character_of(g, p)
    day = cause_day if cause_day is not None else g.day(ctx.now)
    if module.escapes_unmasking(g, p, cause, trial, day):
        return False
    verdict = trial is not None and cause == "trial" and trial.concluded
    if seat in hidden_now(g):
        # read as known, he is masked; a verdict not yet announced unmasked him (A77):
        # another verdict does not unmask him again (R8.3), any other cause waits for the
        # announcement as it would if that verdict were UNJUST (below)
        if not verdict and p.unofficial is None:
            ctx.emit(UnofficiallyUnmasked(at=ctx.now, player=seat, cause=cause, rule=rule))
        return False
    if not verdict and awaiting_verdict(g, seat) is not None:
        # while a verdict against him awaits its announcement, any other unmasking waits
        # for it (A77, as R4.15): at the announcement, JUST settles it, UNJUST lets it be
        if p.unofficial is None:
            ctx.emit(UnofficiallyUnmasked(at=ctx.now, player=seat, cause=cause, rule=rule))
        return False
    if not verdict and cause in DEFERRED_CAUSES:
        naming = tuple(
            t.number for t in verdicts_naming(g, {p.character or "extra"}) if seat not in t.accused
        )
        if naming:
            # verdicts not yet announced name his Character: his fall now would show who
            # holds it, so tell their outcome (A77 clarification 2); it is judged at their
            # announcement, and dates from then (``settle_waits``)
            if p.waits is None:
                ctx.emit(
                    UnmaskingWaits(
                        at=ctx.now,
                        player=seat,
                        cause=cause,
                        rule=rule,
                        detail=detail,
                        cause_day=day,
                        trials=naming,
                    )
                )
            return False
    accused_now = any(seat in t.accused for t in g.open_trials())
    if cause in DEFERRED_CAUSES and p.unofficial is None and accused_now:
        ctx.emit(UnofficiallyUnmasked(at=ctx.now, player=seat, cause=cause, rule=rule))
        return False
    character = p.character or "extra"
    ctx.emit(
        PlayerUnmasked(
            at=ctx.now,
            player=seat,
            character=character,
            cause=cause,
            rule=rule,
            trial=trial.number if trial else None,
        )
    )
    ctx.award(
        seat, -300, f"Démasqué ({french_name(character)})", "R9.15", trial.number if trial else None
    )
    # a verdict's unmasking becomes public with the verdict's announcement (R4.8, R4.11)
    held = trial is not None and trial.concluded and not trial.announced
    if not held:
        announce_unmasking(ctx, seat, character, cause, trial, detail)
    # what other rules make of his fall waits for the announcement (A77): the trials
    # still open against him, third parties' reactions (the Tragic Hero's monster ...)
    if not held:
        _moot_trials(ctx, seat)
    if g.secretary is None and p.alive and not g.flags.get("secretary_vacated"):
        # the first unmasked member of the chorus (R8.12, A78: not a dead one; once a
        # Secretary dies or leaves, the game masters appoint the next)
        ctx.emit(SecretaryAppointed(at=ctx.now, player=seat, by="engine"))
    module.on_unmasked(ctx, p)
    if not held:
        _after_unmasking(ctx, seat, character, cause)
    notify_new_targets(ctx)
    return True


def _after_unmasking(ctx: Context, seat: str, character: str, cause: str) -> None:
    """Every character's reaction to ``seat``'s unmasking (hook ``after_unmasking``)."""
    for other in answering(ctx.g, "after_unmasking"):
        other.after_unmasking(ctx, seat, character, cause)


def announce_unmasking(
    ctx: Context, seat: str, character: str, cause: str, trial: Trial | None, detail: str = ""
) -> None:
    """The public announcement of an unmasking: the player and the Character, the cause,
    never the author of a power (R8.1)."""
    p = ctx.g.players[seat]
    why = CAUSES_FR.get(cause, cause)
    if detail and cause in PUBLIC_DETAIL:
        why = f"{why} ({detail})"
    elif detail:
        # the detail of a duty may hold a secret (Destiny's schedule, the monster ...):
        # the game masters get it, the forum does not (R1.12, R8.1)
        ctx.tell([], "unmasking_detail", f"{p.pseudo} démasqué : {why} ({detail}).", player=seat)
    ctx.announce(
        "unmasking",
        f"{p.pseudo} est démasqué : c'était {french_name(character)}. Cause : {why}.",
        player=seat,
        pseudo=p.pseudo,
        character=character,
        cause=cause,
        trial=trial.number if trial else None,
        detail=detail if cause in PUBLIC_DETAIL else "",
    )


def _moot_trials(ctx: Context, seat: str) -> None:
    """Open trials against a player unmasked otherwise (A17). When the unmasking comes
    from a verdict not yet announced, they go on until its announcement (A77), which
    ends those still open."""
    mode = ctx.g.opt("A17")
    reason = "accusé démasqué autrement (A17)"
    for t in ctx.g.open_trials():
        if seat not in t.accused:
            continue
        if mode == "void":
            end_trial(ctx, t, "void", reason=reason)
        elif mode == "lapse":
            end_trial(ctx, t, "lapsed", reason=reason)


def settle_unofficial(ctx: Context, t: Trial) -> None:
    """At a trial's end, unmask its accused who failed a duty meanwhile (R4.15)."""
    for seat in t.accused:
        p = ctx.g.players[seat]
        if p.masked and p.unofficial is not None:
            unmask(ctx, seat, p.unofficial, p.unofficial_rule or "R4.15")


def settle_waits(ctx: Context, t: Trial) -> None:
    """At ``t``'s announcement, the failures that waited for it because it named the
    failing player's Character (A77 clarification 2): once every verdict a failure waits
    for is announced, it unmasks him now if he is still masked (a new verdict naming
    his Character still waiting makes it wait again)."""
    g = ctx.g
    for seat, p in g.players.items():
        waits = p.waits
        if waits is None or not settles(g, t, waits[4]):
            continue
        cause, rule, detail, day, trials = waits
        ctx.emit(
            UnmaskingWaits(
                at=ctx.now,
                player=seat,
                cause=cause,
                rule=rule,
                detail=detail,
                cause_day=day,
                trials=trials,
                settled=True,
            )
        )
        unmask(ctx, seat, cause, rule, detail=detail, cause_day=day)


def check_quorum(ctx: Context, t: Trial) -> None:
    """Conclude ``t`` at its 4th valid complaint (R4.7), unless a power intercepts it."""
    if t.status != "open" or quorum_count(ctx.g, t) < 4:
        return
    for module in answering(ctx.g, "intercept_quorum"):
        if module.intercept_quorum(ctx, t):
            return
    conclude(ctx, t, reason="quorum")


def conclude(ctx: Context, t: Trial, *, reason: str) -> None:
    """Fix the outcome JUST/UNJUST at this instant and apply it (R4.7–R4.11)."""
    truth = accusation_truth(ctx.g, t)
    end_trial(ctx, t, "just" if truth else "unjust", truth=truth, concluded=True, reason=reason)


def end_trial(
    ctx: Context,
    t: Trial,
    status: str,
    *,
    truth: bool | None = None,
    concluded: bool = False,
    reason: str = "",
) -> None:
    """End ``t`` with ``status``, score it, unmask as the outcome says (R4.9–R4.15, R9)."""
    g = ctx.g
    if t.status != "open":
        return
    if truth is None and status != "void":
        truth = accusation_truth(g, t)
    ctx.emit(
        TrialEnded(
            at=ctx.now,
            trial=t.number,
            status=status,
            truth=truth,
            reason=reason,
            concluded=concluded,
        )
    )
    # a concluded trial's messages wait for its announcement (A77); its consequences
    # date from its conclusion and read the game as it is (R4.10)
    with ctx.holding(t.number if concluded else None), truly(g) if concluded else nullcontext():
        _apply_end(ctx, t, status, bool(truth), concluded=concluded)


def _apply_end(ctx: Context, t: Trial, status: str, truth: bool, *, concluded: bool) -> None:
    """The consequences of ``t``'s end: unmasking, points, moot trials, hooks."""
    g = ctx.g
    unmasked: list[str] = []
    if status == "just":
        for s in t.accused:
            if g.players[s].masked and unmask_by_trial(ctx, s, t):
                unmasked.append(s)
    did_not_conclude = status == "lapsed" or (
        status == "cancelled" and g.opt("A38") == "not_concluded"
    )
    if status != "void" and not (status == "cancelled" and g.opt("A38") == "no_points"):
        with_penalty = did_not_conclude and not (
            status == "cancelled" and g.opt("A38") == "correctness_only"
        )
        score_trial(ctx, t, bool(truth), did_not_conclude=with_penalty, unmasked=bool(unmasked))
    # a verdict is announced by the game masters (R4.8, ``announce``), and so is an
    # ending it caused (A17) while it is not yet public
    if not concluded and held_by(g, t) is None:
        _announce_end(ctx, t, status)
    settle_unofficial(ctx, t)
    for module in answering(g, "after_trial_ended"):
        module.after_trial_ended(ctx, t)


def unmask_by_trial(ctx: Context, seat: str, t: Trial) -> bool:
    """A JUST trial unmasks its accused unless protected (R4.10, R4.9.4)."""
    return unmask(ctx, seat, "trial", "R4.10", t)


def _announce_end(ctx: Context, t: Trial, status: str) -> None:
    g = ctx.g
    anonymous = sum(1 for c in t.complaints if t.anonymous_to_others(c))
    nulls = sum(1 for c in t.complaints if c.null)
    text = f"Procès n°{t.number} : {STATUS_FR.get(status, status)}."
    null_notice = status in ("just", "unjust") and bool(nulls) and quorum_count(g, t) >= 4
    if null_notice:  # R5.13, A19
        if g.opt("A19") == "count":
            text += f" {nulls} plainte(s) nulle(s)."
        else:
            text += " Au moins une plainte était nulle."
    if anonymous:
        text += f" {anonymous} plainte(s) anonyme(s) publiée(s)."
    ctx.announce(
        "trial_ended",
        text,
        trial=t.number,
        status=status,
        anonymous=anonymous,
        nulls=nulls if null_notice and g.opt("A19") == "count" else 0,
        null_notice=null_notice,
        accused=[g.pseudo(s) for s in t.accused],
        supposed=t.supposed,
    )


# -- announcement and expiry ------------------------------------------------------------
def announce(ctx: Context, cmd: Command, actor: str) -> None:
    """``announce`` (game master): the verdict of a concluded trial is published (R4.8,
    R4.11): its outcome, the unmasking it caused, its anonymous complaints and the
    null notice; players then learn their new targets (R2.9). Late complaints stop."""
    g = ctx.g
    t = trial_of(g, cmd)
    if not t.concluded:
        raise RuleViolation("not_allowed", f"Le Procès n°{t.number} n'a pas de verdict à annoncer.")
    if t.announced:
        raise RuleViolation("not_allowed", f"Le Procès n°{t.number} est déjà annoncé.")
    for earlier in g.unsettled_trials():
        # a verdict that unmasked one of its accused before it is announced first: this
        # one would otherwise tell it (JUST without an unmasking, A77)
        if earlier is t or not earlier.concluded or earlier.announced:
            continue
        fallen = set(earlier.flags.get("unmasked", ())) & set(t.accused)
        if fallen and earlier.ended_at <= t.ended_at:  # type: ignore[operator]
            raise RuleViolation(
                "not_allowed",
                f"Annoncez d'abord le verdict du Procès n°{earlier.number}, qui a démasqué "
                f"{', '.join(g.pseudo(s) for s in sorted(fallen))} (A77).",
            )
    publish(ctx, t, cmd.by)


def publish(ctx: Context, t: Trial, by: str) -> None:
    """Publish the verdict of ``t``, concluded and not yet announced, for the game master
    ``by`` (:func:`announce`, once checked; the end of the game, for those still waiting)."""
    g = ctx.g
    hidden = hidden_now(g)
    ctx.emit(TrialAnnounced(at=ctx.now, trial=t.number, by=by))
    _announce_end(ctx, t, t.status)
    falls = [(s, hidden[s]) for s in t.flags.get("unmasked", ()) if s in hidden]
    for seat, character in falls:
        announce_unmasking(ctx, seat, character, "trial", t)
    moot = f"{MOOT}{t.number}"
    for other in g.trials:  # (ended moot by it under an earlier version of the rules)
        if other.reason == moot:
            _announce_end(ctx, other, other.status)
    # what other rules make of his fall, held until now (A77): the trials still open
    # against him end (A17), third parties react
    for seat, character in falls:
        _moot_trials(ctx, seat)
        _after_unmasking(ctx, seat, character, "trial")
    # a failure while the verdict waited takes effect now (R4.15, A77), the accused's
    # and that of the holder of the Character it named (A77 clarification 2)
    settle_unofficial(ctx, t)
    settle_waits(ctx, t)
    for module in answering(g, "after_announcement"):  # duties judged while it waited (A77)
        module.after_announcement(ctx, t)
    notify_new_targets(ctx)


def expire(ctx: Context, t: Trial) -> None:
    """24 hours after t0 with fewer than 4 valid complaints: the trial lapses (R4.12)."""
    if t.status == "open":
        end_trial(ctx, t, "lapsed", reason="moins de 4 plaintes valides en 24 heures")
