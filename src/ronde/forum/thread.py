"""Reading a MyHordes town-forum thread page: its saved HTML, or a browser copy of it.

``read_thread(text_or_html, today=..., known_names=...) -> Thread`` never raises:
bad input gives a thread with fewer posts and :class:`Diagnostic` lines. Both
forms are described in ``shared/catalog/FORUM-PAGE.md``:

- **HTML** (a page saved with Ctrl+S) is read with a real HTML parser
  (selectolax/lexbor): each ``div.forum-post`` gives its author, date, cell stamp
  (the post note), content blocks (quotes, RP blocks, spoilers kept apart) and
  its edit mark.
- **Text** (select-all + copy) marks nothing: posts are located by their header
  (the date glued to the pseudo), the note line and the footer ``[ Lien ]``; a
  quote is a line holding a pseudo followed by text that an earlier post of the
  thread holds — those lines become a quote block. A pseudo line followed by
  text found nowhere earlier is kept as the author's own text and reported in
  :attr:`Post.maybe_quoted` (a proposal drawn from it is flagged).

Times are Europe/Paris. "Aujourd'hui à 09:40" and "Hier à 09:40" need ``today``
(the date of the copy); without it those posts have no time and a diagnostic.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Literal

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ..engine.clock import PARIS

Stamp = tuple[int, int] | Literal["town", "outside"] | None
BlockKind = Literal["text", "quote", "rp", "spoiler"]

_INVISIBLE = {"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u180e"}


def fold_pseudo(name: str) -> str:
    """A pseudo as compared for an exact match: NFC, case folded, invisible characters
    (zero-width, soft hyphen, BOM, format characters) removed, spaces trimmed."""
    text = unicodedata.normalize("NFC", name)
    text = "".join(
        ch for ch in text if ch not in _INVISIBLE and unicodedata.category(ch) not in ("Cf",)
    )
    return " ".join(text.split()).casefold()


def fold_text(text: str) -> str:
    """Text folded for tolerant matching: accents removed, case folded, NBSP as space."""
    decomposed = unicodedata.normalize("NFKD", text.replace("\xa0", " "))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


@dataclass(frozen=True)
class Diagnostic:
    """A problem met while reading (French message); ``line`` counts from 1."""

    level: Literal["error", "warning", "info"]
    message: str
    line: int | None = None
    post: int | None = None

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"ligne {self.line}")
        if self.post is not None:
            where.append(f"message {self.post}")
        prefix = f"[{', '.join(where)}] " if where else ""
        return f"{self.level} : {prefix}{self.message}"


@dataclass(frozen=True)
class Block:
    """A part of a post: the author's own ``text``, a ``quote`` (of ``author``), an
    ``rp`` block (labelled ``author``) or a ``spoiler``."""

    kind: BlockKind
    text: str
    author: str | None = None


@dataclass
class Post:
    """One post of a thread page."""

    index: int
    author: str
    time_text: str
    time: datetime | None
    stamp: Stamp
    blocks: list[Block]
    title: str = ""
    edited: str | None = None
    edited_at: datetime | None = None
    post_id: str | None = None
    banished: bool = False
    maybe_quoted: list[str] = field(default_factory=list)
    line: int | None = None

    @property
    def own_text(self) -> str:
        """What the author wrote himself: every block but quotes."""
        return "\n".join(b.text for b in self.blocks if b.kind != "quote").strip()

    @property
    def text(self) -> str:
        """The whole content, quotes included."""
        return "\n".join(b.text for b in self.blocks).strip()

    @property
    def quotes(self) -> list[Block]:
        return [b for b in self.blocks if b.kind == "quote"]

    def lines(self) -> list[str]:
        """The non-empty lines of the author's own text."""
        return [ln for ln in self.own_text.splitlines() if ln.strip()]

    def stamp_text(self) -> str:
        if self.stamp is None:
            return "—"
        if self.stamp == "town":
            return "en ville"
        if self.stamp == "outside":
            return "dehors"
        return f"[{self.stamp[0]}, {self.stamp[1]}]"


@dataclass
class Thread:
    """The posts of one pasted thread page (or several pages pasted in a row)."""

    title: str | None
    posts: list[Post]
    source: Literal["html", "text"]
    diagnostics: list[Diagnostic] = field(default_factory=list)


# -- dates ----------------------------------------------------------------------------
_MONTHS = {
    "janv": 1,
    "janvier": 1,
    "fevr": 2,
    "fev": 2,
    "fevrier": 2,
    "mars": 3,
    "avr": 4,
    "avril": 4,
    "mai": 5,
    "juin": 6,
    "juil": 7,
    "juillet": 7,
    "aout": 8,
    "sept": 9,
    "septembre": 9,
    "oct": 10,
    "octobre": 10,
    "nov": 11,
    "novembre": 11,
    "dec": 12,
    "decembre": 12,
}
_MONTH_RE = (
    r"(?:janv\.?|janvier|f[ée]vr?\.?|f[ée]vrier|mars|avr\.?|avril|mai|juin|juil\.?|juillet"
    r"|ao[ûu]t|sept\.?|septembre|oct\.?|octobre|nov\.?|novembre|d[ée]c\.?|d[ée]cembre)"
)
_DATE_RE = (
    r"(?:(?P<d>\d{1,2})\s+(?P<m>" + _MONTH_RE + r")\s+(?P<y>\d{4})(?:\s*,|\s+[àa])?"
    r"|(?P<rel>Aujourd['’]hui|Hier)\s+[àa])"
    r"\s*(?P<H>\d{1,2})[:h](?P<M>\d{2})"
)
DATE = re.compile(_DATE_RE, re.IGNORECASE)
_HEADER = re.compile(r"^\s*(?P<date>" + _DATE_RE + r")\s*(?P<author>\S.*?)?\s*$", re.IGNORECASE)
_STAMP = re.compile(
    r"^(?P<title>.*?)\s*(?:\[\s*(?P<x>[-−]?\d+)\s*,\s*(?P<y>[-−]?\d+)\s*\]"
    r"|(?P<town>en ville ou aux portes|Ville\s*/\s*Portes)|(?P<out>Dehors|Drau(?:ß|ss)en))\s*$",
    re.IGNORECASE,
)
_FOOTER = re.compile(
    r"\[\s*Lien\s*\](?:\s*\[\s*Copier\s*\])?(?:\s*\[\s*Citer\s*\])?(?:\s*\[\s*!\s*\])?\s*$"
)
_EDIT = re.compile(
    r"^\s*(?:Derni[èe]re [ée]dition\s*:\s*(?P<date>.*?)"
    r"|(?P<mod>[ÉE]dit[ée] par un Mod[ée]rateur\.?))\s*$",
    re.IGNORECASE,
)
_TITLE = re.compile(r"^\s*>\s*(?P<title>\S.*?)\s*$")


def parse_date(text: str, today: date | None) -> datetime | None:
    """A forum date ("7 nov. 2025, 09:40", "7 nov. 2025 à 09:40", "Hier à 18:02") as a
    Europe/Paris datetime; ``None`` if unreadable, or relative without ``today``."""
    m = DATE.search(text)
    if not m:
        return None
    try:
        hh, mm = int(m.group("H")), int(m.group("M"))
        clock = time(hh, mm)
        if m.group("rel"):
            if today is None:
                return None
            day = today if fold_text(m.group("rel")).startswith("aujourd") else today - timedelta(1)
        else:
            month = _MONTHS.get(fold_text(m.group("m")).rstrip("."))
            if month is None:
                return None
            day = date(int(m.group("y")), month, int(m.group("d")))
    except ValueError:
        return None
    return datetime.combine(day, clock, tzinfo=PARIS)


def _stamp(match: re.Match[str]) -> Stamp:
    if match.group("x") is not None:
        return (int(match.group("x").replace("−", "-")), int(match.group("y").replace("−", "-")))
    if match.group("town"):
        return "town"
    return "outside"


def looks_like_html(text: str) -> bool:
    head = text[:20000].lower()
    return "<html" in head or "<div" in head or "<body" in head or "<!doctype" in head


def read_thread(text: str, *, today: date | None = None, known_names: Iterable[str] = ()) -> Thread:
    """Read a pasted thread page (HTML or browser text). Never raises."""
    try:
        if looks_like_html(text):
            thread = _read_html(text, today)
        else:
            thread = _read_text(text, today, list(known_names))
    except Exception as exc:  # a parser never crashes: report, don't raise
        return Thread(
            title=None,
            posts=[],
            source="html" if looks_like_html(str(text)) else "text",
            diagnostics=[Diagnostic("error", f"lecture impossible : {exc.__class__.__name__}")],
        )
    _dedupe(thread)
    if not thread.posts:
        thread.diagnostics.append(
            Diagnostic("error", "aucun message trouvé : est-ce bien la page d'un sujet du forum ?")
        )
    for p in thread.posts:
        if p.time is None:
            thread.diagnostics.append(
                Diagnostic(
                    "warning",
                    f"date illisible ou relative sans date du jour (--today) : « {p.time_text} »",
                    p.line,
                    p.index,
                )
            )
    return thread


def _dedupe(thread: Thread) -> None:
    """Pages pasted twice, or overlapping pages: keep each post once."""
    seen: set[tuple[str, str, str]] = set()
    kept: list[Post] = []
    for p in thread.posts:
        key = (p.post_id or "", fold_pseudo(p.author), p.time_text + "\x00" + p.text)
        if p.post_id:
            key = (p.post_id, "", "")
        if key in seen:
            thread.diagnostics.append(
                Diagnostic("info", f"message de {p.author} en double, ignoré", p.line, p.index)
            )
            continue
        seen.add(key)
        kept.append(p)
    for i, p in enumerate(kept, 1):
        p.index = i
    thread.posts = kept


# -- HTML -------------------------------------------------------------------------------
def _classes(node: LexborNode) -> set[str]:
    return set((node.attributes.get("class") or "").split())


def _text(node: LexborNode | None) -> str:
    if node is None:
        return ""
    return " ".join((node.text(deep=True, separator=" ") or "").replace("\xa0", " ").split())


class _Blocks:
    """Content HTML to blocks, walking the DOM."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.buf: list[str] = []
        self.pending_author: str | None = None

    def flush(self) -> None:
        text = _clean("".join(self.buf))
        if text:
            self.blocks.append(Block("text", text))
        self.buf = []

    def inner(self, node: LexborNode) -> str:
        sub = _Blocks()
        sub.walk_children(node)
        sub.flush()
        return "\n".join(b.text for b in sub.blocks)

    def walk_children(self, node: LexborNode) -> None:
        child = node.child
        while child is not None:
            self.walk(child)
            child = child.next

    def walk(self, node: LexborNode) -> None:
        if node.is_text_node:
            self.buf.append((node.text_content or "").replace("\xa0", " "))
            return
        tag = node.tag or ""
        cls = _classes(node)
        if tag in ("script", "style", "template", "#comment", "-comment"):
            return
        if tag == "br":
            self.buf.append("\n")
        elif (tag == "span" and "quoteauthor" in cls) or (tag == "span" and "rpauthor" in cls):
            self.pending_author = _text(node)
        elif tag == "blockquote":
            self.flush()
            self.blocks.append(Block("quote", _clean(self.inner(node)), self.pending_author))
            self.pending_author = None
        elif "rpText" in cls:
            self.flush()
            self.blocks.append(Block("rp", _clean(self.inner(node)), self.pending_author))
            self.pending_author = None
        elif "spoiler" in cls:
            self.flush()
            self.blocks.append(Block("spoiler", _clean(self.inner(node))))
        elif tag == "img":
            alt = node.attributes.get("alt") or ""
            if alt.startswith(":") and alt.endswith(":"):
                self.buf.append(alt)
        elif "clear" in cls and not _text(node):
            return
        elif tag in ("p", "div", "li", "ul", "ol", "pre", "h1", "h2", "h3"):
            inline = "cref" in cls or "coords" in cls
            if not inline:
                self.buf.append("\n")
            self.walk_children(node)
            if not inline:
                self.buf.append("\n")
        else:
            self.walk_children(node)


def _clean(text: str) -> str:
    lines = [" ".join(ln.split()) for ln in text.split("\n")]
    out: list[str] = []
    for ln in lines:
        if not ln and (not out or not out[-1]):
            continue
        out.append(ln)
    return "\n".join(out).strip()


def _read_html(html: str, today: date | None) -> Thread:
    tree = LexborHTMLParser(html)
    diags: list[Diagnostic] = []
    title_node = tree.css_first(".forum-header-bar")
    title = _text(title_node).lstrip(">").strip() or None
    posts: list[Post] = []
    nodes = tree.css("div.forum-post")
    for i, node in enumerate(nodes, 1):
        header = node.css_first(".forum-post-header")
        date_node = header.css_first("i") if header is not None else None
        time_text = _text(date_node)
        user = node.css_first(".forum-post-header .username")
        content = node.css_first(".forum-post-content")
        author = _text(user)
        if not author and content is not None:
            author = content.attributes.get("x-post-content-author") or ""
        if not author:
            diags.append(Diagnostic("warning", "message sans auteur, ignoré", post=i))
            continue
        title_i = node.css_first(".forum-post-header span.small i")
        note = node.css_first(".post-note")
        stamp: Stamp = None
        banished = False
        if note is not None:
            desktop = note.css_first("span.hide-sm.hide-md")
            note_text = _text(desktop) if desktop is not None else _text(note)
            m = _STAMP.match(note_text)
            if m:
                stamp = _stamp(m)
            banished = any(
                "banished" in (img.attributes.get("src") or "") for img in note.css("img")
            )
        builder = _Blocks()
        if content is not None:
            builder.walk_children(content)
        builder.flush()
        edited: str | None = None
        edited_at: datetime | None = None
        for small in node.css(".forum-post-footer .small"):
            m_edit = _EDIT.match(_text(small))
            if m_edit:
                edited = m_edit.group("date") or "modérateur"
                edited_at = parse_date(m_edit.group("date") or "", today)
        posts.append(
            Post(
                index=i,
                author=author,
                time_text=time_text,
                time=parse_date(time_text, today),
                stamp=stamp,
                blocks=builder.blocks,
                title=_text(title_i),
                edited=edited,
                edited_at=edited_at,
                post_id=node.attributes.get("x-post-wrapper-id"),
                banished=banished,
            )
        )
    return Thread(title=title, posts=posts, source="html", diagnostics=diags)


# -- browser text -------------------------------------------------------------------------
@dataclass
class _Raw:
    line: int
    author: str
    time_text: str
    stamp: Stamp
    title: str
    content: list[str] = field(default_factory=list)
    edited: str | None = None
    banished: bool = False
    closed: bool = False


def _read_text(text: str, today: date | None, known: list[str]) -> Thread:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").replace("\xa0", " ").split("\n")
    diags: list[Diagnostic] = []
    title: str | None = None
    raws: list[_Raw] = []
    cur: _Raw | None = None
    i = 0
    n = len(lines)

    def stamp_at(k: int) -> re.Match[str] | None:
        return _STAMP.match(lines[k].strip("\ufeff")) if k < n else None

    while i < n:
        line = lines[i]
        header = _HEADER.match(line)
        if header and (cur is None or cur.closed or stamp_at(i + 1) is not None):
            author = (header.group("author") or "").strip()
            j = i + 1
            if not author and j < n and lines[j].strip() and not _STAMP.match(lines[j]):
                # Firefox: the date on its own line, the pseudo on the next one
                author = lines[j].strip()
                j += 1
            if author:
                if cur is not None and not cur.closed:
                    diags.append(
                        Diagnostic(
                            "warning", f"message de {cur.author} sans pied « [ Lien ] »", cur.line
                        )
                    )
                m = stamp_at(j)
                stamp: Stamp = None
                post_title = ""
                banished = False
                if m:
                    stamp = _stamp(m)
                    post_title = m.group("title").strip()
                    banished = lines[j].startswith("   ")
                    j += 1
                cur = _Raw(i + 1, author, header.group("date").strip(), stamp, post_title)
                cur.banished = banished
                raws.append(cur)
                i = j
                continue
        if cur is None or cur.closed:
            m_title = _TITLE.match(line)
            if m_title and title is None:
                title = m_title.group("title")
            i += 1
            continue
        footer = _FOOTER.search(line)
        if footer:
            before = line[: footer.start()].strip()
            m_edit = _EDIT.match(before) if before else None
            if m_edit:
                cur.edited = m_edit.group("date") or "modérateur"
            elif before:
                cur.content.append(before)
            if cur.edited is None and cur.content:
                m_prev = _EDIT.match(cur.content[-1])
                if m_prev:
                    cur.edited = m_prev.group("date") or "modérateur"
                    cur.content.pop()
            cur.closed = True
            i += 1
            continue
        cur.content.append(line)
        i += 1
    if cur is not None and not cur.closed:
        diags.append(
            Diagnostic("warning", f"message de {cur.author} sans pied « [ Lien ] »", cur.line)
        )
    posts: list[Post] = []
    names = {fold_pseudo(k): k for k in known} | {fold_pseudo(r.author): r.author for r in raws}
    for k, raw in enumerate(raws, 1):
        earlier = [p for p in posts]
        blocks, maybe = _text_blocks(raw.content, names, earlier)
        posts.append(
            Post(
                index=k,
                author=raw.author,
                time_text=raw.time_text,
                time=parse_date(raw.time_text, today),
                stamp=raw.stamp,
                blocks=blocks,
                title=raw.title,
                edited=raw.edited,
                edited_at=parse_date(raw.edited or "", today),
                banished=raw.banished,
                maybe_quoted=maybe,
                line=raw.line,
            )
        )
    return Thread(title=title, posts=posts, source="text", diagnostics=diags)


def _squash(text: str) -> str:
    return " ".join(fold_text(text).split())


def _text_blocks(
    content: list[str], names: dict[str, str], earlier: list[Post]
) -> tuple[list[Block], list[str]]:
    """Split a text post into own text and quotes (see the module docstring)."""
    blocks: list[Block] = []
    maybe: list[str] = []
    buf: list[str] = []
    by_author: dict[str, str] = {}
    for p in earlier:
        key = fold_pseudo(p.author)
        by_author[key] = by_author.get(key, "") + "\n" + _squash(p.text)
    everything = "\n".join(by_author.values())

    def flush() -> None:
        text = _clean("\n".join(buf))
        if text:
            blocks.append(Block("text", text))
        buf.clear()

    i = 0
    while i < len(content):
        line = content[i]
        key = fold_pseudo(line)
        if key in names and i + 1 < len(content):
            source = by_author.get(key, "") or everything
            j = i + 1
            quoted: list[str] = []
            while j < len(content):
                candidate = _squash(content[j])
                if not candidate:
                    if quoted:
                        break
                    j += 1
                    continue
                if candidate in source:
                    quoted.append(content[j])
                    j += 1
                else:
                    break
            if quoted:
                flush()
                blocks.append(Block("quote", _clean("\n".join(quoted)), names[key]))
                i = j
                continue
            following = next((c for c in content[i + 1 :] if c.strip()), "")
            if following:
                maybe.append(following.strip())
        buf.append(line)
        i += 1
    flush()
    return blocks, maybe
