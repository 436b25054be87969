"""Trials and complaints (R4, R5) and their points (R9.1–R9.7, R9.25–R9.29).

Character-specific rules come from the registry's hooks; this module never
names a character except the Decorators' two-name accusation (R7.6.2), which is
a rule of the trial itself.
"""

from __future__ import annotations

from .character import answering, character_of
from .commands import Command
from .context import Context
from .errors import RuleViolation
from .names import nearest
from .state import CHORUS, Complaint, GameState, Player, Trial
from .unmasking import verdicts_awaited

STATUS_FR = {
    "concluded": "conclu, verdict à annoncer",
    "just": "JUSTE",
    "unjust": "INJUSTE",
    "lapsed": "annulé faute de plaintes",
    "cancelled": "annulé pour vice de procédure",
    "void": "sans objet",
}


# -- shared checks ---------------------------------------------------------------
#: the refusal of an opening, a power or any other game action after the end of play
#: under A12 ``full_window``, while the trials open then still receive complaints
OUT_OF_WINDOW = (
    "La fenêtre de jeu est close depuis la fin du J13 (A12) : plus d'ouverture de Procès "
    "ni de pouvoir ; seules les plaintes dans les Procès encore ouverts sont reçues."
)


def running(g: GameState) -> None:
    """Raise ``game_not_running`` once play has ended (A12, R10.2); under A12
    ``full_window``, ``out_of_window`` until the game masters end the game (the trials
    open at the end of J13 keep their 24 hours for complaints, nothing else runs)."""
    if g.play_ended and not g.game_ended and g.opt("A12") == "full_window":
        raise RuleViolation("out_of_window", OUT_OF_WINDOW)
    if g.play_ended or g.game_ended:
        raise RuleViolation("game_not_running", "La partie est terminée : plus d'action de jeu.")
    if g.day() < 1:
        raise RuleViolation("game_not_running", "La partie n'a pas commencé.")


def player_seat(g: GameState, name: object, *, role: str = "joueur") -> str:
    """The seat of the player named ``name``.

    Raises:
        RuleViolation: ``unknown_player`` with the nearest pseudo as suggestion.
    """
    seat = g.seat_of(str(name))
    if seat is None:
        near = nearest(str(name), [p.pseudo for p in g.players.values()])
        hint = f" Vouliez-vous dire « {near} » ?" if near else ""
        raise RuleViolation(
            "unknown_player", f"{role.capitalize()} inconnu : « {name} ».{hint}", suggestion=near
        )
    return seat


def trial_day(g: GameState) -> None:
    """Trials and complaints run from J2 (R1.9)."""
    if g.clock is not None and g.action_day(g.clock) < 2:
        raise RuleViolation("out_of_window", "Les Procès commencent au J2.")


def check_active(g: GameState, p: Player) -> None:
    """Masked, not unofficially unmasked, not asleep (R4.4.1, R5.2)."""
    if not p.masked:
        raise RuleViolation("actor_unmasked", f"{p.pseudo} est démasqué.")
    if p.unofficial is not None:
        raise RuleViolation("actor_unmasked", f"{p.pseudo} est officieusement démasqué (R4.15).")
    if p.seat in g.asleep.get(g.day(), set()):
        raise RuleViolation("asleep", f"{p.pseudo} est endormi aujourd'hui.")


def check_not_awaiting(g: GameState, seat: str) -> None:
    """A77 ``frozen``: the accused of a verdict not yet announced takes no action whose
    acceptance its outcome would change (trial actions, powers, chorus votes, requests
    such as a Joker), refused alike whatever the outcome (A77 clarification 1).

    Raises:
        RuleViolation: ``actor_unmasked``.
    """
    t = frozen_by(g, seat)
    if t is not None:
        raise RuleViolation(
            "actor_unmasked",
            f"{g.pseudo(seat)} attend l'annonce du verdict du Procès n°{t.number} : "
            "aucune action de jeu d'ici là (A77).",
        )


def frozen_by(g: GameState, seat: str) -> Trial | None:
    """Under A77 ``frozen``, the verdict not yet announced against ``seat`` that freezes
    his actions until its announcement: one whose JUST outcome would unmask him (not
    the Diva's first trial, not Guignol's from J8: hook ``keeps_mask_if_just``, read
    from public facts), so that whether he may act would tell the outcome."""
    if g.opt("A77") != "frozen":
        return None
    p = g.players[seat]
    for t in verdicts_awaited(g, seat):
        named = g.characters.get(t.supposed)
        if named is None or not named.keeps_mask_if_just(g, p, t):
            return t
    return None


#: the player actions that the accused of a verdict not yet announced may still take
#: (A77 ``frozen``): those accepted alike, masked or unmasked: a post in a trial topic
#: (an opinion, R4.5), a Rehearsals post (R7.1.2: the unmasked keep taking part), items
#: sent to the game masters (R6.18: anybody), the guess of the Ronde (R10.3, A71)
ALIKE_WHATEVER_THE_OUTCOME = frozenset({"post", "rehearse", "send_items", "guess_ronde"})


def legal_targets(g: GameState, p: Player, *, anonymous: bool) -> set[str]:
    """The player's legal targets now (R2.10); none once unmasked (R8.4)."""
    if not p.masked:
        return set()
    return character_of(g, p).legal_targets(g, p, anonymous=anonymous)


def quota_refusal(g: GameState, p: Player, *, opening: bool, anonymous: bool) -> str | None:
    """Why today's quota forbids this trial action, or ``None`` (R5.14–R5.16, A21, A29)."""
    rv = quota_violation(g, p, opening=opening, anonymous=anonymous)
    return rv.message if rv is not None else None


def _spent(why: str) -> RuleViolation:
    """A quota spent (``daily_limit``)."""
    return RuleViolation("daily_limit", why)


def quota_violation(
    g: GameState, p: Player, *, opening: bool, anonymous: bool
) -> RuleViolation | None:
    """The refusal today's quota or calendar gives this trial action, or ``None``:
    ``daily_limit`` for a quota spent (a new Extra acting two days running under A29
    ``no_consecutive`` included), ``out_of_window`` for a day A29 ``parity`` does not
    allow (FORMAT.md's table of codes)."""
    day = g.action_day(g.clock) if g.clock else 0
    today = p.actions.get(day, ())
    doubled = bool(g.flags.get("double_complaints"))
    if p.new_extra:
        if today and (not doubled or len(today) >= 1):
            return _spent("Un nouveau Figurant participe au plus une fois par jour.")
        if not doubled:
            # (two days running is a quota spent under either reading, FORMAT.md; under
            # ``parity`` a day of the other parity is a day the rule does not allow)
            if p.actions.get(day - 1):
                return _spent("Un nouveau Figurant ne participe pas deux jours de suite.")
            if g.opt("A29") == "parity" and (day - (p.transfigured_day or 0) - 1) % 2:
                return RuleViolation(
                    "out_of_window", "Un nouveau Figurant ne participe qu'un jour sur deux."
                )
        return None
    allowed = 1 + character_of(g, p).extra_actions(g, p, anonymous=anonymous)
    if not doubled:
        return None if len(today) < allowed else _spent("Une seule action de Procès par jour.")
    mode = g.opt("A21")
    openings = sum(1 for kind, _, _ in today if kind == "open")
    if len(today) >= allowed + 1:
        return _spent("Deux actions de Procès par jour au plus.")
    if mode == "one_opening" and opening and openings:
        return _spent("Une seule ouverture de Procès par jour.")
    if mode == "complaints_only" and today and (opening or openings):
        return _spent("Après une ouverture, plus d'autre action aujourd'hui.")
    return None


def accusation_truth(g: GameState, t: Trial) -> bool:
    """Whether the accusation is true now (R4.9 with its overrides, R9.25)."""
    accused = [g.players[s] for s in t.accused]
    if g.opt("A75") == "any_unmasked" and t.flags.get("named_unmasked"):
        return False  # an unmasked Character named (A75): UNJUST, Revenant or not
    for a in accused:
        override = character_of(g, a).accusation_true(g, a, t)
        if override is not None:
            return override
    if not all(a.masked or a.unofficial for a in accused):
        return all(a.original == t.supposed for a in accused)
    if len(accused) > 1:
        holders = set(g.masked_holders(t.supposed))
        return set(t.accused) == holders
    return all(a.character == t.supposed for a in accused)


def anonymous_right(g: GameState, p: Player, *, opening: bool) -> str | None:
    """The anonymous right ``p`` would use now (R5.5): his character's own, or one
    another character gave him (Polichinelle's gift); ``None`` if he has none."""
    own = character_of(g, p).anonymous_right(g, p, opening=opening)
    if own is not None:
        return own
    for module in answering(g, "grants_anonymous"):
        granted = module.grants_anonymous(g, p, opening=opening)
        if granted is not None:
            return granted
    return None


def compelled(g: GameState, p: Player, t: Trial) -> bool:
    """Whether a power compels ``p`` to complain in ``t`` now (R7.10.4, R5.16.5)."""
    return any(module.compels_complaint(g, p, t) for module in answering(g, "compels_complaint"))


# -- complaints (R5, R5.17) ---------------------------------------------------------
def trial_of(g: GameState, cmd: Command) -> Trial:
    """The trial named by ``trial`` in a command.

    Raises:
        RuleViolation: ``unknown_trial``.
    """
    number = cmd.get("trial")
    if number is None:
        raise RuleViolation("unknown_trial", "Procès non précisé : argument « trial » manquant.")
    try:
        t = g.trial(cmd.integer("trial"))
    except RuleViolation:
        t = None
    if t is None:
        raise RuleViolation("unknown_trial", f"Procès inconnu : {number}.")
    return t


#: why a complaint is refused (``trial_closed``): the trial's 24 hours are over (R5.2),
#: it was shortened (R7.7.4), it is over (R4.8); the forum bridge words its refusals so
CLOSED_BY_TIME = "Les 24 heures de ce Procès sont écoulées."
CLOSED_BY_SHORTENING = "Ce Procès a été écourté : plus aucune plainte n'est reçue."
CLOSED_BY_VERDICT = "Ce Procès est terminé."


def complaint_closed(g: GameState, t: Trial) -> str | None:
    """Why no complaint can be filed in ``t`` now, or ``None`` (R4.8, R5.2)."""
    if g.clock is not None and g.clock >= t.deadline:
        return CLOSED_BY_TIME
    if t.status == "open":
        return None
    if t.flags.get("shortened_by"):  # closed at the shortening, announced or not (R7.7.4)
        return CLOSED_BY_SHORTENING
    if t.concluded and not t.announced:
        return None
    return CLOSED_BY_VERDICT


def is_null(g: GameState, t: Trial, author: str) -> bool:
    """Whether a complaint by ``author`` in ``t`` is null (R5.12)."""
    p = g.players[author]
    if character_of(g, p).null_as_author(g, p, t):
        return True
    if any(module.complaint_null(g, p, t) for module in answering(g, "complaint_null")):
        return True
    for s in t.accused:
        a = g.players[s]
        if character_of(g, a).null_against(g, a, p, t):
            return True
    return False


def quorum_count(g: GameState, t: Trial) -> int:
    """Valid complaints that count towards the quorum of 4 (R4.6, A15; the Diva's
    anonymous ones are public, R7.14.1)."""
    public_only = g.opt("A15") == "public_only"
    return sum(1 for c in t.valid() if not (public_only and t.anonymous_to_others(c)))


# -- points (R9.1–R9.7, R9.25–R9.29) -------------------------------------------------
def _scorers(t: Trial, c: Complaint | None = None) -> tuple[str, ...]:
    if c is None:
        return t.members if t.opener == CHORUS else (t.opener,)
    return c.members if c.author == CHORUS else (c.author,)


def opener_scores(g: GameState, t: Trial) -> bool:
    """Whether the opener scores the trial rows (R9.26; the chorus always does, R9.13)."""
    if t.opener == CHORUS:
        return True
    p = g.players[t.opener]
    return character_of(g, p).scores_in_trials(g, p, t, None)


def score_trial(
    ctx: Context, t: Trial, truth: bool, *, did_not_conclude: bool, unmasked: bool
) -> None:
    """Award the trial rows to the opener and each valid complainant (R9.29)."""
    g = ctx.g
    valid = t.valid()
    n = len({c.author for c in valid})
    n_label = f"Procès n°{t.number}"
    if opener_scores(g, t):
        for s in _scorers(t):
            if truth:
                ctx.award(s, 100, f"{n_label} : ouverture, accusation vraie", "R9.1", t.number)
            else:
                ctx.award(s, -50, f"{n_label} : ouverture, accusation fausse", "R9.2", t.number)
            if n:
                ctx.award(s, 20 * n, f"{n_label} : {n} plainte(s) valide(s) × 20", "R9.3", t.number)
            if did_not_conclude:
                ctx.award(s, -80, f"{n_label} : n'a pas abouti", "R9.6", t.number)
            if unmasked:
                ctx.award(s, 200, f"{n_label} : a démasqué l'accusé", "R9.7", t.number)
    for c in valid:
        if not c.scores:
            continue
        for s in _scorers(t, c):
            _score_complaint(ctx, t, s, truth, did_not_conclude=did_not_conclude, unmasked=unmasked)


def _score_complaint(
    ctx: Context, t: Trial, seat: str, truth: bool, *, did_not_conclude: bool, unmasked: bool
) -> None:
    label = f"Procès n°{t.number}"
    if truth:
        ctx.award(seat, 100, f"{label} : plainte, accusation vraie", "R9.4", t.number)
    else:
        ctx.award(seat, -50, f"{label} : plainte, accusation fausse", "R9.5", t.number)
    if did_not_conclude:
        ctx.award(seat, -80, f"{label} : n'a pas abouti", "R9.6", t.number)
    if unmasked:
        ctx.award(seat, 200, f"{label} : a démasqué l'accusé", "R9.7", t.number)


def _score_late(ctx: Context, t: Trial, c: Complaint) -> None:
    """A complaint after the conclusion, before the announcement (R4.8, A16)."""
    g = ctx.g
    if c.null or g.opt("A16") == "ignored":
        return
    truth = bool(t.truth)
    unmasked = bool(t.flags.get("unmasked"))  # (whether it unmasked, announced or not)
    if c.scores:
        for s in _scorers(t, c):
            _score_complaint(ctx, t, s, truth, did_not_conclude=False, unmasked=unmasked)
    if opener_scores(g, t):
        for s in _scorers(t):
            ctx.award(s, 20, f"Procès n°{t.number} : plainte tardive × 20", "R9.3", t.number)
