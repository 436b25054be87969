"""French one-line descriptions of engine events, for the game masters' timeline
and the difference a correction makes (game masters only: they name seats,
characters and anonymous authors)."""

from __future__ import annotations

from ronde.engine import events as ev
from ronde.engine.names import CAUSES_FR, french_name

from . import labels


def _people(seats: tuple[str, ...] | list[str]) -> str:
    return ", ".join(seats) if seats else "—"


def _who(seat: str, chorus: str = "le chœur") -> str:
    """A seat, or the chorus of the unmasked (``"chorus"``) in French."""
    return chorus if seat == "chorus" else seat


def _right(correct: bool) -> str:
    return "juste" if correct else "fausse"


def describe(e: ev.Event, start: object = None) -> str:
    """What ``e`` records, in French."""
    match e:
        case ev.GameCreated():
            return f"Partie créée : {len(e.players)} joueurs, Ronde de {len(e.ronde)} cases."
        case ev.TrialOpened():
            anon = " (anonyme)" if e.anonymous else ""
            return (
                f"Procès n°{e.trial} ouvert par {_who(e.opener)}{anon} contre {_people(e.accused)} "
                f"comme {french_name(e.supposed)}."
            )
        case ev.ComplaintFiled():
            flags = [
                label
                for on, label in (
                    (e.anonymous, "anonyme"),
                    (e.null, "nulle"),
                    (e.compelled, "contrainte"),
                )
                if on
            ]
            extra = f" ({', '.join(flags)})" if flags else ""
            return f"Plainte de {_who(e.author)} dans le Procès n°{e.trial}{extra}."
        case ev.TrialEnded():
            reason = e.reason
            if reason.startswith("moot:"):  # made moot by another verdict (A17)
                reason = f"sans objet après le Procès n°{reason[5:]}"
            why = f" — {reason}" if reason else ""
            return f"Procès n°{e.trial} : {labels.trial_status(e.status)}{why}."
        case ev.TrialAnnounced():
            return f"Verdict du Procès n°{e.trial} annoncé."
        case ev.PlayerUnmasked():
            cause = CAUSES_FR.get(e.cause, e.cause)
            return f"{e.player} démasqué ({french_name(e.character)}) : {cause}."
        case ev.UnofficiallyUnmasked():
            return f"{e.player} démasqué officieusement ({labels.cause(e.cause)})."
        case ev.UnmaskingWaits():
            procs = ", ".join(f"n°{n}" for n in e.trials)
            if e.settled:
                return f"{e.player} : démasquage jugé à l'annonce du Procès {procs} (A77)."
            return (
                f"{e.player} : démasquage ({labels.cause(e.cause)}) en attente de l'annonce "
                f"du Procès {procs}, qui nomme son Personnage (A77)."
            )
        case ev.PointsAwarded():
            who = _who(e.player, "le chœur (payé en fin de partie, A64)")
            return f"{who} {e.points:+d} : {e.reason} [{e.rule}]."
        case ev.ConstraintRecorded():
            met = "respectée" if e.met else "NON respectée"
            return f"Contrainte de {e.player} au J{e.day} : {met}."
        case ev.ExemptionGranted():
            days = ", ".join(f"J{d}" for d in e.days)
            return f"{e.player} exempté ({days})."
        case ev.ItemsSent():
            return f"{e.player} envoie {labels.items(e.items)} à {e.to}."
        case ev.JokerUsed():
            return f"Joker de {e.player} pour le J{e.day}."
        case ev.ThemeSet():
            return f"Thème du J{e.day} : {e.theme}."
        case ev.Rehearsed():
            return f"{e.player} aux Répétitions (J{e.day})."
        case ev.Posted():
            defends = f", défend {e.defends}" if e.defends else ""
            return f"{e.player} écrit dans le Procès n°{e.trial}{defends}."
        case ev.ChorusVoted():
            return f"Vote de {e.player} pour le J{e.day} : {labels.chorus_action(e.action)}."
        case ev.ChorusDecided():
            return f"Décision du chœur (J{e.day}) : {labels.chorus_action(e.action)}."
        case ev.InvestigationMade():
            return (
                f"Enquête du chœur : {e.player} est {french_name(e.character)} ? "
                f"({_right(e.correct)})"
            )
        case ev.SecretaryAppointed():
            return f"{e.player} est Secrétaire des Démasqués."
        case ev.Transfigured():
            return f"{e.player} devient un nouveau Figurant."
        case ev.RondeGuessed():
            return f"{e.player} propose une Ronde ({_right(e.correct)})."
        case ev.PlayerReplaced():
            return f"{e.old} est remplacé par {e.new}."
        case ev.IdentityLearned():
            return f"{e.player} apprend que {e.other} est {french_name(e.character)}."
        case ev.MessageSent():
            to = "public" if e.public or not e.to else _people(e.to)
            return f"Message ({to}) : {e.text}"
        case ev.DayClosed():
            return f"Fin du J{e.day}."
        case ev.CutoffPassed():
            return "J13 13:13 passé."
        case ev.PlayEnded():
            return "Fin du jeu."
        case ev.GameEnded():
            return "Partie close."
        case ev.PlayerDied():
            return f"Mort du citoyen de {e.player}."
        case ev.CharacterFact():
            return f"{french_name(e.character)} ({e.player}) : {labels.fact_kind(e.kind)}."
    return "Événement du moteur."
