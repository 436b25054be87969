"""Recording confirmed proposals: in time order, never on a trial not opened, and a
refused step moves nothing.

- :func:`number_new_trials`: several pasted threads whose trials are not
  recorded yet get the numbers the engine will give them, in the order of their
  openings (the order the pages were pasted does not matter).
- :func:`plan`: the confirmed steps of one or more threads in time order; a step
  of a trial whose opening is not confirmed is held back with its reason (it is
  not refused, so confirming the opening later records the thread whole).

The command line (``ronde forum parse --apply``) and the console record the
planned steps through the store's service, each its own locked write: a refused
step records nothing, timers included.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .proposals import ParseResult, Proposal


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


def plan(
    chosen: Iterable[Proposal], results: Sequence[ParseResult]
) -> tuple[list[Proposal], list[Held]]:
    """The steps to record, in time order, and those held back."""
    chosen = list(chosen)
    unopened = {
        r.trial.number
        for r in results
        if r.trial is not None
        and not r.trial.exists
        and not any(p.action == "open_trial" and p in chosen for p in r.proposals)
    }
    ready: list[Proposal] = []
    held: list[Held] = []
    for p in chosen:
        if p.at is None:
            held.append(Held(p, "heure inconnue (date de la copie ?)"))
        elif p.action != "open_trial" and p.args.get("trial") in unopened:
            held.append(
                Held(
                    p,
                    f"le Procès n°{p.args['trial']} n'est pas encore ouvert : confirmez son "
                    "ouverture (rien n'a été enregistré pour ce Procès)",
                )
            )
        else:
            ready.append(p)
    ready.sort(key=lambda p: (p.at, 0 if p.action == "open_trial" else 1))
    return ready, held
