"""Telling players what their visible set gained (R2.9) and what they learned (R1.12)."""

from __future__ import annotations

from .characters import character_of
from .context import Context
from .names import french_name


def notify_new_targets(ctx: Context) -> None:
    """Tell each masked player privately which Characters joined his visible set (R2.9).

    Only after the role reveal (the end of J1, R1.8); removed ones are known from the
    public unmasking announcements. A slot freed by a verdict not yet announced still
    counts as live here (R4.8): its news waits for the announcement.
    """
    from .ronde import revived
    from .unmasking import hidden_unmaskings

    g = ctx.g
    if g.days_closed < 1:
        return
    news: list[tuple[str, list[str]]] = []
    with revived(g, hidden_unmaskings(g).values()):
        for seat, p in g.players.items():
            if not p.masked:
                continue
            current = character_of(p).visible_set(g, p)
            new = sorted(c for c in current if c not in p.told_targets)  # no order (R2.4)
            if new:
                news.append((seat, new))
    for seat, new in news:
        names = ", ".join(french_name(c) for c in new)
        ctx.tell(
            [seat], "target_added", f"Nouveau Personnage à démasquer : {names}.", characters=new
        )
