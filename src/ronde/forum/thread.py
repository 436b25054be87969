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

A post's text can imitate a whole post of a browser copy (footer, then another
player's header): the authors of a copy's posts are proven (:attr:`Post.proven`)
only when the copy's thread list, which the server writes, counts them all
(:func:`check_copies`; :attr:`Thread.unproven` says why not). Those of a saved
page always are: a document is read as HTML only when it starts with a tag.

Times are Europe/Paris. "Aujourd'hui à 09:40" and "Hier à 09:40" need ``today``
(the date of the copy). Without it, the date is inferred from the page header
("Jour N", the town's day, taken as the game's J N from ``start``) when the
absolute dates of the page agree; otherwise those posts have no time and a
warning says so.

The input is read in NFC (a text in decomposed accents reads the same), the
page numbers of the pager are kept (:attr:`Thread.pages`, :attr:`Post.page`),
and in a browser copy a line that is the author's pseudo or a prefix of it
(« Gribouille » for Gribouille_37), alone on its line before text, is read as the
label of an ``[rp]`` block, not as a line of text (:func:`is_label`).
"""

from __future__ import annotations

import html
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
    #: the page of the thread this post was on (None: no pager on the page)
    page: int | None = None
    #: lines of a browser copy read as ``[rp]`` labels (not counted as text)
    labels: list[str] = field(default_factory=list)
    #: read from a browser copy (where a post's text can imitate another post)
    copied: bool = False
    #: its author is proven: a saved HTML page, or a browser copy that passed
    #: :func:`check_copies` (False: a step drawn from it is never sure)
    proven: bool = True

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
class CopyCheck:
    """What one browser copy shows that only the server writes (the top of the page,
    before the first post, and its bottom, after the last footer), to prove that no
    post of it was forged (:func:`check_copies`). ``problem`` (French): why it proves
    nothing."""

    problem: str | None = None
    title: str | None = None
    #: the thread's reply count and last poster in the town's thread list
    replies: int | None = None
    last_poster: str | None = None
    #: the number of pages of the thread (1 without a pager)
    page_count: int = 1
    #: the posts read on each page of the copy (before removing duplicates)
    posts: dict[int, int] = field(default_factory=dict)
    #: the author of the copy's last post
    last_author: str | None = None


@dataclass
class Thread:
    """The posts of one pasted thread page (or several pages pasted in a row)."""

    title: str | None
    posts: list[Post]
    source: Literal["html", "text"]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: the page numbers of the pager, in the order pasted (empty: one page, no pager)
    pages: list[int] = field(default_factory=list)
    #: the number of pages the pager announces
    page_count: int | None = None
    #: the town's day in the page header ("Jour 5")
    town_day: int | None = None
    #: the date used for "Aujourd'hui" / "Hier" (given, or inferred from the header)
    today: date | None = None
    #: what each browser copy read shows of the thread (one per pasted text)
    copies: list[CopyCheck] = field(default_factory=list)
    #: why the authors of the posts read from a browser copy are not proven
    #: (French; None: proven, or no browser copy)
    unproven: str | None = None

    @property
    def first_page(self) -> int:
        """The page the first post comes from (1 when there is no pager)."""
        for p in self.posts:
            if p.page is not None:
                return p.page
        return self.pages[0] if self.pages else 1

    def missing_pages(self) -> list[int]:
        """Pages between the first and the last pasted that are not there."""
        if not self.pages:
            return []
        have = set(self.pages)
        return [k for k in range(1, max(have) + 1) if k not in have]


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
_RELATIVE = re.compile(r"(?:Aujourd['’]hui|Hier)\s+[àa]\s*\d", re.IGNORECASE)
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
    """A saved page (or a piece of HTML) starts with a tag; a browser copy starts with
    the page's header. (Not "holds a tag": a player's post can hold the text
    ``<div class="forum-post">…``, which a copy gives as it is.)"""
    return text.lstrip(" \t\r\n\ufeff").startswith("<")


_TOWN_DAY_TEXT = re.compile(r"^\s*Jour\s+(\d{1,3})\s*$", re.MULTILINE)
_TOWN_DAY_HTML = re.compile(r">\s*Jour\s+(\d{1,3})\s*<")


def town_day(text: str) -> int | None:
    """The town's day of the page header ("Jour 5"), before the first post."""
    if looks_like_html(text):
        cut = text.find("forum-post")
        m = _TOWN_DAY_HTML.search(text, 0, cut if cut >= 0 else len(text))
    else:
        first = _HEADER_ANY.search(text)
        m = _TOWN_DAY_TEXT.search(text, 0, first.start() if first else len(text))
    return int(m.group(1)) if m else None


_HEADER_ANY = re.compile(r"^\s*" + _DATE_RE, re.IGNORECASE | re.MULTILINE)


def infer_today(text: str, start: date | None) -> tuple[date | None, Diagnostic | None]:
    """The date of the copy from the page header ("Jour N" is the game's J N, J1 being
    ``start``), checked against the absolute dates of the page (those are at least
    two days old); ``(None, warning)`` when it cannot be told."""
    day = town_day(text)
    if day is None or start is None:
        return None, Diagnostic(
            "warning",
            "date de la copie inconnue (pas de « Jour N » en tête de page) : les messages "
            "« Aujourd'hui » et « Hier » n'ont pas d'heure ; indiquez la date de la copie "
            "(--today AAAA-MM-JJ)",
        )
    today = start + timedelta(days=day - 1)
    latest = None
    for m in DATE.finditer(text):
        if m.group("rel") or "dition" in text[max(0, m.start() - 24) : m.start()]:
            continue  # relative, or an edit mark (always absolute)
        t = parse_date(m.group(0), None)
        if t is not None and (latest is None or t.date() > latest):
            latest = t.date()
    if latest is not None and latest > today - timedelta(days=2):
        return None, Diagnostic(
            "warning",
            f"l'en-tête dit « Jour {day} » ({today:%d/%m/%Y}) mais la page a un message daté "
            f"du {latest:%d/%m/%Y} : date de la copie inconnue, indiquez-la (--today AAAA-MM-JJ)",
        )
    return today, Diagnostic(
        "info", f"date de la copie déduite de l'en-tête « Jour {day} » : {today:%d/%m/%Y}"
    )


def read_thread(
    text: str,
    *,
    today: date | None = None,
    known_names: Iterable[str] = (),
    start: date | None = None,
) -> Thread:
    """Read a pasted thread page (HTML or browser text). Never raises.

    ``start`` (the game's J1) lets the copy date be inferred from the page header
    when ``today`` is not given."""
    inferred: Diagnostic | None = None
    try:
        text = unicodedata.normalize("NFC", str(text))
        # (a saved page may escape the apostrophe of « Aujourd'hui » in its text)
        probe = html.unescape(text) if looks_like_html(text) else text
        if today is None and DATE.search(probe) and _RELATIVE.search(probe):
            today, inferred = infer_today(probe, start)
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
    thread.today = today
    thread.town_day = town_day(text)
    if inferred is not None:
        thread.diagnostics.append(inferred)
    _page_order(thread)
    _dedupe(thread)
    check_copies(thread)
    if not thread.posts:
        thread.diagnostics.append(
            Diagnostic("error", "aucun message trouvé : est-ce bien la page d'un sujet du forum ?")
        )
    for p in thread.posts:
        if p.time is None:
            thread.diagnostics.append(
                Diagnostic(
                    "warning",
                    f"message sans heure (date illisible, ou relative sans date de la copie) : "
                    f"« {p.time_text} » ; aucune action n'en est sûre : indiquez la date de la "
                    "copie (--today AAAA-MM-JJ)",
                    p.line,
                    p.index,
                )
            )
    return thread


def _words(post: Post) -> str:
    """A post's own words, folded, without spaces and punctuation."""
    return re.sub(r"\W+", "", fold_text(post.own_text))


def _page_order(thread: Thread) -> None:
    """Pages pasted one after the other in another order (page 2, then page 1): their
    posts put back in page order (a post without a page keeps the page before it)."""
    if thread.pages == sorted(thread.pages):
        return
    keyed: list[tuple[int, int, Post]] = []
    current = 0
    for k, p in enumerate(thread.posts):
        current = p.page if p.page is not None else current
        keyed.append((current, k, p))
    thread.posts = [p for _page, _k, p in sorted(keyed, key=lambda t: (t[0], t[1]))]
    thread.diagnostics.append(
        Diagnostic(
            "info",
            "pages collées dans l'ordre "
            + ", ".join(str(k) for k in thread.pages)
            + " : lues dans l'ordre des pages",
        )
    )
    thread.pages = sorted(set(thread.pages))
    for i, p in enumerate(thread.posts, 1):
        p.index = i


def _dedupe(thread: Thread) -> None:
    """Pages pasted twice, or overlapping pages, in either form (a saved page and a copy
    of it): keep each post once. A post is known by its id (HTML), or by its author,
    date and words (what both forms keep alike: a copy glues a spoiler to the next text
    and shows a quote's author as a line)."""
    seen: set[tuple[str, str, str]] = set()
    kept: list[Post] = []
    for p in thread.posts:
        keys = [("", fold_pseudo(p.author), " ".join(p.time_text.split()) + "\x00" + _words(p))]
        if p.post_id:
            keys.append((p.post_id, "", ""))
        if any(k in seen for k in keys):
            thread.diagnostics.append(
                Diagnostic("info", f"message de {p.author} en double, ignoré", p.line, p.index)
            )
            continue
        seen.update(keys)
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
    page: int | None = None
    page_count: int | None = None
    marker = tree.css_first(".current_page_marker")
    if marker is not None and _text(marker).isdecimal():
        page = int(_text(marker))
        nav = marker.parent
        m_count = re.search(r"/\s*(\d+)", _text(nav)) if nav is not None else None
        page_count = int(m_count.group(1)) if m_count else None
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
                page=page,
            )
        )
    return Thread(
        title=title,
        posts=posts,
        source="html",
        diagnostics=diags,
        pages=[page] if page is not None else [],
        page_count=page_count,
    )


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
    page: int | None = None


def _read_text(text: str, today: date | None, known: list[str]) -> Thread:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").replace("\xa0", " ").split("\n")
    diags: list[Diagnostic] = []
    title: str | None = None
    raws: list[_Raw] = []
    cur: _Raw | None = None
    i = 0
    n = len(lines)
    page: int | None = None
    pages: list[int] = []
    page_count: int | None = None
    # the lines between posts: gaps[k] before the post k (gaps[0]: the top of the
    # page), ``gap`` at the end: after the last footer (the bottom of the page)
    gaps: list[list[str]] = []
    gap: list[str] = []

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
                cur.page = page
                raws.append(cur)
                gaps.append(gap)
                gap = []
                i = j
                continue
        if cur is None or cur.closed:
            m_title = _TITLE.match(line)
            if m_title and title is None:
                title = m_title.group("title")
            pager = _pager(lines, i)
            if pager is not None:
                number, count, width = pager
                if number != page:
                    page = number
                    pages.append(number)
                page_count = count or page_count
                gap.extend(lines[i : i + width])
                i += width
                continue
            gap.append(line)
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
    seen = _Seen()
    for k, raw in enumerate(raws, 1):
        blocks, maybe, labels = _text_blocks(raw.content, names, seen, raw.author)
        post = Post(
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
            page=raw.page,
            labels=labels,
            copied=True,
            proven=False,
        )
        posts.append(post)
        seen.add(post)
    closed = cur is not None and cur.closed
    return Thread(
        title=title,
        posts=posts,
        source="text",
        diagnostics=diags,
        pages=pages,
        page_count=page_count,
        copies=[_check_copy(gaps, gap, raws, closed)],
    )


_PAGE_ONE_LINE = re.compile(r"^\s*Page\s*(\d+)\s*/\s*(\d+)\s*$", re.IGNORECASE)


def _pager(lines: list[str], i: int) -> tuple[int, int | None, int] | None:
    """The pager at line ``i``: "Page 1/2" on one line, or split over three lines
    ("Page", " 1", "/2") as a copy gives it; (page, count, lines used)."""
    m = _PAGE_ONE_LINE.match(lines[i])
    if m:
        return int(m.group(1)), int(m.group(2)), 1
    if lines[i].strip().casefold() != "page" or i + 1 >= len(lines):
        return None
    number = lines[i + 1].strip()
    if not number.isdecimal():
        return None
    count = lines[i + 2].strip() if i + 2 < len(lines) else ""
    if count.startswith("/") and count[1:].strip().isdecimal():
        return int(number), int(count[1:].strip()), 3
    return int(number), None, 2


# -- proving who wrote a browser copy's posts --------------------------------------------
# A copy marks nothing: a player can write in his post a footer line, then a header
# line of another player and his words, and a reader sees one post more. What he
# cannot write is what the server writes outside posts: the top of the page (the
# town's thread list with the thread's reply count and last poster, the thread's
# title, the pager) before the first post, and its bottom (the pager again) after
# the last footer. MyHordes (``templates/ajax/forum/view.html.twig``,
# ``Thread::visiblePosts``, ``MessageForumController``) counts in "Rép." the
# thread's posts a player can see (those not hidden by a moderator) but the first,
# and shows exactly those, 10 a page: a copy of every page of the thread with one
# post read more than the count + 1 holds a forged one (a forged header inside a
# real post splits it in two), and a copy cannot hide a real post to make room.

#: the posts of a thread page (``MessageForumController::PostsPerPage``)
POSTS_PER_PAGE = 10

_INCOHERENT = (
    "la pagination de la copie est incohérente (une page collée deux fois, ou une "
    "pagination imitée dans le texte d'un message)"
)


def _loose_title(text: str | None) -> str:
    return fold_text(fold_pseudo(text or ""))


def _exact_title(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


def _pagers(lines: list[str]) -> list[tuple[int, int | None]]:
    out: list[tuple[int, int | None]] = []
    j = 0
    while j < len(lines):
        found = _pager(lines, j)
        if found is None:
            j += 1
            continue
        out.append((found[0], found[1]))
        j += found[2]
    return out


def _list_entry(head: list[str], title: str) -> tuple[int, str] | str:
    """The thread's reply count and last poster in the thread list at the top of a
    copy (title, count, poster on three lines; the count empty for no reply), or
    why they cannot be read (French)."""
    loose = _loose_title(title)
    hits = [j for j, line in enumerate(head) if _loose_title(line) == loose]
    if len(hits) > 1:
        return f"plusieurs sujets « {title} » dans la liste des sujets : lequel est celui-ci ?"
    if not hits or _exact_title(head[hits[0]]) != _exact_title(title):
        return f"le sujet « {title} » n'est pas dans la liste des sujets de la copie"
    rest = [line.strip() for line in head[hits[0] + 1 : hits[0] + 3]]
    if rest and rest[0].isdecimal():
        replies, poster = int(rest[0]), rest[1] if len(rest) > 1 else ""
    elif rest and not rest[0]:  # no reply: an empty count
        replies, poster = 0, rest[1] if len(rest) > 1 else ""
    else:
        replies, poster = 0, rest[0] if rest else ""
    if not poster:
        return f"dernier auteur du sujet « {title} » illisible dans la liste des sujets"
    return replies, poster


_Key = tuple[str, str, tuple[str, ...], str, str, str]


def _check_copy(
    gaps: list[list[str]], tail: list[str], raws: list[_Raw], closed: bool
) -> CopyCheck:
    """What one browser copy shows of its thread (see above): its top (``gaps[0]``),
    the pagers between its posts (``gaps[k]``: before post k) and its bottom.

    Pages may be pasted one after the other, in any order, even twice: between two
    pages, the pager of the one ending and that of the one starting. A pagination
    imitated inside a post cannot hide a forged post: the page it is in then reads
    as two parts (the real pager above the first, the real one below the last)
    which must hold the same posts, as a page pasted twice does."""
    if not raws:
        return CopyCheck(problem="aucun message lu")
    if not closed:
        return CopyCheck(problem="le dernier message n'a pas de pied « [ Lien ] » (copie coupée ?)")
    head = gaps[0]
    titles = [m.group("title") for line in head if (m := _TITLE.match(line))]
    if not titles:
        return CopyCheck(
            problem="le haut de la page (liste des sujets, titre du sujet) manque à la copie"
        )
    title = titles[-1]  # the thread's own title bar, after the thread list
    entry = _list_entry(head, title)
    if isinstance(entry, str):
        return CopyCheck(problem=entry, title=title)
    check = CopyCheck(title=title, replies=entry[0], last_poster=entry[1])
    check.last_author = raws[-1].author
    keys: list[_Key] = [
        (
            r.author,
            " ".join(r.time_text.split()),
            tuple(r.content),
            str(r.stamp),
            r.title,
            r.edited or "",
        )
        for r in raws
    ]
    top, bottom = _pagers(head), _pagers(tail)
    inner = [_pagers(g) for g in gaps[1:]]
    broken = CopyCheck(problem=_INCOHERENT, title=title)
    # a post's footer is followed by the next header, on a page: lines between them
    # are a post not read as one (room for a forged one) or an imitated footer
    stray = next(
        (
            line
            for g, pg in zip(gaps[1:], inner, strict=True)
            if not pg
            for line in g
            if line.strip()
        ),
        None,
    )
    if stray is not None:
        return CopyCheck(
            problem="une ligne entre deux messages n'appartient à aucun : "
            f"« {stray.strip()[:60]} »",
            title=title,
        )
    if not top:  # a thread of one page: no pager anywhere
        if bottom or any(inner):
            return broken
        check.posts = {1: len(raws)}
        return check
    # each page: its pager above its first post, and below its last post
    if len(top) != 1 or len(bottom) != 1 or any(len(x) not in (0, 2) for x in inner):
        return broken
    label, count = top[0]
    if count is None:
        return broken
    parts: list[tuple[int, list[_Key]]] = [(label, [keys[0]])]
    for k, pagers in enumerate(inner, 1):
        if pagers:
            (below, below_count), (above, above_count) = pagers
            if below != label or {below_count, above_count} != {count}:
                return broken
            label = above
            parts.append((label, []))
        parts[-1][1].append(keys[k])
    if bottom[0] != (label, count):
        return broken
    seen: dict[int, list[_Key]] = {}
    for page, posts in parts:
        if not 1 <= page <= count or seen.setdefault(page, posts) != posts:
            return broken
    check.page_count = count
    check.posts = {page: len(posts) for page, posts in seen.items()}
    if count in seen:
        check.last_author = seen[count][-1][0]
    return check


def _copies_problem(copies: list[CopyCheck]) -> str | None:
    """Why the browser copies of a thread do not prove its posts' authors (French),
    or None: every page is there, copied at one time, with as many posts as the
    thread list says and the last poster it names."""
    for c in copies:
        if c.problem:
            return c.problem
    first = copies[0]
    assert first.replies is not None and first.last_poster is not None
    for c in copies[1:]:
        if _loose_title(c.title) != _loose_title(first.title):
            return "pages de sujets différents"
        if (c.replies, fold_pseudo(c.last_poster or ""), c.page_count) != (
            first.replies,
            fold_pseudo(first.last_poster),
            first.page_count,
        ):
            return "pages copiées à des moments différents (leurs listes des sujets diffèrent)"
    replies, pages = first.replies, first.page_count
    total = replies + 1
    if pages != max(1, -(-total // POSTS_PER_PAGE)):
        return (
            f"la liste des sujets compte {replies} réponse(s), soit {total} message(s), "
            f"mais le sujet a {pages} page(s) : la liste n'est plus à jour ?"
        )
    have: set[int] = set()
    for c in copies:
        have.update(c.posts)
    missing = [k for k in range(1, pages + 1) if k not in have]
    if missing:
        return "page(s) manquante(s) : " + ", ".join(str(k) for k in missing) + f" (sur {pages})"
    for c in copies:
        for k, got in sorted(c.posts.items()):
            want = POSTS_PER_PAGE if k < pages else total - POSTS_PER_PAGE * (pages - 1)
            if got != want:
                where = f"page {k} : " if pages > 1 else ""
                return (
                    f"{where}{got} message(s) lu(s) pour {want} d'après la liste des sujets "
                    f"({replies} réponse(s))"
                )
        if pages in c.posts and fold_pseudo(c.last_author or "") != fold_pseudo(first.last_poster):
            return (
                f"dernier message de {c.last_author} dans la copie, de {first.last_poster} "
                "d'après la liste des sujets"
            )
    return None


def check_copies(thread: Thread) -> None:
    """Mark which posts have a proven author: all of a saved HTML page; those of browser
    copies only when the copies prove that no post was forged (``thread.unproven``
    says why not)."""
    copied = [p for p in thread.posts if p.copied]
    problem = _copies_problem(thread.copies) if copied and thread.copies else None
    if copied and not thread.copies:
        problem = "aucune copie lisible"
    thread.unproven = problem
    for p in copied:
        p.proven = problem is None


def _squash(text: str) -> str:
    return " ".join(fold_text(text).split())


class _Seen:
    """What earlier posts of the page hold, indexed once (the reading stays linear):
    their squashed lines, all and per author, and each author's text for a partial
    quote."""

    def __init__(self) -> None:
        self.lines: set[str] = set()
        self.by_author: dict[str, set[str]] = {}
        self._parts: dict[str, list[str]] = {}
        self._joined: dict[str, str] = {}

    def add(self, post: Post) -> None:
        key = fold_pseudo(post.author)
        mine = self.by_author.setdefault(key, set())
        parts = self._parts.setdefault(key, [])
        for line in post.text.splitlines():
            sq = _squash(line)
            if sq:
                self.lines.add(sq)
                mine.add(sq)
                parts.append(sq)
        self._joined.pop(key, None)

    def holds(self, author_key: str, candidate: str) -> bool:
        """Whether ``candidate`` (squashed) is text of an earlier post: a line of
        ``author_key`` or part of one, or (the author has no earlier post here) a
        line of anyone."""
        mine = self.by_author.get(author_key)
        if not mine:
            return candidate in self.lines
        if candidate in mine:
            return True
        joined = self._joined.get(author_key)
        if joined is None:
            joined = self._joined[author_key] = "\n".join(self._parts[author_key])
        return candidate in joined


_LABEL_END = ".!?…,;:»\"')("
#: words after the speaker's name in a label: an epithet (« Tartine la conteuse »)
_EPITHET = re.compile(r"^,?\s*(?:le|la|l'|l’|les|un|une|du|de|des|dit|dite|alias)\b", re.IGNORECASE)
#: words a complaint or an opening's fields hold: such a line is never a label
_NOT_LABEL = re.compile(
    r"plaint|accus|personnage|argument|proc[eè]s|contre\b|r[oô]le\b", re.IGNORECASE
)


def pseudo_prefix(written: str, author: str) -> bool:
    """Whether ``written`` is the pseudo ``author`` or a prefix of it that a player uses
    as his name (« Gribouille » for Gribouille_37, « Anouk » for Anouk77, accents
    aside: « Mélusine » for Melusine_42): 3 letters at least, ending where a word of
    the pseudo ends (a digit, ``_``, ``-``, a capital) or 4 letters and more."""
    word = fold_text(fold_pseudo(written))
    name = fold_text(fold_pseudo(author))
    if not word or not name:
        return False
    if word == name:
        return True
    if len(word) < 3 or not name.startswith(word):
        return False
    raw = unicodedata.normalize("NFC", author).strip()
    nxt = raw[len(written.strip())] if len(raw) > len(written.strip()) else ""
    return len(word) >= 4 or not nxt.isalpha() or nxt.isupper()


def is_label(line: str, author: str) -> bool:
    """A role-play label line (RULES.md A69; the ``[rp=Label]`` of a browser copy): the
    author's pseudo or a prefix of it (:func:`pseudo_prefix`), alone on its line (an
    epithet after it, a colon typed after it at most), never a line holding a
    complaint's words or an opening's fields."""
    text = line.strip()
    if text.endswith(":"):
        text = text[:-1].rstrip()
    if not 2 <= len(text) <= 40 or _NOT_LABEL.search(fold_text(text)):
        return False
    if fold_pseudo(text) == fold_pseudo(author):
        return True
    if text[-1] in _LABEL_END:
        return False
    head, _sep, rest = text.partition(" ")
    head = head.rstrip(",")
    if not pseudo_prefix(head, author):
        return False
    rest = text[len(head) :].strip()
    return not rest or (len(rest.split()) <= 3 and bool(_EPITHET.match(rest)))


def _is_label(line: str, following: str, author: str) -> bool:
    """A browser copy gives an ``[rp=Label]`` block as its label on its own line, then
    the block's first line: a label (:func:`is_label`) followed by text."""
    return bool(following.strip()) and is_label(line, author)


def _text_blocks(
    content: list[str], names: dict[str, str], seen: _Seen, author: str
) -> tuple[list[Block], list[str], list[str]]:
    """Split a text post into own text, quotes and ``[rp]`` blocks (module docstring)."""
    blocks: list[Block] = []
    maybe: list[str] = []
    labels: list[str] = []
    buf: list[str] = []

    def flush() -> None:
        text = _clean("\n".join(buf))
        if text:
            blocks.append(Block("text", text))
        buf.clear()

    i = 0
    while i < len(content):
        line = content[i]
        key = fold_pseudo(line)
        following = content[i + 1] if i + 1 < len(content) else ""
        # (a line of one's own pseudo is a quote of one's own earlier post, never of
        # another's: else it is the label of one's own ``[rp]`` block)
        own = key == fold_pseudo(author)
        if key in names and i + 1 < len(content) and not (own and not seen.by_author.get(key)):
            j = i + 1
            quoted: list[str] = []
            while j < len(content):
                candidate = _squash(content[j])
                if not candidate:
                    if quoted:
                        break
                    j += 1
                    continue
                if seen.holds(key, candidate):
                    quoted.append(content[j])
                    j += 1
                else:
                    break
            if quoted:
                flush()
                blocks.append(Block("quote", _clean("\n".join(quoted)), names[key]))
                i = j
                continue
            if key != fold_pseudo(author):
                nxt = next((c for c in content[i + 1 :] if c.strip()), "")
                if nxt:
                    maybe.append(nxt.strip())
                buf.append(line)
                i += 1
                continue
        if _is_label(line, following, author):
            flush()
            j = i + 1
            body: list[str] = []
            while j < len(content) and content[j].strip():
                body.append(content[j])
                j += 1
            labels.append(line.strip())
            blocks.append(Block("rp", _clean("\n".join(body)), line.strip()))
            i = j
            continue
        buf.append(line)
        i += 1
    flush()
    return blocks, maybe, labels


def merge_threads(threads: Iterable[Thread]) -> Thread:
    """Pages of one thread read apart, as one thread: in the order of their page
    numbers (pages without a pager keep their place), each post once; a page
    given twice is reported, as are missing pages (:meth:`Thread.missing_pages`)."""
    items = list(threads)
    if len(items) == 1:
        return items[0]
    ordered = sorted(enumerate(items), key=lambda it: (it[1].first_page, it[0]))
    title = next((t.title for _, t in ordered if t.title), None)
    merged = Thread(title=title, posts=[], source=ordered[0][1].source if ordered else "text")
    seen_pages: set[int] = set()
    for _, t in ordered:
        for k in t.pages:
            if k in seen_pages:
                merged.diagnostics.append(Diagnostic("info", f"page {k} donnée deux fois"))
            elif k not in merged.pages:
                merged.pages.append(k)
            seen_pages.add(k)
        merged.posts.extend(t.posts)
        merged.copies.extend(t.copies)
        merged.diagnostics.extend(d for d in t.diagnostics if d.level != "error" or not t.posts)
        merged.page_count = max(merged.page_count or 0, t.page_count or 0) or None
        merged.town_day = merged.town_day or t.town_day
        merged.today = merged.today or t.today
        if t.title and title and fold_text(t.title) != fold_text(title):
            merged.diagnostics.append(
                Diagnostic("warning", f"pages de sujets différents : « {title} » et « {t.title} »")
            )
    _dedupe(merged)
    check_copies(merged)
    return merged
