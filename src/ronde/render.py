"""Rich rendering of engine views for the terminal (French)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from .engine.names import french_name
from .text import printable as _t

STATUS_FR = {
    "concluded": "conclu, verdict à annoncer",
    "open": "ouvert",
    "just": "JUSTE",
    "unjust": "INJUSTE",
    "lapsed": "annulé (plaintes)",
    "cancelled": "annulé (vice de procédure)",
    "void": "sans objet",
}


def _trials(console: Console, trials: list[dict[str, Any]], *, full: bool) -> None:
    if not trials:
        console.print("Aucun Procès.")
        return
    table = Table(title="Procès")
    for col in (
        "n°",
        "Accusé",
        "Personnage supposé",
        "Ouvert par",
        "Ouverture",
        "Statut",
        "Plaintes",
    ):
        table.add_column(col)
    for t in trials:
        complaints = ", ".join(
            ("anonyme" if c["anonymous"] and not full else c["author"])
            + (" (anonyme)" if full and c["anonymous"] else "")
            + (" (nulle)" if full and c.get("null") else "")
            for c in t["complaints"]
        )
        if "anonymous_published" in t and not full:
            extra = t["anonymous_published"] - sum(1 for c in t["complaints"] if c["anonymous"])
            if extra > 0:
                complaints += f" + {extra} anonyme(s)"
        table.add_row(
            str(t["number"]),
            _t(", ".join(t["accused"])),
            _t(t["supposed_fr"]),
            _t(t["opener"] or "anonyme"),
            _t(t["opened"]),
            _t(STATUS_FR.get(t["status"], t["status"])),
            _t(complaints or "—"),
        )
    console.print(table)


def render_view(console: Console, v: dict[str, Any]) -> None:
    """Print a view (game master, player or public) as tables."""
    kind = v["kind"]
    console.print(f"[bold]{_t(v['time'])}[/bold] (J{v['day']})")
    if kind == "game_master":
        console.print("Ronde : " + " → ".join(french_name(c) for c in v["ronde"]))
        console.print(f"Fenêtre k = {v['window']}{' (boost)' if v['boost'] else ''}")
        table = Table(title="Joueurs")
        for col in ("Joueur", "Personnage", "État", "Cibles", "Points"):
            table.add_column(col)
        for p in v["players"]:
            state = "masqué" if p["masked"] else "démasqué"
            if p["unofficial"]:
                state = "officieusement démasqué"
            if p["new_extra"]:
                state += " (nouveau Figurant)"
            table.add_row(
                _t(p["pseudo"]),
                _t(french_name(p["character"] or p["original"])),
                state,
                _t(", ".join(french_name(c) for c in p["targets"])),
                str(p["points"]),
            )
        console.print(table)
        _trials(console, v["trials"], full=True)
        if v["todo"]:
            console.print("[bold]À faire aujourd'hui[/bold]")
            for item in v["todo"]:
                console.print(f"  • {_t(item)}", highlight=False)
        return
    if kind == "player":
        me = v["me"]
        who = me.get("character_fr") or (
            "démasqué" if not me["masked"] else "(rôle pas encore révélé)"
        )
        console.print(f"[bold]{_t(me['pseudo'])}[/bold] : {_t(who)}")
        if me.get("constraint"):
            console.print(f"Contrainte : {_t(me['constraint'])}")
        console.print(
            "Personnages à démasquer (sans ordre) : " + _t(", ".join(v["targets_fr"]) or "aucun")
        )
        console.print(
            "Action de Procès possible aujourd'hui : " + ("oui" if v["quota"]["can_act"] else "non")
        )
        if v["known"]:
            console.print(
                "Identités connues : "
                + _t(", ".join(f"{k} = {french_name(c)}" for k, c in v["known"].items()))
            )
        _trials(console, v["trials"], full=False)
        private = [m for m in v["messages"] if not m["public"]]
        if private:
            console.print("[bold]Messages reçus[/bold]")
            for m in private:
                console.print(f"  {_t(m['time'])} — {_t(m['text'])}", highlight=False)
        if "points" in v:
            console.print(f"Points : {v['points']}")
        return
    _trials(console, v["trials"], full=False)
    if v["known"]:
        console.print(
            "Démasqués et identités publiques : "
            + _t(", ".join(f"{k} = {french_name(c)}" for k, c in v["known"].items()))
        )
    for a in v["announcements"][-20:]:
        console.print(f"  {_t(a['time'])} — {_t(a['text'])}", highlight=False)
