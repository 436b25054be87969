"""Property tests over generated games (DESIGN.md: replay, views, refusals).

A game is drawn (a quarter on the full cast of 28 + k players, the others on 5–9
of the 21 Ronde Characters in a random order with 3–4 Extras; a few house rules; a
J1 with or without a clock change), then a sequence of commands at non-decreasing
times over J1..J13: trial actions, chorus votes, constraints, Jokers, items, Ronde
guesses, the powers of the characters drawn (the J1/J2 ones early) and every
game-master action (verdicts announced, exemptions, awards, deaths, replacements,
themes...), each with only the arguments it takes. Most commands are drawn against
the current state (actors with quota left, supposed characters among the actor's
legal targets, trials still open...) so that most are accepted and trials reach
verdicts; the rest are random, to exercise refusals. ``RONDE_PROPERTY_SCALE=10``
multiplies the examples (bug hunts).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, Phase, assume, event, given, settings
from hypothesis import strategies as st

from ronde import store
from ronde.catalog import default_catalog
from ronde.engine.character import character_of
from ronde.engine.clock import PARIS, day_start, parse_time
from ronde.engine.commands import Command
from ronde.engine.errors import CODES, RuleViolation
from ronde.engine.events import from_json
from ronde.engine.game import CORE_ACTIONS, Game, all_actions
from ronde.engine.names import RONDE_IDS, french_name
from ronde.engine.options import HOUSE_RULES
from ronde.engine.registry import REGISTRY
from ronde.engine.ronde import boost_on, slot_live
from ronde.engine.state import CHORUS, GameState, Player, Trial
from ronde.engine.trials import frozen_by, legal_targets
from ronde.engine.unmasking import before_verdicts
from ronde.engine.views import public_identities, view

CATALOG = default_catalog()
START = date(2026, 12, 1)
#: J1 dates: no clock change, autumn change on J6 (2026-10-25), spring change on J9 (2027-03-28).
STARTS = [START, date(2026, 10, 20), date(2027, 3, 20)]
GM = "Mj"
#: The whole cast: the 21 Characters of the Ronde (the Decorators are two seats) and Extras.
CHARACTERS = list(RONDE_IDS)
#: Games on the full cast have 28 + k players (6 + k Extras, A76); the lead widens this.
EXTRA_PLAYERS = (0, 1, 2)
PSEUDOS = ["Ana", "Bob", "Cid", "Dan", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon", "Kim", "Lou"]
PSEUDOS += ["Max", "Ned", "Oli", "Pam", "Quy", "Rob", "Sam", "Tom", "Ugo", "Val", "Wes", "Xan"]
PSEUDOS += ["Yan", "Zia", "Abe", "Bea", "Cal", "Dee", "Eli", "Flo"]
#: House rules worth varying (their values come from HOUSE_RULES).
VARIED_OPTIONS = [
    "A6",
    "A7",
    "A12",
    "A13",
    "A14",
    "A15",
    "A16",
    "A17",
    "A19",
    "A21",
    "A29",
    "A63",
    "A64",
    "A67",
    "A70",
    "A71",
]
#: Weights of the actions drawn: (always, when the state makes it likely to succeed).
ACTION_WEIGHTS = {
    "open_trial": (1, 3),  # ... when no trial is open
    "complain": (1, 20),  # ... while a trial is open
    "announce": (0, 12),  # ... when a verdict waits for its announcement
    "chorus_vote": (1, 2),  # ... when there is a chorus
    "record_constraint": (2, 5),  # ... from J2
    "transfigure": (1, 2),  # ... when an Extra seat is vacant
    "rehearse": (1, 0),
    "post": (1, 3),  # ... while a trial is open
    "use_joker": (1, 0),
    "send_items": (1, 0),
    "guess_ronde": (1, 0),
    "power": (2, 6),  # ... when a player has a power
    "due_power": (0, 20),  # ... when a rare power's moment has come
    "gm_due": (0, 10),  # ... when a game masters' ruling is awaited
    "key_fall": (0, 20),  # ... when Destiny's Character of the day can fail his duty
    "advocate_post": (0, 6),  # ... when the Devil's Advocate or Chucky can post in a trial
    "game_master": (5, 0),
}
#: (power, Character, minutes after J1 00:00): used early in most games
OPENING = [
    ("designate_monster", "tragic_hero", 23 * 60 + 30),
    ("choose_phrase", "prompter", 1440 + 9 * 60),
    ("declare_destiny", "destiny", 1440 + 9 * 60 + 30),
]
#: the days some powers may be used on (the others are drawn any day)
WINDOWS = {
    "reveal_secret": (4, 8, 12),  # R7.19
    "grant_anonymous": (2, 4, 6, 8, 10, 12),
    "choose_phrase": (2,),
    "declare_destiny": (2,),
    "designate_monster": (1,),
}
#: powers drawn as soon as their moment comes (it passes quickly)
RARE = ("last_breath", "shift_destiny", "cancel_trial", "shorten_trial")
#: Actions the guard does not require in its batch, with the reason; the scenarios
#: tests/scenarios/characters/diva/last-breath*.yaml exercise it.
UNREACHED = {
    # the Diva falls only after two successful trials against her (R7.14.4): random
    # games almost never get there; drawn, refused, never required here
    "last_breath": "R7.14.4",
}
#: game masters' actions about one Character (drawn when a player holds it)
GM_NEEDS = {
    "send_excerpt": "alice",
    "assign_mime_target": "mime",
    "set_guignol_constraint": "guignol",
    "give_revenant_role": "revenant",
    "record_order": "little_mermaid",
}
#: Every action of the vocabulary (FORMAT.md plus Ronde's own), by who does it.
ALL_ACTIONS = all_actions()
VOCABULARY = frozenset(ALL_ACTIONS)
#: The characters' powers (players) and the game masters' actions drawn by ``_game_master``.
PLAYER_POWERS = sorted(
    a for a, (who, _h) in ALL_ACTIONS.items() if who == "player" and a not in CORE_ACTIONS
)
GM_ACTIONS = sorted(
    a
    for a, (who, _h) in ALL_ACTIONS.items()
    if who == "game_master" and a not in ("record_constraint", "transfigure", "end_game")
)
STAT_KEYS = (
    "accepted",
    "refused",
    "concluded",
    "unmasked",
    "anonymous",
    "new_extra",
    "verdict",
    "announced",
    "boost",
)


def examples(n: int) -> int:
    """``n`` examples, times ``RONDE_PROPERTY_SCALE`` (e.g. 20 for a long bug hunt)."""
    return max(1, round(n * float(os.environ.get("RONDE_PROPERTY_SCALE", "1"))))


SETTINGS = settings(
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)


# -- canonical state ---------------------------------------------------------------
def canonical(obj: Any) -> Any:
    """Comparable plain data: dataclasses as dicts (without the item catalogue and
    the read caches), sets sorted, tuples as lists, datetimes as UTC instants."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {
            f.name: canonical(getattr(obj, f.name))
            for f in dataclasses.fields(obj)
            if f.name != "catalog" and not f.name.endswith("_cache")
        }
    if isinstance(obj, dict):
        return {repr(canonical(k)): canonical(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [canonical(x) for x in obj]
    if isinstance(obj, set | frozenset):
        return sorted((canonical(x) for x in obj), key=repr)
    if isinstance(obj, datetime):
        return ("instant", obj.astimezone(UTC).isoformat())
    return obj


def dump(g: GameState) -> Any:
    return canonical(g)


def diff(a: Any, b: Any, path: str = "") -> str:
    """The first place where two canonical dumps differ (for readable failures)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: only in {'second' if k not in a else 'first'}"
            if a[k] != b[k]:
                return diff(a[k], b[k], f"{path}.{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return diff(x, y, f"{path}[{i}]")
    return f"{path}: {a!r} != {b!r}"


def json_round_trip(game: Game) -> Game:
    """The game its JSON Lines text rebuilds, read as the store reads it (every line
    by msgspec's decoder, and again by ``from_json``: the same events)."""
    text = store.dumps(game.log)
    events = [from_json(json.loads(line)) for line in text.split("\n")[:-1]]
    replayed = store.replay_text(text, default_catalog())
    assert replayed.log == events
    return replayed


# -- generated games ---------------------------------------------------------------
@st.composite
def setups(draw: Any, start: date | None = None, full: bool | None = None) -> Game:
    """A game: a quarter on the full cast (28 + k players), the others on 5 to 9 Characters
    of the whole cast with 3 or 4 Extras."""
    if start is None:
        start = draw(st.sampled_from(STARTS))
    if full is None:
        full = draw(st.integers(0, 3)) == 0
    if full:
        ronde = draw(st.permutations(CHARACTERS))
        n_extras = 6 + draw(st.sampled_from(EXTRA_PLAYERS))
    else:
        ronde = draw(st.permutations(CHARACTERS))[: draw(st.integers(5, 9))]
        n_extras = draw(st.integers(3, 4))
    decorators = ["decorators"] if "decorators" in ronde else []  # two seats (R1.6)
    seats = [*ronde, *decorators, *["extra"] * n_extras]
    order = draw(st.permutations(range(len(seats))))
    cast = {PSEUDOS[i]: seats[j] for i, j in enumerate(order)}
    options: dict[str, str] = {}
    for rid in VARIED_OPTIONS:
        default, others = HOUSE_RULES[rid]
        value = draw(st.sampled_from([default, default, *others]))
        if value != default:
            options[rid] = value
    return Game.create(
        start=start,
        cast=cast,
        ronde=list(ronde),
        catalog=CATALOG,
        seed=draw(st.integers(0, 2**31)),
        players=list(cast),
        game_masters=[GM],
        options=options,
    )


class Driver:
    """Draws commands against the current state of ``game`` and plays them."""

    def __init__(self, data: st.DataObject, game: Game) -> None:
        self.data = data
        self.game = game
        self.j1 = day_start(game.state.start, 1).astimezone(UTC)
        self.minute = 23 * 60  # J1 23:00
        self.stats: Counter[str] = Counter()
        self.codes: Counter[str] = Counter()
        #: accepted commands by action, and refusals by (action, code)
        self.accepted: Counter[str] = Counter()
        self.refusals: Counter[tuple[str, str]] = Counter()

    # small helpers
    def draw(self, strategy: st.SearchStrategy[Any]) -> Any:
        return self.data.draw(strategy)

    def pick(self, items: list[Any]) -> Any:
        return self.draw(st.sampled_from(items))

    @property
    def g(self) -> GameState:
        return self.game.state

    def now(self) -> datetime:
        return (self.j1 + timedelta(minutes=self.minute)).astimezone(PARIS)

    def open_trials(self) -> list[Trial]:
        now = self.now()
        return [t for t in self.g.trials if t.status == "open" and now < t.deadline]

    def tick(self) -> datetime:
        """The next command's time: close to the last while trials are open."""
        # small steps for one large one while trials are open or a rare power is due
        odds = 8 if self.open_trials() or self.due_powers() else 1
        large = self.draw(st.integers(0, odds)) == odds
        step = self.draw(st.integers(90, 1800) if large else st.integers(0, 90))
        self.minute = min(self.minute + step, 13 * 1440 + 120)
        return self.now()

    def masked(self) -> list[Player]:
        return [p for p in self.g.players.values() if p.masked]

    def chorus(self) -> list[Player]:
        return [p for p in self.g.players.values() if not p.masked and p.alive]

    def vacant_extra(self) -> bool:
        g = self.g
        return sum(1 for p in g.players.values() if p.masked and p.character == "extra") < (
            g.n_extras
        )

    def free_today(self, p: Player) -> bool:
        day = self.g.day(self.now())
        if p.actions.get(day):
            return False
        return not (p.new_extra and p.actions.get(day - 1))

    def any_name(self) -> str:
        return self.pick([*PSEUDOS[: len(self.g.players)], "Zoe", GM])

    def any_character(self) -> str:
        return self.pick([*CHARACTERS, "extra", "decorators", "wody", "Petite Sirène"])

    # commands
    def command(self, at: datetime) -> Command:
        likely = {
            "open_trial": not self.open_trials(),
            "complain": bool(self.open_trials()),
            "post": bool(self.open_trials()),
            "announce": bool(self.unannounced()),
            "chorus_vote": bool(self.chorus()),
            "transfigure": bool(self.chorus()) and self.vacant_extra(),
            "power": bool(self.powerful()),
            "due_power": bool(self.due_powers()),
            "gm_due": bool(self.gm_due()),
            "key_fall": bool(self.falling_keys()),
            "advocate_post": bool(self.advocates()),
            "record_constraint": self.g.day(at) >= 2,
        }
        choices = [
            action
            for action, (base, bonus) in ACTION_WEIGHTS.items()
            for _ in range(base + (bonus if likely.get(action) else 0))
        ]
        action = self.pick(choices)
        smart = self.draw(st.integers(0, 9)) < 8
        make: Callable[[bool], tuple[str, dict[str, Any]]] = getattr(self, f"_{action}")
        self.action = action
        by, args = make(smart)  # a power names its own action
        return Command(self.action, by, at, args)

    def anonymous(self, p: Player, *, opening: bool) -> bool:
        """A new Extra acts anonymously; others when they have a right to (and want to)."""
        if p.new_extra:
            return True
        right = character_of(self.g, p).anonymous_right(self.g, p, opening=opening)
        return right is not None and self.draw(st.booleans())

    def _open_trial(self, smart: bool) -> tuple[str, dict[str, Any]]:
        actors = [p for p in self.masked() if p.unofficial is None and self.free_today(p)]
        if smart and actors:
            p = self.pick(actors)
            anonymous = self.anonymous(p, opening=True)
            targets = sorted(legal_targets(self.g, p, anonymous=anonymous))
            if targets:
                supposed = self.pick(targets)
                # now and then the Diva or Destiny's Character of the day (rare powers)
                keys = [c for c in self.key_characters() if c in targets]
                if keys and self.draw(st.booleans()):
                    supposed = self.pick(keys)
                holders = [s for s in self.g.masked_holders(supposed) if s != p.seat]
                others = [q.pseudo for q in self.masked() if q.seat != p.seat and q.active]
                if holders and self.draw(st.booleans()):
                    against = self.g.pseudo(holders[0])
                elif others:
                    against = self.pick(others)
                else:
                    against = p.pseudo
                return p.pseudo, {"against": against, "as": supposed, "anonymous": anonymous}
        return self.any_name(), {
            "against": self.any_name(),
            "as": self.any_character(),
            "anonymous": self.draw(st.booleans()),
        }

    def _complain(self, smart: bool) -> tuple[str, dict[str, Any]]:
        g = self.g
        trials = self.open_trials()
        if smart and trials:
            # mostly the trial with the most complaints: verdicts need four
            busiest = max(trials, key=lambda t: len(t.valid()))
            t = busiest if self.draw(st.booleans()) else self.pick(trials)
            forbid_self = g.opt("A13") == "forbidden"
            candidates = [
                p
                for p in self.masked()
                if p.unofficial is None
                and self.free_today(p)
                and p.seat != t.opener
                and not t.complained(p.seat)
                and not (forbid_self and p.seat in t.accused)
                and t.supposed in legal_targets(g, p, anonymous=p.new_extra)
            ]
            if candidates:
                p = self.pick(candidates)
                return p.pseudo, {"trial": t.number, "anonymous": self.anonymous(p, opening=False)}
        return self.any_name(), {
            "trial": self.draw(st.integers(0, len(g.trials) + 1)),
            "anonymous": self.draw(st.booleans()),
        }

    def _post(self, smart: bool) -> tuple[str, dict[str, Any]]:
        trials = self.open_trials()
        if smart and trials:
            # the Devil's Advocate and Chucky need a post of theirs in the trial (R7.3, R7.7)
            posters = [h for c in ("devils_advocate", "chucky") if (h := self.holder(c))]
            p = self.pick(posters) if posters and self.draw(st.integers(0, 3)) > 0 else None
            p = p or self.pick(self.masked())
            return p.pseudo, {"trial": self.pick(trials).number}
        return self.any_name(), {"trial": self.draw(st.integers(0, len(self.g.trials) + 1))}

    def _rehearse(self, smart: bool) -> tuple[str, dict[str, Any]]:
        return self.any_name(), {}

    def _chorus_vote(self, smart: bool) -> tuple[str, dict[str, Any]]:
        chorus, masked = self.chorus(), self.masked()
        live = [c for c in self.g.ronde if slot_live(self.g, c)]
        if smart and chorus and masked and live:
            q = self.pick(masked)
            keys = [k for c in self.key_characters() if (k := self.holder(c))]
            if keys and self.draw(st.booleans()):
                q = self.pick(keys)  # the chorus finds the Diva or Destiny's Character
            guess = q.character if q.character in live and self.draw(st.booleans()) else None
            return self.pick(chorus).pseudo, {
                "action": "investigate",
                "player": q.pseudo,
                "as": guess or self.pick(live),
            }
        return self.any_name(), {
            "action": self.pick(["investigate", "put_to_sleep", "dance"]),
            "player": self.any_name(),
            "as": self.any_character(),
        }

    def _record_constraint(self, smart: bool) -> tuple[str, dict[str, Any]]:
        today = self.g.day(self.now())
        masked = self.masked()
        if smart and masked and today >= 2:
            # half the time an Extra who fails: Extras unmasked start the boost (R2.8)
            # (and now and then Destiny's Character of the day or the Diva, whose fall
            # opens Destiny's shift and the Diva's last breath)
            extras = [p for p in masked if p.character == "extra"]
            keys = [q for c in self.key_characters() if (q := self.holder(c))]
            keys = [q for q in keys if self.has_duty(q, today)]
            failing = bool(extras) and self.draw(st.integers(0, 2)) > 0
            if keys and self.draw(st.integers(0, 3)) > 0:
                p = self.pick(keys)
                return GM, {"player": p.pseudo, "day": today, "met": False}
            p = self.pick(extras if failing else masked)
            # Destiny and the Diva stay masked unless nudged (their rare powers need it)
            met = not failing and (p.character in ("destiny", "diva") or self.draw(st.booleans()))
            return GM, {
                "player": p.pseudo,
                "day": self.draw(st.integers(max(2, today - 1), today)),
                "met": met,
            }
        return self.pick([GM, self.any_name()]), {
            "player": self.any_name(),
            "day": self.draw(st.integers(0, 14)),
            "met": self.draw(st.booleans()),
        }

    def _transfigure(self, smart: bool) -> tuple[str, dict[str, Any]]:
        chorus = self.chorus()
        if smart and chorus:
            return GM, {"player": self.pick(chorus).pseudo}
        return self.pick([GM, self.any_name()]), {"player": self.any_name()}

    def _use_joker(self, smart: bool) -> tuple[str, dict[str, Any]]:
        masked = self.masked()
        if smart and masked:
            p = self.pick(masked)
            module = character_of(self.g, p)
            items = sorted(getattr(module, "joker_items", ())) or ["item_cards", "item_money"]
            return p.pseudo, {"items": [self.pick(items)]}
        return self.any_name(), {
            "items": [self.pick(["item_cards", "item_money", "item_tekel", "no_such_item"])]
        }

    def _send_items(self, smart: bool) -> tuple[str, dict[str, Any]]:
        items = self.pick(
            [["item_home_box"], ["item_home_box_xl"], ["item_tekel"], ["item_home_box"] * 2]
        )
        return self.any_name(), {"items": items}

    def _guess_ronde(self, smart: bool) -> tuple[str, dict[str, Any]]:
        ronde = list(self.g.ronde)
        if smart:
            k = self.draw(st.integers(0, len(ronde) - 1))
            order = ronde[k:] + ronde[:k]
            if self.draw(st.booleans()):
                order = self.draw(st.permutations(ronde))
        else:
            order = self.draw(st.lists(st.sampled_from([*ronde, "extra"]), max_size=10))
        return self.any_name(), {"order": list(order)}

    def unannounced(self) -> list[Trial]:
        return [t for t in self.g.trials if t.concluded and not t.announced]

    def _announce(self, smart: bool) -> tuple[str, dict[str, Any]]:
        waiting = self.unannounced()
        if smart and waiting:
            return GM, {"trial": self.pick(waiting).number}
        return self.pick([GM, self.any_name()]), {
            "trial": self.draw(st.integers(0, len(self.g.trials) + 1))
        }

    def powers_of(self, p: Player) -> list[str]:
        """The powers ``p`` may use now: his Character's, or the fallen Diva's last breath."""
        if p.masked:
            # the last breath is the fallen Diva's (below)
            powers = sorted(
                set(character_of(self.g, p).actions()) & set(PLAYER_POWERS) - {"last_breath"}
            )
            if "shift_destiny" in powers and not self.destiny_shift_due(p):
                powers.remove("shift_destiny")
            for power in ("cancel_trial", "shorten_trial"):
                if power in powers and not self.posted_in(p):
                    powers.remove(power)
            day = self.g.day(self.now())
            for power, days in WINDOWS.items():
                if power in powers and day not in days and len(powers) > 1:
                    powers.remove(power)
            return powers
        diva = p.data.get("diva", {})
        fallen = diva.get("fallen_day")
        due = fallen is not None and self.g.day(self.now()) <= int(fallen) + 1  # A48
        return ["last_breath"] if due and "last_breath" not in diva else []

    def destiny_shift_due(self, p: Player) -> bool:
        """Destiny's Character of the day is already unmasked as she knows it (R7.16.5 a,
        A77), and no verdict against her freezes her actions."""
        if frozen_by(self.g, p.seat) is not None:
            return False
        with before_verdicts(self.g):
            today = REGISTRY["destiny"].entry(self.g, p, self.g.day(self.now()))  # type: ignore[attr-defined]
            return today is not None and not slot_live(self.g, today)

    def gm_possible(self, action: str) -> bool:
        """Whether the state gives a game masters' action something to act on."""
        if action in GM_NEEDS and not self.holder(GM_NEEDS[action]):
            return False
        if action == "record_order":
            return any(q.data.get("orders") for q in self.g.players.values())
        if action == "announce":
            return bool(self.unannounced())
        if action == "appoint_secretary":
            return bool(self.chorus())
        return True

    def posted_in(self, p: Player) -> list[Trial]:
        """Open trials ``p`` posted in (the Devil's Advocate's and Chucky's, R7.3, R7.7)."""
        return [t for t in self.open_trials() if p.seat in t.posters and p.seat not in t.accused]

    def powerful(self) -> list[Player]:
        return [p for p in self.g.players.values() if self.powers_of(p)]

    def holder(self, character: str) -> Player | None:
        seats = self.g.masked_holders(character)
        return self.g.players[seats[0]] if seats else None

    def args_for(self, action: str, actor: Player | None) -> dict[str, Any]:
        """The arguments ``action`` takes (FORMAT.md), drawn against the state; no other key."""
        g = self.g
        today = g.day(self.now())
        others = [q for q in self.masked() if actor is None or q.seat != actor.seat]
        player = self.pick(others).pseudo if others else self.any_name()
        live = [c for c in g.ronde if slot_live(g, c)] or list(g.ronde)
        dead = [c for c in g.ronde if not slot_live(g, c)]
        trials = self.open_trials() or g.trials
        trial = self.pick(trials).number if trials else 1
        character = self.pick(live)
        text = "Il fera beau demain, nous verrons bien ce que vous saurez."
        if action == "ask":
            q = g.players[g.seat_of(player) or ""] if g.seat_of(player) else None
            truth = q.character if q is not None and q.character in live else None
            return {
                "player": player,
                "as": truth if truth and self.draw(st.booleans()) else character,
            }
        if action in ("put_to_sleep", "reveal_secret", "grant_anonymous", "declare_not"):
            return {"player": player}
        if action == "accuse_monster":
            # mostly the right one: a wrong accusation unmasks the Hero (R7.17.5)
            monster = (actor.data.get("hunt") or {}).get("monster") if actor else None
            right = monster is not None and self.draw(st.integers(0, 3)) > 0
            return {"player": g.pseudo(monster) if right else player}
        if action in ("assign_mime_target", "record_death"):
            return {"player": player}
        if action == "order":
            kind = self.pick(["complain", "go_to", "take_item"])
            extra: dict[str, Any] = {
                "complain": {"trial": trial},
                "go_to": {"cell": [self.draw(st.integers(-3, 3)), self.draw(st.integers(-3, 3))]},
                "take_item": {"item": "item_cards"},
            }[kind]
            return {"player": player, "kind": kind, **extra}
        if action in ("cancel_trial", "shorten_trial"):
            mine = self.posted_in(actor) if actor is not None else []
            return {"trial": self.pick(mine).number if mine else trial}
        if action == "announce":
            return {"trial": trial}
        if action in ("choose_phrase", "set_guignol_constraint"):
            return {"text": text}
        if action == "prompt":
            return {"player": player, "theme_found": self.draw(st.booleans())}
        if action == "designate_monster":
            return {"character": self.pick([*live, "extra"])}
        if action == "designate":
            return {"character": character}
        if action == "last_breath":
            said = actor.data.get("diva", {}).get("designated", []) if actor else []
            return {"character": self.pick([c for c in live if c not in said] or live)}
        if action == "give_revenant_role":
            return {"character": self.pick(dead) if dead else character}
        if action == "declare_destiny":
            own = actor.character if actor is not None else None
            pool = [c for c in live if c != own]
            order = self.draw(st.permutations(pool)) if pool else []
            # twelve entries, J2 to J13; a small Ronde repeats them (A51 default)
            return {"list": [order[i % len(order)] for i in range(12)] if order else []}
        if action == "shift_destiny":
            sched = actor.data.get("destiny", {}).get("schedule", {}) if actor else {}
            own = actor.character if actor is not None else None
            fresh = [c for c in live if c not in sched.get("entries", []) and c != own]
            return {"append": self.pick(fresh) if fresh else character}
        if action == "record_order":
            ordered = [
                seat
                for q in g.players.values()
                for seat, o in q.data.get("orders", {}).items()
                if o.get("status") not in ("obeyed", "disobeyed")
            ] or [seat for q in g.players.values() for seat in q.data.get("orders", {})]
            target = g.pseudo(self.pick(ordered)) if ordered else player
            return {"player": target, "obeyed": self.draw(st.booleans())}
        if action == "send_excerpt":
            alice = self.holder("alice")
            return {"player": alice.pseudo if alice else player, "text": text}
        if action == "replace_player":
            fresh = [n for n in PSEUDOS if g.seat_of(n) is None] or ["Neo"]
            return {"player": player, "new": f"{self.pick(fresh)}{len(g.players)}"}
        if action == "award":
            points = self.draw(st.integers(-50, 50))
            return {"player": player, "points": points, "reason": "test"}
        if action == "exempt":
            days = [self.draw(st.integers(min(max(2, today), 13), min(13, today + 1)))]
            return {"player": player, "days": days}
        if action == "set_theme":
            return {
                "day": self.draw(st.integers(min(today, 13), min(13, today + 1))),
                "theme": "lune",
            }
        if action == "appoint_secretary":
            chorus = self.chorus()
            return {"player": self.pick(chorus).pseudo if chorus else player}
        raise AssertionError(f"no arguments known for {action}")

    def _power(self, smart: bool) -> tuple[str, dict[str, Any]]:
        powerful = self.powerful()
        if smart and powerful:
            p = self.pick(powerful)
            self.action = self.pick(self.powers_of(p))
            return p.pseudo, self.args_for(self.action, p)
        self.action = self.pick(PLAYER_POWERS)
        return self.any_name(), self.args_for(self.action, None)

    def key_characters(self) -> list[str]:
        """Masked Characters whose fall opens a rare power: the Diva (her last breath),
        Destiny's Character of the day (her shift)."""
        out = ["diva"] if self.holder("diva") else []
        destiny = self.holder("destiny")
        if destiny is not None:
            day = self.g.day(self.now())
            today = REGISTRY["destiny"].entry(self.g, destiny, day)  # type: ignore[attr-defined]
            if today and today != "destiny" and self.holder(today):
                out.append(today)
        return out

    def has_duty(self, p: Player, day: int) -> bool:
        """``p`` has a game-master-judged constraint on ``day``."""
        span = character_of(self.g, p).constraint_span(self.g, p)
        return span is not None and span[0] <= day <= span[1]

    def due_powers(self) -> list[tuple[Player, str]]:
        """Powers whose rare moment has come: the fallen Diva's last breath, Destiny's
        shift, the Devil's Advocate's and Chucky's trial after their post."""
        out = []
        for p in self.powerful():
            if p.character == "revenant":
                continue  # his module lists every role's power (R7.23), held or not
            hunting = bool((p.data.get("hunt") or {}).get("monster"))
            day = self.g.day(self.now())
            declared = day < 2 or day in p.data.get("declared_days", [])
            for power in self.powers_of(p):
                if power in RARE or (power == "accuse_monster" and hunting):
                    out.append((p, power))
                elif power == "declare_not" and not declared:
                    out.append((p, power))  # the Hero's daily declaration (R7.17)
                elif power == "reveal_secret" and day in WINDOWS[power]:
                    out.append((p, power))  # Polichinelle's secret days (R7.19)
        return out

    def falling_keys(self) -> list[Player]:
        """Destiny's Character of the day, masked, with a duty yesterday or today (his
        fall opens her shift, R7.16.5 a)."""
        day = self.g.day(self.now())
        keys = [q for c in self.key_characters() if c != "diva" and (q := self.holder(c))]
        return [q for q in keys if day >= 2 and self.key_day(q, day) is not None]

    def key_day(self, q: Player, day: int) -> int | None:
        """The day of ``q``'s duty a failure is recorded for: yesterday's takes effect at
        once (R6.21), so that Destiny may shift today (her shift needs her Character of
        the day fallen as she knows it, A77); else today's, at the end of the day."""
        if day >= 3 and self.has_duty(q, day - 1):
            return day - 1
        return day if self.has_duty(q, day) else None

    def _key_fall(self, smart: bool) -> tuple[str, dict[str, Any]]:
        keys = self.falling_keys()
        self.action = "record_constraint"
        if not keys:
            return self._record_constraint(smart)
        p = self.pick(keys)
        day = self.key_day(p, self.g.day(self.now()))
        return GM, {"player": p.pseudo, "day": day, "met": False}

    def advocates(self) -> list[tuple[Player, Trial]]:
        """(Devil's Advocate or Chucky, an open trial he has not posted in, not accused)."""
        out = []
        for c in ("devils_advocate", "chucky"):
            p = self.holder(c)
            if p is None:
                continue
            for t in self.open_trials():
                if p.seat not in t.posters and p.seat not in t.accused:
                    out.append((p, t))
        return out

    def _advocate_post(self, smart: bool) -> tuple[str, dict[str, Any]]:
        pairs = self.advocates()
        self.action = "post"
        if not pairs:
            return self._post(smart)
        p, t = self.pick(pairs)
        return p.pseudo, {"trial": t.number}

    def gm_due(self) -> list[str]:
        """Game masters' actions a state awaits: the ruling on a Little Mermaid's order,
        Guignol's secret constraint, a role for the Revenant once a Character has fallen."""
        out = []
        if any(
            o.get("status") not in ("obeyed", "disobeyed")
            for q in self.g.players.values()
            for o in q.data.get("orders", {}).values()
        ):
            out.append("record_order")
        if self.holder("guignol") and self.g.day(self.now()) < 8:
            out.append("set_guignol_constraint")
        dead = [c for c in self.g.ronde if not slot_live(self.g, c)]
        if dead and self.holder("revenant"):
            out.append("give_revenant_role")
        return out

    def _gm_due(self, smart: bool) -> tuple[str, dict[str, Any]]:
        due = self.gm_due()
        if not due:
            return self._game_master(smart)
        self.action = self.pick(due)
        return GM, self.args_for(self.action, None)

    def _due_power(self, smart: bool) -> tuple[str, dict[str, Any]]:
        due = self.due_powers()
        if not due:
            return self._power(smart)
        p, self.action = self.pick(due)
        return p.pseudo, self.args_for(self.action, p)

    def _game_master(self, smart: bool) -> tuple[str, dict[str, Any]]:
        actions = [a for a in GM_ACTIONS if self.gm_possible(a)]
        self.action = self.pick(actions if smart else GM_ACTIONS)
        return (GM if smart else self.any_name()), self.args_for(self.action, None)

    # playing
    def commands(self, steps: int) -> Iterator[Command]:
        """The opening powers (most games), ``steps`` drawn commands, then maybe the end
        of the game and a few more."""
        yield from self.opening()
        for _ in range(steps):
            at = self.tick()
            self.game.advance(at)
            yield self.command(at)
        finish = self.draw(st.sampled_from(["none", "none", "end_of_play", "end_game"]))
        if finish == "end_of_play":
            self.minute = 13 * 1440 + 60
            self.game.advance(self.now())
        elif finish == "end_game":
            self.minute = max(
                self.minute, self.draw(st.integers(self.minute, max(self.minute, 13 * 1440 + 60)))
            )
            self.game.advance(self.now())
            yield Command("end_game", GM, self.now(), {})
            for _ in range(self.draw(st.integers(0, 3))):
                at = self.tick()
                self.game.advance(at)
                yield self.command(at)

    def opening(self) -> Iterator[Command]:
        """The powers of J1 and J2 that later ones need (the Tragic Hero's monster, the
        Prompter's sentence, Destiny's schedule), each in three games out of four."""
        for action, character, minute in OPENING:
            p = self.holder(character)
            if p is None or minute < self.minute or self.draw(st.integers(0, 3)) == 0:
                continue
            self.minute = minute
            self.game.advance(self.now())
            yield Command(action, p.pseudo, self.now(), self.args_for(action, p))

    def run(self, command: Command) -> RuleViolation | None:
        """Execute one command; return its refusal, if any."""
        try:
            self.game.execute(command)
        except RuleViolation as rv:
            self.stats["refused"] += 1
            self.codes[rv.code] += 1
            self.refusals[command.action, rv.code] += 1
            return rv
        self.stats["accepted"] += 1
        self.accepted[command.action] += 1
        return None

    def summarise(self) -> Counter[str]:
        g = self.g
        self.stats["concluded"] = sum(1 for t in g.trials if t.concluded)
        self.stats["unmasked"] = len(g.unmask_order)
        self.stats["anonymous"] = sum(
            sum(1 for c in t.complaints if c.anonymous) + t.anonymous for t in g.trials
        )
        self.stats["new_extra"] = sum(1 for p in g.players.values() if p.transfigured_day)
        self.stats["verdict"] = sum(1 for t in g.trials if t.status in ("just", "unjust"))
        self.stats["announced"] = sum(1 for t in g.trials if t.announced)
        self.stats["boost"] = int(boost_on(g))
        for key in STAT_KEYS:
            if self.stats[key]:
                event(f"some {key}")
        return self.stats


def play(
    data: st.DataObject,
    *,
    steps: st.SearchStrategy[int] | None = None,
    start: date | None = None,
    after_each: Callable[[Game, Command, RuleViolation | None], None] | None = None,
) -> Driver:
    game = data.draw(setups(start))
    driver = Driver(data, game)
    for cmd in driver.commands(data.draw(steps or st.integers(30, 80))):
        refusal = driver.run(cmd)
        if after_each is not None:
            after_each(game, cmd, refusal)
    driver.summarise()
    return driver


# -- replay ---------------------------------------------------------------------------
@settings(SETTINGS, max_examples=examples(20))
@given(st.data())
def test_replay_rebuilds_the_same_state(data: st.DataObject) -> None:
    game = play(data).game
    replayed = Game.replay(game.log, default_catalog())
    a, b = dump(game.state), dump(replayed.state)
    assert a == b, diff(a, b)
    assert replayed.log == game.log


@settings(SETTINGS, max_examples=examples(20))
@given(st.data())
def test_json_lines_round_trip_rebuilds_the_same_state(data: st.DataObject) -> None:
    game = play(data).game
    text = store.dumps(game.log)
    assert text.count("\n") == len(game.log)
    replayed = json_round_trip(game)
    a, b = dump(game.state), dump(replayed.state)
    assert a == b, diff(a, b)
    assert store.dumps(replayed.log) == text


@settings(SETTINGS, max_examples=examples(20))
@given(st.data())
def test_a_reloaded_game_continues_like_the_live_one(data: st.DataObject) -> None:
    """Saving to JSON Lines and reloading mid-game (what every ``ronde act`` does)
    changes nothing about what happens next: same refusals, same events."""
    game = data.draw(setups())
    driver = Driver(data, game)
    steps = data.draw(st.integers(5, 40))
    cut = data.draw(st.integers(0, steps - 1))
    twin: Game | None = None
    for i, cmd in enumerate(driver.commands(steps)):
        if i == cut:
            twin = json_round_trip(game)
        refusal = driver.run(cmd)
        if twin is not None:
            try:
                twin.execute(cmd)
                twin_code = None
            except RuleViolation as rv:
                twin_code = rv.code
            assert twin_code == (refusal.code if refusal else None), cmd
    assert twin is not None
    end = day_start(game.state.start, 14) + timedelta(hours=1)
    game.advance(end)
    twin.advance(end)
    assert store.dumps(twin.log) == store.dumps(game.log)
    a, b = dump(game.state), dump(twin.state)
    assert a == b, diff(a, b)


# -- refusals ---------------------------------------------------------------------------
@settings(SETTINGS, max_examples=examples(25))
@given(st.data())
def test_a_refused_command_changes_nothing(data: st.DataObject) -> None:
    game = data.draw(setups())
    driver = Driver(data, game)
    seen: Counter[str] = Counter()
    for cmd in driver.commands(data.draw(st.integers(5, 40))):
        game.advance(cmd.at)
        before, length = dump(game.state), len(game.log)
        refusal = driver.run(cmd)
        if refusal is None:
            continue
        seen[refusal.code] += 1
        assert refusal.code in CODES, refusal
        assert len(game.log) == length, (cmd, game.log[length:])
        after = dump(game.state)
        assert after == before, (cmd, diff(before, after))
    for code in seen:
        event(f"refused {code}")


# -- accepted commands take effect ---------------------------------------------------------
def check_effect(game: Game, cmd: Command, refusal: RuleViolation | None) -> None:
    """An accepted game masters' command is in the state that replay rebuilds: the
    exemption, the theme, the award's line, the death, the replacement, the announcement."""
    if refusal is not None:
        return
    g = game.state
    args = cmd.args
    seat = g.seat_of(str(args.get("player", ""))) if "player" in args else None
    if cmd.action == "exempt":
        assert seat is not None and set(args["days"]) <= g.exemptions.get(seat, set()), cmd
    elif cmd.action == "set_theme":
        assert g.themes.get(int(args["day"])) == args["theme"], cmd
    elif cmd.action == "award":
        assert seat is not None and any(
            line.points == args["points"] for line in g.players[seat].lines
        ), cmd
    elif cmd.action == "record_death":
        assert seat is not None and not g.players[seat].alive, cmd
        assert seat not in g.chorus(), cmd
    elif cmd.action == "replace_player":
        assert g.seat_of(str(args["new"])) is not None, cmd
    elif cmd.action == "announce":
        assert g.trials[int(args["trial"]) - 1].announced, cmd


@settings(SETTINGS, max_examples=examples(20))
@given(st.data())
def test_accepted_game_master_commands_take_effect(data: st.DataObject) -> None:
    driver = play(data, after_each=check_effect)
    replayed = Game.replay(driver.game.log, default_catalog())
    assert replayed.state.exemptions == driver.game.state.exemptions


# -- targets and points ------------------------------------------------------------------
def check_targets(g: GameState) -> None:
    for p in g.players.values():
        if not p.masked:
            for anonymous in (False, True):
                assert legal_targets(g, p, anonymous=anonymous) == set(), p.pseudo
            continue
        for anonymous in (False, True):
            targets = legal_targets(g, p, anonymous=anonymous)
            assert p.character not in targets, (p.pseudo, p.character, targets)
            dead = {c for c in targets if not slot_live(g, c)}
            assert not dead, (p.pseudo, "unmasked characters among targets", dead)
            assert targets <= set(g.ronde), (p.pseudo, targets)


@settings(SETTINGS, max_examples=examples(25))
@given(st.data())
def test_legal_targets_never_hold_own_or_unmasked_characters(data: st.DataObject) -> None:
    play(data, after_each=lambda game, _cmd, _rv: check_targets(game.state))


def check_points(g: GameState) -> None:
    for p in g.players.values():
        assert p.points == sum(line.points for line in p.lines), p.pseudo
    board = {row["player"]: row["points"] for row in view(g, "game_master")["scoreboard"]}
    assert board == {p.pseudo: p.points for p in g.players.values()}


@settings(SETTINGS, max_examples=examples(25))
@given(st.data())
def test_points_are_the_sum_of_score_lines(data: st.DataObject) -> None:
    play(data, after_each=lambda game, _cmd, _rv: check_points(game.state))


# -- views ----------------------------------------------------------------------------------
def keys_of(obj: Any) -> Iterator[str]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield str(k)
            yield from keys_of(v)
    elif isinstance(obj, list):
        for x in obj:
            yield from keys_of(x)


def lists_of(obj: Any) -> Iterator[list[Any]]:
    if isinstance(obj, dict):
        for v in obj.values():
            yield from lists_of(v)
    elif isinstance(obj, list):
        yield obj
        for x in obj:
            yield from lists_of(x)


def ronde_orders(g: GameState) -> list[list[str]]:
    """Every rotation of the Ronde, both ways (ids and French names), except those
    that are merely sorted lists (a sorted list of targets tells no order)."""
    out = []
    for names in (list(g.ronde), [french_name(c) for c in g.ronde]):
        for seq in (names, names[::-1]):
            out += [seq[i:] + seq[:i] for i in range(len(seq))]
    return [x for x in out if x != sorted(x)]


def check_no_leaks(g: GameState) -> None:
    public = public_identities(g)
    secret_order = not g.game_ended
    orders = ronde_orders(g)

    board = view(g, "public")
    assert "ronde" not in set(keys_of(board))
    for pseudo, character in board["known"].items():
        seat = g.seat_of(pseudo)
        assert seat is not None, pseudo
        q = g.players[seat]
        if q.masked:
            assert public.get(seat) == character, ("public view reveals", pseudo, character)
    if secret_order:
        assert not [x for x in lists_of(board) if x in orders], "public view holds the Ronde"

    for p in g.players.values():
        v = view(g, p.pseudo)
        assert v["kind"] == "player"
        assert "ronde" not in set(keys_of(v)), p.pseudo
        if secret_order:
            bad = [x for x in lists_of(v) if x in orders]
            assert not bad, (p.pseudo, "sees the Ronde", bad)
        for pseudo, character in v["known"].items():
            seat = g.seat_of(pseudo)
            assert seat is not None, pseudo
            allowed = public.get(seat) == character or p.learned.get(seat) == character
            assert allowed, (p.pseudo, "knows", pseudo, character)
        if p.masked and g.days_closed >= 1:
            assert v["me"]["character"] == p.character
        text = json.dumps(v, ensure_ascii=False)
        for q in g.players.values():
            if q.seat == p.seat or not q.masked or q.character is None:
                continue
            if q.seat in public or q.seat in p.learned:
                continue
            for name in {q.character, french_name(q.character)}:
                pair = f'"{q.pseudo}": "{name}"'
                assert pair not in text, (p.pseudo, "sees", pair)


@settings(SETTINGS, max_examples=examples(20))
@given(st.data())
def test_views_leak_no_secret(data: st.DataObject) -> None:
    play(data, after_each=lambda game, _cmd, _rv: check_no_leaks(game.state))


def check_verdicts_wait_for_announcement(g: GameState) -> None:
    """Between the conclusion instant and the game masters' announcement (R4.7, R4.8,
    R4.11), nobody but the game masters knows the outcome."""
    for t in g.trials:
        if not (t.concluded and not t.announced):
            continue
        verdict_texts = [
            text
            for _at, _to, kind, text, data, public in g.messages
            if public and kind == "trial_ended" and data.get("trial") == t.number
        ]
        viewers = [("public", view(g, "public"))]
        viewers += [(p.pseudo, view(g, p.pseudo)) for p in g.players.values()]
        for who, v in viewers:
            shown = v["trials"][t.number - 1]
            assert shown["status"] not in ("just", "unjust"), (t.number, who, shown["status"])
            seen = json.dumps(v, ensure_ascii=False)
            for text in verdict_texts:
                assert text not in seen, (t.number, who, text)


@settings(SETTINGS, max_examples=examples(15))
@given(st.data())
def test_verdicts_stay_hidden_until_announced(data: st.DataObject) -> None:
    play(data, after_each=lambda game, _cmd, _rv: check_verdicts_wait_for_announcement(game.state))


def check_anonymity(g: GameState) -> None:
    viewers: list[tuple[str | None, dict[str, Any]]] = [(None, view(g, "public"))]
    viewers += [(seat, view(g, p.pseudo)) for seat, p in g.players.items()]
    announcements = {
        data.get("trial"): text
        for _at, _to, kind, text, data, public in g.messages
        if public and kind == "trial_opened"
    }
    gm = view(g, GM)
    for t in g.trials:
        anonymous_authors = {c.author for c in t.complaints if c.anonymous and c.author != CHORUS}
        gm_trial = gm["trials"][t.number - 1]
        gm_authors = [c["author"] for c in gm_trial["complaints"]]
        assert [g.pseudo(c.author) for c in t.complaints if c.author != CHORUS] == [
            a for a in gm_authors if a != "chœur"
        ]
        for seat, v in viewers:
            shown = v["trials"][t.number - 1]
            authors = [c["author"] for c in shown["complaints"]]
            for a in anonymous_authors:
                if a != seat:
                    assert g.pseudo(a) not in authors, (t.number, "anonymous", a, "shown to", seat)
                else:
                    assert g.pseudo(a) in authors
            if t.anonymous and t.opener != CHORUS:
                expected = g.pseudo(t.opener) if seat == t.opener else None
                assert shown["opener"] == expected, (t.number, seat, shown["opener"])
        if t.anonymous and t.opener != CHORUS:
            assert gm_trial["opener"] == g.pseudo(t.opener)
            assert f"par {g.pseudo(t.opener)} " not in announcements.get(t.number, "")


@settings(SETTINGS, max_examples=examples(20))
@given(st.data())
def test_anonymous_authors_stay_anonymous(data: st.DataObject) -> None:
    game = data.draw(setups())
    g = game.state
    # A prefix that makes anonymous actors likely: a Ronde player fails his J2
    # constraint, an Extra his J3 one, and the first is given a new Extra mask on
    # J4 (R8.16; not the Extra himself, A67).
    extras = [p.pseudo for p in g.players.values() if p.character == "extra"]
    failing = extras[data.draw(st.integers(0, len(extras) - 1))]
    early = [
        p.pseudo
        for p in g.players.values()
        if p.character != "extra" and (character_of(g, p).constraint_days or (9, 9))[0] <= 2
    ]
    assume(early)  # (a small cast may hold no Character bound from J2)
    first = early[0]
    prefix = [
        Command(
            "record_constraint", GM, at_(g, "J2 12:00"), {"player": first, "day": 2, "met": False}
        ),
        Command(
            "record_constraint", GM, at_(g, "J3 12:00"), {"player": failing, "day": 3, "met": False}
        ),
        Command("transfigure", GM, at_(g, "J4 08:00"), {"player": first}),
    ]
    driver = Driver(data, game)
    for cmd in prefix:
        # a cast where one fall brings another (a Decorator, a linked Extra) is set aside
        assume(driver.run(cmd) is None)
    assert g.players[g.seat_of(first)].new_extra
    driver.minute = 3 * 1440 + 9 * 60
    for cmd in driver.commands(data.draw(st.integers(5, 40))):
        driver.run(cmd)
        check_anonymity(game.state)
    driver.summarise()


def at_(g: GameState, text: str) -> datetime:
    return parse_time(text, g.start)


# -- the generator itself ---------------------------------------------------------------------
#: the guard's batch: derandomized (a fixed seed set), ``RONDE_PROPERTY_SCALE`` widens it
GUARD_GAMES = 160


@contextlib.contextmanager
def constants_of_no_module() -> Iterator[None]:
    """Hypothesis draws now and then a literal of the project's modules already imported
    (``providers._get_local_constants``): the guard's derandomized batch would then
    depend on which modules the run loaded before it (the whole suite, this file alone).
    Within the block the pool of local literals is empty, so the batch is the same in
    any run. (A private hook of Hypothesis: if it moves, the batch is merely as before.)"""
    from hypothesis.internal.conjecture import providers

    hook = getattr(providers, "_get_local_constants", None)
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if hook is None or cache is None:  # pragma: no cover - another Hypothesis
        yield
        return
    empty = providers.Constants()
    cache.cache.clear()
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = hook
        cache.cache.clear()


def test_generated_games_reach_every_action_verdicts_and_the_boost() -> None:
    """Guard against vacuous properties: over a fixed batch of generated games every
    action of the vocabulary is accepted at least once; most games reach a verdict and
    an unmasking, many an announcement and the boost; most commands are accepted.
    The thresholds sit a little under what the generator reaches today on these 160
    games (a verdict in 59 %, an announcement 44 %, the boost 51 %, an unmasking 90 %,
    an anonymous act 44 %, a new Extra 64 %; the same batch in any run, see
    :func:`constants_of_no_module`), so that a regressing generator fails. The rarest
    accepted actions: the fallen Diva's last breath and Destiny's shift."""
    totals: Counter[str] = Counter()
    games_with: Counter[str] = Counter()
    accepted: Counter[str] = Counter()
    refusals: Counter[tuple[str, str]] = Counter()

    @settings(SETTINGS, max_examples=examples(GUARD_GAMES), database=None, derandomize=True)
    @given(st.data())
    def run(data: st.DataObject) -> None:
        driver = play(data)
        totals.update(driver.stats)
        accepted.update(driver.accepted)
        refusals.update(driver.refusals)
        games_with["games"] += 1
        for key in STAT_KEYS:
            if driver.stats[key]:
                games_with[key] += 1

    with constants_of_no_module():
        run()
    games = games_with["games"]
    never = {a: [(c, n) for (x, c), n in refusals.items() if x == a] for a in VOCABULARY}
    never = {a: codes for a, codes in never.items() if not accepted[a] and a not in UNREACHED}
    assert not never, f"actions never accepted (their refusals): {never}"
    assert len(VOCABULARY) >= 39, sorted(VOCABULARY)
    assert totals["accepted"] >= 0.4 * (totals["accepted"] + totals["refused"]), totals
    assert games_with["verdict"] >= 0.45 * games, (games_with, totals)
    assert games_with["announced"] >= 0.4 * games, (games_with, totals)
    assert games_with["boost"] >= 0.45 * games, (games_with, totals)
    assert games_with["unmasked"] >= 0.75 * games, (games_with, totals)
    assert games_with["anonymous"] >= 0.15 * games, (games_with, totals)
    assert games_with["new_extra"] >= 0.4 * games, (games_with, totals)
