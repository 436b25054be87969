"""Unmasking and what follows it (R8.1–R8.4, R4.15, A17, R9.15, R8.12)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .characters import REGISTRY, character_of
from .context import Context
from .events import PlayerUnmasked, SecretaryAppointed, TrialEnded, UnofficiallyUnmasked
from .names import french_name
from .state import GameState, Trial

#: Causes whose detail (e.g. the day of a failed constraint) may be published (R8.1).
PUBLIC_DETAIL = frozenset({"constraint", "trial"})

#: Causes that wait for the end of an open trial against the player (R4.15, R6.4).
DEFERRED_CAUSES = frozenset({"constraint", "duty"})

CAUSES_FR = {
    "trial": "Procès juste",
    "constraint": "contrainte non respectée",
    "duty": "devoir non accompli",
    "power": "pouvoir d'un autre personnage",
    "death": "mort du citoyen",
    "hunt": "accusation fausse du Héros tragique",
}


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
    module = character_of(p)
    day = cause_day if cause_day is not None else g.day(ctx.now)
    if module.escapes_unmasking(g, p, cause, trial, day):
        return False
    # (also while a verdict against him awaits its announcement: his unmasking for a
    # failure would otherwise tell the outcome, A77)
    accused_now = (
        any(seat in t.accused for t in g.open_trials()) or awaiting_verdict(g, seat) is not None
    )
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
    _moot_trials(ctx, seat, trial if held else None)
    if g.secretary is None:
        ctx.emit(SecretaryAppointed(at=ctx.now, player=seat, by="engine"))
    module.on_unmasked(ctx, p)
    for other in REGISTRY.values():
        other.after_unmasking(ctx, seat, character, cause)
    from .visibility import notify_new_targets

    notify_new_targets(ctx)
    return True


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


def hidden_unmaskings(g: GameState) -> dict[str, str]:
    """Seat -> character of the players unmasked by a verdict not yet announced: the
    game is past it, the public is not (R4.8). Views and notices keep them masked."""

    def compute() -> dict[str, str]:
        out: dict[str, str] = {}
        for t in g.trials:
            if not t.concluded or t.announced:
                continue
            for s in t.accused:
                p = g.players[s]
                if not p.masked and p.unmasked_at == t.ended_at and s in g.revealed:
                    out[s] = g.revealed[s]
        return out

    return g.memoized("hidden_unmaskings", compute)


#: flags that hold what players recorded (votes), never a verdict's consequence: a vote at
#: the verdict's instant stays visible
VOTES = frozenset({"investigate_votes"})


def awaiting_verdict(g: GameState, seat: str) -> Trial | None:
    """The concluded trial against ``seat`` whose verdict is not announced yet, if any
    (not once the game masters gave him a new mask after it, R8.16)."""
    p = g.players[seat]
    for t in g.trials:
        if t.concluded and not t.announced and seat in t.accused:
            remasked = p.masked and p.unmasked_at is not None and t.ended_at is not None
            if remasked and p.unmasked_at >= t.ended_at:  # type: ignore[operator]
                continue
            return t
    return None


_MISSING = object()
#: readers of a shared state (the web's threads) take turns through the what-if below,
#: which changes the state for a moment; views hold it too (``reading``)
READ_LOCK = threading.RLock()
#: per thread, the states being read through :func:`before_verdicts` (views nest)
_LOCAL = threading.local()


@contextmanager
def reading() -> Iterator[None]:
    """Hold the read lock of :func:`before_verdicts` (re-entrant)."""
    with READ_LOCK:
        yield


def _undo(
    current: dict[str, Any], before: dict[str, Any], then: dict[str, Any], skip: frozenset[str]
) -> None:
    """Take out of ``current`` (in place) what changed from ``before`` to ``then``, and
    keep what changed since: element by element in sets, key by key in mappings."""
    for key in (set(before) | set(then)) - skip:
        old, new = before.get(key, _MISSING), then.get(key, _MISSING)
        if old == new:
            continue
        now = current.get(key, _MISSING)
        if isinstance(new, set | frozenset) and isinstance(now, set | frozenset):
            was = old if isinstance(old, set | frozenset) else set()
            current[key] = type(now)((now - (new - was)) | (was - new))
        elif isinstance(new, dict) and isinstance(now, dict):
            inner = dict(now)
            _undo(inner, old if isinstance(old, dict) else {}, new, frozenset())
            current[key] = inner
        elif now == new:
            if old is _MISSING:
                current.pop(key, None)
            else:
                current[key] = old


def pending_verdicts(g: GameState) -> set[int]:
    """Trials concluded whose verdict the game masters have not announced yet (R4.8)."""
    return {t.number for t in g.trials if t.concluded and not t.announced}


@contextmanager
def before_verdicts(g: GameState) -> Iterator[None]:
    """Within the block, the state as players and the public know it while verdicts are
    not announced (A77): the accused a verdict unmasked is masked again with his
    character, out of the chorus, not the Secretary, not counted among the unmasked
    Extras, and the flags the verdicts' consequences changed (the Pianist's fall, what
    the chorus inherits ...) are as before them. A read-only what-if for views: the
    state is restored on exit."""
    inside: set[int] = _LOCAL.__dict__.setdefault("inside", set())
    with READ_LOCK:
        if id(g) in inside:  # already read as known (views call views)
            yield
            return
        inside.add(id(g))
        try:
            with _what_if(g):
                yield
        finally:
            inside.discard(id(g))


@contextmanager
def _what_if(g: GameState) -> Iterator[None]:
    pending = pending_verdicts(g)
    hidden = hidden_unmaskings(g)
    if not pending:
        yield
        return
    saved_players = []
    for seat, character in hidden.items():
        p = g.players[seat]
        saved_players.append((p, p.masked, p.character, p.new_extra, p.unmask_count))
        p.masked, p.character, p.unmask_count = True, character, p.unmask_count - 1
        p.new_extra = character == "extra" and p.transfigured_day is not None
    saved = (
        dict(g.revealed),
        g.secretary,
        g.extra_unmaskings,
        g.original_extra_unmaskings,
        g.flags,
    )
    for seat, character in hidden.items():
        del g.revealed[seat]
        if character == "extra":
            g.extra_unmaskings -= 1
            if g.players[seat].transfigured_day is None:
                g.original_extra_unmaskings -= 1
    if g.secretary in hidden:
        # the engine made him the Secretary (R8.12): the public would see the next one
        order = g.unmask_order
        last = max((i for i, s in enumerate(order) if s == g.secretary), default=len(order))
        g.secretary = next((s for s in order[last + 1 :] if s not in hidden), None)
    flags = dict(g.flags)
    for number in sorted(pending, reverse=True):
        before, later = g.verdict_flags.get(number, ({}, None))
        then = g.flags if later is None else later
        _undo(flags, before, then, skip=VOTES)
    g.flags = flags
    g.live_cache, g.memo_cache = (-1, frozenset()), {}
    try:
        yield
    finally:
        for p, masked, was, new_extra, count in saved_players:
            p.masked, p.character, p.new_extra, p.unmask_count = masked, was, new_extra, count
        g.revealed, g.secretary, g.extra_unmaskings, g.original_extra_unmaskings, g.flags = saved
        g.live_cache, g.memo_cache = (-1, frozenset()), {}


MOOT = "moot:"


def _moot_trials(ctx: Context, seat: str, held_by: Trial | None = None) -> None:
    """Open trials against a player unmasked otherwise (A17). When the unmasking comes
    from a verdict not yet announced, their ending is announced with that verdict
    (reason ``moot:<n>``), so that it does not give the verdict away (R4.8)."""
    from .trials import end_trial

    mode = ctx.g.opt("A17")
    reason = f"{MOOT}{held_by.number}" if held_by else "accusé démasqué autrement (A17)"
    for t in ctx.g.open_trials():
        if seat not in t.accused:
            continue
        if mode == "void":
            end_trial(ctx, t, "void", reason=reason)
        elif mode == "lapse":
            end_trial(ctx, t, "lapsed", reason=reason)


def held_by(g: GameState, t: Trial) -> Trial | None:
    """The unannounced verdict whose announcement will also announce ``t``'s ending."""
    if not t.reason.startswith(MOOT):
        return None
    verdict = g.trial(int(t.reason[len(MOOT) :]))
    return verdict if verdict is not None and not verdict.announced else None


def settle_unofficial(ctx: Context, t: Trial) -> None:
    """At a trial's end, unmask its accused who failed a duty meanwhile (R4.15)."""
    for seat in t.accused:
        p = ctx.g.players[seat]
        if p.masked and p.unofficial is not None:
            unmask(ctx, seat, p.unofficial, p.unofficial_rule or "R4.15")


__all__ = ["DEFERRED_CAUSES", "TrialEnded", "settle_unofficial", "unmask"]
