"""The scenario vocabulary (``shared/scenarios/FORMAT.md``) as web forms.

Each action has its arguments with a kind that says how the form shows and
reads it; the engine alone decides whether the action is allowed. A malformed
value (a day that is not a number ...) is refused here with the engine's code
``invalid_argument`` and a French message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from ronde.engine.errors import RuleViolation
from ronde.engine.names import CAST_TABLE

Label = str | Promise


@dataclass(frozen=True)
class Arg:
    """One argument: ``name`` as in FORMAT.md, a ``kind`` (see :func:`parse_value`)."""

    name: str
    kind: str
    label: Label
    required: bool = True
    choices: tuple[tuple[str, Label], ...] = ()
    #: a game master's ruling: shown to the game master when accepting a request
    ruling: bool = False


@dataclass(frozen=True)
class Spec:
    """An action of the vocabulary."""

    name: str
    label: Label
    who: str  # "player" | "game_master"
    args: tuple[Arg, ...] = ()
    #: characters that hold this power (empty: every player)
    characters: tuple[str, ...] = ()
    #: a player may send it to the game masters as a request
    requestable: bool = False
    #: only members of the chorus of the Unmasked
    chorus: bool = False
    help: Label = ""
    extra: dict[str, Any] = field(default_factory=dict)


PLAYER = Arg("player", "player", _("Joueur"))
TRIAL = Arg("trial", "trial", _("Procès"))
ANONYMOUS = Arg("anonymous", "bool", _("Anonyme (par MP aux MJ)"), required=False)

CHORUS_ACTIONS: tuple[tuple[str, Label], ...] = (
    ("investigate", _("Enquêter")),
    ("put_to_sleep", _("Endormir")),
    ("spread_secret", _("Répandre un secret")),
    ("prompt", _("Souffler (bougie)")),
    ("cut_thread", _("Couper un fil")),
)
ORDER_KINDS: tuple[tuple[str, Label], ...] = (
    ("complain", _("porter plainte")),
    ("go_to", _("aller à une case")),
    ("take_item", _("prendre un objet")),
)

SPECS: tuple[Spec, ...] = (
    # -- trial actions -------------------------------------------------------------
    Spec(
        "open_trial",
        _("Ouvrir un Procès"),
        "player",
        (
            Arg("against", "accused", _("Accusé (deux pour les Décorateurs)")),
            Arg("as", "target", _("Personnage supposé")),
            ANONYMOUS,
            Arg("arguments", "textarea", _("Arguments"), required=False),
        ),
        requestable=True,
    ),
    Spec("complain", _("Porter plainte"), "player", (TRIAL, ANONYMOUS), requestable=True),
    Spec(
        "post",
        _("Message dans un Procès"),
        "player",
        (TRIAL, Arg("defends", "player", _("Défend (Avocat du Diable)"), required=False)),
    ),
    Spec("rehearse", _("Message aux Répétitions"), "player"),
    # -- powers ----------------------------------------------------------------------
    Spec(
        "cancel_trial",
        _("Annuler un Procès (vice de procédure)"),
        "player",
        (TRIAL,),
        ("devils_advocate",),
        True,
    ),
    Spec("shorten_trial", _("Écourter un Procès"), "player", (TRIAL,), ("chucky",), True),
    Spec(
        "ask",
        _("Poser une question (Woody)"),
        "player",
        (PLAYER, Arg("as", "character", _("Est-il …"))),
        ("woody",),
        True,
    ),
    Spec("put_to_sleep", _("Endormir"), "player", (PLAYER,), ("pierrot",), True),
    Spec("reveal_secret", _("Révéler un secret"), "player", (PLAYER,), ("polichinelle",), True),
    Spec(
        "grant_anonymous",
        _("Offrir l'anonymat"),
        "player",
        (PLAYER,),
        ("polichinelle",),
        True,
    ),
    Spec(
        "order",
        _("Donner un ordre (Petite Sirène)"),
        "player",
        (
            PLAYER,
            Arg("kind", "choice", _("Ordre"), choices=ORDER_KINDS),
            Arg("trial", "int", _("Procès (plainte)"), required=False),
            Arg("cell", "cell", _("Case x,y (déplacement)"), required=False),
            Arg("item", "text", _("Objet (prise)"), required=False),
        ),
        ("little_mermaid",),
        True,
    ),
    Spec(
        "choose_phrase",
        _("Choisir sa phrase (Souffleur)"),
        "player",
        (Arg("text", "textarea", _("Phrase d'au moins 8 mots")),),
        ("prompter",),
        True,
    ),
    Spec(
        "prompt",
        _("Souffler à un joueur"),
        "player",
        (
            PLAYER,
            Arg("theme_found", "bool", _("Thème trouvé (décision des MJ)"), False, ruling=True),
        ),
        ("prompter",),
        True,
    ),
    Spec(
        "designate_monster",
        _("Désigner son monstre"),
        "player",
        (Arg("character", "character_or_extra", _("Personnage")),),
        ("tragic_hero",),
        True,
    ),
    Spec("accuse_monster", _("Accuser le monstre"), "player", (PLAYER,), ("tragic_hero",), True),
    Spec(
        "declare_not",
        _("Déclarer « je ne suis pas … »"),
        "player",
        (PLAYER,),
        ("tragic_hero",),
        True,
    ),
    Spec(
        "declare_destiny",
        _("Déclarer sa destinée"),
        "player",
        (Arg("list", "characters", _("Personnages du J2 au J13, dans l'ordre")),),
        ("destiny",),
        True,
    ),
    Spec(
        "designate",
        _("Désigner un personnage (Diva)"),
        "player",
        (Arg("character", "character", _("Personnage")),),
        ("diva",),
        True,
    ),
    Spec(
        "last_breath",
        _("Dernier souffle (Diva)"),
        "player",
        (Arg("character", "character", _("Personnage")),),
        ("diva",),
        True,
    ),
    Spec(
        "guess_ronde",
        _("Deviner la Ronde"),
        "player",
        (Arg("order", "characters", _("Les personnages de la Ronde, dans l'ordre")),),
        requestable=True,
        help=_("Une seule tentative par partie."),
    ),
    Spec(
        "send_items",
        _("Envoyer des objets à un MJ"),
        "player",
        (Arg("to", "gm", _("MJ")), Arg("items", "items", _("Objets (identifiants)"))),
        requestable=True,
    ),
    Spec(
        "use_joker",
        _("Utiliser un Joker"),
        "player",
        (Arg("items", "items", _("Objets envoyés pour le Joker")),),
        requestable=True,
    ),
    Spec(
        "chorus_vote",
        _("Voter (chœur des Démasqués)"),
        "player",
        (
            Arg("action", "choice", _("Action du chœur"), choices=CHORUS_ACTIONS),
            Arg("player", "player", _("Joueur"), required=False),
            Arg("as", "character", _("Personnage (enquête)"), required=False),
            Arg("theme_found", "bool", _("Thème trouvé"), required=False, ruling=True),
        ),
        requestable=True,
        chorus=True,
    ),
    # -- game masters ------------------------------------------------------------------
    Spec("announce", _("Annoncer un verdict"), "game_master", (TRIAL,)),
    Spec(
        "record_constraint",
        _("Juger une contrainte"),
        "game_master",
        (
            PLAYER,
            Arg("day", "int", _("Jour")),
            Arg("met", "bool", _("Respectée"), required=False),
        ),
    ),
    Spec(
        "set_theme",
        _("Thème du jour (Figurants)"),
        "game_master",
        (Arg("day", "int", _("Jour")), Arg("theme", "text", _("Thème"))),
    ),
    Spec(
        "exempt",
        _("Exempter (vie réelle)"),
        "game_master",
        (
            PLAYER,
            Arg("days", "ints", _("Jours (ex. 4, 5)")),
            Arg("until", "text", _("Rattrapage avant"), required=False),
        ),
    ),
    Spec("transfigure", _("Transfigurer en Figurant"), "game_master", (PLAYER,)),
    Spec("assign_mime_target", _("Modèle du Mime"), "game_master", (PLAYER,)),
    Spec(
        "give_revenant_role",
        _("Rôle du Revenant"),
        "game_master",
        (Arg("character", "character", _("Personnage")),),
    ),
    Spec("appoint_secretary", _("Nommer le Secrétaire"), "game_master", (PLAYER,)),
    Spec(
        "award",
        _("Points (décision des MJ)"),
        "game_master",
        (PLAYER, Arg("points", "int", _("Points")), Arg("reason", "text", _("Raison"))),
    ),
    Spec(
        "replace_player",
        _("Remplacer un joueur"),
        "game_master",
        (PLAYER, Arg("new", "text", _("Pseudo du remplaçant"))),
    ),
    Spec("record_death", _("Mort du citoyen"), "game_master", (PLAYER,)),
    Spec("end_game", _("Clore la partie"), "game_master"),
)

BY_NAME: dict[str, Spec] = {s.name: s for s in SPECS}


def character_choices(*, extra: bool = False) -> list[tuple[str, str]]:
    """Every character id with its French name, alphabetically (never the Ronde order)."""
    rows = [(c.id, c.fr) for c in CAST_TABLE if c.in_ronde or extra]
    return sorted(rows, key=lambda r: r[1].casefold())


def _invalid(arg: Arg, problem: str) -> RuleViolation:
    return RuleViolation("invalid_argument", f"« {arg.label} » : {problem}")


def _split(text: str) -> list[str]:
    parts = text.replace("\n", ",").replace(";", ",").split(",")
    return [p.strip() for p in parts if p.strip()]


def parse_value(arg: Arg, data: Mapping[str, Any]) -> tuple[bool, Any]:
    """Read ``arg`` from form ``data``: (present, value).

    Raises:
        RuleViolation: ``invalid_argument`` for a malformed or missing value.
    """
    raw = data.get(arg.name)
    text = str(raw).strip() if raw is not None else ""
    if arg.kind == "bool":
        return True, text.casefold() in {"on", "true", "1", "yes", "oui"}
    if arg.kind == "accused":
        second = str(data.get(f"{arg.name}2") or "").strip()
        if not text:
            return _missing(arg)
        return True, [text, second] if second else text
    if not text:
        return _missing(arg)
    if arg.kind in ("int", "trial"):
        try:
            return True, int(text)
        except ValueError:
            raise _invalid(arg, f"« {text} » n'est pas un nombre entier.") from None
    if arg.kind == "ints":
        try:
            return True, [int(p) for p in _split(text)]
        except ValueError:
            raise _invalid(arg, "des nombres entiers séparés par des virgules.") from None
    if arg.kind in ("characters", "items"):
        return True, _split(text)
    if arg.kind == "cell":
        parts = _split(text)
        try:
            x, y = (int(p) for p in parts)
        except ValueError:
            raise _invalid(arg, "deux nombres entiers « x,y ».") from None
        return True, [x, y]
    if arg.kind == "choice" and text not in {c for c, _label in arg.choices}:
        raise _invalid(arg, f"choix inconnu « {text} ».")
    return True, text


def _missing(arg: Arg) -> tuple[bool, Any]:
    if arg.required:
        raise _invalid(arg, "valeur manquante.")
    return False, None


def parse_args(spec: Spec, data: Mapping[str, Any]) -> dict[str, Any]:
    """The command arguments of ``spec`` read from form ``data``.

    Raises:
        RuleViolation: ``invalid_argument`` (French message).
    """
    out: dict[str, Any] = {}
    for arg in spec.args:
        present, value = parse_value(arg, data)
        if present:
            out[arg.name] = value
    return out


def player_powers(character: str | None, *, chorus: bool) -> list[Spec]:
    """The requests a player may send: as a masked ``character``, his trial actions and
    powers; as a member of the chorus (``chorus``), the chorus's vote."""
    if chorus:
        return [s for s in SPECS if s.requestable and s.chorus]
    if character is None:
        return []
    return [
        s
        for s in SPECS
        if s.requestable and not s.chorus and (not s.characters or character in s.characters)
    ]


def describe_args(args: Mapping[str, Any]) -> str:
    """A short French rendering of command arguments (``trial=3, anonymous=oui``)."""
    parts = []
    for k, v in args.items():
        if isinstance(v, bool):
            v = "oui" if v else "non"
        elif isinstance(v, list | tuple):
            v = ", ".join(str(x) for x in v)
        parts.append(f"{k}={v}")
    return " ; ".join(parts)
