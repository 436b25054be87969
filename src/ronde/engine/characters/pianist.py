"""Pianist (Pianiste, ``pianist``), R7.15.

Glossary: Pianiste → ``pianist``; deuxième plainte → ``second_complaint``.

Power: none while masked; standard visibility (R7.15.1).

Constraint: every two days (fixed windows J2–J3, J4–J5 ... A10) a post with at least
5 words of the lyrics of a well-known French song; on each day without such a post,
one music-related decoration item sent to the MJs (the guitar, the K7 radio, the
small HiFi off or on and the variants the catalogue lists, ``item_dfhifi`` and
``item_dfhifi#01``, the three CDs) or two of the parts of a guitar of two different
kinds (oil can, broken stick, wire reel) (R7.15.2, A49). Judged by an MJ, presumed met
(A1, R6.20): the engine shows the MJs the items he sent that day as evidence and
never fails him by itself. Sending the guitar parts, which are not decorative, is not
reported as forbidden (R6.17).

Effects of his unmasking, from that instant (R7.15.3): every player may take two
trial actions a day in different trials (A21: at most one opening by default); new
Extras may act once a day; the Prompter, Destiny and the Tragic Hero use the second
complaint normally; a right guess of the Prompter (or the chorus's candle) unmasks
two Extras (A50, read by the Prompter's module). They all read the game flag
``double_complaints`` set here.

Jokers: none (R7.15.1, R6.10).

Failure: a failed constraint recorded by an MJ (R6.2).

Inheritance: none (global effects instead).

Rule ids: R7.15.1, R7.15.2, R7.15.3, A10, A21, A49, A50.
"""

from __future__ import annotations

from typing import ClassVar

from ..character import Character
from ..context import Context
from ..events import CharacterFact
from ..sentences import period, rows
from ..state import GameState, Player
from ..work import Todo, day_end

#: music-related decoration items, with the HiFi variants of the catalogue (A49)
MUSIC_ITEMS = frozenset(
    {
        "item_guitar",
        "item_radio_on",
        "item_music_part",
        "item_music",
        "item_dfhifi",
        "item_dfhifi#01",
        "item_cdbrit",
        "item_cdphil",
        "item_cdelvi",
    }
)
#: the parts of a Guitare artisanale: two of different kinds replace an item (A49)
GUITAR_PARTS = frozenset({"item_oilcan", "item_staff2", "item_wire"})


def lyrics_window(day: int) -> tuple[int, int]:
    """The fixed two-day window of ``day`` (A10 ``fixed``): J2–J3, J4–J5 ..."""
    first = day if day % 2 == 0 else day - 1
    return (first, first + 1)


def music_sent(g: GameState, seat: str, day: int) -> tuple[list[str], bool]:
    """The music items ``seat`` sent the MJs on ``day``, and whether they make an item
    for the day (one music item, or two guitar parts of different kinds, A49)."""
    items: list[str] = []
    for at, player, _to, sent in g.items_log:
        if player == seat and g.action_day(at) == day:
            items.extend(i for i in sent if i in MUSIC_ITEMS | GUITAR_PARTS)
    enough = any(i in MUSIC_ITEMS for i in items) or len(set(items) & GUITAR_PARTS) >= 2
    return items, enough


class Pianist(Character):
    """The Pianist: his fall doubles everyone's complaints."""

    id: ClassVar[str] = "pianist"
    constraint_fr: ClassVar[str] = (
        "un extrait d'au moins 5 mots d'une chanson française connue tous les deux jours, "
        "un objet musical (ou deux pièces de guitare) les autres jours"
    )

    def items_requested(self, g: GameState, p: Player) -> frozenset[str]:
        return GUITAR_PARTS

    def on_unmasked(self, ctx: Context, p: Player) -> None:
        ctx.emit(CharacterFact(at=ctx.now, character=self.id, player=p.seat, kind="fallen"))
        ctx.announce(
            "pianist_fallen", "Le Pianiste est tombé : chacun peut porter deux plaintes par jour."
        )

    def apply_fact(self, g: GameState, p: Player, fact: CharacterFact) -> None:
        if fact.kind == "fallen":
            g.flags["double_complaints"] = True

    def private_view(self, g: GameState, p: Player) -> dict[str, object]:
        day = g.day()
        items, enough = music_sent(g, p.seat, day) if day >= 2 else ([], False)
        first, last = lyrics_window(max(day, 2))
        return {
            "lyrics_window": f"J{first}–J{last}",
            "music_items_today": items,
            "item_day_covered": enough,
        }

    def game_master_todo(self, g: GameState, p: Player, day: int) -> list[Todo]:
        out = super().game_master_todo(g, p, day)
        if day < 2:
            return out
        items, enough = music_sent(g, p.seat, day)
        first, last = lyrics_window(day)
        sent = ", ".join(g.catalog.name(i) for i in items) or "aucun"
        out.append(
            Todo(
                f"Paroles de chanson attendues dans la fenêtre J{first}–J{last} ; objets "
                f"musicaux reçus aujourd'hui : {sent}"
                + (" (suffisant pour un jour sans paroles)." if enough else "."),
                "watch",
                p.seat,
                day_end(g.start, day),
            )
        )
        return out

    def describe_private(self, g: GameState, p: Player, data: dict[str, object]) -> list[str]:
        out = [f"Paroles de chanson attendues {period(data.get('lyrics_window'))}."]
        sent = [g.catalog.name(str(i)) for i in rows(data, "music_items_today")]
        out.append(
            "Objets musicaux envoyés aux MJ aujourd'hui : "
            + (", ".join(sent) if sent else "aucun")
            + "."
        )
        if data.get("item_day_covered"):
            out.append("Ces objets suffisent pour un jour sans paroles.")
        return out
