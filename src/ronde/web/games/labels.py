"""French labels for everything the engine and the web store as identifiers.

No page shows a raw key, status, action or item id: trial and request statuses,
chorus actions, orders, items (by their catalogue name) and players' requests
(as one sentence: "Ouvrir un procès contre Joueur08 (Alice), anonyme") are
rendered through these functions. Action names come from
:data:`ronde.web.games.vocabulary.SPECS` (``Spec.label``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ronde.catalog import default_catalog
from ronde.engine.names import BY_ID, CAUSES_FR
from ronde.forum.render import KINDS_FR

from . import vocabulary

#: a trial's status, as the views give it
TRIAL_STATUS = {
    "open": gettext_lazy("ouvert"),
    "concluded": gettext_lazy("conclu, verdict à annoncer"),
    "just": gettext_lazy("juste"),
    "unjust": gettext_lazy("injuste"),
    "lapsed": gettext_lazy("annulé faute de plaintes"),
    "cancelled": gettext_lazy("annulé (vice de procédure)"),
    "void": gettext_lazy("sans objet"),
}

#: a player's request to the game masters
REQUEST_STATUS = {
    "pending": gettext_lazy("en attente des MJ"),
    "accepted": gettext_lazy("acceptée"),
    "refused": gettext_lazy("refusée"),
    "withdrawn": gettext_lazy("retirée"),
}

CHORUS_ACTIONS: dict[str, Any] = dict(vocabulary.CHORUS_ACTIONS)
ORDER_KINDS: dict[str, Any] = dict(vocabulary.ORDER_KINDS)


def trial_status(code: object) -> str:
    return str(TRIAL_STATUS.get(str(code), _("inconnu")))


def request_status(code: object) -> str:
    return str(REQUEST_STATUS.get(str(code), _("inconnu")))


def chorus_action(code: object) -> str:
    return str(CHORUS_ACTIONS.get(str(code), _("action inconnue")))


def action_label(name: object) -> str:
    """The French name of an action of the vocabulary (``Spec.label``)."""
    spec = vocabulary.BY_NAME.get(str(name))
    if spec is not None:
        return str(spec.label)
    return _("action inconnue")


def character(cid: object) -> str:
    """A character's French name (``extra`` -> Figurant); an unknown id is not shown."""
    row = BY_ID.get(str(cid))
    return row.fr if row is not None else _("personnage inconnu")


def item(iid: object) -> str:
    """An item's French name from the catalogue."""
    catalog = default_catalog()
    key = catalog.canonical(str(iid))
    return catalog.name(key) if key is not None else _("objet inconnu")


def items(ids: Iterable[object]) -> str:
    return ", ".join(item(i) for i in ids) or "—"


def cause(code: object) -> str:
    return CAUSES_FR.get(str(code), _("autre cause"))


def yes_no(value: object) -> str:
    return _("oui") if value else _("non")


def _list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def _people(value: Any) -> str:
    return _(" et ").join(str(v) for v in _list(value)) or "—"


def _trial(value: Any) -> str:
    return _("le procès n°%(n)s") % {"n": value}


def _value(arg: vocabulary.Arg, value: Any) -> str:
    """One argument's value in French, by the kind of the argument."""
    if arg.kind == "bool":
        return yes_no(value)
    if arg.kind in ("target", "character", "character_or_extra"):
        return character(value)
    if arg.kind == "characters":
        return ", ".join(character(v) for v in _list(value))
    if arg.kind == "items":
        return items(_list(value))
    if arg.kind == "choice":
        labels = dict(arg.choices)
        return str(labels.get(str(value), _("choix inconnu")))
    if arg.kind == "trial":
        return _("n°%(n)s") % {"n": value}
    if arg.kind == "cell":
        return ",".join(str(v) for v in _list(value))
    if arg.kind == "ints":
        return ", ".join(str(v) for v in _list(value))
    if arg.kind == "accused":
        return _people(value)
    return str(value)


def _generic(spec: vocabulary.Spec, args: Mapping[str, Any]) -> str:
    parts = [
        f"{arg.label} : {_value(arg, args[arg.name])}"
        for arg in spec.args
        if arg.name in args and args[arg.name] not in (None, "", False)
    ]
    return f"{spec.label}" + (f" — {' ; '.join(parts)}" if parts else "")


def _order(args: Mapping[str, Any]) -> str:
    who = args.get("player", "—")
    kind = str(args.get("kind", ""))
    if kind == "complain":
        what = _("de porter plainte dans %(trial)s") % {"trial": _trial(args.get("trial", "?"))}
    elif kind == "go_to":
        what = _("d'aller à la case %(cell)s") % {
            "cell": ",".join(str(v) for v in _list(args.get("cell")))
        }
    elif kind == "take_item":
        what = _("de prendre l'objet %(item)s") % {"item": item(args.get("item", ""))}
    else:
        what = str(ORDER_KINDS.get(kind, _("un ordre")))
    return _("Ordonner à %(who)s %(what)s") % {"who": who, "what": what}


def chorus_choice(args: Mapping[str, Any]) -> str:
    """A chorus vote's choice: "Enquêter — Joueur05 (Voyante)"."""
    text = chorus_action(args.get("action", ""))
    if args.get("player"):
        text += " — " + str(args["player"])
        if args.get("as"):
            text += f" ({character(args['as'])})"
    return text


def _chorus_vote(args: Mapping[str, Any]) -> str:
    return _("Voter pour : %(choice)s") % {"choice": chorus_choice(args)}


def request_sentence(action: str, args: Mapping[str, Any]) -> str:
    """A request (or a recorded action) as one French sentence."""
    a = dict(args or {})
    anonymous = _(", anonyme") if a.get("anonymous") else ""
    who = a.get("player", "—")
    match action:
        case "open_trial":
            text = _("Ouvrir un procès contre %(who)s (%(as)s)") % {
                "who": _people(a.get("against")),
                "as": character(a.get("as")),
            }
            return text + anonymous + (_(", avec arguments") if a.get("arguments") else "")
        case "complain":
            text = _("Porter plainte dans %(trial)s") % {"trial": _trial(a.get("trial"))}
            return text + anonymous
        case "post":
            text = _("Message dans %(trial)s") % {"trial": _trial(a.get("trial"))}
            if a.get("defends"):
                text += _(", pour défendre %(who)s") % {"who": a["defends"]}
            return text
        case "cancel_trial":
            return _("Annuler %(trial)s pour vice de procédure") % {"trial": _trial(a.get("trial"))}
        case "shorten_trial":
            return _("Écourter %(trial)s") % {"trial": _trial(a.get("trial"))}
        case "ask":
            return _("Demander si %(who)s est %(as)s") % {
                "who": who,
                "as": character(a.get("as")),
            }
        case "put_to_sleep":
            return _("Endormir %(who)s") % {"who": who}
        case "reveal_secret":
            return _("Révéler le secret de %(who)s") % {"who": who}
        case "grant_anonymous":
            return _("Offrir une plainte anonyme à %(who)s") % {"who": who}
        case "order":
            return _order(a)
        case "choose_phrase":
            return _("Choisir la phrase « %(text)s »") % {"text": a.get("text", "")}
        case "prompt":
            text = _("Souffler à %(who)s") % {"who": who}
            return text + (_(" (thème trouvé)") if a.get("theme_found") else "")
        case "designate_monster":
            return _("Désigner mon monstre : %(c)s") % {"c": character(a.get("character"))}
        case "accuse_monster":
            return _("Accuser %(who)s d'être mon monstre") % {"who": who}
        case "declare_not":
            return _("Déclarer « je ne suis pas %(who)s »") % {"who": who}
        case "declare_destiny":
            days = [f"J{i} {character(c)}" for i, c in enumerate(_list(a.get("list")), start=2)]
            return _("Déclarer ma destinée : %(list)s") % {"list": ", ".join(days)}
        case "designate":
            return _("Désigner %(c)s") % {"c": character(a.get("character"))}
        case "last_breath":
            return _("Dernier souffle contre %(c)s") % {"c": character(a.get("character"))}
        case "guess_ronde":
            names = ", ".join(character(c) for c in _list(a.get("order")))
            return _("Deviner la Ronde : %(names)s") % {"names": names}
        case "send_items":
            return _("Envoyer à %(gm)s : %(items)s") % {
                "gm": a.get("to", "—"),
                "items": items(_list(a.get("items"))),
            }
        case "use_joker":
            return _("Utiliser un Joker : %(items)s") % {"items": items(_list(a.get("items")))}
        case "chorus_vote":
            return _chorus_vote(a)
    spec = vocabulary.BY_NAME.get(action)
    if spec is None:
        return action_label(action)
    return _generic(spec, a)


#: an argument's name -> its label in the forms (the first action that has it)
ARG_LABELS: dict[str, Any] = {}
for _spec in vocabulary.SPECS:
    for _arg in _spec.args:
        ARG_LABELS.setdefault(_arg.name, _arg.label)

_QUOTED = re.compile(r"« ([a-z][a-z0-9]*(?:_[a-z0-9]+)*) »")


def humanize(text: str) -> str:
    """An engine message with any quoted identifier (« put_to_sleep ») put in French."""

    def one(m: re.Match[str]) -> str:
        key = m.group(1)
        for table in (CHORUS_ACTIONS, ORDER_KINDS):
            if key in table:
                return f"« {table[key]} »"
        if key in vocabulary.BY_NAME:
            return f"« {vocabulary.BY_NAME[key].label} »"
        if key in BY_ID:
            return f"« {BY_ID[key].fr} »"
        if key.startswith("item_"):
            return f"« {item(key)} »"
        if key in ARG_LABELS:
            return f"« {ARG_LABELS[key]} »"
        return m.group(0)

    return _QUOTED.sub(one, text)


#: what a character's own fact records (the game masters' timeline)
FACT_KINDS = {
    "accused": gettext_lazy("accusation du monstre"),
    "anonymous": gettext_lazy("plainte anonyme"),
    "anonymous_used": gettext_lazy("plainte anonyme utilisée"),
    "asked": gettext_lazy("question posée"),
    "cancel_attempt": gettext_lazy("annulation demandée"),
    "cancel_result": gettext_lazy("issue de l'annulation"),
    "candle": gettext_lazy("bougie soufflée"),
    "chorus_double": gettext_lazy("plaintes doublées par le chœur"),
    "chorus_secret": gettext_lazy("secret répandu par le chœur"),
    "chorus_sleep": gettext_lazy("sommeil décidé par le chœur"),
    "chorus_unlocked": gettext_lazy("action transmise au chœur"),
    "contest": gettext_lazy("concours des Décorateurs"),
    "declared": gettext_lazy("déclaration « je ne suis pas … »"),
    "defence": gettext_lazy("défense"),
    "designated": gettext_lazy("personnage désigné"),
    "excerpt": gettext_lazy("extrait de MP envoyé"),
    "fallen": gettext_lazy("chute"),
    "find_settled": gettext_lazy("Figurant trouvé : verdict annoncé, découverte réglée"),
    "find_waits": gettext_lazy("Figurant trouvé : en attente de l'annonce de son verdict"),
    "gift": gettext_lazy("plainte anonyme offerte"),
    "gift_used": gettext_lazy("plainte offerte utilisée"),
    "immunity": gettext_lazy("immunité"),
    "inherited": gettext_lazy("héritage"),
    "last_breath": gettext_lazy("dernier souffle"),
    "model": gettext_lazy("modèle désigné"),
    "monster_designated": gettext_lazy("monstre désigné"),
    "monster_joker": gettext_lazy("Joker du monstre"),
    "monster_released": gettext_lazy("chasse terminée"),
    "order": gettext_lazy("ordre donné"),
    "order_status": gettext_lazy("ordre jugé"),
    "participation": gettext_lazy("participation à un procès"),
    "pending": gettext_lazy("en attente"),
    "phrase": gettext_lazy("phrase choisie"),
    "public": gettext_lazy("canal public"),
    "reward": gettext_lazy("récompense"),
    "role_given": gettext_lazy("rôle donné"),
    "schedule": gettext_lazy("liste déclarée"),
    "secret": gettext_lazy("secret révélé"),
    "secret_constraint": gettext_lazy("contrainte secrète"),
    "shorten": gettext_lazy("procès écourté"),
    "shorten_result": gettext_lazy("issue de l'écourtement"),
    "sleep_chosen": gettext_lazy("sommeil choisi"),
    "sleep_ends": gettext_lazy("fin du sommeil"),
    "sleep_starts": gettext_lazy("début du sommeil"),
    "submission": gettext_lazy("soumission du Souffleur"),
    "worried": gettext_lazy("inquiétée (appel)"),
}


def fact_kind(code: object) -> str:
    return str(FACT_KINDS.get(str(code), _("fait du personnage")))


_IDENT = re.compile(r"(?<![\w-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w-])")


def humanize_all(text: str) -> str:
    """An engine text (a game masters' to-do line ...) with every known snake_case
    identifier replaced by its French label (actions, chorus actions, characters)."""

    def one(m: re.Match[str]) -> str:
        key = m.group(1)
        if key in vocabulary.BY_NAME:
            return f"« {vocabulary.BY_NAME[key].label} »"
        if key in CHORUS_ACTIONS:
            return str(CHORUS_ACTIONS[key])
        if key in ORDER_KINDS:
            return str(ORDER_KINDS[key])
        if key in BY_ID:
            return BY_ID[key].fr
        if key.startswith("item_"):
            return item(key)
        if key in ARG_LABELS:
            return f"« {ARG_LABELS[key]} »"
        return key

    text = _IDENT.sub(one, humanize(text))
    return _ARG_WORDS.sub(lambda m: f"« {ARG_LABELS[m.group(1)]} »", text)


#: argument names that are English words, named in engine texts ("post avec defends")
_ARG_WORDS = re.compile(r"(?<![\w«-])(defends|against|arguments|anonymous)(?![\w-])")


#: the forum templates (``ronde/forum/templates/<name>``) by what they write
TEMPLATE_NAMES = {
    "_default.txt": gettext_lazy("Tout autre message (texte du moteur)"),
    "asleep.txt": gettext_lazy("Joueur endormi"),
    "day_summary.txt": gettext_lazy("Résumé du jour"),
    "diva_public.txt": gettext_lazy("Message public de la Diva"),
    "excerpt.txt": gettext_lazy("Extraits de MP pour Alice (MP)"),
    "final_reveal.txt": gettext_lazy("Fin de la partie"),
    "forbidden_items.txt": gettext_lazy("Objets interdits"),
    "hero_declaration.txt": gettext_lazy("Déclaration du Héros tragique"),
    "pianist_fallen.txt": gettext_lazy("Chute du Pianiste"),
    "reminder_j13.txt": gettext_lazy("Rappel du J13 13:13"),
    "role_reveal.txt": gettext_lazy("Rôle révélé (MP du J1)"),
    "target_added.txt": gettext_lazy("Nouvelle cible (MP)"),
    "theme.txt": gettext_lazy("Thème du jour"),
    "transfigured.txt": gettext_lazy("Transfiguration en Figurant"),
    "trial_ended.txt": gettext_lazy("Verdict d'un Procès"),
    "trial_opened.txt": gettext_lazy("Ouverture d'un Procès"),
    "unmasking.txt": gettext_lazy("Démasquage"),
    "verdict_ignored.txt": gettext_lazy("Verdict sans effet"),
}


def template_name(name: object) -> str:
    """A forum template's French name (« Verdict d'un Procès »), never its file name."""
    key = str(name)
    found = TEMPLATE_NAMES.get(key)
    if found is not None:
        return str(found)
    kind = KINDS_FR.get(key.removesuffix(".txt"))
    if kind is not None:  # a template added since: the forum's own name of its messages
        return kind[:1].upper() + kind[1:]
    return _("Modèle « %(n)s »") % {"n": key.removesuffix(".txt").replace("_", " ")}
