"""The figures of simulated games and their comparison (``ronde simulate --compare``).

One game gives one row of figures (:func:`figures`): its length, its trials, the day each
Character fell, who was still masked at the end of J13, the boost's day, the chorus's
size each evening, the points and the winners. A run's rows are its raw CSV
(:func:`write_csv`, read back by :func:`read_csv`, the console's upload included); the
report compares each variant with the default rules game by game (paired games: same
seed, same cast) — each difference with its 95 % interval, mean ± 1.96·sd/√n of the
paired differences — in a Rich table, a French sentence where it is clear, and one HTML
page with its plots drawn here as SVG (no plotting library needed).

Nothing here runs a game: it reads figures, so the web app may import it.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any, Final

from .engine.names import RONDE_IDS, french_name
from .engine.options import HOUSE_RULES

DEFAULT: Final = "défaut"
#: the day given to a Character that never fell, and to a boost that never came
NEVER: Final = 14
DAYS: Final = range(1, 14)
CHARACTERS: Final[tuple[str, ...]] = ("extra", *RONDE_IDS)
SEATS: Final = 32
#: the largest CSV the console accepts (a 2,000-game run with two variants is ~6 MB)
MAX_CSV_BYTES: Final = 8_000_000

#: what the bots do not play (said on every report)
NOT_MODELLED: Final = (
    "Les robots ne parlent pas sur le forum : leurs Procès sont des suppositions, jamais des "
    "déductions tirées des messages ; ils ne bluffent pas, ne s'allient pas et ne mentent "
    "que par les actions de Pinocchio. Ils remplissent leurs devoirs dès qu'une action "
    "permise le peut (Décorateurs, Souffleur, Destinée, Avocat du Diable, Chucky, Pinocchio, "
    "Héros tragique, Personnage monstrueux), mais l'Homme de paille ne peut pas se faire "
    "accuser sans discussion. Les contraintes d'écriture (Répétitions, phrases, postes) sont "
    "tenues, sauf un petit taux d'oublis tiré au hasard par le robot MJ (1,5 % par jour). "
    "Un jour sur vingt, un robot qui a un devoir quotidien le remplit en retard, à 00 h 20 "
    "la nuit suivante (ce que la grâce de A9 rattrape). Les robots jouent à 9 h, 12 h 30, "
    "17 h et 21 h 30."
)

#: French subjects of the sentences: (subject, plural)
_SUBJECTS: Final[dict[str, tuple[str, bool]]] = {
    "extra": ("les Figurants", True),
    "prompter": ("le Souffleur", False),
    "devils_advocate": ("l'Avocat du Diable", False),
    "alice": ("Alice", False),
    "guignol": ("Guignol", False),
    "decorators": ("les Décorateurs", True),
    "chucky": ("Chucky", False),
    "seer": ("la Voyante", False),
    "mime": ("le Mime", False),
    "little_mermaid": ("la Petite Sirène", False),
    "halus": ("Halus", False),
    "woody": ("Woody", False),
    "pierrot": ("Pierrot lunaire", False),
    "diva": ("la Diva", False),
    "pianist": ("le Pianiste", False),
    "destiny": ("la Destinée", False),
    "tragic_hero": ("le Héros tragique", False),
    "knight": ("le Chevalier de la table ronde", False),
    "polichinelle": ("Polichinelle", False),
    "straw_man": ("l'Homme de paille", False),
    "pinocchio": ("Pinocchio", False),
    "revenant": ("le Revenant", False),
}


@dataclass(frozen=True)
class Metric:
    """One figure of a game: its CSV column, its French label, its unit and how a
    difference reads in a sentence."""

    key: str
    label: str
    unit: str = ""
    #: the sentence's words for a positive and a negative difference, with ``{x}`` the
    #: size of the difference and ``{u}`` its unit; empty: no sentence
    more: str = ""
    less: str = ""
    percent: bool = False
    digits: int = 1


def _metrics() -> list[Metric]:
    share = "la part des Procès {} {} {{x}} points"
    out = [
        Metric(
            "events",
            "Longueur de la partie (événements)",
            "événements",
            "la partie compte {x} événements de plus",
            "la partie compte {x} événements de moins",
            digits=0,
        ),
        Metric(
            "trials_opened",
            "Procès ouverts",
            "Procès",
            "on ouvre {x} Procès de plus par partie",
            "on ouvre {x} Procès de moins par partie",
        ),
        *(
            Metric(
                f"share_{key}",
                f"Procès {name} (part des Procès finis)",
                "points",
                share.format(name, "gagne"),
                share.format(name, "perd"),
                percent=True,
            )
            for key, name in (("just", "JUSTES"), ("unjust", "INJUSTES"), ("lapsed", "caducs"))
        ),
        Metric(
            "masked_j13",
            "Joueurs encore masqués à la fin du J13",
            "joueurs",
            "{x} joueurs de plus gardent leur masque jusqu'au J13",
            "{x} joueurs de moins gardent leur masque jusqu'au J13",
        ),
        Metric(
            "boost_day",
            f"Jour du boost ({NEVER} : jamais)",
            "jour",
            "le boost arrive {x} jour plus tard",
            "le boost arrive {x} jour plus tôt",
        ),
        Metric(
            "points_mean",
            "Points par joueur (moyenne)",
            "points",
            "chaque joueur gagne {x} points de plus en moyenne",
            "chaque joueur gagne {x} points de moins en moyenne",
            digits=0,
        ),
        Metric(
            "points_sd",
            "Écart des points entre joueurs (écart type)",
            "points",
            "les scores s'écartent de {x} points de plus",
            "les scores se resserrent de {x} points",
            digits=0,
        ),
    ]
    for d in DAYS:
        out.append(
            Metric(
                f"chorus_j{d:02d}",
                f"Chœur à la fin du J{d}",
                "membres",
                f"le chœur compte {{x}} membres de plus au soir du J{d}",
                f"le chœur compte {{x}} membres de moins au soir du J{d}",
            )
        )
    for c in CHARACTERS:
        who, plural = _SUBJECTS[c]
        fall, keep, win = (
            ("tombent", "gardent", "gagnent") if plural else ("tombe", "garde", "gagne")
        )
        their = "leur" if plural else "son"
        name = french_name(c)
        out += [
            Metric(
                f"fall_{c}",
                f"Jour de chute : {name} ({NEVER} : jamais)",
                "jour",
                f"{who} {fall} {{x}} jour plus tard en moyenne",
                f"{who} {fall} {{x}} jour plus tôt en moyenne",
            ),
            Metric(
                f"masked_{c}",
                f"Encore masqué au J13 : {name}",
                "points",
                f"{who} {keep} {their} masque jusqu'au J13 {{x}} points de plus souvent",
                f"{who} {keep} {their} masque jusqu'au J13 {{x}} points moins souvent",
                percent=True,
            ),
            Metric(
                f"points_{c}",
                f"Points : {name}",
                "points",
                f"{who} {win} {{x}} points de plus",
                f"{who} {win} {{x}} points de moins",
                digits=0,
            ),
            Metric(
                f"wins_{c}",
                f"Victoires : {name}",
                "points",
                f"{who} {win} la partie {{x}} points plus souvent",
                f"{who} {win} la partie {{x}} points moins souvent",
                percent=True,
            ),
        ]
    for i in range(1, SEATS + 1):
        out.append(Metric(f"points_joueur{i:02d}", f"Points : Joueur{i:02d}", "points", digits=0))
    return out


METRICS: Final[list[Metric]] = _metrics()
BY_KEY: Final[dict[str, Metric]] = {m.key: m for m in METRICS}
#: the CSV's columns before the figures
HEAD: Final = ("variante", "partie", "graine")
#: the rows of the terminal's table
SUMMARY: Final = (
    "events",
    "trials_opened",
    "share_just",
    "share_unjust",
    "share_lapsed",
    "masked_j13",
    "boost_day",
    "chorus_j07",
    "chorus_j13",
    "points_mean",
    "points_sd",
)
_VARIANT: Final = re.compile(
    r"^(?:défaut|A\d{1,3}=[a-z0-9_]{1,40}(?:,A\d{1,3}=[a-z0-9_]{1,40}){0,9})$"
)


# -- one game's figures ------------------------------------------------------------------
def figures(res: Any) -> dict[str, float]:
    """The figures of one played game (a :class:`ronde.sim.SimResult`)."""
    # (lazy: the web imports this module for reading reports and never plays a game)
    from .engine.events import PlayerUnmasked

    game = res.game
    g = game.state
    out: dict[str, float] = {"events": float(len(game.log)), "trials_opened": float(len(g.trials))}
    ended = [t for t in g.trials if t.status != "open"]
    for status, key in (
        ("just", "share_just"),
        ("unjust", "share_unjust"),
        ("lapsed", "share_lapsed"),
    ):
        if ended:
            out[key] = sum(1 for t in ended if t.status == status) / len(ended)
    fell: dict[str, int] = {}
    for e in game.log:
        if isinstance(e, PlayerUnmasked) and e.player not in fell:
            fell[e.player] = g.day(e.at)
    by_char: dict[str, list[str]] = {}
    for seat, p in g.players.items():
        by_char.setdefault(p.original, []).append(seat)
    for c, seats in by_char.items():
        days = [min(fell.get(s, NEVER), NEVER) for s in seats]
        out[f"fall_{c}"] = sum(days) / len(days)
        if res.masked_by_day.get(c):
            out[f"masked_{c}"] = res.masked_by_day[c][-1]
        points = [g.players[s].points for s in seats]
        out[f"points_{c}"] = sum(points) / len(points)
    out["masked_j13"] = float(
        sum(
            round(share * len(by_char[c]))
            for c, share in ((c, v[-1]) for c, v in res.masked_by_day.items() if v)
        )
    )
    out["boost_day"] = float(res.boost_day if res.boost_day is not None else NEVER)
    for d, size in enumerate(res.chorus_by_day, 1):
        out[f"chorus_j{d:02d}"] = float(size)
    scores = {seat: p.points for seat, p in g.players.items()}
    values = list(scores.values())
    mean = sum(values) / len(values)
    out["points_mean"] = mean
    out["points_sd"] = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    for p in g.players.values():
        m = re.fullmatch(r"Joueur(\d{2})", p.pseudo)
        if m:
            out[f"points_joueur{m.group(1)}"] = float(p.points)
    best = max(values)
    winners = [g.players[s].original for s, v in scores.items() if v == best]
    for c in by_char:
        out[f"wins_{c}"] = winners.count(c) / len(winners)
    return out


# -- the raw CSV -------------------------------------------------------------------------
@dataclass
class Run:
    """The figures of a run: for each variant (its label, ``défaut`` first), game index
    -> figures; with the run's seed and what it was asked."""

    seed: int
    games: int
    players: int
    variants: list[str]
    rows: dict[str, dict[int, dict[str, float]]] = field(default_factory=dict)
    #: set when the run was stopped before its end (Ctrl-C)
    interrupted: bool = False

    def paired(self) -> list[int]:
        """The game indexes every variant played (the games compared)."""
        done = [set(self.rows.get(v, {})) for v in self.variants]
        return sorted(set.intersection(*done)) if done else []


#: the largest figure a CSV may hold (in absolute value)
MAX_FIGURE = 1e9


def _number(v: float) -> str:
    return f"{v:.6f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))


def csv_text(run: Run) -> str:
    """The raw figures, one row per (variant, game) of the games every variant played,
    in a fixed order: the same run gives the same text."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([*HEAD, *(m.key for m in METRICS)])
    for variant in run.variants:
        for i in run.paired():
            row = run.rows[variant][i]
            w.writerow(
                [
                    variant,
                    i,
                    run.seed,
                    *(_number(row[m.key]) if m.key in row else "" for m in METRICS),
                ]
            )
    return buf.getvalue()


def write_csv(run: Run, path: Path) -> None:
    path.write_text(csv_text(run), encoding="utf-8")


class ReportError(ValueError):
    """A CSV that is not a simulator's raw figures (French message)."""


def read_csv(text: str, *, players: int = 0) -> Run:
    """A run read back from its raw CSV (checked: only known columns, variant labels of
    the options registry, numbers).

    Raises:
        ReportError: anything else.
    """
    if len(text.encode("utf-8")) > MAX_CSV_BYTES:
        raise ReportError("Fichier trop gros pour un rapport de simulation.")
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        raise ReportError("Fichier vide.") from None
    if tuple(header[:3]) != HEAD or not header[3:]:
        raise ReportError("Ce fichier n'est pas le CSV brut d'une simulation (colonnes).")
    unknown = [k for k in header[3:] if k not in BY_KEY]
    if unknown:
        raise ReportError(f"Colonne inconnue : {unknown[0][:40]}")
    run = Run(seed=0, games=0, players=players, variants=[])
    for n, line in enumerate(reader, 2):
        if not line:
            continue
        if len(line) != len(header):
            raise ReportError(f"Ligne {n} : {len(line)} valeurs pour {len(header)} colonnes.")
        variant = line[0].strip()
        if not _VARIANT.match(variant):
            raise ReportError(f"Ligne {n} : variante illisible.")
        if variant != DEFAULT:
            _check_variant(variant, n)
        try:
            index, seed = int(line[1]), int(line[2])
            values = {k: float(v) for k, v in zip(header[3:], line[3:], strict=True) if v != ""}
        except ValueError:
            raise ReportError(f"Ligne {n} : nombre illisible.") from None
        # (a game's figures are counts, points and days: far below a billion; a larger one
        # would overflow the means to « inf » on the report)
        too_big = any(not math.isfinite(v) or abs(v) > MAX_FIGURE for v in values.values())
        if too_big or not 0 <= index < 10**7:
            raise ReportError(f"Ligne {n} : nombre hors limites.")
        run.seed = seed
        if variant not in run.variants:
            run.variants.append(variant)
        run.rows.setdefault(variant, {})[index] = values
    if DEFAULT not in run.variants:
        raise ReportError("Il manque les parties aux règles par défaut (variante « défaut »).")
    run.variants.remove(DEFAULT)
    run.variants.insert(0, DEFAULT)
    run.games = len(run.paired())
    return run


def _check_variant(variant: str, line: int) -> None:
    # (lazy: the options' checks raise the engine's RuleViolation)
    from .engine.errors import RuleViolation
    from .engine.options import validate_options

    try:
        validate_options(dict(part.split("=", 1) for part in variant.split(",")))
    except RuleViolation as rv:
        raise ReportError(f"Ligne {line} : {rv.message}") from None


# -- the comparison ----------------------------------------------------------------------
@dataclass(frozen=True)
class Diff:
    """A metric of a variant against the default, over the paired games."""

    metric: Metric
    n: int
    default: float
    variant: float
    diff: float
    #: half the 95 % interval of the mean difference (``nan`` under two games)
    half: float

    @property
    def clear(self) -> bool:
        """The interval leaves out 0 (and the difference is worth saying)."""
        return self.n >= 10 and not math.isnan(self.half) and abs(self.diff) > self.half


def paired_diff(metric: Metric, a: Sequence[float], b: Sequence[float]) -> Diff:
    n = len(a)
    if n == 0:
        nan = float("nan")
        return Diff(metric, 0, nan, nan, nan, nan)
    d = [y - x for x, y in zip(a, b, strict=True)]
    mean = sum(d) / n
    half = float("nan")
    if n >= 2:
        sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
        half = 1.96 * sd / math.sqrt(n)
    return Diff(metric, n, sum(a) / n, sum(b) / n, mean, half)


def compare(run: Run, variant: str) -> list[Diff]:
    """Each metric of ``variant`` against the default over the games both played."""
    base, other = run.rows[DEFAULT], run.rows[variant]
    games = run.paired()
    out = []
    for m in METRICS:
        pairs = [
            (base[i][m.key], other[i][m.key])
            for i in games
            if m.key in base[i] and m.key in other[i]
        ]
        if pairs:
            out.append(paired_diff(m, [a for a, _ in pairs], [b for _, b in pairs]))
    return out


def _fr(x: float, digits: int) -> str:
    return f"{x:,.{digits}f}".replace(",", " ").replace(".", ",")


def shown(m: Metric, x: float) -> str:
    """A value as the report shows it (shares in %)."""
    if math.isnan(x):
        return "—"
    return f"{_fr(100 * x, 1)} %" if m.percent else _fr(x, m.digits)


def shown_diff(d: Diff) -> str:
    if math.isnan(d.diff):
        return "—"
    scale, digits = (100, 1) if d.metric.percent else (1, d.metric.digits)
    sign = "+" if d.diff > 0 else ("−" if d.diff < 0 else "")
    half = "" if math.isnan(d.half) else f" (± {_fr(scale * d.half, digits)})"
    return f"{sign}{_fr(abs(scale * d.diff), digits)}{half}"


def sentence(variant: str, d: Diff) -> str | None:
    """« avec A9=grace_60, les Décorateurs tombent 1,4 jour plus tard en moyenne (± 0,3) »,
    for a clear difference of a metric that has words."""
    m = d.metric
    if not d.clear or not m.more:
        return None
    scale, digits = (100, 1) if m.percent else (1, max(m.digits, 1))
    x = _fr(abs(scale * d.diff), digits)
    words = (m.more if d.diff > 0 else m.less).format(x=x, u=m.unit)
    if abs(scale * d.diff) >= 2 and " jour " in words:
        words = words.replace(" jour ", " jours ")
    return f"avec {variant}, {words} (± {_fr(scale * d.half, digits)})"


#: the order of the sentences, by the start of their metric's key (then the clearest first)
_SAID_FIRST: Final = ("fall_", "masked_", "wins_", "trials_", "share_", "boost", "chorus_")


def sentences(run: Run, variant: str, diffs: Iterable[Diff] | None = None) -> list[str]:
    """The clear differences: the Characters' falls first, then the game's figures, the
    chorus (its clearest day only) and the points; the clearest first in each."""
    ds = [d for d in (diffs if diffs is not None else compare(run, variant)) if d.clear]

    def rank(d: Diff) -> tuple[int, float]:
        key = d.metric.key
        family = next((k for k, p in enumerate(_SAID_FIRST) if key.startswith(p)), 99)
        return family, -abs(d.diff) / d.half if d.half else 0.0

    ds.sort(key=rank)
    chorus = [d for d in ds if d.metric.key.startswith("chorus_")]
    ds = [d for d in ds if d not in chorus[1:]]
    return [s for d in ds if (s := sentence(variant, d)) is not None]


# -- the terminal -------------------------------------------------------------------------
def print_report(console: Any, run: Run) -> None:
    """The Rich tables of the comparison and its clear sentences."""
    # (lazy: the web never prints to a terminal)
    from rich.table import Table

    n = len(run.paired())
    for variant in run.variants[1:]:
        diffs = {d.metric.key: d for d in compare(run, variant)}
        table = Table(title=f"{variant} contre les règles par défaut ({n} parties appariées)")
        for col, justify in (
            ("Mesure", "left"),
            (DEFAULT, "right"),
            (variant, "right"),
            ("Différence (IC 95 %)", "right"),
        ):
            table.add_column(col, justify=justify)  # type: ignore[arg-type]
        for key in SUMMARY:
            d = diffs.get(key)
            if d is None:
                continue
            mark = "[bold]" if d.clear else ""
            table.add_row(
                d.metric.label,
                shown(d.metric, d.default),
                shown(d.metric, d.variant),
                f"{mark}{shown_diff(d)}",
            )
        console.print(table)
        falls = Table(
            title=f"{variant} : jour de chute de chaque Personnage (moyenne, {NEVER} : jamais)"
        )
        for col in ("Personnage", DEFAULT, variant, "Différence (IC 95 %)"):
            falls.add_column(col, justify="left" if col == "Personnage" else "right")
        for c in CHARACTERS:
            d = diffs.get(f"fall_{c}")
            if d is not None:
                mark = "[bold]" if d.clear else ""
                falls.add_row(
                    french_name(c),
                    shown(d.metric, d.default),
                    shown(d.metric, d.variant),
                    f"{mark}{shown_diff(d)}",
                )
        console.print(falls)
        said = sentences(run, variant, diffs.values())
        if said:
            console.print("[bold]Différences nettes :[/bold]")
            for s in said[:12]:
                console.print(f"• {s[0].upper()}{s[1:]}.", highlight=False, markup=False)
        else:
            console.print(f"Aucune différence nette avec {variant} sur {n} parties.")


# -- the HTML page ------------------------------------------------------------------------
_COLOURS: Final = ("#555555", "#c0392b", "#2471a3", "#1e8449", "#b9770e", "#7d3c98")


def _text(x: float, y: float, body: str, *, anchor: str = "start", more: str = "") -> str:
    """An SVG text (``body`` escaped here)."""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="10" text-anchor="{anchor}"{more}>'
        f"{escape(body)}</text>"
    )


def _svg_lines(title: str, series: Mapping[str, Sequence[float]], *, y_label: str) -> str:
    """A line chart of ``series`` over J1–J13 (one line per variant), as inline SVG."""
    width, height, left, right, top, bottom = 360, 220, 36, 8, 28, 30
    values = [v for s in series.values() for v in s if not math.isnan(v)]
    top_value = max(1.0, max(values, default=1.0)) * 1.05
    days = len(next(iter(series.values()), []))

    def x(i: int) -> float:
        return left + (width - left - right) * i / max(1, days - 1)

    def y(v: float) -> float:
        return top + (height - top - bottom) * (1 - v / top_value)

    parts = [
        f'<svg class="plot" width="100%" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="{left}" y="16" font-size="12" font-weight="bold">{escape(title)}</text>',
        f'<line x1="{left}" y1="{y(0):.1f}" x2="{width - right}" y2="{y(0):.1f}" stroke="#999"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{y(0):.1f}" stroke="#999"/>',
    ]
    for tick in _ticks(top_value):
        parts.append(
            f'<text x="{left - 4}" y="{y(tick) + 4:.1f}" font-size="10" text-anchor="end">'
            f"{_fr(tick, 0 if tick == int(tick) else 1)}</text>"
        )
    for i in range(0, days, 2):
        parts.append(_text(x(i), height - 14, f"J{i + 1}", anchor="middle"))
    parts.append(f'<text x="{left}" y="{height - 2}" font-size="10">{escape(y_label)}</text>')
    for k, (name, s) in enumerate(series.items()):
        colour = _COLOURS[k % len(_COLOURS)]
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(s) if not math.isnan(v))
        dash = ' stroke-dasharray="5 3"' if k else ""
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>'
        )
        parts.append(
            f'<text x="{left + 6}" y="{top + 10 + 12 * k:.0f}" font-size="10" '
            f'fill="{colour}">{escape(name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _ticks(top: float) -> list[float]:
    step = 10 ** math.floor(math.log10(top / 2)) if top > 2 else 0.5
    while top / step > 5:
        step *= 2
    return [step * i for i in range(int(top / step) + 1)]


def _svg_forest(title: str, rows: Sequence[tuple[str, Diff]], *, unit: str) -> str:
    """Each row's difference with its interval around 0 (a forest plot), as inline SVG."""
    width, row_h, left, right, top = 360, 16, 150, 12, 34
    height = top + row_h * len(rows) + 24
    spans = [abs(d.diff) + (0 if math.isnan(d.half) else d.half) for _, d in rows]
    span = max([0.5, *[s for s in spans if not math.isnan(s)]]) * 1.1

    def x(v: float) -> float:
        return left + (width - left - right) * (v + span) / (2 * span)

    parts = [
        f'<svg class="plot" width="100%" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="4" y="16" font-size="12" font-weight="bold">{escape(title)}</text>',
        f'<line x1="{x(0):.1f}" y1="{top - 8}" x2="{x(0):.1f}" y2="{height - 20}" stroke="#999"/>',
        _text(x(-span), height - 6, f"−{_fr(span, 1)}"),
        _text(x(span), height - 6, f"+{_fr(span, 1)}", anchor="end"),
        _text(x(0), height - 6, f"0 ({unit})", anchor="middle"),
    ]
    for k, (name, d) in enumerate(rows):
        cy = top + row_h * k + row_h / 2
        parts.append(_text(left - 6, cy + 4, name, anchor="end"))
        if math.isnan(d.diff):
            continue
        colour = "#c0392b" if d.clear else "#555555"
        if not math.isnan(d.half):
            parts.append(
                f'<line x1="{x(d.diff - d.half):.1f}" y1="{cy:.1f}" x2="{x(d.diff + d.half):.1f}" '
                f'y2="{cy:.1f}" stroke="{colour}" stroke-width="2"/>'
            )
        parts.append(f'<circle cx="{x(d.diff):.1f}" cy="{cy:.1f}" r="3.5" fill="{colour}"/>')
    parts.append("</svg>")
    return "".join(parts)


def _table(
    head: Sequence[str], rows: Iterable[Sequence[str]], *, marks: Sequence[bool] = ()
) -> str:
    out = ['<div class="scroll"><table><thead><tr>']
    out += [f"<th>{escape(h)}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for k, row in enumerate(rows):
        clear = k < len(marks) and marks[k]
        cells = (f"<strong>{escape(c)}</strong>" if clear else escape(c) for c in row)
        cls = ' class="clear"' if clear else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def html_fragment(run: Run) -> str:
    """The report's body (headings, sentences, tables, plots): every text escaped, every
    number computed here, so it can be shown inside the console's page."""
    n = len(run.paired())
    out = [
        f"<p>{n} parties appariées par variante (mêmes graines, même distribution des rôles)"
        f"{f', {run.players} joueurs' if run.players else ''}, graine {run.seed}. "
        "Chaque différence est la moyenne des écarts partie par partie, avec son intervalle "
        "de confiance à 95 % (± 1,96 écart type / √n) ; en gras, celles dont l'intervalle "
        "exclut zéro.</p>"
    ]
    if run.interrupted:
        out.append('<p class="warning">Simulation interrompue : rapport partiel.</p>')
    out.append(
        "<details><summary>Ce que les robots ne jouent pas</summary>"
        f'<p class="note">{escape(NOT_MODELLED)}</p></details>'
    )
    base = run.rows.get(DEFAULT, {})
    games = run.paired()
    for variant in run.variants[1:]:
        diffs = compare(run, variant)
        by_key = {d.metric.key: d for d in diffs}
        out.append(f"<h2>{escape(variant)}</h2>")
        said = sentences(run, variant, diffs)
        if said:
            out.append(
                "<ul>"
                + "".join(f"<li>{escape(s[0].upper() + s[1:])}.</li>" for s in said[:10])
                + "</ul>"
            )
        else:
            out.append(f"<p>Aucune différence nette sur {n} parties.</p>")
        chorus = {
            label: [_mean([rows[i].get(f"chorus_j{d:02d}") for i in games]) for d in DAYS]
            for label, rows in ((DEFAULT, base), (variant, run.rows[variant]))
        }
        out.append(
            _svg_lines(
                "Taille du chœur au soir de chaque jour", chorus, y_label="membres (moyenne)"
            )
        )
        falls = [(french_name(c), by_key[f"fall_{c}"]) for c in CHARACTERS if f"fall_{c}" in by_key]
        out.append(
            _svg_forest("Jour de chute : écart avec les règles par défaut", falls, unit="jours")
        )
        summary = [by_key[k] for k in SUMMARY if k in by_key]
        out.append(
            _table(
                ("Mesure", DEFAULT, variant, "Différence (IC 95 %)"),
                (
                    (
                        d.metric.label,
                        shown(d.metric, d.default),
                        shown(d.metric, d.variant),
                        shown_diff(d),
                    )
                    for d in summary
                ),
                marks=[d.clear for d in summary],
            )
        )
        per_char = [c for c in CHARACTERS if f"fall_{c}" in by_key]
        out.append("<h3>Par Personnage</h3>")
        out.append(
            _table(
                (
                    "Personnage",
                    "Chute (jour)",
                    "Écart",
                    "Masqué au J13",
                    "Écart",
                    "Points",
                    "Écart",
                    "Victoires",
                    "Écart",
                ),
                (
                    (
                        french_name(c),
                        *(
                            v
                            for key in ("fall", "masked", "points", "wins")
                            if (d := by_key.get(f"{key}_{c}"))
                            for v in (shown(d.metric, d.variant), shown_diff(d))
                        ),
                    )
                    for c in per_char
                ),
                marks=[
                    any(
                        d.clear
                        for key in ("fall", "masked", "points", "wins")
                        if (d := by_key.get(f"{key}_{c}"))
                    )
                    for c in per_char
                ],
            )
        )
        seats = [d for d in diffs if d.metric.key.startswith("points_joueur")]
        if seats:
            out.append(
                "<h3>Points par joueur (même siège, même rôle d'une variante à l'autre)</h3>"
            )
            spread = {
                label: _spread([rows[i].get(d.metric.key) for i in games for d in seats])
                for label, rows in ((DEFAULT, base), (variant, run.rows[variant]))
            }
            out.append(
                "<p>"
                + " ; ".join(
                    f"{escape(k)} : moyenne {_fr(m, 0)}, écart type {_fr(s, 0)}"
                    for k, (m, s) in spread.items()
                )
                + ".</p>"
            )
            out.append(
                _table(
                    ("Joueur", DEFAULT, variant, "Différence (IC 95 %)"),
                    (
                        (
                            d.metric.label.split(" : ")[1],
                            shown(d.metric, d.default),
                            shown(d.metric, d.variant),
                            shown_diff(d),
                        )
                        for d in seats
                    ),
                    marks=[d.clear for d in seats],
                )
            )
    return "".join(out)


def _mean(values: Iterable[float | None]) -> float:
    xs = [v for v in values if v is not None]
    return sum(xs) / len(xs) if xs else float("nan")


def _spread(values: Iterable[float | None]) -> tuple[float, float]:
    xs = [v for v in values if v is not None]
    if not xs:
        return float("nan"), float("nan")
    m = sum(xs) / len(xs)
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))


CSS: Final = """\
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 0.75rem;
  line-height: 1.45; color: #222; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.2rem; margin-top: 2rem; } h3 { font-size: 1.05rem; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.9rem; margin: 0.5rem 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3rem 0.45rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
tr.clear td { font-weight: bold; }
svg.plot { width: 100%; max-width: 36rem; height: auto; display: block; margin: 1rem 0; }
.note { font-size: 0.9rem; color: #555; border-left: 3px solid #bbb; padding-left: 0.6rem; }
.warning { color: #a04000; font-weight: bold; }
summary { cursor: pointer; min-height: 24px; color: #444; }
@media (max-width: 30rem) {
  table { font-size: 0.78rem; } th, td { padding: 0.25rem 0.3rem; }
}
"""


def html_page(run: Run, *, title: str = "Règles maison comparées") -> str:
    """The standalone report (its stylesheet, ``rapport.css``, sits next to it)."""
    return (
        '<!DOCTYPE html>\n<html lang="fr"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title>"
        '<link rel="stylesheet" href="rapport.css"></head><body>'
        f"<h1>{escape(title)}</h1>{html_fragment(run)}"
        '<p class="note">Données brutes : <a href="parties.csv">parties.csv</a> '
        "(une ligne par partie et par variante). Refaire : <code>ronde simulate --compare "
        f"{' '.join(escape(v) for v in run.variants[1:])} --games {len(run.paired())} "
        f"--seed {run.seed}</code>.</p></body></html>\n"
    )


def write_report(run: Run, folder: Path) -> list[Path]:
    """``parties.csv``, ``rapport.html`` and ``rapport.css`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / "parties.csv", folder / "rapport.html", folder / "rapport.css"]
    write_csv(run, paths[0])
    paths[1].write_text(html_page(run), encoding="utf-8")
    paths[2].write_text(CSS, encoding="utf-8")
    return paths


def variant_options(text: str) -> tuple[str, dict[str, str]]:
    """A variant of ``--compare``: ``A9=grace_60``, or several house rules together
    (``A9=grace_60,A17=continue``), checked against the options registry; returns its
    label and its options.

    Raises:
        ReportError: an unknown id or value (French, listing the allowed values).
    """
    # (lazy: the options' checks raise the engine's RuleViolation)
    from .engine.errors import RuleViolation
    from .engine.options import validate_options

    raw: dict[str, str] = {}
    for part in text.split(","):
        if "=" not in part:
            raise ReportError(f"« {text} » : écrivez OPTION=VALEUR, par exemple A9=grace_60.")
        rid, value = (x.strip() for x in part.split("=", 1))
        raw[rid] = value
    try:
        checked = validate_options(raw)
    except RuleViolation as rv:
        raise ReportError(rv.message) from None
    if all(value == HOUSE_RULES[rid][0] for rid, value in checked.items()):
        raise ReportError(f"{text} : ce sont les valeurs par défaut, rien à comparer.")
    return ",".join(f"{rid}={value}" for rid, value in checked.items()), checked
