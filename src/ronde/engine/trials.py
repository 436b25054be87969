"""Trials and complaints (R4, R5) and their points (R9.1–R9.7, R9.25–R9.29).

Character-specific rules come from the registry's hooks; this module never
names a character except the Decorators' two-name accusation (R7.6.2), which is
a rule of the trial itself.
"""

from __future__ import annotations

from collections.abc import Mapping

from .characters import REGISTRY, character_of
from .commands import Command
from .context import Context
from .errors import RuleViolation
from .events import ComplaintFiled, TrialAnnounced, TrialEnded, TrialOpened
from .names import french_name, nearest, resolve_character
from .ronde import revived
from .state import CHORUS, Complaint, GameState, Player, Trial
from .unmasking import (
    MOOT,
    announce_unmasking,
    awaiting_verdict,
    held_by,
    hidden_unmaskings,
    settle_unofficial,
    unmask,
)
from .visibility import notify_new_targets

STATUS_FR = {
    "concluded": "conclu, verdict à annoncer",
    "just": "JUSTE",
    "unjust": "INJUSTE",
    "lapsed": "annulé faute de plaintes",
    "cancelled": "annulé pour vice de procédure",
    "void": "sans objet",
}


# -- shared checks ---------------------------------------------------------------
def running(g: GameState) -> None:
    """Raise ``game_not_running`` once play has ended (A12, R10.2)."""
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
    """A77 ``frozen``: the accused of a verdict not yet announced takes no trial action
    (opening, complaint, a power aimed at a trial), refused alike whatever the outcome.

    Raises:
        RuleViolation: ``actor_unmasked``.
    """
    t = awaiting_verdict(g, seat)
    if t is not None and g.opt("A77") == "frozen":
        raise RuleViolation(
            "actor_unmasked",
            f"{g.pseudo(seat)} attend l'annonce du verdict du Procès n°{t.number} : "
            "aucune action de Procès d'ici là (A77).",
        )


#: trial actions (A77): the player actions that are not a power aimed at a trial though
#: they name one (a post in a trial topic is an opinion, R4.5)
NOT_TRIAL_ACTIONS = frozenset({"post"})


def is_trial_action(action: str, args: Mapping[str, object]) -> bool:
    """Opening, complaining, or a power aimed at a trial (it names one)."""
    if action in ("open_trial", "complain"):
        return True
    return "trial" in args and action not in NOT_TRIAL_ACTIONS


def legal_targets(g: GameState, p: Player, *, anonymous: bool) -> set[str]:
    """The player's legal targets now (R2.10); none once unmasked (R8.4)."""
    if not p.masked:
        return set()
    return character_of(p).legal_targets(g, p, anonymous=anonymous)


def quota_refusal(g: GameState, p: Player, *, opening: bool, anonymous: bool) -> str | None:
    """Why today's quota forbids this trial action, or ``None`` (R5.14–R5.16, A21, A29)."""
    day = g.action_day(g.clock) if g.clock else 0
    today = p.actions.get(day, [])
    doubled = bool(g.flags.get("double_complaints"))
    if p.new_extra:
        if today and (not doubled or len(today) >= 1):
            return "Un nouveau Figurant participe au plus une fois par jour."
        if not doubled:
            if g.opt("A29") == "parity":
                first = (p.transfigured_day or 0) + 1
                if (day - first) % 2:
                    return "Un nouveau Figurant ne participe qu'un jour sur deux."
            elif p.actions.get(day - 1):
                return "Un nouveau Figurant ne participe pas deux jours de suite."
        return None
    allowed = 1 + character_of(p).extra_actions(g, p, anonymous=anonymous)
    if not doubled:
        return None if len(today) < allowed else "Une seule action de Procès par jour."
    mode = g.opt("A21")
    openings = sum(1 for kind, _, _ in today if kind == "open")
    if len(today) >= allowed + 1:
        return "Deux actions de Procès par jour au plus."
    if mode == "one_opening" and opening and openings:
        return "Une seule ouverture de Procès par jour."
    if mode == "complaints_only" and today and (opening or openings):
        return "Après une ouverture, plus d'autre action aujourd'hui."
    return None


def accusation_truth(g: GameState, t: Trial) -> bool:
    """Whether the accusation is true now (R4.9 with its overrides, R9.25)."""
    accused = [g.players[s] for s in t.accused]
    if g.opt("A75") == "any_unmasked" and t.flags.get("named_unmasked"):
        return False  # an unmasked Character named (A75): UNJUST, Revenant or not
    for a in accused:
        override = character_of(a).accusation_true(g, a, t)
        if override is not None:
            return override
    if not all(a.masked or a.unofficial for a in accused):
        return all(a.original == t.supposed for a in accused)
    if len(accused) > 1:
        holders = set(g.masked_holders(t.supposed))
        return set(t.accused) == holders
    return all(a.character == t.supposed for a in accused)


# -- opening (R4.1–R4.4, R5.8) ----------------------------------------------------
def open_trial(ctx: Context, cmd: Command, actor: str) -> None:
    """``open_trial``: ``against`` (a pseudo, or two for the Decorators), ``as``, ``anonymous``.

    Raises:
        RuleViolation: see R4.4 and FORMAT.md for the codes.
    """
    g = ctx.g
    running(g)
    trial_day(g)
    p = g.players[actor]
    check_active(g, p)
    anonymous = cmd.flag("anonymous")
    raw = cmd.require("against")
    names = [str(x) for x in raw] if isinstance(raw, list | tuple) else [str(raw)]
    accused = tuple(player_seat(g, n, role="accusé") for n in names)
    supposed = resolve_character(str(cmd.require("as")))
    if len(set(accused)) != len(accused):
        raise RuleViolation("invalid_argument", "Le même joueur est nommé deux fois.")
    if actor in accused and g.opt("A13") == "forbidden":
        raise RuleViolation("not_allowed", "On ne peut pas ouvrir un Procès contre soi-même (A13).")
    for s in accused:
        if not g.players[s].masked:  # unofficially unmasked is still masked to others (R4.15)
            raise RuleViolation(
                "not_allowed",
                f"{g.pseudo(s)} n'est pas un joueur masqué : pas de Procès contre lui.",
            )
    _check_accused_count(g, supposed, accused)
    _check_target(g, p, supposed, anonymous=anonymous)
    character_of(p).check_open(g, p, anonymous=anonymous)
    right = anonymous_right(g, p, opening=True) if anonymous else ""
    if right is None:
        raise RuleViolation("not_allowed", f"{p.pseudo} n'a pas de plainte anonyme à utiliser.")
    if g.opt("A14") == "no_identical":
        for t in g.open_trials():
            if set(t.accused) == set(accused) and t.supposed == supposed:
                raise RuleViolation(
                    "not_allowed",
                    f"Un Procès identique est déjà ouvert (n°{t.number}) : "
                    "portez plainte dedans (A14).",
                )
    why = quota_refusal(g, p, opening=True, anonymous=anonymous)
    if why:
        raise RuleViolation("daily_limit", why)
    emit_opening(
        ctx,
        opener=actor,
        accused=accused,
        supposed=supposed,
        anonymous=anonymous,
        arguments=str(cmd.get("arguments", "") or ""),
        by=cmd.by,
        kind=right,
    )


def _check_accused_count(g: GameState, supposed: str, accused: tuple[str, ...]) -> None:
    """A trial accuses one player, two for the Decorators while both are masked (R7.6.2)."""
    if supposed == "decorators":
        needed = max(1, len(g.masked_holders("decorators")))
        if len(accused) != needed:
            raise RuleViolation(
                "invalid_argument",
                "Un Procès contre les Décorateurs nomme les deux joueurs tant qu'ils sont masqués.",
            )
    elif len(accused) != 1:
        raise RuleViolation("invalid_argument", "Un Procès accuse un seul joueur.")


def _check_target(g: GameState, p: Player, supposed: str, *, anonymous: bool) -> None:
    if supposed not in legal_targets(g, p, anonymous=anonymous):
        raise RuleViolation(
            "not_your_target",
            f"{french_name(supposed)} n'est pas un Personnage que {p.pseudo} peut accuser.",
        )


def emit_opening(
    ctx: Context,
    *,
    opener: str,
    accused: tuple[str, ...],
    supposed: str,
    anonymous: bool,
    arguments: str,
    members: tuple[str, ...] = (),
    by: str = "",
    kind: str = "",
) -> Trial:
    """Record a trial's opening and its public announcement; return the trial.

    ``kind`` names the anonymous right used for an anonymous opening (R5.8)."""
    g = ctx.g
    number = len(g.trials) + 1
    ctx.emit(
        TrialOpened(
            at=ctx.now,
            trial=number,
            opener=opener,
            accused=accused,
            supposed=supposed,
            anonymous=anonymous,
            arguments=arguments,
            members=members,
            by=by,
            kind=kind,
        )
    )
    who = (
        "un anonyme"
        if anonymous
        else ("le chœur des Démasqués" if opener == CHORUS else g.pseudo(opener))
    )
    names = " et ".join(g.pseudo(s) for s in accused)
    ctx.announce(
        "trial_opened",
        f"Procès n°{number} ouvert par {who} : {names} accusé d'être {french_name(supposed)}.",
        trial=number,
        accused=[g.pseudo(s) for s in accused],
        supposed=supposed,
        opener=None if anonymous else (CHORUS if opener == CHORUS else g.pseudo(opener)),
        anonymous=anonymous,
        arguments=arguments,
    )
    trial = g.trials[number - 1]
    for module in REGISTRY.values():
        module.after_trial_opened(ctx, trial)
    return trial


def anonymous_right(g: GameState, p: Player, *, opening: bool) -> str | None:
    """The anonymous right ``p`` would use now (R5.5): his character's own, or one
    another character gave him (Polichinelle's gift); ``None`` if he has none."""
    own = character_of(p).anonymous_right(g, p, opening=opening)
    if own is not None:
        return own
    for module in REGISTRY.values():
        granted = module.grants_anonymous(g, p, opening=opening)
        if granted is not None:
            return granted
    return None


def compelled(g: GameState, p: Player, t: Trial) -> bool:
    """Whether a power compels ``p`` to complain in ``t`` now (R7.10.4, R5.16.5)."""
    return any(module.compels_complaint(g, p, t) for module in REGISTRY.values())


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


def complain(ctx: Context, cmd: Command, actor: str) -> None:
    """``complain``: ``trial``, ``anonymous`` — checked in the order of R5.17.

    A compelled complaint (R7.10.4) skips the opener, duplicate, target and quota
    checks; in one's own trial or as a duplicate it is recorded null (R5.10, A18).

    Raises:
        RuleViolation: the code of the first failing check of R5.17.
    """
    g = ctx.g
    t = trial_of(g, cmd)
    if not (t.status == "open" and g.opt("A12") == "full_window" and g.play_ended):
        running(g)
    p = g.players[actor]
    check_active(g, p)
    anonymous = cmd.flag("anonymous")
    closed_reason = complaint_closed(g, t)
    if closed_reason:
        raise RuleViolation("trial_closed", closed_reason)
    forced = compelled(g, p, t)
    duplicate = t.opener == actor or t.complained(actor)
    if not forced:
        if t.opener == actor:
            raise RuleViolation("own_trial", "On ne porte pas plainte dans son propre Procès.")
        if t.complained(actor):
            raise RuleViolation(
                "already_complained", f"{p.pseudo} a déjà porté plainte dans ce Procès."
            )
    if actor in t.accused and g.opt("A13") == "forbidden":
        raise RuleViolation("not_allowed", "L'accusé ne porte pas plainte contre lui-même (A13).")
    if not forced:
        if t.concluded:
            # a late complaint (R4.8, A16): judged as if the trial's own verdict had
            # not yet unmasked its accused
            with revived(g, (t.supposed,)):
                targets = legal_targets(g, p, anonymous=anonymous)
        else:
            targets = legal_targets(g, p, anonymous=anonymous)
        if t.supposed not in targets:
            raise RuleViolation(
                "not_your_target",
                f"{french_name(t.supposed)} n'est pas un Personnage que {p.pseudo} peut accuser.",
            )
        character_of(p).check_complaint(g, p, t, anonymous=anonymous)
    right = anonymous_right(g, p, opening=False) if anonymous else ""
    if right is None:
        raise RuleViolation("not_allowed", f"{p.pseudo} n'a pas de plainte anonyme à utiliser.")
    null = duplicate or is_null(g, t, actor)
    free = null and g.opt("A20") == "free"
    if not forced and not free:
        why = quota_refusal(g, p, opening=False, anonymous=anonymous)
        if why:
            raise RuleViolation("daily_limit", why)
    file_complaint(
        ctx,
        t,
        actor,
        anonymous=anonymous,
        compelled=forced,
        quota=not free,
        kind=right,
        null=null,
    )


def complaint_closed(g: GameState, t: Trial) -> str | None:
    """Why no complaint can be filed in ``t`` now, or ``None`` (R4.8, R5.2)."""
    if g.clock is not None and g.clock >= t.deadline:
        return "Les 24 heures de ce Procès sont écoulées."
    if t.status == "open":
        return None
    if t.flags.get("shortened_by"):  # closed at the shortening, announced or not (R7.7.4)
        return "Ce Procès a été écourté : plus aucune plainte n'est reçue."
    if t.concluded and not t.announced:
        return None
    return "Ce Procès est terminé."


def is_null(g: GameState, t: Trial, author: str) -> bool:
    """Whether a complaint by ``author`` in ``t`` is null (R5.12)."""
    p = g.players[author]
    if character_of(p).null_as_author(g, p, t):
        return True
    if any(module.complaint_null(g, p, t) for module in REGISTRY.values()):
        return True
    for s in t.accused:
        a = g.players[s]
        if character_of(a).null_against(g, a, p, t):
            return True
    return False


def file_complaint(
    ctx: Context,
    t: Trial,
    author: str,
    *,
    anonymous: bool,
    compelled: bool = False,
    quota: bool = True,
    members: tuple[str, ...] = (),
    kind: str = "",
    null: bool | None = None,
) -> None:
    """Record a complaint (checks done), then re-evaluate the quorum (R5.17, R4.6)."""
    g = ctx.g
    if null is None:
        null = is_null(g, t, author) if author != CHORUS else False
    scores = True
    if author != CHORUS:
        p = g.players[author]
        filing = Complaint(author, ctx.now, anonymous, null, compelled, True, members, False, kind)
        scores = not compelled and character_of(p).scores_in_trials(g, p, t, filing)
    if t.concluded and g.opt("A16") == "ignored":
        scores = False
    ctx.emit(
        ComplaintFiled(
            at=ctx.now,
            trial=t.number,
            author=author,
            anonymous=anonymous,
            null=null,
            compelled=compelled,
            scores=scores,
            quota=quota,
            members=members,
            kind=kind,
        )
    )
    complaint = t.complaints[-1]
    for module in REGISTRY.values():
        module.after_complaint(ctx, t, complaint)
    if t.concluded:
        _score_late(ctx, t, complaint)
        return
    check_quorum(ctx, t)


def quorum_count(g: GameState, t: Trial) -> int:
    """Valid complaints that count towards the quorum of 4 (R4.6, A15; the Diva's
    anonymous ones are public, R7.14.1)."""
    public_only = g.opt("A15") == "public_only"
    return sum(1 for c in t.valid() if not (public_only and t.anonymous_to_others(c)))


def check_quorum(ctx: Context, t: Trial) -> None:
    """Conclude ``t`` at its 4th valid complaint (R4.7), unless a power intercepts it."""
    if t.status != "open" or quorum_count(ctx.g, t) < 4:
        return
    for module in REGISTRY.values():
        if module.intercept_quorum(ctx, t):
            return
    conclude(ctx, t, reason="quorum")


def conclude(ctx: Context, t: Trial, *, reason: str) -> None:
    """Fix the outcome JUST/UNJUST at this instant and apply it (R4.7–R4.11)."""
    truth = accusation_truth(ctx.g, t)
    end_trial(ctx, t, "just" if truth else "unjust", truth=truth, concluded=True, reason=reason)


def end_trial(
    ctx: Context,
    t: Trial,
    status: str,
    *,
    truth: bool | None = None,
    concluded: bool = False,
    reason: str = "",
) -> None:
    """End ``t`` with ``status``, score it, unmask as the outcome says (R4.9–R4.15, R9)."""
    g = ctx.g
    if t.status != "open":
        return
    if truth is None and status != "void":
        truth = accusation_truth(g, t)
    ctx.emit(
        TrialEnded(
            at=ctx.now,
            trial=t.number,
            status=status,
            truth=truth,
            reason=reason,
            concluded=concluded,
        )
    )
    held = ctx.held
    if concluded and held is None:  # its messages wait for the announcement (A77)
        ctx.held = t.number
    try:
        _apply_end(ctx, t, status, bool(truth), concluded=concluded)
    finally:
        ctx.held = held


def _apply_end(ctx: Context, t: Trial, status: str, truth: bool, *, concluded: bool) -> None:
    """The consequences of ``t``'s end: unmasking, points, moot trials, hooks."""
    g = ctx.g
    unmasked: list[str] = []
    if status == "just":
        for s in t.accused:
            if g.players[s].masked and unmask_by_trial(ctx, s, t):
                unmasked.append(s)
    did_not_conclude = status == "lapsed" or (
        status == "cancelled" and g.opt("A38") == "not_concluded"
    )
    if status != "void" and not (status == "cancelled" and g.opt("A38") == "no_points"):
        with_penalty = did_not_conclude and not (
            status == "cancelled" and g.opt("A38") == "correctness_only"
        )
        score_trial(ctx, t, bool(truth), did_not_conclude=with_penalty, unmasked=bool(unmasked))
    # a verdict is announced by the game masters (R4.8, ``announce``), and so is an
    # ending it caused (A17) while it is not yet public
    if not concluded and held_by(g, t) is None:
        _announce_end(ctx, t, status)
    settle_unofficial(ctx, t)
    for module in REGISTRY.values():
        module.after_trial_ended(ctx, t)


def unmask_by_trial(ctx: Context, seat: str, t: Trial) -> bool:
    """A JUST trial unmasks its accused unless protected (R4.10, R4.9.4)."""
    return unmask(ctx, seat, "trial", "R4.10", t)


def _announce_end(ctx: Context, t: Trial, status: str) -> None:
    g = ctx.g
    anonymous = sum(1 for c in t.complaints if t.anonymous_to_others(c))
    nulls = sum(1 for c in t.complaints if c.null)
    text = f"Procès n°{t.number} : {STATUS_FR.get(status, status)}."
    null_notice = status in ("just", "unjust") and bool(nulls) and quorum_count(g, t) >= 4
    if null_notice:  # R5.13, A19
        if g.opt("A19") == "count":
            text += f" {nulls} plainte(s) nulle(s)."
        else:
            text += " Au moins une plainte était nulle."
    if anonymous:
        text += f" {anonymous} plainte(s) anonyme(s) publiée(s)."
    ctx.announce(
        "trial_ended",
        text,
        trial=t.number,
        status=status,
        anonymous=anonymous,
        nulls=nulls if null_notice and g.opt("A19") == "count" else 0,
        null_notice=null_notice,
        accused=[g.pseudo(s) for s in t.accused],
        supposed=t.supposed,
    )


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
    return character_of(p).scores_in_trials(g, p, t, None)


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
    unmasked = any(
        not g.players[s].masked and g.players[s].unmasked_at == t.ended_at for s in t.accused
    )
    if c.scores:
        for s in _scorers(t, c):
            _score_complaint(ctx, t, s, truth, did_not_conclude=False, unmasked=unmasked)
    if opener_scores(g, t):
        for s in _scorers(t):
            ctx.award(s, 20, f"Procès n°{t.number} : plainte tardive × 20", "R9.3", t.number)


# -- announcement and expiry ------------------------------------------------------------
def announce(ctx: Context, cmd: Command, actor: str) -> None:
    """``announce`` (game master): the verdict of a concluded trial is published (R4.8,
    R4.11): its outcome, the unmasking it caused, its anonymous complaints and the
    null notice; players then learn their new targets (R2.9). Late complaints stop."""
    t = trial_of(ctx.g, cmd)
    if not t.concluded:
        raise RuleViolation("not_allowed", f"Le Procès n°{t.number} n'a pas de verdict à annoncer.")
    if t.announced:
        raise RuleViolation("not_allowed", f"Le Procès n°{t.number} est déjà annoncé.")
    hidden = hidden_unmaskings(ctx.g)
    ctx.emit(TrialAnnounced(at=ctx.now, trial=t.number, by=cmd.by))
    _announce_end(ctx, t, t.status)
    for seat in t.accused:
        if seat in hidden:
            announce_unmasking(ctx, seat, hidden[seat], "trial", t)
    for other in ctx.g.trials:
        if other.reason == f"{MOOT}{t.number}":
            _announce_end(ctx, other, other.status)
    # a failure while the verdict waited takes effect now (R4.15, A77)
    settle_unofficial(ctx, t)
    notify_new_targets(ctx)


def expire(ctx: Context, t: Trial) -> None:
    """24 hours after t0 with fewer than 4 valid complaints: the trial lapses (R4.12)."""
    if t.status == "open":
        end_trial(ctx, t, "lapsed", reason="moins de 4 plaintes valides en 24 heures")
