"""Announcements and private messages in the forum's markup, from editable templates.

Stable API (the console's copy buttons and ``ronde announce`` use it):

- :func:`load_templates` ``(folder=None) -> Templates``: the default templates shipped
  in ``ronde/forum/templates/`` (one Jinja2 file ``<kind>.txt`` per
  ``MessageSent.kind``, ``_default.txt`` for the others), each overridable by a
  file of the same name in ``folder``; the Characters' rules summary
  ``roles.fr.yaml`` is overridable the same way.
- :func:`render_message` ``(message, templates=None, context=None) -> str``: one
  message (the JSON form of a ``MessageSent`` event: ``kind``, ``data``, ``text``,
  ``to``, ``public``, ``at``) as ready-to-paste forum text ([b], [i], [quote=…],
  [rp=…], [spoiler], [collapse=…]).
- :class:`ForumContext` ``.from_game(game)``: what a rendering may use besides the
  message itself — seat → current pseudo, the start date, and *public* facts
  (each trial's accused, supposed Character, arguments and non-anonymous opener;
  each public unmasking's trial). Private messages use only their own ``data`` and
  the pseudos: a message rendered for a player never holds what he may not know.
- :func:`forum_messages` ``(game) -> list[dict]``: every message of a game in time
  order (the engine's, plus the public day summaries and the J13 13:13 reminder),
  in the form :func:`render_message` takes.

A template that fails (a game master's typo, a variable the message lacks) falls
back to the engine's French text, with :attr:`Rendered.problem` saying why.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import (
    Callable,
    ItemsView,
    Iterable,
    Iterator,
    KeysView,
    Mapping,
    Sequence,
    ValuesView,
)
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date, datetime
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import jinja2
import yaml
from jinja2.sandbox import SandboxedEnvironment

from ..engine.clock import LAST_DAY, PARIS, cutoff_1313, day_of, format_time
from ..engine.events import (
    DayClosed,
    Event,
    MessageSent,
    PlayerUnmasked,
    TrialAnnounced,
    TrialOpened,
    to_json,
)
from ..engine.game import Game
from ..engine.names import french_name
from ..engine.views import public_view

Message = Mapping[str, Any]

ZWSP = "\u200b"

#: Kinds that Ronde adds to the engine's messages (public, built from public views).
SYNTHETIC_KINDS = ("day_summary", "reminder_j13")

STATUS_FR = {
    "open": "en cours",
    "just": "JUSTE",
    "unjust": "INJUSTE",
    "lapsed": "annulé faute de plaintes",
    "cancelled": "annulé pour vice de procédure",
    "void": "sans objet",
}

#: what each kind of message is, in the ``#`` line before it (never the engine's key)
KINDS_FR = {
    "answer": "réponse à Woody",
    "asleep": "sommeil",
    "cancel_requested": "annulation demandée par l'Avocat du Diable",
    "candle_result": "bougie du Souffleur",
    "choose_monster": "nouvelle cible du Héros",
    "chorus_secret": "secret du chœur",
    "cut_thread_void": "fil du destin",
    "day_summary": "résumé du jour",
    "decorators_contest": "concours des Décorateurs",
    "defence_not_counted": "défense non comptée",
    "destiny_schedule": "liste de la Destinée",
    "diva_anonymous": "plainte de la Diva",
    "diva_designation": "désignation de la Diva",
    "diva_last_breath": "dernier souffle de la Diva",
    "diva_public": "la Diva",
    "diva_worried": "appel de la Diva",
    "excerpt": "extrait pour Alice",
    "final_reveal": "fin de la partie",
    "forbidden_items": "objets refusés",
    "gift": "cadeau de Polichinelle",
    "guignol_constraint": "contrainte de Guignol",
    "hero_declaration": "déclaration du Héros",
    "mime_target": "modèle du Mime",
    "mime_target_fallen": "modèle du Mime démasqué",
    "monstrous": "Personnage monstrueux",
    "order": "ordre de la Petite Sirène",
    "phrase": "phrase du Souffleur",
    "pianist_fallen": "chute du Pianiste",
    "pinocchio_mistake": "erreur de Pinocchio",
    "prompt_result": "soumission du Souffleur",
    "reminder_j13": "rappel du J13",
    "revenant_role": "rôle du Revenant",
    "role_reveal": "rôle",
    "secret": "secret de Polichinelle",
    "straw_man_reward": "Homme de paille",
    "target_added": "nouvelle cible",
    "theme": "thème des Répétitions",
    "transfigured": "nouveau masque",
    "trial_ended": "fin de Procès",
    "trial_opened": "ouverture de Procès",
    "unmasking": "démasquage",
    "unmasking_detail": "détail d'un démasquage",
    "verdict_ignored": "verdict sans effet",
}

#: where a public message goes when not on the town forum (A57: the Hero's declaration)
FORUMS_FR = {"FM": "FM (Forum Monde)", "FV": "FV (public)"}

CAUSES_FR = {
    "trial": "Procès juste",
    "constraint": "contrainte non respectée",
    "duty": "devoir non accompli",
    "power": "pouvoir d'un autre Personnage",
    "death": "mort du citoyen",
}


_INERT = re.compile(r"[\[{@]|:(?=\w)|([*/-])(?=\1)|(?<=\s)\*(?=\s)")


def plain(text: object) -> str:
    """Player-written text made inert inside forum markup: a zero-width space after
    each ``[`` keeps ``[/quote]`` or ``[b]`` typed by a player from acting as a tag;
    likewise after ``{`` (the forum's server-random insets: ``{d6}``, ``{habitant}``),
    ``@`` (a mention), ``:`` before a word (an emote), the first of ``**``, ``//``,
    ``--`` (short forms) and a lone ``*`` (" * " opens a list line)."""
    return _INERT.sub(lambda m: m.group(0) + ZWSP, str(text))


_FORUM_PREFIX = re.compile(r"^\[(FM|FV)\]\s*")


def announced(text: object) -> str:
    """An announcement's engine text as players read it: without the "[FM] " the engine
    puts before the Hero's declaration (A57), said in words instead."""
    m = _FORUM_PREFIX.match(str(text))
    if m is None:
        return str(text)
    rest = str(text)[m.end() :]
    return rest + (" (sur le Forum Monde)" if m.group(1) == "FM" else "")


def join_fr(items: Iterable[object]) -> str:
    """``a, b et c``."""
    words = [str(i) for i in items if str(i)]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " et " + words[-1]


@dataclass(frozen=True)
class Templates:
    """A Jinja2 environment over the default templates and a game master's folder."""

    env: jinja2.Environment
    roles: Mapping[str, Mapping[str, str]]
    folder: Path | None = None

    def has(self, kind: str) -> bool:
        try:
            self.env.get_template(f"{kind}.txt")
        except jinja2.TemplateNotFound:
            return False
        except jinja2.TemplateError:
            return True  # a broken template exists: render() falls back with a warning
        return True

    def names(self) -> list[str]:
        """Every template name available (defaults and overrides)."""
        return sorted(self.env.list_templates(extensions=["txt"]))


def template_source(templates: Templates, name: str) -> str:
    """The text of template ``name`` as ``templates`` would use it ("" if none)."""
    loader = templates.env.loader
    if loader is None:
        return ""
    try:
        return loader.get_source(templates.env, name)[0]
    except jinja2.TemplateNotFound:
        return ""


def check_template(text: str) -> str:
    """Why ``text`` is not a valid template ("" when it compiles and keeps to the
    constructions :class:`BoundedSandbox` allows)."""
    try:
        BoundedSandbox().compile(text)  # (parsed, checked and compiled to Python)
    except jinja2.TemplateSyntaxError as exc:
        return f"ligne {exc.lineno} : {exc.message}"
    return ""


#: the filters a template may use (none that makes a text of any size from a number:
#: ``center``, ``indent``, ``format``, ``replace`` ... are left out)
SAFE_FILTERS = frozenset(
    {"plain", "join_fr", "announced", "perso", "length", "count", "map", "trim", "join",
     "upper", "lower", "capitalize", "title", "default", "d", "first", "last", "sort",
     "unique", "string", "int", "e", "escape", "striptags", "reverse", "list", "select",
     "reject", "selectattr", "rejectattr", "abs", "round", "min", "max", "sum"}
)  # fmt: skip
#: the methods a template may call (none that takes a size)
SAFE_METHODS = frozenset(
    {"get", "items", "keys", "values", "isdigit", "isalpha", "startswith", "endswith",
     "lower", "upper", "strip", "capitalize", "title"}
)  # fmt: skip
#: the functions a template is given (:func:`_variables`)
SAFE_FUNCTIONS = frozenset({"pseudo", "perso", "persos", "role"})
#: the constructions a template may hold: no arithmetic that grows a text (``*``, ``**``,
#: ``+``, ``~``, ``%``), no macro, include, import, block, captured block or recursive loop
_SAFE_NODES: tuple[type[jinja2.nodes.Node], ...] = tuple(
    getattr(jinja2.nodes, name)
    for name in (
        "Template", "Output", "TemplateData", "Name", "Const", "Getattr", "Getitem",
        "Slice", "Filter", "Test", "If", "CondExpr", "Compare", "Operand", "And", "Or",
        "Not", "Neg", "Pos", "Sub", "Div", "FloorDiv", "For", "Assign", "Tuple", "List",
        "Dict", "Pair", "Keyword", "Call",
    )
)  # fmt: skip
#: filters that apply another filter named by their first argument
_APPLYING = frozenset({"map"})
#: a template's size and its constants, at most
MAX_TEMPLATE = 20_000
MAX_TEXT = 10_000
MAX_NUMBER = 1_000_000
#: the loop turns of one rendering, and the size of its text, at most
MAX_TURNS = 20_000
MAX_OUTPUT = 200_000
#: the work of one rendering, at most: each loop turn costs the size of its body, each
#: filter, method call, slice, comparison or output the size of what it reads and makes
MAX_WORK = 2_000_000
#: the work of every rendering with one :class:`Templates` (a page of messages), at most
MAX_WORK_TOTAL = 10 * MAX_WORK
#: a join's separator (times the items) and round's precision, at most
MAX_PRECISION = 20


class TemplateTooCostly(Exception):
    """A rendering went past :data:`MAX_TURNS` loop turns or :data:`MAX_OUTPUT` characters."""


class BoundedSandbox(SandboxedEnvironment):
    """The sandbox of forum templates, which game masters write (any account may create a
    game, and one server serves every game). Besides the sandbox's own limits:

    - a template keeps to constructions whose work stays in proportion to what it is
      given (:data:`SAFE_FILTERS`, :data:`SAFE_METHODS`, :data:`SAFE_FUNCTIONS`, no
      arithmetic that grows a text, no ``range``): ``{{ "a" * 10**8 }}`` is refused when
      the template is compiled (``TemplateSyntaxError``: :func:`render` falls back to the
      engine's text, the console warns when it is saved); so is a template nested too
      deep for the parser or Python's compiler (``RecursionError``, ``SyntaxError``);
    - every loop counts its turns against the rendering's :data:`MAX_TURNS` (loops
      nested over a long text), and :func:`render` stops at :data:`MAX_OUTPUT`
      characters (:class:`TemplateTooCostly`, the same fallback);
    - every filter, method call, slice, comparison, test, output and loop turn is charged
      the (deep) size of what it reads and makes against :data:`MAX_WORK`, and no value
      made or written may exceed :data:`MAX_OUTPUT`: a list holding the same list ten
      times, ten times over, or a ``join`` of a ``join``, stops before the text is built."""

    def __init__(self, **options: Any) -> None:
        options.setdefault("finalize", _finalize)
        # (Jinja's constant folding tries every filter chain at every level of it: a
        # chain of 200 filters took seconds to compile; and it ran filters unbudgeted)
        options.setdefault("optimized", False)
        super().__init__(**options)
        self.filters["plain"] = plain
        self.filters["join_fr"] = join_fr
        self.filters["announced"] = announced
        self.filters["perso"] = french_name
        for name in SAFE_FILTERS & set(self.filters):
            self.filters[name] = _guarded(name, self.filters[name])
        self.filters["_turns"] = _turns
        self.filters["_weigh"] = _weigh
        self._broken: dict[tuple[str | None, str], tuple[int, str]] = {}
        #: the work of every rendering so far (:data:`MAX_WORK_TOTAL`)
        self.spent = 0

    def compile(
        self,
        source: str | jinja2.nodes.Template,
        name: str | None = None,
        filename: str | None = None,
        raw: bool = False,
        defer_init: bool = False,
    ) -> Any:
        key = (name, source) if isinstance(source, str) else None
        if key is not None and key in self._broken:
            # (a broken template is not cached by Jinja: parsed once, not once a message)
            raise _syntax_error(*self._broken[key], name, filename)
        try:
            return super().compile(source, name, filename, raw, defer_init)  # type: ignore[call-overload]
        except jinja2.TemplateSyntaxError as exc:
            if key is not None:
                self._broken[key] = (exc.lineno, exc.message or "")
            raise
        except Exception as exc:  # (never past render(), has() nor the console's save)
            # the parser, Jinja's code generator and Python's compiler all recurse
            why = (
                "modèle trop imbriqué (parenthèses, filtres ou blocs)"
                if isinstance(exc, RecursionError | SyntaxError | MemoryError)
                else f"modèle invalide ({exc.__class__.__name__})"
            )
            if key is not None:
                self._broken[key] = (1, why)
            raise _syntax_error(1, why, name, filename) from None

    def _parse(self, source: str, name: str | None, filename: str | None) -> jinja2.nodes.Template:
        if len(source) > MAX_TEMPLATE:  # (before the parser reads it)
            why = f"modèle trop long ({len(source)} caractères, {MAX_TEMPLATE} au plus)"
            raise jinja2.TemplateSyntaxError(why, 1, name, filename)
        tree = super()._parse(source, name, filename)
        problem = _unsafe(tree)
        if problem is not None:
            line, why = problem
            raise jinja2.TemplateSyntaxError(why, line, name, filename)
        nodes = jinja2.nodes
        for loop in list(tree.find_all(nodes.For)):  # (each loop's turns counted)
            weight = 1 + sum(1 for _ in loop.find_all(nodes.Node))
            loop.iter = nodes.Filter(
                loop.iter, "_turns", [nodes.Const(weight)], [], None, None, lineno=loop.lineno
            )
        for compare in list(tree.find_all(nodes.Compare)):  # (a comparison reads both sides)
            compare.expr = _weighed(compare.expr)
            for operand in compare.ops:
                operand.expr = _weighed(operand.expr)
        for sub in list(tree.find_all(nodes.Sub)):  # (keys() - keys(): a new set)
            sub.left, sub.right = _weighed(sub.left), _weighed(sub.right)
        for item in list(tree.find_all(nodes.Getitem)):  # (a slice is a copy)
            if isinstance(item.arg, nodes.Slice):
                item.node = _weighed(item.node)
        for test in list(tree.find_all(nodes.Test)):
            test.node = _weighed(test.node)
            test.args = [_weighed(a) for a in test.args]
        return tree

    def call(
        __self,
        __context: jinja2.runtime.Context,
        __obj: Any,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        owner = getattr(__obj, "__self__", None)  # (a method reads its object)
        _charge(_size([owner, args, kwargs], _left()))
        value = SandboxedEnvironment.call(__self, __context, __obj, *args, **kwargs)
        _charge(_checked(value))
        return value


def _syntax_error(
    line: int, why: str, name: str | None, filename: str | None
) -> jinja2.TemplateSyntaxError:
    exc = jinja2.TemplateSyntaxError(why, line, name, filename)
    exc.translated = True  # (its text without Jinja's "File ..." line, like the others)
    return exc


#: the work done by the current rendering and its loop turns (set by :func:`_bounded`)
_WORK: ContextVar[list[int] | None] = ContextVar("ronde_template_work", default=None)


def _left() -> int:
    work = _WORK.get()
    return MAX_WORK + 1 - (work[0] if work is not None else 0)


def _charge(units: int) -> None:
    work = _WORK.get()
    if work is None:
        return
    work[0] += units
    if work[0] > MAX_WORK:
        raise TemplateTooCostly(f"plus de {MAX_WORK} unités de travail")


_SIZED = (list, tuple, set, frozenset, KeysView, ValuesView, ItemsView)
_COUNTED = (str, Mapping, *_SIZED)


def _size(value: Any, limit: int) -> int:
    """The size of ``value`` counting every element of every list or dictionary it holds
    (the same list held twice counts twice: so does ``str()``), stopped past ``limit``."""
    total = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            total += len(v) + 1
        elif isinstance(v, jinja2.Undefined):
            total += 1
        elif isinstance(v, Mapping):
            total += len(v) + 1
            if total <= limit:
                stack.extend(v.keys())
                stack.extend(v.values())
        elif isinstance(v, _SIZED):
            total += len(v) + 1
            if total <= limit:
                stack.extend(v)
        else:
            total += 1
        if total > limit:
            break
    return total


def _checked(value: Any) -> int:
    """The size of a value a template made, refused past :data:`MAX_OUTPUT`."""
    size = _size(value, MAX_OUTPUT + 1)
    if size > MAX_OUTPUT:
        raise TemplateTooCostly(f"valeur de plus de {MAX_OUTPUT} éléments")
    return size


def _finalize(value: Any) -> Any:
    """Every value a template writes: checked before it is made a text."""
    _charge(_checked(value))
    return value


def _weigh(value: Any) -> Any:
    """``value``, its size charged (what a comparison or a test reads)."""
    _charge(_size(value, _left()))
    return value


def _weighed(node: jinja2.nodes.Expr) -> jinja2.nodes.Expr:
    return jinja2.nodes.Filter(node, "_weigh", [], [], None, None, lineno=node.lineno)


_SPECIAL = (jinja2.runtime.Context, jinja2.nodes.EvalContext, jinja2.Environment)


def _guarded(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """Filter ``function`` charged the size of its arguments and result, refused when it
    would make too much (``join``'s separator, ``round``'s precision, ``sum`` of texts or
    lists)."""

    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        given = [a for a in args if not isinstance(a, _SPECIAL)]
        size = _size([given, kwargs], _left())
        _charge(size)
        value = given[0] if given else None
        if name == "join":
            sep = given[1] if len(given) > 1 else kwargs.get("d", "")
            count = len(value) if isinstance(value, _COUNTED) else 0
            if size + count * len(str(sep)) > MAX_OUTPUT:
                raise TemplateTooCostly(f"join : texte de plus de {MAX_OUTPUT} caractères")
        elif name == "round":
            precision = given[1] if len(given) > 1 else kwargs.get("precision", 0)
            if not isinstance(precision, int) or abs(precision) > MAX_PRECISION:
                raise TemplateTooCostly(f"round : précision de {MAX_PRECISION} au plus")
        elif name == "sum":
            start = given[2] if len(given) > 2 else kwargs.get("start", 0)
            if not isinstance(start, int | float):
                raise TemplateTooCostly("sum : des nombres seulement")
        elif name in ("select", "reject", "selectattr", "rejectattr", "map"):
            count = len(value) if isinstance(value, _COUNTED) else 0
            _charge(count * _size([given[1:], kwargs], _left()))  # (each item against them)
        result = function(*args, **kwargs)
        if isinstance(result, Iterator):  # (map, select ...: made now, and measured)
            result = list(result)
        _charge(_checked(result))
        return result

    return guarded


def _turns(items: Any, weight: int = 1) -> Iterator[Any]:
    """``items``, each turn counted against the rendering's :data:`MAX_TURNS` and charged
    ``weight`` (the size of the loop's body), in the rendering's record (:data:`_WORK`)."""
    work = _WORK.get()
    for item in items:
        if work is not None:
            work[1] += 1
            if work[1] > MAX_TURNS:
                raise TemplateTooCostly(f"plus de {MAX_TURNS} tours de boucle")
        _charge(weight)
        yield item


def _unsafe(tree: jinja2.nodes.Template) -> tuple[int, str] | None:
    """Where and why ``tree`` leaves :class:`BoundedSandbox`'s constructions, if it does
    (its length is checked before it is parsed)."""
    nodes = jinja2.nodes
    for node in tree.find_all(nodes.Node):
        line = node.lineno
        if not isinstance(node, _SAFE_NODES):
            return line, f"construction interdite dans un modèle : {type(node).__name__}"
        if isinstance(node, nodes.Const):
            value = node.value
            if isinstance(value, str) and len(value) > MAX_TEXT:
                return line, "texte constant trop long"
            if isinstance(value, int | float) and abs(value) > MAX_NUMBER:
                return line, f"nombre trop grand : {value}"
        elif isinstance(node, nodes.Filter):
            if node.name not in SAFE_FILTERS:
                return line, f"filtre interdit dans un modèle : {node.name}"
            if node.name == "join" and not all(
                isinstance(a, nodes.Const) for a in [*node.args, *(k.value for k in node.kwargs)]
            ):
                # (a separator made of the data multiplies a text by itself)
                return line, "filtre join : un séparateur constant seulement"
            if node.name in _APPLYING and node.args:
                first = node.args[0]
                if not (isinstance(first, nodes.Const) and first.value in SAFE_FILTERS):
                    return line, f"filtre {node.name} : seulement des filtres permis"
        elif isinstance(node, nodes.Call):
            callee = node.node
            if node.dyn_args is not None or node.dyn_kwargs is not None:
                return line, "appel avec *args ou **kwargs interdit"
            if isinstance(callee, nodes.Name) and callee.name in SAFE_FUNCTIONS:
                continue
            if isinstance(callee, nodes.Getattr) and callee.attr in SAFE_METHODS:
                continue
            return line, "appel interdit dans un modèle (seuls pseudo, perso, persos, role)"
        elif isinstance(node, nodes.For) and node.recursive:
            return line, "boucle récursive interdite"
        elif isinstance(node, nodes.Name) and node.name == "range":
            return line, "range interdit dans un modèle"
    return None


def message_key(message: Message) -> str:
    """A stable identity of a message: its time, kind, recipients and text."""
    parts = [
        str(message.get("at", "")),
        str(message.get("kind", "")),
        ",".join(sorted(str(s) for s in message.get("to") or ())),
        "1" if message.get("public") else "0",
        str(message.get("text", "")),
    ]
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:40]


@functools.cache
def _shipped_roles() -> dict[str, dict[str, str]]:
    text = resources.files("ronde.forum").joinpath("data/roles.fr.yaml").read_text("utf-8")
    data = yaml.safe_load(text)
    return {str(k): {str(a): str(b or "") for a, b in v.items()} for k, v in data.items()}


def _default_roles() -> dict[str, dict[str, str]]:
    """The shipped roles (read once), as a copy its caller may change."""
    return {k: dict(v) for k, v in _shipped_roles().items()}


#: per thread, the environments of the last game templates loaded without a folder (the
#: shipped templates, each game's overrides): their compiled templates are kept between
#: pages, instead of compiled again for each (most of a dashboard's time)
_ENVS = threading.local()
ENVS_KEPT = 8


def load_templates(
    folder: Path | None = None, overrides: Mapping[str, str] | None = None
) -> Templates:
    """The default templates, each overridden by ``folder/<name>`` when it exists, and
    by ``overrides[name]`` (a game's templates edited in the console) before that.

    Raises:
        ValueError: ``folder`` is not a directory, or its ``roles.fr.yaml`` is not a
            mapping of Characters (message in French).
    """
    if folder is None:  # (a folder's files may change: read afresh each time)
        key = tuple(sorted((k, v) for k, v in (overrides or {}).items() if v.strip()))
        kept: OrderedDict[tuple[tuple[str, str], ...], Templates] = (
            getattr(_ENVS, "kept", None) or OrderedDict()
        )
        _ENVS.kept = kept
        hit = kept.get(key)
        if hit is None:
            hit = kept[key] = _load_templates(None, overrides)
            while len(kept) > ENVS_KEPT:
                kept.popitem(last=False)
        kept.move_to_end(key)
        if isinstance(hit.env, BoundedSandbox):
            hit.env.spent = 0  # (each load is a page of its own: MAX_WORK_TOTAL)
        return Templates(env=hit.env, roles=_default_roles(), folder=None)
    return _load_templates(folder, overrides)


def _load_templates(folder: Path | None, overrides: Mapping[str, str] | None) -> Templates:
    loaders: list[jinja2.BaseLoader] = []
    roles = _default_roles()
    if overrides:
        loaders.append(jinja2.DictLoader({k: v for k, v in overrides.items() if v.strip()}))
    if folder is not None:
        if not folder.is_dir():
            raise ValueError(f"{folder} : dossier de modèles introuvable")
        loaders.append(jinja2.FileSystemLoader(str(folder), encoding="utf-8"))
        custom = folder / "roles.fr.yaml"
        if custom.is_file():
            try:
                data = yaml.safe_load(custom.read_text(encoding="utf-8"))
            except yaml.YAMLError as exc:
                raise ValueError(f"{custom} : {exc}") from None
            if not isinstance(data, dict):
                raise ValueError(f"{custom} : un dictionnaire de Personnages est attendu")
            for k, v in data.items():
                if isinstance(v, dict):
                    roles[str(k)] = {
                        **roles.get(str(k), {}),
                        **{str(a): str(b) for a, b in v.items()},
                    }
    loaders.append(jinja2.PackageLoader("ronde.forum", "templates"))
    # sandboxed: templates are written by game masters (any account may create a game)
    env = BoundedSandbox(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    return Templates(env=env, roles=roles, folder=folder)


@dataclass
class _Walked:
    """How far one engine game's log was walked (:class:`_Facts`, :class:`_Walk`): the
    web's store holds a game per thread and advances it in place (its log only grows),
    so a page after a write walks only the events written since; a rebuilt or reloaded
    game is another object, walked from its start."""

    #: events of the log walked, and the last of them (the log must still hold it there)
    upto: int = 0
    last: Event | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def follows(self, log: Sequence[Event]) -> bool:
        """Whether ``log`` goes on from what was walked (the same events up to ``upto``)."""
        return self.upto == 0 or (len(log) >= self.upto and log[self.upto - 1] is self.last)

    def walked(self, log: Sequence[Event]) -> None:
        self.upto = len(log)
        self.last = log[-1] if log else None


W = TypeVar("W", bound=_Walked)


def _kept(
    kept: weakref.WeakKeyDictionary[Any, W], game: Any, log: Sequence[Event], new: Callable[[], W]
) -> W:
    """``game``'s entry of ``kept``, a new one if it has none or its log does not go on
    from it."""
    with _KEPT_LOCK:
        walked = kept.get(game)
        if walked is None or not walked.follows(log):
            walked = new()
            with contextlib.suppress(TypeError):  # (no weak reference: nothing kept)
                kept[game] = walked
        return walked


_KEPT_LOCK = threading.Lock()


@dataclass
class _Facts(_Walked):
    """The events of a game's log that :meth:`ForumContext.from_game` reads: the trials'
    openings and the unmaskings, in log order."""

    opened: list[TrialOpened] = field(default_factory=list)
    unmasked: list[PlayerUnmasked] = field(default_factory=list)


#: per engine game, weakly: its facts
_FACTS: weakref.WeakKeyDictionary[Any, _Facts] = weakref.WeakKeyDictionary()


def _facts_of(game: Any) -> tuple[list[TrialOpened], list[PlayerUnmasked]]:
    """``game``'s trials' openings and unmaskings, in log order (new lists)."""
    log: Sequence[Event] = game.log
    facts = _kept(_FACTS, game, log, _Facts)
    with facts.lock:
        if not facts.follows(log):  # (another thread walked it meanwhile: a stray copy)
            facts = _Facts()
        opened, unmasked = facts.opened, facts.unmasked
        for i in range(facts.upto, len(log)):
            e = log[i]
            if isinstance(e, TrialOpened):
                opened.append(e)
            elif isinstance(e, PlayerUnmasked):
                unmasked.append(e)
        facts.walked(log)
        return list(opened), list(unmasked)


@dataclass
class ForumContext:
    """Public facts a rendering may use (never a secret: see the module docstring)."""

    pseudos: dict[str, str] = field(default_factory=dict)
    start: date | None = None
    trials: dict[int, dict[str, Any]] = field(default_factory=dict)
    unmaskings: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def from_game(cls, game: Any, base: Any = None) -> ForumContext:
        """From a :class:`ronde.engine.game.Game` (its log and state): its trials' openings
        and its unmaskings are found in the events logged since the last call alone (see
        :class:`_Facts`), the rest is read from its state now. ``base``: a game that
        ``game`` was forked from (``Game.fork``, then run forward): the events they
        share are read as ``base``'s."""
        g = game.state
        ctx = cls(pseudos={s: p.pseudo for s, p in g.players.items()}, start=g.start)
        log: Sequence[Event] = game.log
        shared: Sequence[Event] = base.log if base is not None else ()
        n = len(shared)
        if n and len(log) >= n and log[n - 1] is shared[-1]:
            opened, unmasked = _facts_of(base)
            for e in log[n:]:
                if isinstance(e, TrialOpened):
                    opened.append(e)
                elif isinstance(e, PlayerUnmasked):
                    unmasked.append(e)
        else:
            opened, unmasked = _facts_of(game)
        for e in opened:
            ctx.trials[e.trial] = {
                "number": e.trial,
                "accused": [ctx.pseudo(s) for s in e.accused],
                "supposed": e.supposed,
                "supposed_fr": french_name(e.supposed),
                "anonymous": e.anonymous,
                # the opener of an anonymous trial is a secret (R5.9)
                "opener": None
                if e.anonymous
                else ("le chœur des Démasqués" if e.opener == "chorus" else ctx.pseudo(e.opener)),
                "arguments": e.arguments,
                "opened": ctx.when(e.at),
                "deadline": ctx.when(g.trials[e.trial - 1].deadline)
                if e.trial <= len(g.trials)
                else "",
            }
        for u in unmasked:
            ctx.unmaskings[(u.at.isoformat(), u.player)] = {"trial": u.trial, "rule": u.rule}
        return ctx

    def pseudo(self, seat: object) -> str:
        return self.pseudos.get(str(seat), str(seat))

    def when(self, at: datetime | str | None) -> str:
        if at is None:
            return ""
        t = datetime.fromisoformat(at) if isinstance(at, str) else at
        if self.start is None:
            return t.astimezone(PARIS).strftime("%d/%m %H:%M")
        return format_time(self.start, t)

    def day(self, at: datetime | str | None) -> int | None:
        if at is None or self.start is None:
            return None
        t = datetime.fromisoformat(at) if isinstance(at, str) else at
        return day_of(self.start, t)


@dataclass(frozen=True)
class Rendered:
    """A rendered message: ``text`` to paste, ``problem`` if the template failed."""

    text: str
    template: str
    problem: str = ""


def message_dict(e: MessageSent) -> dict[str, Any]:
    """The JSON form of a ``MessageSent`` event (what :func:`render_message` takes)."""
    return to_json(e)


def _variables(msg: Message, templates: Templates, ctx: ForumContext) -> dict[str, Any]:
    data = dict(msg.get("data") or {})
    public = bool(msg.get("public"))
    kind = str(msg.get("kind", ""))
    at = msg.get("at")
    trial: dict[str, Any] | None = None
    extra: dict[str, Any] = {}
    if public:
        # public facts only, and only for public messages
        number = data.get("trial")
        if isinstance(number, int) and number in ctx.trials:
            # pseudos are the players' own text: inert in the markup ("--Bob--", "@lice")
            trial = dict(ctx.trials[number])
            trial["accused"] = [plain(a) for a in trial.get("accused") or ()]
            trial["opener"] = plain(trial["opener"]) if trial.get("opener") else None
        if kind == "unmasking":
            # the engine's data names the trial; older logs: find it by the event
            key = (str(at), str(data.get("player")))
            extra = {"trial": data.get("trial"), "rule": "", **ctx.unmaskings.get(key, {})}
        if kind == "trial_ended":
            # the null notice only when the engine published one (R5.13, A19)
            notice = data.get("null_notice")
            text = str(msg.get("text", ""))
            extra["null_notice"] = bool(notice) if notice is not None else "nulle" in text
    roles = templates.roles

    def role(character: object) -> Mapping[str, str]:
        base = {"titre": french_name(str(character)), "contrainte": "", "pouvoir": "", "jokers": ""}
        return {**base, **roles.get(str(character), {})}

    return {
        "kind": kind,
        "text": str(msg.get("text", "")),
        "data": data,
        "public": public,
        "to": [plain(ctx.pseudo(s)) for s in msg.get("to") or ()],
        "at": at,
        "when": ctx.when(at) if at else "",
        "day": ctx.day(at) if at else None,
        "trial": trial,
        "extra": extra,
        "pseudo": lambda seat: plain(ctx.pseudo(seat)),
        "perso": french_name,
        "persos": lambda ids: join_fr(french_name(str(c)) for c in (ids or ())),
        "role": role,
        "status_fr": STATUS_FR,
        "causes_fr": CAUSES_FR,
        "last_day": LAST_DAY,
    }


def render(
    message: Message, templates: Templates | None = None, context: ForumContext | None = None
) -> Rendered:
    """Like :func:`render_message`, with the template used and any problem."""
    templates = templates or load_templates()
    ctx = context or ForumContext()
    kind = str(message.get("kind", ""))
    name = f"{kind}.txt" if kind and templates.has(kind) else "_default.txt"
    try:
        text = _bounded(templates.env.get_template(name), _variables(message, templates, ctx))
        problem = ""
    except Exception as exc:  # a game master's template must never stop the console
        text = str(message.get("text", ""))
        problem = f"modèle {name} : {exc.__class__.__name__} : {exc}"
    text = "\n".join(line.rstrip() for line in text.strip().splitlines())
    to = [ctx.pseudo(s) for s in message.get("to") or ()]
    if message.get("public") and to and (name != "_default.txt" and not problem):
        # a player's public channel (the Diva, R7.14.1): the forum must say whom it is for
        text = f"[b]Pour {join_fr(plain(p) for p in to)} :[/b]\n{text}"
    if ZWSP in text:
        # the forum's editor removes the first U+200B of a post (FORUM-PAGE.md)
        text = ZWSP + text
    return Rendered(text=text, template=name, problem=problem)


def _bounded(template: jinja2.Template, variables: Mapping[str, Any]) -> str:
    """``template`` rendered, stopped past :data:`MAX_OUTPUT` characters."""
    env = template.environment
    if isinstance(env, BoundedSandbox) and env.spent > MAX_WORK_TOTAL:
        # (a page of many messages, each just under its budget)
        raise TemplateTooCostly(f"plus de {MAX_WORK_TOTAL} unités de travail pour ces modèles")
    parts: list[str] = []
    size = 0
    work = [0, 0]
    token = _WORK.set(work)
    try:
        for part in template.generate(**variables):
            size += len(part)
            if size > MAX_OUTPUT:
                raise TemplateTooCostly(f"texte de plus de {MAX_OUTPUT} caractères")
            parts.append(part)
    finally:
        _WORK.reset(token)
        if isinstance(env, BoundedSandbox):
            env.spent += work[0]
    return "".join(parts)


def render_message(
    message: Message, templates: Templates | None = None, context: ForumContext | None = None
) -> str:
    """One message as ready-to-paste forum text (see the module docstring)."""
    return render(message, templates, context).text


# -- every message of a game ---------------------------------------------------------
class _Replay:
    """The game as it stood at successive points of its log, for the end of each day:
    one replay carried forward, not one from the start per day."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.running: Game | None = None
        self.upto = 0  # events of game.log applied to ``running``

    def until(self, index: int) -> Any:
        """The state right after ``game.log[index]`` (indexes only grow)."""
        log = self.game.log
        if self.running is None:
            self.running = Game.replay(log[: index + 1], self.game.catalog, self.game.characters)
        else:
            self.running.replay_more(log[self.upto : index + 1])
        self.upto = index + 1
        return self.running.state


@dataclass
class _Walk(_Walked):
    """:func:`forum_messages`' walk of a game's log, kept where it stopped."""

    out: list[dict[str, Any]] = field(default_factory=list)
    #: what a verdict's consequences sent, waiting for its announcement (A77)
    waiting: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    #: released by an announcement, posted after the announcement's own messages
    released: list[dict[str, Any]] = field(default_factory=list)


#: per engine game, weakly: its walk
_WALKS: weakref.WeakKeyDictionary[Any, _Walk] = weakref.WeakKeyDictionary()


def forum_messages(game: Any) -> list[dict[str, Any]]:
    """Every message of ``game`` in time order: the engine's, a public summary at the
    end of each day, and the J13 13:13 reminder at the start of J13.

    Only the events logged since the last call on the same game object are walked (the
    messages are kept with its walk, each call given its own copies)."""
    with _walked(game) as walk:
        return [_fresh(m) for m in (*walk.out, *walk.released)]


def held_messages(game: Any, trial: int) -> list[dict[str, Any]]:
    """What the consequences of ``trial``'s verdict sent, waiting for its announcement
    (A77), in log order, as :func:`message_dict` gives each (found by the walk of
    :func:`forum_messages`: the events logged since its last call alone are read)."""
    with _walked(game) as walk:
        return [_fresh(m) for m in walk.waiting.get(trial, ())]


@contextlib.contextmanager
def _walked(game: Any) -> Iterator[_Walk]:
    """``game``'s walk, walked to the end of its log, locked while it is read."""
    log: Sequence[Event] = game.log
    walk = _kept(_WALKS, game, log, _Walk)
    with walk.lock:
        if not walk.follows(log):  # (another thread walked it meanwhile: a stray copy)
            walk = _Walk()
        try:
            _walk_on(game, log, walk)
        except BaseException:
            walk.upto, walk.last, walk.out, walk.waiting, walk.released = 0, None, [], {}, []
            raise
        yield walk


def _fresh(m: dict[str, Any]) -> dict[str, Any]:
    """A caller's own copy of a kept message, as a walk afresh gives it: its dict and
    lists its own (an engine message's ``data`` is its event's, as :func:`message_dict`
    gives it), a summary's data copied whole."""
    out = {k: list(v) if type(v) is list else v for k, v in m.items()}
    if m.get("kind") in SYNTHETIC_KINDS:
        out["data"] = _copied(m["data"])
    return out


def _copied(x: Any) -> Any:
    """A deep copy of the JSON-like data of a summary (``copy.deepcopy`` for anything
    else than dicts, lists, tuples and immutable scalars)."""
    t = type(x)
    if t is dict:
        return {k: _copied(v) for k, v in x.items()}
    if t is list:
        return [_copied(v) for v in x]
    if t is tuple:
        return tuple(_copied(v) for v in x)
    if x is None or t in (str, int, float, bool):
        return x
    return copy.deepcopy(x)


def _walk_on(game: Any, log: Sequence[Event], walk: _Walk) -> None:
    """Walk ``log`` on from ``walk.upto`` to its end."""
    g = game.state
    out, waiting = walk.out, walk.waiting
    released = walk.released
    replay = _Replay(game)
    for i in range(walk.upto, len(log)):
        e = log[i]
        if released and not isinstance(e, MessageSent):
            out.extend(released)
            released = []
        if isinstance(e, MessageSent):
            held = e.data.get("held")
            if isinstance(held, int):
                waiting.setdefault(held, []).append(message_dict(e))
            else:
                out.append(message_dict(e))
        elif isinstance(e, TrialAnnounced):
            # (``sent_at``: when the engine sent it, the time its recipient's view shows)
            released = [
                {**m, "at": e.at.isoformat(), "sent_at": m["at"]} for m in waiting.pop(e.trial, [])
            ]
        elif isinstance(e, DayClosed):
            day = e.day
            # (copied: the replay goes on, and the view's lists must not follow it)
            v = copy.deepcopy(public_view(replay.until(i)))
            summary = {
                "day": day,
                "announcements": [
                    a
                    for a in v["announcements"]
                    if a["time"].startswith(f"J{day} ") and a["kind"] != "day_summary"
                ],
                "open_trials": [t for t in v["trials"] if t["status"] == "open"],
                "unmasked": v["known"],
            }
            out.append(
                {
                    "kind": "day_summary",
                    "at": e.at.isoformat(),
                    "to": [],
                    "public": True,
                    "text": f"Résumé du J{day}.",
                    "data": summary,
                }
            )
            if day == LAST_DAY - 1:
                out.append(
                    {
                        "kind": "reminder_j13",
                        "at": e.at.isoformat(),
                        "to": [],
                        "public": True,
                        "text": "Rappel : la partie s'arrête le J13 à 13h13.",
                        "data": {
                            "day": LAST_DAY,
                            "cutoff": format_time(g.start, cutoff_1313(g.start)),
                            "open_trials": copy.deepcopy(summary["open_trials"]),
                        },
                    }
                )
    walk.released = released
    walk.walked(log)


def select(
    messages: Iterable[Message],
    context: ForumContext,
    *,
    day: int | None = None,
    to: str | None = None,
    public: bool = False,
) -> list[Message]:
    """Messages of ``day`` (if given), private to seat ``to`` and/or public: with neither
    ``to`` nor ``public``, every message (game masters' notes included)."""
    out = []
    for m in messages:
        data = m.get("data") or {}
        own_day = data.get("day") if m.get("kind") in SYNTHETIC_KINDS else None
        if day is not None and (own_day or context.day(m.get("at"))) != day:
            continue
        wanted = not to and not public
        if public and m.get("public"):
            wanted = True
        if to and not m.get("public") and to in (m.get("to") or ()):
            wanted = True
        if wanted:
            out.append(m)
    return out


def heading(message: Message, context: ForumContext) -> str:
    """A one-line French label: when, where it goes, which kind."""
    when = context.when(message.get("at"))
    data = message.get("data") or {}
    if message.get("public"):
        where = FORUMS_FR.get(str(data.get("forum", "FV")), FORUMS_FR["FV"])
    elif message.get("to"):
        where = "MP à " + ", ".join(context.pseudo(s) for s in message.get("to") or ())
    else:
        where = "note aux MJ"
    return f"{when} — {where} — {KINDS_FR.get(str(message.get('kind', '')), 'message')}"
