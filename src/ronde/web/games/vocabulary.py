"""The scenario vocabulary (``shared/scenarios/FORMAT.md``, plus Ronde's additions)
as web forms.

Each action is declared once (:class:`Spec`, its arguments :class:`Arg` with a
kind that says how the form shows and reads them). From that declaration come
the game masters' Django form (:func:`form_class`: French labels, per-field
errors, pickers that show each pseudo with its character, items by their French
names, the forum time of a post) and the players' request forms (``parse_args``).
The engine alone decides whether the action is allowed. A malformed value (a day
that is not a number ...) is refused here with the engine's code
``invalid_argument`` and a French message.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cache
from typing import Any, ClassVar

from django import forms
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from ronde.catalog import default_catalog
from ronde.engine.clock import (
    LAST_DAY,
    PARIS,
    check_instant,
    day_of,
    day_start,
    format_time,
    local_instant,
    parse_time,
)
from ronde.engine.errors import RuleViolation
from ronde.engine.names import CAST_TABLE, CHORUS_ACTIONS_FR, french_name, resolve_character

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
    #: the action reports a forum post (or an MP's receipt): its time is required
    forum: bool = False


PLAYER = Arg("player", "player", _("Joueur"))
TRIAL = Arg("trial", "trial", _("Procès"))
ANONYMOUS = Arg("anonymous", "bool", _("Anonyme (par MP aux MJ)"), required=False)

#: the chorus actions and their French names (one table: ``names.CHORUS_ACTIONS_FR``)
CHORUS_ACTIONS: tuple[tuple[str, Label], ...] = tuple(CHORUS_ACTIONS_FR.items())
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
        forum=True,
    ),
    Spec(
        "complain",
        _("Porter plainte"),
        "player",
        (TRIAL, ANONYMOUS),
        requestable=True,
        forum=True,
    ),
    Spec(
        "post",
        _("Message dans un Procès"),
        "player",
        (TRIAL, Arg("defends", "player", _("Défend (Avocat du Diable)"), required=False)),
        forum=True,
    ),
    Spec("rehearse", _("Message aux Répétitions"), "player", forum=True),
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
        "shift_destiny",
        _("Décaler sa destinée (Destinée)"),
        "player",
        (Arg("append", "character", _("Personnage ajouté au J13")),),
        ("destiny",),
        True,
        help=_("Le personnage du jour est déjà démasqué : la liste avance d'un jour."),
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
        help=_(
            "Une seule tentative par partie. Chaque case de la Ronde une fois (les "
            "Décorateurs une seule fois), par son nom, un par ligne ou séparés par des "
            "virgules."
        ),
    ),
    Spec(
        "send_items",
        _("Envoyer des objets à un MJ"),
        "player",
        (Arg("to", "gm", _("MJ")), Arg("items", "items", _("Objets envoyés"))),
        requestable=True,
    ),
    Spec(
        "use_joker",
        _("Utiliser un Joker"),
        "player",
        (
            Arg("to", "gm", _("MJ qui a reçu les objets")),
            Arg("items", "items", _("Objets envoyés pour le Joker")),
        ),
        requestable=True,
        help=_(
            "Le MJ dans le coffre duquel les objets sont arrivés : sa réserve compte pour "
            "le Teckel et la chaîne (A25)."
        ),
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
    Spec(
        "set_guignol_constraint",
        _("Contrainte secrète de Guignol"),
        "game_master",
        (Arg("text", "textarea", _("Contrainte secrète")),),
    ),
    Spec(
        "send_excerpt",
        _("Extraits de MP pour Alice"),
        "game_master",
        (
            Arg("player", "player", _("Alice (joueuse)")),
            Arg("text", "textarea", _("Extraits des MP des MJ qu'elle entend")),
        ),
    ),
    Spec(
        "record_order",
        _("Juger un ordre de la Petite Sirène"),
        "game_master",
        (
            Arg("player", "player", _("Joueur qui a reçu l'ordre")),
            Arg("obeyed", "bool", _("Ordre exécuté"), required=False),
        ),
    ),
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


#: the longest text a form field may hold (a trial's arguments, a sentence, a reason)
MAX_TEXT = 4000
#: the most entries a list field may hold (the whole cast is 22 Characters, 32 players)
MAX_ENTRIES = 40


def parse_value(arg: Arg, data: Mapping[str, Any]) -> tuple[bool, Any]:
    """Read ``arg`` from form ``data``: (present, value).

    Raises:
        RuleViolation: ``invalid_argument`` for a malformed, missing or oversized value.
    """
    raw = data.get(arg.name)
    text = str(raw).strip() if raw is not None else ""
    if len(text) > MAX_TEXT:
        raise _invalid(arg, f"texte trop long ({len(text)} caractères, {MAX_TEXT} au plus).")
    if arg.kind in ("ints", "characters", "items") and len(_split(text)) > MAX_ENTRIES:
        raise _invalid(arg, f"trop d'éléments ({MAX_ENTRIES} au plus).")
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
    if arg.kind == "characters":
        return True, _split(text)
    if arg.kind == "items":
        return True, resolve_items(arg, _split(text))
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


#: parenthesised hints of the forms' labels left out where an action is read back
_FORM_HINTS = (_("deux pour les Décorateurs"), _("par MP aux MJ"))


def describe_args(args: Mapping[str, Any], action: str | None = None) -> str:
    """A short French rendering of command arguments (« Procès : 3 ; Anonyme : oui »):
    the labels of ``action``'s declaration, characters and items by their French names."""
    spec = BY_NAME.get(action or "")
    kinds = {a.name: a for a in spec.args} if spec else {}
    catalog = default_catalog()
    parts = []
    order = {name: i for i, name in enumerate(kinds)}
    for k, v in sorted(args.items(), key=lambda kv: order.get(kv[0], len(order))):
        arg = kinds.get(k)
        kind = arg.kind if arg else ""
        if isinstance(v, bool):
            text = "oui" if v else "non"
        elif kind in ("character", "character_or_extra", "target") and isinstance(v, str):
            text = french_name(v)
        elif kind == "characters" and isinstance(v, list | tuple):
            text = ", ".join(french_name(str(x)) for x in v)
        elif kind == "items" and isinstance(v, list | tuple):
            text = ", ".join(catalog.name(str(x)) for x in v)
        elif kind == "choice" and arg is not None:
            text = str(dict(arg.choices).get(str(v), v))
        elif isinstance(v, list | tuple):
            text = ", ".join(str(x) for x in v)
        else:
            text = str(v)
        label = str(arg.label) if arg is not None else k
        for hint in _FORM_HINTS:  # what helps to fill a form, not to read an action
            label = label.replace(f" ({hint})", "")
        parts.append(f"{label} : {text}" if spec else f"{k}={text}")
    return " ; ".join(parts)


# -- items by their French names -------------------------------------------------------------


def _fold(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch))
    return " ".join(plain.casefold().replace("’", "'").split())


@cache
def _item_lookup() -> dict[str, str]:
    """Folded French name (and id) -> item id; of two items with one French name, the
    first of the catalogue."""
    catalog = default_catalog()
    table: dict[str, str] = {}
    for item in catalog.deco:
        table.setdefault(_fold(catalog.name(item)), item)
        table.setdefault(_fold(item), item)
    return table


def item_names() -> list[str]:
    """Every item's French name, alphabetically (for the pickers' suggestions)."""
    catalog = default_catalog()
    return sorted({catalog.name(i) for i in catalog.deco}, key=_fold)


def resolve_items(arg: Arg, names: Sequence[str]) -> list[str]:
    """Item ids from French names (or ids); accents and case ignored.

    Raises:
        RuleViolation: ``invalid_argument`` naming the unknown item and the nearest one.
    """
    table = _item_lookup()
    catalog = default_catalog()
    out = []
    for name in names:
        item = table.get(_fold(name))
        if item is None:
            near = difflib.get_close_matches(_fold(name), list(table), n=1, cutoff=0.6)
            hint = f" (voulez-vous dire « {catalog.name(table[near[0]])} » ?)" if near else ""
            raise _invalid(arg, f"objet inconnu « {name} »{hint}.")
        out.append(item)
    return out


# -- the game masters' forms (Django forms built from the declarations) -----------------------


@dataclass(frozen=True)
class Choices:
    """What the pickers of a form offer, from the game masters' view of the game."""

    #: (pseudo, label): for game masters the label shows the character
    players: Sequence[tuple[str, str]] = ()
    #: (number, label)
    trials: Sequence[tuple[int, str]] = ()
    #: the trials that ended (their verdict announced, or lapsed …): offered apart
    ended: frozenset[int] = frozenset()
    #: the players a trial may accuse: masked as the players know the game (an accused
    #: whose verdict waits for its announcement still is, A77); ``None``: every player
    accusable: Sequence[tuple[str, str]] | None = None
    gms: Sequence[str] = ()
    start: date | None = None
    #: the instant a time left empty stands for, and "HH:MM" is read on its day
    now: datetime | None = None


_SHORT_TIME = re.compile(r"^\s*(\d{1,2})[:h](\d{2})\s*$")
_FR_DATE = re.compile(r"^\s*(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\s*(?:à\s*)?(\d{1,2})[:h](\d{2})\s*$")


def read_game_time(text: str, start: date, now: datetime | None) -> datetime:
    """A time typed by a game master: ``J3 10:00``, ``14:04`` (today), ``03/12 14:04``,
    ``03/12/2026 14:04`` or ISO 8601 (Europe/Paris).

    Raises:
        ValueError: unreadable (French message).
    """
    text = text.strip()
    if m := _SHORT_TIME.match(text):
        if now is None:
            raise ValueError("heure sans jour : écrivez « J3 10:00 ».")
        local = now.astimezone(PARIS)
        hour, minute = int(m.group(1)), int(m.group(2))
        if hour > 23 or minute > 59:
            raise ValueError(f"heure invalide : « {text} ».")
        # (an hour skipped when clocks go forward is refused, a repeated one is the first)
        return local_instant(datetime(local.year, local.month, local.day, hour, minute))
    if m := _FR_DATE.match(text):
        day, month = int(m.group(1)), int(m.group(2))
        year = int(m.group(3)) if m.group(3) else (now or day_start(start, 1)).year
        if year < 100:
            year += 2000
        try:
            wall = datetime(year, month, day, int(m.group(4)), int(m.group(5)))
        except ValueError:
            raise ValueError(f"date invalide : « {text} ».") from None
        # (year 1 or 9999: refused, never converted)
        return local_instant(check_instant(wall))
    try:
        return parse_time(text, start)
    except ValueError as exc:
        if "hors limites" in str(exc):
            raise
        if re.fullmatch(r"\s*J\d+\s+\d{1,2}[:h]\d{2}\s*", text, re.IGNORECASE):
            raise ValueError(f"heure invalide : « {text} ».") from None
        raise ValueError(
            f"heure illisible : « {text} ». Écrivez « J3 10:00 », « 14:04 » (aujourd'hui) "
            "ou « 03/12 14:04 »."
        ) from None


def trial_choices(choices: Choices) -> list[tuple[Any, Any]]:
    """A trial picker's options: the trials still open (or awaiting their announcement)
    first, those that ended apart in their own group."""
    running = [(str(n), label) for n, label in choices.trials if n not in choices.ended]
    ended = [(str(n), label) for n, label in choices.trials if n in choices.ended]
    out: list[tuple[Any, Any]] = [("", "—"), *running]
    if ended:
        out.append((_("Procès terminés"), ended))
    return out


class ActionForm(forms.Form):
    """The form of one action (subclasses come from :func:`form_class`)."""

    spec: ClassVar[Spec]

    def __init__(
        self,
        data: Mapping[str, Any] | None = None,
        *,
        choices: Choices,
        initial: Mapping[str, Any] | None = None,
        ident: str = "",
    ) -> None:
        auto_id = f"{self.spec.name}-{ident}-%s" if ident else f"{self.spec.name}-%s"
        super().__init__(data, initial=dict(initial or {}), auto_id=auto_id)
        self.choices = choices
        self.error_css_class = "invalid"
        players = [("", "—"), *choices.players]
        accusable = players if choices.accusable is None else [("", "—"), *choices.accusable]
        for arg in self.spec.args:
            fld = self.fields[arg.name]
            if arg.kind == "accused" and isinstance(fld, forms.ChoiceField):
                fld.choices = accusable
            elif arg.kind == "player" and isinstance(fld, forms.ChoiceField):
                fld.choices = players
            elif arg.kind == "trial" and isinstance(fld, forms.ChoiceField):
                fld.choices = trial_choices(choices)
            elif arg.kind == "gm" and isinstance(fld, forms.ChoiceField):
                fld.choices = [("", "—"), *((g, g) for g in choices.gms)]
        if "by" in self.fields:
            by = self.fields["by"]
            assert isinstance(by, forms.ChoiceField)
            by.choices = players
        if choices.start is not None and choices.now is not None:
            self.fields["at"].widget.attrs["placeholder"] = game_time_label(
                choices.start, choices.now
            )
        if "against2" in self.fields:
            second = self.fields["against2"]
            assert isinstance(second, forms.ChoiceField)
            second.choices = [("", _("(aucun)")), *accusable[1:]]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        text = str(data.get("at") or "").strip()
        if text and self.choices.start is not None:
            try:
                data["when"] = read_game_time(text, self.choices.start, self.choices.now)
            except ValueError as exc:
                self.add_error("at", str(exc))
        else:
            data["when"] = None
        return data

    def command(self) -> tuple[str, dict[str, Any], datetime | None, str]:
        """``(by, args, when, note)`` of a valid form (``by`` empty for a game master)."""
        data = self.cleaned_data
        args: dict[str, Any] = {}
        for arg in self.spec.args:
            value = data.get(arg.name)
            if arg.kind == "bool":
                args[arg.name] = bool(value)
                continue
            if value in (None, "", []):
                continue
            if arg.kind == "accused" and data.get("against2"):
                value = [value, data["against2"]]
            args[arg.name] = value
        return str(data.get("by") or ""), args, data.get("when"), str(data.get("note") or "")

    def time_field(self) -> forms.BoundField:
        return self["at"]

    def argument_fields(self) -> list[forms.BoundField]:
        return [self[n] for n in self.fields if n not in ("by", "at", "note")]


class _ListField(forms.CharField):
    """Text split on commas, semicolons and lines, then read by ``read``."""

    def __init__(self, arg: Arg, **kwargs: Any) -> None:
        self.arg = arg
        super().__init__(**kwargs)

    def read(self, parts: list[str]) -> list[Any]:
        return parts

    def to_python(self, value: Any) -> Any:
        text = super().to_python(value)
        if not text:
            return []
        try:
            return self.read(_split(text))
        except RuleViolation as rv:
            raise forms.ValidationError(rv.message.split(" : ", 1)[-1]) from None


class _IntsField(_ListField):
    def read(self, parts: list[str]) -> list[Any]:
        try:
            return [int(p) for p in parts]
        except ValueError:
            msg = _("des nombres entiers séparés par des virgules.")
            raise forms.ValidationError(msg) from None


class _CharactersField(_ListField):
    def read(self, parts: list[str]) -> list[Any]:
        out = []
        for p in parts:
            try:
                out.append(resolve_character(p))
            except (KeyError, ValueError, RuleViolation):
                raise forms.ValidationError(_("personnage inconnu « %(p)s ».") % {"p": p}) from None
        return out


class _ItemsField(_ListField):
    def read(self, parts: list[str]) -> list[Any]:
        return resolve_items(self.arg, parts)


class _CellField(_ListField):
    def read(self, parts: list[str]) -> list[Any]:
        try:
            x, y = (int(p) for p in parts)
        except ValueError:
            raise forms.ValidationError(_("deux nombres entiers « x,y ».")) from None
        return [x, y]


class _IntField(forms.IntegerField):
    def to_python(self, value: Any) -> int | None:
        text = str(value).strip() if value is not None else ""
        if not text:
            return None
        try:
            return int(text)
        except ValueError:
            raise forms.ValidationError(
                _("« %(v)s » n'est pas un nombre entier.") % {"v": text}
            ) from None


class _TrialField(forms.TypedChoiceField):
    """A trial picker that lets any number through: the engine names an unknown trial."""

    def valid_value(self, value: Any) -> bool:
        return str(value).strip().isdigit() or super().valid_value(value)


def _field(arg: Arg) -> forms.Field:
    common: dict[str, Any] = {"label": arg.label, "required": arg.required}
    kind = arg.kind
    if kind == "bool":
        return forms.BooleanField(label=common["label"], required=False)
    if kind in ("player", "accused", "gm"):
        return forms.ChoiceField(choices=(), **common)
    if kind == "trial":
        return _TrialField(choices=(), coerce=int, **common)
    if kind in ("character", "target"):
        return forms.ChoiceField(choices=[("", "—"), *character_choices()], **common)
    if kind == "character_or_extra":
        return forms.ChoiceField(choices=[("", "—"), *character_choices(extra=True)], **common)
    if kind == "choice":
        return forms.ChoiceField(choices=[("", "—"), *arg.choices], **common)
    if kind == "int":
        return _IntField(**common)
    if kind == "ints":
        return _IntsField(arg, help_text=_("ex. 4, 5"), **common)
    if kind == "characters":
        return _CharactersField(
            arg,
            widget=forms.Textarea(attrs={"rows": 3}),
            help_text=_("Noms français séparés par des virgules ou des lignes."),
            **common,
        )
    if kind == "items":
        return _ItemsField(
            arg,
            widget=forms.TextInput(attrs={"list": "ronde-items"}),
            help_text=_("Noms français du catalogue, séparés par des virgules."),
            **common,
        )
    if kind == "cell":
        return _CellField(arg, help_text=_("x,y"), **common)
    if kind == "textarea":
        return forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), strip=True, **common)
    return forms.CharField(**common)


def form_class(spec: Spec) -> type[ActionForm]:
    """The Django form of ``spec`` (built once per action from its declaration)."""
    return _form_class(spec.name)


@cache
def _form_class(name: str) -> type[ActionForm]:
    spec = BY_NAME[name]
    fields: dict[str, forms.Field] = {}
    if spec.who == "player":
        fields["by"] = forms.ChoiceField(
            label=_("Joueur qui agit"),
            choices=(),
            error_messages={"required": _("Qui agit ? Choisissez un joueur.")},
        )
    for arg in spec.args:
        fields[arg.name] = _field(arg)
        if arg.kind == "accused":
            fields["against2"] = forms.ChoiceField(
                label=_("Second accusé (Décorateurs)"), choices=(), required=False
            )
    if spec.forum:
        at_label = _("Heure du message sur le forum")
        at_help = _("« J3 10:00 », « 14:04 » (aujourd'hui) ou « 03/12 14:04 ».")
    else:
        at_label = _("Heure")
        at_help = _("Vide : maintenant. « J3 10:00 », « 14:04 » ou « 03/12 14:04 ».")
    fields["at"] = forms.CharField(
        label=at_label,
        help_text=at_help,
        required=spec.forum,
        widget=forms.TextInput(attrs={"placeholder": "J3 10:00", "autocomplete": "off"}),
    )
    fields["note"] = forms.CharField(
        label=_("Note des MJ (jamais montrée aux joueurs)"), required=False
    )
    attrs: dict[str, Any] = {"spec": spec, **fields}
    return type(f"{spec.name.title().replace('_', '')}Form", (ActionForm,), attrs)


def action_form(
    spec: Spec,
    choices: Choices,
    data: Mapping[str, Any] | None = None,
    initial: Mapping[str, Any] | None = None,
    ident: str = "",
) -> ActionForm:
    """A bound (``data``) or prefilled (``initial``) form of ``spec``."""
    initial = dict(initial or {})
    for arg in spec.args:
        # prefilled item ids show as their French names
        if arg.kind == "items" and isinstance(initial.get(arg.name), list | tuple):
            catalog = default_catalog()
            initial[arg.name] = ", ".join(catalog.name(i) for i in initial[arg.name])
        elif arg.kind in ("ints", "characters") and isinstance(initial.get(arg.name), list | tuple):
            names = initial[arg.name]
            initial[arg.name] = ", ".join(
                french_name(str(x)) if arg.kind == "characters" else str(x) for x in names
            )
        elif arg.kind == "bool" and isinstance(initial.get(arg.name), str):
            initial[arg.name] = initial[arg.name].casefold() in {"on", "true", "1", "oui"}
    return form_class(spec)(data, choices=choices, initial=initial, ident=ident)


def game_time_label(start: date, t: datetime) -> str:
    """``J5 14:04`` for an instant of the game (the engine's :func:`format_time`), its
    date otherwise (never an ISO timestamp on a page)."""
    if 1 <= day_of(start, t) <= LAST_DAY + 1:
        return format_time(start, t)
    return f"{t.astimezone(PARIS):%d/%m/%Y %H:%M}"


# -- several complaints of one trial at once ------------------------------------------------


class ComplaintRow(forms.Form):
    """One complaint of a batch: who, when (forum time), anonymous."""

    by = forms.ChoiceField(label=_("Joueur"), choices=(), required=False)
    at = forms.CharField(
        label=_("Heure du message sur le forum"),
        required=False,
        widget=forms.TextInput(attrs={"placeholder": "J3 10:00", "autocomplete": "off"}),
    )
    anonymous = forms.BooleanField(label=_("Anonyme"), required=False)

    def __init__(self, *args: Any, choices: Choices, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.choices = choices
        by = self.fields["by"]
        assert isinstance(by, forms.ChoiceField)
        by.choices = [("", "—"), *choices.players]
        if choices.start is not None and choices.now is not None:
            self.fields["at"].widget.attrs["placeholder"] = game_time_label(
                choices.start, choices.now
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("by"):
            return data
        text = str(data.get("at") or "").strip()
        if not text:
            self.add_error("at", _("Heure du message requise."))
        elif self.choices.start is not None:
            try:
                data["when"] = read_game_time(text, self.choices.start, self.choices.now)
            except ValueError as exc:
                self.add_error("at", str(exc))
        return data


class BatchComplaints(forms.Form):
    """The trial the complaints of a batch go to."""

    trial = forms.TypedChoiceField(label=_("Procès"), choices=(), coerce=int)

    def __init__(self, *args: Any, choices: Choices, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        trial = self.fields["trial"]
        assert isinstance(trial, forms.ChoiceField)
        trial.choices = [("", "—"), *((str(n), label) for n, label in choices.trials)]


#: at most 40 rows, built and accepted: a form posting more rows (``TOTAL_FORMS``) builds 40
#: and is refused (Django's ``absolute_max``, ``validate_max``)
ComplaintRows = forms.formset_factory(
    ComplaintRow, extra=8, max_num=40, absolute_max=40, validate_max=True
)
