"""Click's and Typer's own words in French: help panels, usage lines, errors.

Click and Typer mark their messages with :mod:`gettext` (``_("Show this message and
exit.")``) but read the translation from the process's locale, which a server rarely
has in French. :func:`install` replaces their ``_`` and ``ngettext`` with a lookup in
the table below (a message missing from it stays as it is), and the panel titles that
Typer computes once at import. Called once, before the ``ronde`` app runs.
"""

from __future__ import annotations

import functools
import importlib
import re
from typing import Any

FRENCH: dict[str, str] = {
    "%(prog)s, version %(version)s": "%(prog)s, version %(version)s",
    "(deprecated) ": "(obsolète) ",
    "(dynamic)": "(calculé)",
    "Aborted!": "Abandon.",
    "Aborted.": "Abandon.",
    "Argument {name!r} takes {nargs} values.": "L'argument {name!r} prend {nargs} valeurs.",
    "Arguments": "Arguments",
    "Choose from:\n\t{choices}": "Choisissez parmi :\n\t{choices}",
    "Commands": "Commandes",
    "Confirm the action without prompting.": "Confirmer sans poser la question.",
    "Could not open file {filename!r}: {message}": (
        "Impossible d'ouvrir le fichier {filename!r} : {message}"
    ),
    "Do you want to continue?": "Continuer ?",
    "Error": "Erreur",
    "Error: The two entered values do not match.": "Erreur : les deux valeurs diffèrent.",
    "Error: invalid input": "Erreur : saisie invalide",
    "Error: {message}": "Erreur : {message}",
    "Invalid start character for option ({option})": (
        "Caractère de début invalide pour une option ({option})"
    ),
    "Invalid value for {param_hint}: {message}": "Valeur invalide pour {param_hint} : {message}",
    "Invalid value: {message}": "Valeur invalide : {message}",
    "Missing argument": "Argument manquant",
    "Missing command.": "Commande manquante.",
    "Missing option": "Option manquante",
    "Missing parameter": "Paramètre manquant",
    "Missing parameter: {param_name}": "Paramètre manquant : {param_name}",
    "Missing {param_type}": "{param_type} manquant",
    "No such command {name!r}.": "Commande inconnue : {name!r}.",
    "No such option {name!r}.": "Option inconnue : {name!r}.",
    "No such option: {name}": "Option inconnue : {name}",
    "Option {name!r} does not take a value.": "L'option {name!r} ne prend pas de valeur.",
    "Options": "Options",
    "Positional arguments": "Arguments",
    "Press any key to continue...": "Appuyez sur une touche pour continuer…",
    "Repeat for confirmation": "Répétez pour confirmer",
    "Show the version and exit.": "Affiche la version et quitte.",
    "Show this message and exit.": "Affiche cette aide et quitte.",
    "Try '{command} {option}' for help.": "Aide : « {command} {option} ».",
    "Try [blue]'{command_path} {help_option}'[/] for help.": (
        "Aide : [blue]« {command_path} {help_option} »[/]."
    ),
    "Usage:": "Utilisation :",
    "Value must be an iterable.": "La valeur doit être une liste.",
    "[default: {}]": "[défaut : {}]",
    "[env var: {}]": "[variable d'environnement : {}]",
    "[required]": "[obligatoire]",
    "default: {default}": "défaut : {default}",
    "deprecated": "obsolète",
    "directory": "dossier",
    "env var: {var}": "variable d'environnement : {var}",
    "file": "fichier",
    "path": "chemin",
    "required": "obligatoire",
    "unknown error": "erreur inconnue",
    "{name} {filename!r} does not exist.": "{name} {filename!r} introuvable.",
    "{name} {filename!r} is a directory.": "{name} {filename!r} est un dossier.",
    "{name} {filename!r} is a file.": "{name} {filename!r} est un fichier.",
    "{name} {filename!r} is not executable.": "{name} {filename!r} n'est pas exécutable.",
    "{name} {filename!r} is not readable.": "{name} {filename!r} n'est pas lisible.",
    "{name} {filename!r} is not writable.": "{name} {filename!r} n'est pas modifiable.",
    "{value!r} is not a valid UUID.": "{value!r} n'est pas un UUID valide.",
    "{value!r} is not a valid {number_type}.": "{value!r} n'est pas un {number_type} valide.",
    "{value} is not in the range {range}.": "{value} n'est pas dans l'intervalle {range}.",
    "integer": "nombre entier",
    "float": "nombre",
    # plural forms (ngettext): the singular and the plural are looked up alike
    "(Did you mean one of: {possibilities}?)": "(Vouliez-vous dire l'un de : {possibilities} ?)",
    "Did you mean {possibility}?": "Vouliez-vous dire {possibility} ?",
    "Got unexpected extra argument ({args})": "Argument en trop : {args}",
    "Got unexpected extra arguments ({args})": "Arguments en trop : {args}",
    "Option {name!r} requires an argument.": "L'option {name!r} attend une valeur.",
    "Option {name!r} requires {nargs} arguments.": "L'option {name!r} attend {nargs} valeurs.",
    "Takes {nargs} values but 1 was given.": "Prend {nargs} valeurs, mais 1 a été donnée.",
    "Takes {nargs} values but {len} were given.": (
        "Prend {nargs} valeurs, mais {len} ont été données."
    ),
    "{value!r} does not match the format {format}.": (
        "{value!r} ne correspond pas au format {format}."
    ),
    "{value!r} does not match the formats {formats}.": (
        "{value!r} ne correspond à aucun des formats {formats}."
    ),
    "{value!r} is not one of {choices}.": "{value!r} n'est pas l'un de {choices}.",
    "{value!r} is not {choice}.": "{value!r} n'est pas {choice}.",
    "{len_type} values are required, but {len_value} was given.": (
        "{len_type} valeurs attendues, {len_value} donnée."
    ),
    "{len_type} values are required, but {len_value} were given.": (
        "{len_type} valeurs attendues, {len_value} données."
    ),
}

#: the modules whose ``_``/``ngettext`` are replaced (those that exist in the installed
#: versions: the floor of typer and click is checked by CI's lowest-versions job)
MODULES = (
    "click.core",
    "click.decorators",
    "click.exceptions",
    "click.formatting",
    "click.parser",
    "click.termui",
    "click.types",
    "click.utils",
    "typer.core",
    "typer.main",
    "typer.rich_utils",
)

#: Typer's panel titles and help strings computed once at import
TYPER_CONSTANTS = {
    "DEPRECATED_STRING": "(obsolète) ",
    "DEFAULT_STRING": "[défaut : {}]",
    "ENVVAR_STRING": "[variable d'environnement : {}]",
    "REQUIRED_LONG_STRING": "[obligatoire]",
    "ARGUMENTS_PANEL_TITLE": "Arguments",
    "OPTIONS_PANEL_TITLE": "Options",
    "COMMANDS_PANEL_TITLE": "Commandes",
    "ERRORS_PANEL_TITLE": "Erreur",
    "ABORTED_TEXT": "Abandon.",
    "RICH_HELP": "Aide : [blue]« {command_path} {help_option} »[/].",
}


#: messages built with f-strings (Typer's own copy of Click, typer >= 0.20): patterns
PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^Missing argument '?([^'.]*)'?\.?"), r"Argument manquant : \1."),
    (re.compile(r"^Missing option '?([^'.]*)'?\.?"), r"Option manquante : \1."),
    (re.compile(r"^Missing parameter:? '?([^'.]*)'?\.?"), r"Paramètre manquant : \1."),
    (re.compile(r"^No such option:? (.*?)\.?$"), r"Option inconnue : \1."),
    (re.compile(r"^No such command:? (.*?)\.?$"), r"Commande inconnue : \1."),
    (re.compile(r"^Got unexpected extra argument(?:s|\(s\))? \((.*)\)$"), r"En trop : \1"),
    (re.compile(r"^Invalid value for (.*?): (.*)$", re.S), r"Valeur invalide pour \1 : \2"),
    (re.compile(r"^Invalid value: (.*)$", re.S), r"Valeur invalide : \1"),
    (re.compile(r"^Option (.*) requires an argument\.$"), r"L'option \1 attend une valeur."),
    (re.compile(r"^Option (.*) requires (\d+) arguments\.$"), r"L'option \1 attend \2 valeurs."),
    (re.compile(r"^Option (.*) does not take a value\.$"), r"L'option \1 ne prend pas de valeur."),
    (re.compile(r"^Missing command\.$"), "Commande manquante."),
    (
        re.compile(r"(.*?) is not a valid (integer|float|boolean)\.?"),
        r"\1 n'est pas un nombre valide.",
    ),
    (re.compile(r"(.*?) is not one of (.*?)\.$"), r"\1 n'est pas l'un de \2."),
    (re.compile(r"(.*?) is not in the range (.*?)\.$"), r"\1 n'est pas dans l'intervalle \2."),
    (re.compile(r"Input should be a valid integer.*$", re.S), "un nombre entier est attendu"),
    (re.compile(r"Input should be a valid number.*$", re.S), "un nombre est attendu"),
    (re.compile(r"Input should be a valid boolean.*$", re.S), "oui ou non est attendu"),
    (re.compile(r"Input should be a valid date.*$", re.S), "une date est attendue"),
    (re.compile(r"Input should be (.*)$", re.S), r"valeur attendue : \1"),
    (re.compile(r"\s*\(?Did you mean (.*?)\?\)?"), r" (vouliez-vous dire \1 ?)"),
    (re.compile(r"(File|Path|Directory) (.*?) does not exist\."), r"\2 introuvable."),
    (re.compile(r"(File|Path|Directory) (.*?) is a directory\."), r"\2 est un dossier."),
    (re.compile(r"(File|Path|Directory) (.*?) is a file\."), r"\2 est un fichier."),
]

#: Typer's type labels in help (« <str> », typer >= 0.20)
TYPE_LABELS = {
    "str": "texte",
    "int": "entier",
    "float": "nombre",
    "path": "chemin",
    "Path": "chemin",
    "file": "fichier",
    "dir": "dossier",
    "directory": "dossier",
    "datetime": "date",
    "list[str]": "textes",
    "list[Path]": "chemins",
    "list[path]": "chemins",
}


#: Click's parameter types (typer < 0.20): their names make the metavars of help pages
CLICK_TYPE_NAMES = {
    "StringParamType": "texte",
    "IntParamType": "entier",
    "IntRange": "entier",
    "FloatParamType": "nombre",
    "FloatRange": "nombre",
    "BoolParamType": "oui/non",
    "Path": "chemin",
    "File": "fichier",
    "DateTime": "date",
    "Choice": "choix",
}


def translate(message: str) -> str:
    """A message of Click or Typer in French (as it is when it is not known)."""
    if message in FRENCH:
        return FRENCH[message]
    for pattern, french in PATTERNS:
        message = pattern.sub(french, message)
    return message


def gettext(message: str) -> str:
    return FRENCH.get(message, message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return gettext(singular if n == 1 else plural)


def install() -> None:
    """Put the French table in place of Click's and Typer's translations."""
    for name in MODULES:
        try:
            module: Any = importlib.import_module(name)
        except ImportError:  # a module of another version of click or typer
            continue
        if hasattr(module, "_"):
            module._ = gettext
        if hasattr(module, "ngettext"):
            module.ngettext = ngettext
    try:
        rich_utils: Any = importlib.import_module("typer.rich_utils")
    except ImportError:
        rich_utils = None
    for constant, text in TYPER_CONSTANTS.items():
        if hasattr(rich_utils, constant):
            setattr(rich_utils, constant, text)
    for name in ("click", "typer._click"):
        try:
            _patch_click(importlib.import_module(name))
        except ImportError:
            continue
    _patch_type_labels()


def _patch_click(click: Any) -> None:
    """Click's (or Typer's copy of Click's) help option, usage line and error messages."""
    command: Any = getattr(click, "Command", None)
    original_help = getattr(command, "get_help_option", None)
    if original_help is not None and not getattr(original_help, "_ronde", False):

        @functools.wraps(original_help)
        def get_help_option(self: Any, ctx: Any) -> Any:
            option = original_help(self, ctx)
            if option is not None and isinstance(option.help, str):
                option.help = translate(option.help)
            return option

        get_help_option._ronde = True  # type: ignore[attr-defined]
        command.get_help_option = get_help_option
    formatter: Any = getattr(click, "HelpFormatter", None)
    original_usage = getattr(formatter, "write_usage", None)
    if original_usage is not None and not getattr(original_usage, "_ronde", False):

        @functools.wraps(original_usage)
        def write_usage(self: Any, prog: str, args: str = "", prefix: str | None = None) -> None:
            original_usage(self, prog, args, "Utilisation : " if prefix is None else prefix)

        write_usage._ronde = True  # type: ignore[attr-defined]
        formatter.write_usage = write_usage
    types: Any = getattr(click, "types", None)
    for class_name, name in CLICK_TYPE_NAMES.items():
        kind = getattr(types, class_name, None)
        if isinstance(kind, type) and hasattr(kind, "name"):
            kind.name = name  # (the metavar is its upper case: TEXTE, ENTIER ...)
    exceptions: Any = getattr(click, "exceptions", None)
    value: Any
    for value in vars(exceptions).values() if exceptions is not None else ():
        if isinstance(value, type) and "format_message" in vars(value):
            original = vars(value)["format_message"]
            if getattr(original, "_ronde", False):
                continue
            setattr(value, "format_message", _translated(original))  # noqa: B010


def _translated(original: Any) -> Any:
    @functools.wraps(original)
    def format_message(self: Any) -> str:
        return translate(str(original(self)))

    format_message._ronde = True  # type: ignore[attr-defined]
    return format_message


def _patch_type_labels() -> None:
    """« <str> » becomes « <texte> »; a flag shows no type (typer >= 0.20)."""
    try:
        core: Any = importlib.import_module("typer.core")
    except ImportError:
        return
    for cls in vars(core).values():
        original = vars(cls).get("display_type") if isinstance(cls, type) else None
        if original is None or getattr(original, "_ronde", False):
            continue

        def display_type(self: Any, ctx: Any, _original: Any = original) -> Any:
            label = _original(self, ctx)
            if not isinstance(label, str):
                return label
            inner = label[1:-1] if label.startswith("<") and label.endswith(">") else label
            if inner == "bool":
                return None
            return f"<{TYPE_LABELS.get(inner, inner)}>"

        display_type._ronde = True  # type: ignore[attr-defined]
        cls.display_type = display_type
