"""A checker of the town forum's markup ("Twino"), for what Ronde writes.

The forum turns a post's text into HTML in the browser (MyHordes
``assets/ts/twino.ts``, read at commit 3867c526e5; ``../shared/catalog/HORDES.md``
§3): ``[tag]…[/tag]`` blocks, server-random insets (``{d6}``, ``{habitant}`` …),
mentions (``@Name``), short forms (``**gras**``, ``//italique//``, ``--barré--``),
emotes (``:smile:``) and list lines (``[*]``, ``[0]``). :func:`problems` lists, in
French, what in a text Ronde produced would not show as meant once pasted:

- a tag the forum does not know, or a bracketed word that looks like one;
- tags not closed, closed out of order or closed without being opened;
- a tag that needs a title without one (``[collapse=…]``, ``[link=…]``);
- a tag nested in itself where the forum shows the inner one as plain text
  (``[b]`` in ``[b]``, ``[rp]`` in ``[rp]``, ``[spoiler]`` in ``[spoiler]`` …);
- an inset, a mention, a short form, an emote or a list line, which the forum
  would replace (a dice roll, a random citizen, a link to an account …).

A ``[`` or ``{`` or ``@`` followed by a zero-width space is inert (see
:func:`ronde.forum.render.plain`). The checker is strict on purpose: it is meant
for the engine's and the templates' own text, not for any player's post.
"""

from __future__ import annotations

import re
from typing import Final

ZWSP: Final = "\u200b"

#: tags of the forum anyone may use (HORDES.md §3), with whether a title is required
KNOWN: Final[dict[str, bool]] = {
    "b": False,
    "i": False,
    "u": False,
    "s": False,
    "ul": False,
    "ol": False,
    "li": False,
    "quote": False,
    "cite": False,
    "rp": False,
    "spoiler": False,
    "aparte": False,
    "collapse": True,
    "lang_fr": True,
    "lang_de": True,
    "lang_en": True,
    "lang_es": True,
    "code": False,
    "c": False,
    "link": True,
    "bad": False,
    "big": False,
    ".": False,
}

#: tags whose copy inside itself the forum leaves as plain text (``x-nested``)
NOT_IN_ITSELF: Final = frozenset(
    {"b", "i", "u", "s", "ul", "ol", "li", "rp", "spoiler", "aparte", "bad", "big", "."}
)

_TAG = re.compile(r"\[(/?)([^\[\]=\n]*)(?:=([^\[\]\n]*))?\]")
_INSET = re.compile(r"\{([a-zA-Z]+)\}|\{([a-zA-Z]+),([\w,]*)\}|\{([a-zA-Z]+)(\d+)\}")
_MENTION = re.compile(r"@[\w-]")
_SHORT = re.compile(r"(\*\*|//|--)(.*?)\1", re.S)
_EMOTE = re.compile(r":\w+:")
_LIST_LINE = re.compile(r"^\s*(?:\[\*\]|\s\*\s|\[0\]|\[1\])|\S(?:\[\*\]|\[1\])", re.M)
#: a cell as the forum writes it ("[-2, -5]", "[2/-4]"): text, not a tag
_CELL = re.compile(r"\s*-?\d+\s*[,/]\s*-?\d+\s*")


def problems(text: str) -> list[str]:
    """What in ``text`` the forum would not show as written (French, [] if nothing)."""
    out: list[str] = []
    stack: list[str] = []
    for m in _TAG.finditer(text):
        closing, raw, arg = m.group(1), m.group(2), m.group(3)
        if raw.startswith(ZWSP):
            continue  # made inert by plain()
        name = raw.lower()
        if not closing and arg is None and _CELL.fullmatch(raw):
            continue
        if name not in KNOWN:
            out.append(f"balise inconnue du forum : {m.group(0)!r}")
            continue
        if closing:
            if arg is not None:
                out.append(f"balise fermante avec un titre : {m.group(0)!r}")
            if not stack:
                out.append(f"balise fermée sans avoir été ouverte : {m.group(0)!r}")
            elif stack[-1] != name:
                out.append(f"balise {m.group(0)!r} fermée alors que [{stack[-1]}] est ouverte")
                if name in stack:
                    del stack[len(stack) - 1 - stack[::-1].index(name) :]
            else:
                stack.pop()
            continue
        if KNOWN[name] and not (arg or "").strip():
            out.append(f"balise sans son titre : {m.group(0)!r}")
        if name in NOT_IN_ITSELF and name in stack:
            out.append(f"balise [{name}] dans une autre [{name}] : le forum l'affichera en clair")
        stack.append(name)
    for name in reversed(stack):
        out.append(f"balise [{name}] jamais fermée")
    for m in _INSET.finditer(text):
        out.append(f"insert du forum (remplacé à l'envoi) : {m.group(0)!r}")
    for m in _MENTION.finditer(text):
        out.append(f"mention d'un compte : {text[m.start() : m.start() + 20]!r}")
    for m in _SHORT.finditer(text):
        out.append(f"forme courte du forum : {m.group(0)[:30]!r}")
    for m in _EMOTE.finditer(text):
        out.append(f"émoticône du forum : {m.group(0)!r}")
    for m in _LIST_LINE.finditer(text):
        out.append(f"ligne lue comme une liste : {text[m.start() : m.start() + 20]!r}")
    return out
