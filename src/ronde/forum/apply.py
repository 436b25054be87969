"""Recording confirmed proposals: in time order, never on a trial not opened, and a
refused step moves nothing.

- :func:`number_new_trials`: several pasted threads whose trials are not
  recorded yet get the numbers the engine will give them, in the order of their
  openings (the order the pages were pasted does not matter).
- :func:`plan`: the confirmed steps of one or more threads in time order
  (:func:`step_order`); a step of a trial whose opening is not confirmed is held
  back with its reason (it is not refused, so confirming the opening later records
  the thread whole); a step without a time is held back too.
- :func:`record_or_refuse`: one planned step through a :class:`Writer` (the
  store's service, one locked write per step), the one way the command line
  (``ronde forum parse --apply``) and the console record a page: a step already
  recorded is skipped (:func:`already_recorded`), an MJs' verdict post is
  recorded as the announcement only if the game computed the verdict it states, a
  complaint known or found refused is recorded as a post of its trial (R4.5).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol

from ..engine.clock import PARIS
from .proposals import VERDICT_FR, ParseResult, Proposal
from .render import STATUS_FR


def number_new_trials(results: Sequence[ParseResult], existing: int) -> None:
    """Give the trials not recorded yet of ``results`` their numbers by opening time."""
    new = [r for r in results if r.trial is not None and not r.trial.exists]

    def opened(r: ParseResult) -> tuple[int, float]:
        times = [p.at for p in r.proposals if p.action == "open_trial" and p.at is not None]
        times += [p.time for p in r.thread.posts[:1] if p.time is not None]
        return (0, min(times).timestamp()) if times else (1, 0.0)

    for k, r in enumerate(sorted(new, key=opened), existing + 1):
        assert r.trial is not None
        r.trial.number = k
        for p in r.proposals:
            if "trial" in p.args:
                p.args["trial"] = k


@dataclass
class Held:
    """A confirmed step not recorded, and why (French)."""

    proposal: Proposal
    reason: str


#: why a step without a time is held back (French)
NO_TIME = "heure inconnue : indiquez la date de la copie (--today AAAA-MM-JJ) et relisez la page"


def unopened_trials(results: Sequence[ParseResult], chosen: Iterable[Proposal]) -> set[int]:
    """The trials of ``results`` not recorded yet whose opening is not among ``chosen``."""
    picked = list(chosen)
    return {
        r.trial.number
        for r in results
        if r.trial is not None
        and r.trial.number is not None
        and not r.trial.exists
        and not any(p.action == "open_trial" and p in picked for p in r.proposals)
    }


def step_order(p: Proposal) -> tuple[datetime, int, int]:
    """Where a step goes among those to record (it has a time): time order, an
    opening first, then the thread's order within a minute (an MJs' verdict post after
    the complaints before it). The one order: :func:`plan` and the console's renumbering."""
    assert p.at is not None
    return (p.at, 0 if p.action == "open_trial" else 1, p.post)


def plan(
    chosen: Iterable[Proposal],
    results: Sequence[ParseResult] = (),
    *,
    unopened: Iterable[int] | None = None,
) -> tuple[list[Proposal], list[Held]]:
    """The steps to record, in time order (an opening first, then the thread's order
    within a minute: an MJs' verdict post after the complaints before it), and those
    held back: no time, or a trial not opened (``unopened``: its number; by default
    the trials of ``results`` whose opening is not chosen)."""
    chosen = list(chosen)
    waiting = set(unopened_trials(results, chosen) if unopened is None else unopened)
    ready: list[Proposal] = []
    held: list[Held] = []
    for p in chosen:
        if p.at is None:
            held.append(Held(p, NO_TIME))
        elif p.action != "open_trial" and p.args.get("trial") in waiting:
            held.append(
                Held(
                    p,
                    f"le Procès n°{p.args['trial']} n'est pas encore ouvert : confirmez son "
                    "ouverture (rien n'a été enregistré pour ce Procès)",
                )
            )
        else:
            ready.append(p)
    ready.sort(key=step_order)
    return ready, held


# -- recording ---------------------------------------------------------------------------
class Written(Protocol):
    """What a write did (the store's ``service.Outcome``)."""

    ok: bool
    code: str
    message: str
    events: Any
    preview: Any
    token: str


class Writer(Protocol):
    """Where :func:`record_or_refuse` records: the store's service for one game
    (``ronde.web.games.forum_console.ServiceWriter``)."""

    def record(
        self,
        action: str,
        by: str,
        args: dict[str, Any],
        at: datetime,
        *,
        confirm: str | None = None,
        note: str = "",
    ) -> Written:
        """Record one action at ``at`` (a refusal writes nothing; another writer first:
        code ``conflict``)."""
        ...

    def standing(self) -> Iterable[tuple[str, str, datetime, Mapping[str, Any]]]:
        """The actions recorded and not struck: (action, by, at, args)."""
        ...

    def trials(self) -> Sequence[Mapping[str, Any]]:
        """The game masters' view of the trials now."""
        ...


Status = Literal["recorded", "as_post", "already", "refused", "preview", "conflict"]


@dataclass
class Result:
    """What :func:`record_or_refuse` did with one step (``message``: French).

    ``recorded``; ``as_post``: a complaint known refused (after the verdict post, past
    the 24 hours) recorded as a post of its trial; ``already``: recorded before,
    skipped; ``refused``: nothing recorded for the step (``posted``: its post was
    recorded as a post of its trial, R4.5); ``preview``: it would change what was
    recorded (``preview`` and ``token`` to confirm); ``conflict``: another writer was
    first."""

    proposal: Proposal
    status: Status
    code: str = ""
    message: str = ""
    events: int = 0
    posted: bool = False
    preview: Any = None
    token: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("recorded", "as_post")


def _minute(t: datetime) -> str:
    return t.astimezone(PARIS).strftime("%Y-%m-%dT%H:%M")


def _trial_key(prop: Proposal) -> str:
    if prop.action in ("complain", "post", "announce"):
        return str(prop.args.get("trial", ""))
    return ""


def already_recorded(
    prop: Proposal,
    standing: Iterable[tuple[str, str, datetime, Mapping[str, Any]]],
    trials: Sequence[Mapping[str, Any]],
) -> str:
    """Why ``prop`` is already in the game ("" if not): the same action, author,
    forum minute and trial recorded and not struck; a complaint already counted in
    its trial, or recorded as a post (refused); a verdict already announced."""
    done = {
        (action, by.casefold(), _minute(at), str(args.get("trial", "")))
        for action, by, at, args in standing
    }
    if prop.at is None:
        return ""
    who, when, trial = prop.by.casefold(), _minute(prop.at), _trial_key(prop)
    if (prop.action, who, when, trial) in done and prop.refusal is None:
        return "même action à la même heure"
    if prop.action == "complain" and ("post", who, when, trial) in done:
        return "plainte refusée, déjà enregistrée comme message"
    number = prop.args.get("trial")
    for t in trials:
        if t.get("number") != number:
            continue
        counted = any(str(c["author"]).casefold() == who for c in t.get("complaints", []))
        if prop.action == "complain" and counted:
            if prop.refusal is not None:
                return (
                    "déjà enregistrée comme plainte, alors qu'elle est refusée "
                    f"({prop.refusal[1]}) : rayez-la si c'est une erreur"
                )
            return "plainte déjà comptée dans ce Procès"
        if prop.action == "announce" and t.get("announced"):
            return "verdict déjà annoncé"
    return ""


def verdict_problem(prop: Proposal, trials: Sequence[Mapping[str, Any]]) -> str | None:
    """Why an MJs' verdict post is not recorded as the announcement (French): the game
    has no verdict for its trial, or not the one the post states."""
    if prop.action != "announce" or prop.expect is None:
        return None
    number = prop.args.get("trial")
    t = next((t for t in trials if t.get("number") == number), None)
    said = VERDICT_FR.get(prop.expect, prop.expect)
    if t is None:
        return f"Procès n°{number} inconnu de la partie : le message des MJ annonce {said}"
    status = str(t.get("status"))
    if status not in VERDICT_FR:
        return (
            f"le message des MJ annonce {said}, mais le Procès n°{number} n'a pas de verdict "
            f"dans la partie ({STATUS_FR.get(status, status)}) : une plainte manque ?"
        )
    if status != prop.expect:
        return (
            f"le message des MJ annonce {said}, la partie a calculé {VERDICT_FR[status]} "
            f"pour le Procès n°{number} : à voir par les MJ"
        )
    return None


def record_or_refuse(
    prop: Proposal, writer: Writer, *, confirm: str | None = None, note: str = ""
) -> Result:
    """Record one planned step (:func:`plan`) through ``writer``, or say why not.

    Nothing is recorded twice; an ``announce`` is recorded only when the game
    computed the verdict the MJs' post states; a complaint the parser knows refused
    (``Proposal.refusal``) is recorded as a post of its trial, never as a complaint;
    a complaint the engine refuses is recorded as a post of its trial (R4.5: Chucky's
    and the Devil's Advocate's trials, the days on the forum), once."""
    assert prop.at is not None
    trials = writer.trials()
    why = already_recorded(prop, writer.standing(), trials)
    if why:
        return Result(prop, "already", "already", why)
    problem = verdict_problem(prop, trials)
    if problem is not None:
        return Result(prop, "refused", "verdict_mismatch", problem)
    if prop.refusal is not None:
        code, reason = prop.refusal
        posted, events = _as_post(prop, writer, note)
        if posted:
            return Result(prop, "as_post", code, reason, events, posted=True)
        return Result(prop, "refused", code, reason)
    out = writer.record(prop.action, prop.by, dict(prop.args), prop.at, confirm=confirm, note=note)
    if out.code == "conflict":
        return Result(prop, "conflict", "conflict", out.message)
    if out.preview is not None and not out.ok:
        return Result(
            prop,
            "preview",
            "correction",
            "change ce qui est enregistré",
            preview=out.preview,
            token=out.token,
        )
    if out.ok:
        return Result(prop, "recorded", events=len(out.events))
    if prop.action == "complain":
        posted, events = _as_post(prop, writer, note)
        return Result(prop, "refused", out.code, out.message, events, posted=posted)
    return Result(prop, "refused", out.code, out.message)


def _as_post(prop: Proposal, writer: Writer, note: str) -> tuple[bool, int]:
    """A complaint's post recorded as a post of its trial, unless already recorded:
    (recorded, events)."""
    trial = prop.args.get("trial")
    if not isinstance(trial, int):
        return False, 0
    post = dataclasses.replace(prop, action="post", args={"trial": trial}, refusal=None)
    if already_recorded(post, writer.standing(), ()):
        return False, 0
    assert post.at is not None
    out = writer.record("post", post.by, dict(post.args), post.at, note=note)
    return out.ok, len(out.events) if out.ok else 0
