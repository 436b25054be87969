"""Benchmark of the forum reader (not a test): ``make bench``.

A browser copy of a long trial thread (shaped as ``shared/catalog/FORUM-PAGE.md``
describes: the date glued to the pseudo, the note line, quotes as an author line
then the quoted lines, the ``[ Lien ]`` footer, the page header repeated every
10 posts) of 320 and of 2,400 posts, read by ``parse_thread``. The reading is
linear: the time per post stays about the same (the quadratic reader took 2 s
and 88 s).
"""

from __future__ import annotations

import time
from datetime import date

from ronde.forum.proposals import parse_thread

AUTHORS = [f"Joueur{k:02d}" for k in range(30)]
MONTHS = ["nov."]


def thread_copy(n: int) -> str:
    """The browser copy of a trial thread of ``n`` posts (10 per page)."""
    out: list[str] = []
    texts: list[tuple[str, str]] = []
    pages = -(-n // 10)
    for k in range(n):
        if k % 10 == 0:
            out += [
                "Les Pantins",
                "Jour 5",
                "14:02",
                "Déconnexion",
                "> Procès : Joueur01 est Woody",
            ]
            out += ["Page", f" {k // 10 + 1}", f"/{pages}"]
        author = AUTHORS[k % len(AUTHORS)]
        day, minute = 1 + (k // 1440) % 28, k % 1440
        out.append(f"{day} nov. 2025, {minute // 60:02d}:{minute % 60:02d}{author}")
        out.append(f"  [{k % 7 - 3}, {k % 5 - 2}]")
        if k == 0:
            body = [f"J'accuse Joueur01 d'être Woody ! Argument numéro {k}."]
        elif k % 9 == 0:
            body = [
                f"Moi, {author}, pose une plainte contre Joueur01 pour avoir trop cabotiné "
                "dans son rôle de Woody."
            ]
        else:
            body = [f"Message {k} : je pense que {AUTHORS[(k * 7) % 30]} ment.", "Une autre ligne."]
        if k % 5 == 0 and texts:
            who, quoted = texts[-1]
            body = [who, *quoted.split("\n"), *body]
        out += body
        out.append("[ Lien ] [ Copier ] [ Citer ] [ ! ]")
        texts.append((author, "\n".join(body)))
    return "\n".join(out) + "\n"


def main() -> None:
    game_view = {
        "players": [
            {"pseudo": a, "character": "woody" if a == "Joueur01" else "extra"} for a in AUTHORS
        ],
        "trials": [],
    }
    rows = []
    for n in (320, 2400):
        text = thread_copy(n)
        best = float("inf")
        for _ in range(3 if n < 1000 else 1):
            t0 = time.perf_counter()
            result = parse_thread(text, game_view, today=date(2025, 11, 30))
            best = min(best, time.perf_counter() - t0)
        assert len(result.thread.posts) == n, len(result.thread.posts)
        rows.append((n, best, len(result.complaints)))
    for n, secs, complaints in rows:
        print(
            f"forum : {n:>5} messages lus en {secs:6.2f} s "
            f"({n / secs:,.0f} messages/s ; {complaints} plainte(s) proposée(s))"
        )
    ratio = (rows[1][1] / rows[1][0]) / (rows[0][1] / rows[0][0])
    print(f"forum : temps par message à 2 400 / à 320 = {ratio:.2f} (linéaire : ~1)")


if __name__ == "__main__":
    main()
