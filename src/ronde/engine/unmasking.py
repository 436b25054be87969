"""Unmasking and what follows it (R8.1–R8.4, R4.15, A17, R9.15, R8.12)."""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from .state import GameState, Trial

#: Causes whose detail (e.g. the day of a failed constraint) may be published (R8.1).
PUBLIC_DETAIL = frozenset({"constraint", "trial"})

#: Causes that wait for the end of an open trial against the player (R4.15, R6.4).
DEFERRED_CAUSES = frozenset({"constraint", "duty"})


def hidden_unmaskings(g: GameState) -> dict[str, str]:
    """Seat -> character of the players unmasked by a verdict not yet announced: the
    game is past it, the public is not (R4.8). Views and notices keep them masked."""

    def compute() -> dict[str, str]:
        out: dict[str, str] = {}
        pending = _pending(g)
        for number in pending:  # (the concluded trials not announced, in order)
            t = g.trials[number - 1]
            for s in t.flags.get("unmasked", ()):
                p = g.players[s]
                if not p.masked and p.unmasked_at == t.ended_at and s in g.revealed:
                    out[s] = g.revealed[s]
        if pending:
            # a fall the verdict's consequences caused, its announcement held with them
            # (e.g. the Devil's Advocate's last attempt failing on a trial Chucky
            # shortened, A43): as hidden as the verdict's own
            since = min(g.trials[n - 1].ended_at for n in pending)  # type: ignore[type-var]
            for at, _to, kind, _text, data, _public in reversed(g.messages):
                if at < since:
                    break
                s = data.get("player")
                if kind == "unmasking" and data.get("held") in pending and s in g.players:
                    p = g.players[s]
                    if not p.masked and p.unmasked_at == at and s in g.revealed:
                        out.setdefault(s, g.revealed[s])
        return out

    return g.memoized_board("hidden_unmaskings", compute)


#: flags that hold what players recorded (votes), never a verdict's consequence: a vote at
#: the verdict's instant stays visible
VOTES = frozenset({"investigate_votes"})


def awaiting_verdict(g: GameState, seat: str) -> Trial | None:
    """The first concluded trial against ``seat`` whose verdict is not announced yet, if
    any (not once the game masters gave him a new mask after it, R8.16)."""
    for t in verdicts_awaited(g, seat):
        return t
    return None


def verdicts_awaited(g: GameState, seat: str) -> Iterator[Trial]:
    """The concluded trials against ``seat`` whose verdicts are not announced yet, in
    order (not once the game masters gave him a new mask after them, R8.16)."""
    p = g.players[seat]
    trials = g.trials
    for number in _pending(g):
        t = trials[number - 1]
        if seat in t.accused:
            remasked = p.masked and p.unmasked_at is not None and t.ended_at is not None
            # (masked only as players know him: not a new mask, A77)
            if remasked and p.unmasked_at >= t.ended_at and seat not in hidden_now(g):  # type: ignore[operator]
                continue
            yield t


def all_announced(g: GameState, numbers: Iterable[int | str]) -> bool:
    """Whether every verdict of ``numbers`` (trial numbers, as a wait recorded them) is
    announced (A77)."""
    trials = g.trials
    return all(trials[int(n) - 1].announced for n in numbers)


def settles(g: GameState, t: Trial, numbers: Collection[int | str]) -> bool:
    """Whether ``t``'s announcement ends a wait for the verdicts ``numbers`` (A77
    clarification 2): ``t`` is one of them and all are announced now."""
    return any(int(n) == t.number for n in numbers) and all_announced(g, numbers)


def verdicts_naming(g: GameState, characters: Collection[str]) -> list[Trial]:
    """The verdicts not yet announced whose supposed Character is one of ``characters``
    (A77 clarification 2): a deadline whose result depends on whether one of them fell
    waits for them, whoever the accused (the supposed Character is public; who holds it
    is not)."""
    return [g.trials[n - 1] for n in _pending(g) if g.trials[n - 1].supposed in characters]


_MISSING = object()
#: readers of a shared state (the web's threads) take turns through the what-if below,
#: which changes the state for a moment; views hold it too (``reading``)
READ_LOCK = threading.RLock()


class _PerThread(threading.local):
    """Per thread, the states being read through :func:`before_verdicts` (views nest):
    ``inside``, made for each thread on its first use."""

    def __init__(self) -> None:
        self.inside: set[int] = set()


_LOCAL = _PerThread()


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
    _undo_keys(current, before, then, _changed(before, then, skip))


def _changed(before: dict[str, Any], then: dict[str, Any], skip: frozenset[str]) -> list[str]:
    """The keys but ``skip`` whose values differ from ``before`` to ``then``."""
    return [
        key
        for key in (set(before) | set(then)) - skip
        if before.get(key, _MISSING) != then.get(key, _MISSING)
    ]


def _undo_keys(
    current: dict[str, Any], before: dict[str, Any], then: dict[str, Any], keys: list[str]
) -> None:
    """:func:`_undo` on the keys that changed (``_changed``)."""
    for key in keys:
        old, new = before.get(key, _MISSING), then.get(key, _MISSING)
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
    return set(_pending(g))


def pending_now(g: GameState) -> bool:
    """Whether a verdict waits for its announcement (:func:`pending_verdicts` not empty)."""
    return bool(_pending(g))


def _pending(g: GameState) -> tuple[int, ...]:
    # (the trials' ends and announcements move ``board_count``; a what-if changes no trial;
    # read on every command and event: the cache is looked up here, without a call)
    hit = g.memo_cache.get("pending")
    if hit is not None and hit[0] == g.board_count:
        kept: tuple[int, ...] = hit[1]
        return kept
    return g.memoized_board(
        "pending",
        lambda: tuple(t.number for t in g.unsettled_trials() if t.concluded and not t.announced),
    )


@contextmanager
def before_verdicts(g: GameState) -> Iterator[None]:
    """Within the block, the state as players and the public know it while verdicts are
    not announced (A77): the accused a verdict unmasked is masked again with his
    character, out of the chorus, not the Secretary, not counted among the unmasked
    Extras, and the flags the verdicts' consequences changed (the Pianist's fall, what
    the chorus inherits ...) are as before them. A read-only what-if for views: the
    state is restored on exit."""
    inside = _LOCAL.inside
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


#: what :func:`_hide` changed, for :func:`_show`: the players' fields, then the game's,
#: the players hidden, then the game's own read caches and the key of the what-if's
_Saved = tuple[
    list[tuple[Any, bool, str | None, bool, int]],
    tuple[Any, ...],
    dict[str, str],
    tuple[dict[str, tuple[int, Any]], tuple[int, frozenset[str]], Any],
]

#: the key, in the game's own :attr:`~GameState.memo_cache`, of each what-if's caches
WHAT_IFS = "what_ifs"


def _hide(g: GameState, keep: frozenset[int] = frozenset(), kind: str = "views") -> _Saved | None:
    """Make ``g`` the game as players know it (see :func:`before_verdicts`), but for the
    verdicts ``keep`` (as their accused knows them); return what :func:`_show` needs to
    make it the game again, ``None`` when nothing is hidden.

    The read caches (``memo_cache``, ``live_cache``) of the game are set aside and those
    of this what-if (``kind``, ``keep``) put in their place: what is computed on the game
    as known stays in the what-if's caches, what is computed on the game in the game's.
    Their entries are dated by event (or board) count, and the game as known at a count
    is one function of the game at that count and of the what-if's key: an entry of
    either is valid again whenever its count is (nothing leaks from one to the other)."""
    pending = _pending(g)
    if not pending:
        return None  # (the trials read alike in the game and as known)
    if keep:
        pending = tuple(n for n in pending if n not in keep)
        if not pending:
            return None
    hidden = hidden_unmaskings(g)
    if keep:
        kept = {s for n in keep for s in g.trials[n - 1].flags.get("unmasked", ())}
        hidden = {s: c for s, c in hidden.items() if s not in kept}
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
        g.secretary = next(
            (s for s in order[last + 1 :] if s not in hidden and g.players[s].alive), None
        )
    flags = dict(g.flags)
    for number in reversed(pending):  # (in the trials' order: the last one first)
        before, later = g.verdict_flags.get(number, ({}, None))
        if later is None:
            # (during the verdict's instant the flags may still change, but only by an
            # event that may change them: what changed since the verdict is found once per
            # such event, ``flags_count``)
            now = g.memo_cache.get(f"verdict_now:{number}")
            if now is None or now[0] != g.flags_count or now[1][0] is not before:
                now = g.memo_cache[f"verdict_now:{number}"] = (
                    g.flags_count,
                    (before, _changed(before, g.flags, VOTES)),
                )
            _undo_keys(flags, before, g.flags, now[1][1])
            continue
        # (both snapshots frozen once the verdict's instant is over: what changed from one
        # to the other is found once per verdict, not compared again at each what-if)
        hit = g.memo_cache.get(f"verdict_changes:{number}")
        if hit is None or hit[1][0] is not before or hit[1][1] is not later:
            hit = g.memo_cache[f"verdict_changes:{number}"] = (
                -1,
                (before, later, _changed(before, later, VOTES)),
            )
        _undo_keys(flags, before, later, hit[1][2])
    g.flags = flags
    own = g.memo_cache
    hit = own.get(WHAT_IFS)
    if hit is None:
        hit = own[WHAT_IFS] = (-1, {})
    what_ifs: dict[Any, tuple[dict[str, tuple[int, Any]], tuple[int, frozenset[str]]]] = hit[1]
    key = (kind, keep)
    caches = what_ifs.get(key)
    if caches is None:
        caches = (_lasting(g), (-1, frozenset()))
    saved_caches = (own, g.live_cache, key)
    g.memo_cache, g.live_cache = caches
    return saved_players, saved, dict(hidden), saved_caches


def _lasting(g: GameState) -> dict[str, tuple[int, Any]]:
    """The memoised values that hold whatever the masks (``GameState.times``' tables and
    the walks, which check the live slots they were made for)."""
    return {k: v for k, v in g.memo_cache.items() if v[0] == -1 and k != WHAT_IFS}


def _show(g: GameState, saved: _Saved) -> None:
    """Undo :func:`_hide` (and keep the what-if's caches for the next one)."""
    players, fields, _, (own, live, key) = saved
    for p, masked, was, new_extra, count in players:
        p.masked, p.character, p.new_extra, p.unmask_count = masked, was, new_extra, count
    g.revealed, g.secretary, g.extra_unmaskings, g.original_extra_unmaskings, g.flags = fields
    own[WHAT_IFS][1][key] = (g.memo_cache, g.live_cache)
    g.memo_cache, g.live_cache = own, live


@contextmanager
def _what_if(g: GameState) -> Iterator[None]:
    saved = _hide(g)
    try:
        yield
    finally:
        if saved is not None:
            _show(g, saved)


# -- rules read the game as players know it (A77) -----------------------------------
#: id(state) -> what :func:`_hide` saved while rules read that game as players know it
#: (``None``: reading it so, nothing pending right now); absent: the game as it is
_KNOWN: dict[int, _Saved | None] = {}
#: (the same, for a quick look from the engine's hot paths: never change it from there)
KNOWN = _KNOWN
#: id(state) -> the verdicts read as they are within :func:`as_known` (the actor's own)
_KEEP: dict[int, frozenset[int]] = {}


class as_known:  # (used as a function: ``with as_known(g):``)
    """Within the block, the rules read ``g`` as players know it (A77 ``frozen``: a
    command's or a timer's checks and decisions never depend on an outcome not yet
    announced), except the verdicts ``keep`` (an accused's own command reads his own
    verdict as it left him); every event still applies to the game itself
    (:func:`truly`), so a replay of the log rebuilds the same game. Re-entrant; the
    read lock is held. (A class: entered on every command.)"""

    __slots__ = ("_g", "_keep", "_outer")

    def __init__(self, g: GameState, keep: frozenset[int] = frozenset()) -> None:
        self._g, self._keep, self._outer = g, keep, False

    def __enter__(self) -> None:
        READ_LOCK.acquire()
        g = self._g
        key = id(g)
        if key in _KNOWN:
            return
        try:
            # (nothing pending, nothing hidden: ``_hide`` would say so, one call later)
            saved = _hide(g, self._keep, "known") if _pending(g) else None
        except BaseException:
            READ_LOCK.release()
            raise
        self._outer = True
        _LOCAL.inside.add(key)
        _KEEP[key] = self._keep
        _KNOWN[key] = saved

    def __exit__(self, *exc: object) -> None:
        try:
            if self._outer:
                g = self._g
                key = id(g)
                saved = _KNOWN.pop(key, None)
                if saved is not None:
                    _show(g, saved)
                _KEEP.pop(key, None)
                _LOCAL.inside.discard(key)
        finally:
            READ_LOCK.release()


class truly:  # (used as a function: ``with truly(g):``)
    """Within the block, the game as it is, even inside :func:`as_known` (a verdict's own
    consequences date from its conclusion, R4.10; events apply to the game itself)."""

    __slots__ = ("_g", "_was")

    def __init__(self, g: GameState) -> None:
        self._g, self._was = g, False

    def __enter__(self) -> None:
        g = self._g
        key = id(g)
        if key not in _KNOWN:
            return
        self._was = True
        saved = _KNOWN.pop(key)
        if saved is not None:
            _show(g, saved)
        _LOCAL.inside.discard(key)

    def __exit__(self, *exc: object) -> None:
        if self._was:
            g = self._g
            key = id(g)
            _LOCAL.inside.add(key)
            _KNOWN[key] = _hide(g, _KEEP.get(key, frozenset()), "known")


def moves_a_verdict_instant(g: GameState, e: Any) -> bool:
    """Whether applying ``e`` closes the instant of a verdict (``evolve`` then keeps the
    flags its consequences left: it must read the game itself, A77)."""
    for n, (_before, later) in g.verdict_flags.items():
        if later is None:
            ended = g.trials[n - 1].ended_at
            if ended is not None and e.at > ended:
                return True
    return False


def hidden_now(g: GameState) -> dict[str, str]:
    """:func:`hidden_unmaskings` of the game itself, also while it is read as known."""
    saved = _KNOWN.get(id(g))
    if id(g) in _KNOWN:
        return saved[2] if saved is not None else {}
    return hidden_unmaskings(g)


MOOT = "moot:"


def held_by(g: GameState, t: Trial) -> Trial | None:
    """The unannounced verdict whose announcement will also announce ``t``'s ending."""
    if not t.reason.startswith(MOOT):
        return None
    verdict = g.trial(int(t.reason[len(MOOT) :]))
    return verdict if verdict is not None and not verdict.announced else None
