"""Telling players what their visible set gained (R2.9) and what they learned (R1.12)."""

from __future__ import annotations

from .character import Character, character_of
from .context import Context
from .names import french_name
from .ronde import forwards, window
from .unmasking import before_verdicts

#: the default visible set, Forward(s, k) (R2.7): read from the walks' cache, not copied
_BASE_VISIBLE_SET = Character.visible_set


def notify_new_targets(ctx: Context) -> None:
    """Tell each masked player privately which Characters joined his visible set (R2.9).

    Only after the role reveal (the end of J1, R1.8); removed ones are known from the
    public unmasking announcements. The game is read as the players know it while
    verdicts are not announced (R4.8, A77): a slot freed by such a verdict still counts
    as live, its accused is still told.
    """
    g = ctx.g
    if g.days_closed < 1:
        return
    news: list[tuple[str, list[str]]] = []
    # (the accused such a verdict unmasked is still told, as if masked: A77)
    with before_verdicts(g):
        forward_of = forwards(g, window(g))
        for seat, p in g.players.items():
            if not p.masked:
                continue
            module = character_of(g, p)
            if type(module).visible_set is _BASE_VISIBLE_SET:  # (Forward(s, k), shared)
                seen = forward_of(module.slot(g, p))
            else:
                seen = module.visible_set(g, p)
            told = p.told_targets
            if not told.issuperset(seen):
                news.append((seat, sorted([c for c in seen if c not in told])))  # (R2.4)
    for seat, new in news:
        names = ", ".join(french_name(c) for c in new)
        ctx.tell(
            [seat], "target_added", f"Nouveau Personnage à démasquer : {names}.", characters=new
        )
