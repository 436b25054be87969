"""The commands of a trial (R4, R5): opening one (``open_trial``) and complaining
(``complain``), with the helpers the character modules reuse (``emit_opening``,
``file_complaint``).
"""

from __future__ import annotations

from .character import answering, character_of
from .commands import Command
from .context import Context
from .errors import RuleViolation
from .events import ComplaintFiled, TrialOpened
from .names import french_name, resolve_character
from .ronde import revived
from .state import CHORUS, Complaint, GameState, Player, Trial
from .trials import (
    _score_late,
    anonymous_right,
    check_active,
    compelled,
    complaint_closed,
    is_null,
    legal_targets,
    player_seat,
    quota_violation,
    running,
    trial_day,
    trial_of,
)
from .verdicts import check_quorum


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
    character_of(g, p).check_open(g, p, anonymous=anonymous)
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
    refused = quota_violation(g, p, opening=True, anonymous=anonymous)
    if refused is not None:
        raise refused
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
    for module in answering(g, "after_trial_opened"):
        module.after_trial_opened(ctx, trial)
    return trial


def complain(ctx: Context, cmd: Command, actor: str) -> None:
    """``complain``: ``trial``, ``anonymous`` — checked in the order of R5.17.

    A compelled complaint (R7.10.4) skips the opener, duplicate, target and quota
    checks; in one's own trial or as a duplicate it is recorded null (R5.10, A18).

    Raises:
        RuleViolation: the code of the first failing check of R5.17.
    """
    g = ctx.g
    t = trial_of(g, cmd)
    # A12 ``full_window``: after the end of play the trials keep their 24 hours for
    # complaints (late ones included until the verdict is announced): the game still
    # runs for them, a closed one says so (``trial_closed``)
    if not (g.opt("A12") == "full_window" and g.play_ended and not g.game_ended):
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
        # a late complaint (R4.8, A16) is judged as if the trial's own verdict had not yet
        # unmasked its accused
        if t.concluded:
            with revived(g, (t.supposed,)):
                _check_target(g, p, t.supposed, anonymous=anonymous)
        else:
            _check_target(g, p, t.supposed, anonymous=anonymous)
        character_of(g, p).check_complaint(g, p, t, anonymous=anonymous)
    right = anonymous_right(g, p, opening=False) if anonymous else ""
    if right is None:
        raise RuleViolation("not_allowed", f"{p.pseudo} n'a pas de plainte anonyme à utiliser.")
    null = duplicate or is_null(g, t, actor)
    free = null and g.opt("A20") == "free"
    if not forced and not free:
        refused = quota_violation(g, p, opening=False, anonymous=anonymous)
        if refused is not None:
            raise refused
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
        scores = not compelled and character_of(g, p).scores_in_trials(g, p, t, filing)
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
    for module in answering(g, "after_complaint"):
        module.after_complaint(ctx, t, complaint)
    if t.concluded:
        _score_late(ctx, t, complaint)
        return
    check_quorum(ctx, t)
