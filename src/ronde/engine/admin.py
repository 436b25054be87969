"""Game-master actions and the few remaining player actions (R1.4, R7.1.2, R8.16, R10)."""

from __future__ import annotations

from .character import answering
from .chorus import appoint_secretary
from .clock import LAST_DAY
from .commands import Command
from .context import Context
from .errors import RuleViolation
from .events import (
    GameEnded,
    PlayEnded,
    PlayerDied,
    PlayerReplaced,
    Posted,
    Rehearsed,
    RondeGuessed,
    ThemeSet,
    Transfigured,
)
from .names import RESERVED_NAMES, fold_name, french_name, resolve_character
from .state import GameState
from .trials import player_seat, running, trial_of
from .unmasking import hidden_unmaskings
from .verdicts import end_trial, publish, unmask


def set_theme(ctx: Context, cmd: Command, actor: str) -> None:
    """``set_theme`` (game master): ``day``, ``theme`` — told privately to the Extras (R7.1.3)."""
    g = ctx.g
    day = cmd.integer("day")
    if not 1 <= day <= LAST_DAY:
        raise RuleViolation("invalid_argument", f"Jour hors de la partie : {day}.")
    theme = str(cmd.require("theme")).strip()
    if not theme:
        raise RuleViolation("invalid_argument", "Thème vide.")
    ctx.emit(ThemeSet(at=ctx.now, day=day, theme=theme, by=cmd.by))
    # an Extra a verdict unmasked gets it until the verdict is announced (A77)
    hidden = {s for s, c in hidden_unmaskings(g).items() if c == "extra"}
    extras = [
        s for s, p in g.players.items() if (p.masked and p.character == "extra") or s in hidden
    ]
    ctx.tell(extras, "theme", f"Thème du J{day} : {theme}.", day=day, theme=theme)


def rehearse(ctx: Context, cmd: Command, actor: str) -> None:
    """``rehearse``: a post in the day's Rehearsals topic (R7.1.2, R9.20, A69)."""
    g = ctx.g
    running(g)
    day = g.action_day(ctx.now)
    first = 1 if g.opt("A3") == "from_j1" else 2
    if day < first:
        raise RuleViolation("out_of_window", "Les Répétitions commencent au J2.")
    ctx.emit(Rehearsed(at=ctx.now, player=actor, day=day))


def post(ctx: Context, cmd: Command, actor: str) -> None:
    """``post``: an opinion in a trial topic (R4.5); ``defends`` records a defence."""
    g = ctx.g
    t = trial_of(g, cmd)
    running(g)
    defends = cmd.get("defends")
    seat = player_seat(g, defends) if defends is not None else None
    if seat is not None and seat not in t.accused and seat != t.opener and not t.complained(seat):
        raise RuleViolation("invalid_argument", f"{g.pseudo(seat)} ne participe pas à ce Procès.")
    ctx.emit(Posted(at=ctx.now, player=actor, trial=t.number, defends=seat))
    for module in answering(g, "after_post"):
        module.after_post(ctx, t, actor, seat)


def transfigure(ctx: Context, cmd: Command, actor: str) -> None:
    """``transfigure`` (game master): a member of the chorus gets a new Extra mask (R8.16, A67).

    Raises:
        RuleViolation: ``not_allowed`` if the player is not in the chorus, no Extra
            seat is vacant, or he was unmasked with the Extra he would replace (A67).
    """
    g = ctx.g
    running(g)
    seat = player_seat(g, cmd.require("player"))
    p = g.players[seat]
    if p.masked or not p.alive:
        raise RuleViolation("not_allowed", f"{p.pseudo} n'est pas membre du chœur des Démasqués.")
    masked_extras = sum(1 for q in g.players.values() if q.masked and q.character == "extra")
    if masked_extras >= g.n_extras:
        raise RuleViolation("not_allowed", "Aucune place de Figurant n'est vacante.")
    if g.opt("A67") == "exclude_just_unmasked":
        fallen = _fallen_extras(g)  # (once, not per player: the messages do not change here)
        last_extra = max(
            (
                q.unmasked_at
                for q in g.players.values()
                if q.unmasked_at is not None and not q.masked and q.seat in fallen
            ),
            default=None,
        )
        if last_extra is not None and p.unmasked_at == last_extra:
            raise RuleViolation(
                "not_allowed", f"{p.pseudo} vient d'être démasqué avec ce Figurant (A67)."
            )
    ctx.emit(Transfigured(at=ctx.now, player=seat, by=cmd.by))
    ctx.tell([seat], "transfigured", "Vous recevez un nouveau masque de Figurant.")


def _fallen_extras(g: GameState) -> set[str]:
    """Seats whose last unmasking was as an Extra."""
    out: set[str] = set()
    for _at, _to, kind, _text, data, public in g.messages:
        if kind == "unmasking" and public and data.get("character") == "extra":
            out.add(str(data.get("player")))
    return out


def award(ctx: Context, cmd: Command, actor: str) -> None:
    """``award`` (game master): ``player``, ``points``, ``reason`` — MJ verdict points
    (R9.14, R9.17, R9.18, R9.21) or a correction."""
    g = ctx.g
    seat = player_seat(g, cmd.require("player"))
    points = cmd.integer("points")
    reason = str(cmd.get("reason", "") or "décision des MJ")
    ctx.award(seat, points, f"{reason} (MJ {cmd.by})", "R9")


def replace_player(ctx: Context, cmd: Command, actor: str) -> None:
    """``replace_player`` (game master): ``player`` and ``new`` pseudo; the seat keeps
    its character, points and history, the old pseudo no longer acts."""
    g = ctx.g
    seat = player_seat(g, cmd.require("player"))
    new = str(cmd.require("new")).strip()
    key = fold_name(new)
    # (a name Ronde reserves, as for a roster: « game_master » would read the game
    # masters' view, « public » the public's)
    if not key or key in RESERVED_NAMES or g.seat_of(new) is not None or g.is_game_master(new):
        raise RuleViolation(
            "invalid_argument", f"Pseudo impossible pour le remplaçant : « {new} »."
        )
    ctx.emit(PlayerReplaced(at=ctx.now, player=seat, old=g.pseudo(seat), new=new, by=cmd.by))


def record_death(ctx: Context, cmd: Command, actor: str) -> None:
    """``record_death`` (game master): a player's citizen died (R1.11, A4)."""
    g = ctx.g
    seat = player_seat(g, cmd.require("player"))
    if not g.players[seat].alive:
        raise RuleViolation("not_allowed", f"{g.pseudo(seat)} est déjà mort.")
    ctx.emit(PlayerDied(at=ctx.now, player=seat))
    if g.opt("A4") == "death_unmasks":
        unmask(ctx, seat, "death", "A4")


def guess_ronde(ctx: Context, cmd: Command, actor: str) -> None:
    """``guess_ronde``: ``order``, the whole Ronde from any slot; one attempt (R10.3, A71).

    Raises:
        RuleViolation: ``power_exhausted`` (second guess), ``invalid_argument`` (not
            every slot exactly once), ``unknown_character``.
    """
    g = ctx.g
    running(g)
    p = g.players[actor]
    if p.guess is not None:
        raise RuleViolation("power_exhausted", f"{p.pseudo} a déjà proposé une Ronde.")
    raw = cmd.require("order")
    if not isinstance(raw, list | tuple):
        raise RuleViolation("invalid_argument", "La Ronde proposée doit être une liste.")
    order = tuple(resolve_character(str(c)) for c in raw)
    if sorted(order) != sorted(g.ronde):
        raise RuleViolation(
            "invalid_argument",
            f"La Ronde proposée doit nommer chacune des {len(g.ronde)} cases une fois.",
        )
    ctx.emit(RondeGuessed(at=ctx.now, player=actor, order=order, correct=ronde_matches(g, order)))


def ronde_matches(g: GameState, order: tuple[str, ...]) -> bool:
    """Whether ``order`` is the Ronde up to rotation (A71; or exact start, or reversed too)."""
    true = list(g.ronde)
    mode = g.opt("A71")
    if mode == "exact_start":
        return list(order) == true
    n = len(true)
    rotations = [true[i:] + true[:i] for i in range(n)]
    if list(order) in rotations:
        return True
    if mode == "rotation_or_reverse":
        rev = true[::-1]
        return list(order) in [rev[i:] + rev[:i] for i in range(n)]
    return False


def end_game(ctx: Context, cmd: Command, actor: str) -> None:
    """``end_game`` (game master): settle end-of-game points and close (R10.2, R10.4, A72)."""
    g = ctx.g
    if g.game_ended:
        raise RuleViolation("game_not_running", "La partie est déjà close.")
    # the verdicts still waiting are announced first, in the order they were reached: the
    # end of the game publishes everything (R4.8, A72), a failure held for one of them
    # takes effect (R4.15) and every point counts (house rule)
    waiting = [t for t in g.unsettled_trials() if t.concluded and not t.announced]
    for t in sorted(waiting, key=lambda t: (t.ended_at, t.number)):
        publish(ctx, t, cmd.by)
    if not g.play_ended:
        end_play(ctx)
    settle_end(ctx)
    ctx.emit(GameEnded(at=ctx.now, by=cmd.by))
    ronde = ", ".join(french_name(c) for c in g.ronde)
    # A72: the Ronde and every Character (the masked ones' too) are published
    cast = {p.pseudo: p.character or g.revealed.get(s, "") for s, p in g.players.items()}
    who = " ; ".join(f"{name} : {french_name(c)}" for name, c in cast.items() if c)
    ctx.announce(
        "final_reveal",
        f"Fin de la partie. La Ronde était : {ronde}. Les Personnages : {who}.",
        ronde=list(g.ronde),
        characters=cast,
    )


def end_play(ctx: Context) -> None:
    """End of play (A12): open trials become void or lapse; no more game actions."""
    g = ctx.g
    mode = g.opt("A12")
    for t in g.open_trials():
        if mode.endswith("void"):
            end_trial(ctx, t, "void", reason="fin du jeu (A12)")
        elif mode.endswith("lapse"):
            end_trial(ctx, t, "lapsed", reason="fin du jeu (A12)")
    ctx.emit(PlayEnded(at=ctx.now))


def settle_end(ctx: Context) -> None:
    """End-of-game points (R10.4): investigations, the Ronde guess, daily FV
    participation and Rehearsals (R9.8, R9.16, R9.19, R9.20, A64, A68, A69)."""
    g = ctx.g
    chorus_at_end = tuple(sorted(g.chorus()))
    for day, seat, character, members, correct in g.investigations:
        if not correct:
            continue
        paid = chorus_at_end if g.opt("A64") == "at_end" else members
        for s in paid:
            ctx.award(
                s,
                50,
                f"Enquête juste du chœur (J{day} : {g.pseudo(seat)} est {french_name(character)})",
                "R9.8",
            )
    for line in g.flags.get("chorus_held", []):  # A64 ``at_end``: every other chorus point
        for s in chorus_at_end:
            ctx.award(
                s, line.points, f"{line.reason} (payé en fin de partie, A64)", line.rule, line.trial
            )
    if g.first_right_guess is not None:
        ctx.award(g.first_right_guess, 200, "Première Ronde devinée en entier", "R9.16")
    first_day = 1 if g.opt("A68") == "j1_to_j13" else 2
    every_day = set(range(first_day, LAST_DAY + 1))
    for seat, p in g.players.items():
        if every_day <= p.forum_days:
            ctx.award(seat, 50, "Présent sur le FV chaque jour", "R9.19")
        count = len(p.rehearsal_days) if g.opt("A69") == "days" else p.rehearsal_posts
        if count >= 10:
            ctx.award(seat, 50, f"Répétitions : {count} participations", "R9.20")
        elif count <= 6:
            ctx.award(seat, -50, f"Répétitions : {count} participation(s) seulement", "R9.20")


__all__ = [
    "appoint_secretary",
    "award",
    "end_game",
    "end_play",
    "guess_ronde",
    "post",
    "record_death",
    "rehearse",
    "replace_player",
    "set_theme",
    "settle_end",
    "transfigure",
]
