"""Web benchmark (not a test): requests per second and latency percentiles of the pages,
against a login-protected constant page served by the same server, while a writer
records actions.

It stores a simulated 28-player game played to J10 evening (``--until``) in a fresh
SQLite file in a temporary folder, starts the production server on it
(``ronde serve``: waitress, collected static files), logs ``--players`` players and a
game master in through the login form, then runs ``wrk`` (a C load generator,
another process) on each page in turn, ``--rounds`` times, each page between two
runs of the baseline and compared with their mean (so that a machine whose load
changes weighs on a page and its baseline alike), with ``--connections`` keep-alive
connections, each request sent with the next player's session (many viewers at
once), while another
process records a game master's award every ``--write-every`` seconds (every write
changes the game's version: every cached page is built again). The baseline,
``/banc/constante/``, is a constant text behind the same login and middleware; it
exists only when the server runs with ``RONDE_BENCH_VIEWS=1`` (set here only).

Only loopback traffic; bounded in time; the server and the writer are stopped at the
end. Needs ``wrk`` (Debian: ``apt-get install wrk``; ``make bench-web`` installs it
when it can).

    make bench-web            # or: .venv/bin/python benchmarks/bench_web.py --seconds 20
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PY = ROOT / ".venv" / "bin" / "python"
RONDE = ROOT / ".venv" / "bin" / "ronde"
GM_PASSWORD = "banc-mj-ronde"
PLAYER_PASSWORD = "banc-joueur-ronde"
SLUG = "banc"
BASELINE = "constant view behind the login (baseline)"

#: wrk's script: each request carries the next session of the list; one JSON line at the end
WRK_LUA = r"""
local cookies = {}
for line in io.lines(os.getenv("BENCH_COOKIES")) do
  if #line > 0 then cookies[#cookies + 1] = line end
end
local path = os.getenv("BENCH_PATH")
local n = 0
function setup(thread) end
function init(args) n = math.random(#cookies) end
function request()
  n = n % #cookies + 1
  local headers = {}
  if cookies[n] ~= "-" then headers["Cookie"] = cookies[n] end
  return wrk.format("GET", path, headers)
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "errors": %d, "non2xx": %d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, e.status))
end
"""


def _env(tmp: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "RONDE_DATA_DIR": str(tmp / "data")}
    env.pop("DATABASE_URL", None)
    env.pop("RONDE_DEBUG", None)
    return env


# -- in a child process: store the game, record writes -------------------------------------
def _django(db: Path) -> None:
    os.environ["RONDE_SQLITE_PATH"] = str(db)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ronde.web.settings")
    import django

    django.setup()


def setup_game(db: Path, until: str) -> None:
    """Store the simulated game (manual clock, stopped where the bots stopped) and print
    its players' user names and its number of events as JSON."""
    from datetime import datetime, timedelta

    _django(db)
    from django.core.management import call_command

    from ronde.engine.clock import PARIS, parse_time
    from ronde.web.games import demo
    from ronde.web.games.models import Game

    call_command("migrate", verbosity=0)
    start = (datetime.now(PARIS) - timedelta(days=20)).date()
    played = demo.play_until(parse_time(until, start), start=start, seed=2026)
    game = demo.store(
        played,
        slug=SLUG,
        name="Banc d'essai",
        gm_password=GM_PASSWORD,
        player_password=PLAYER_PASSWORD,
        clock=Game.MANUAL,
    )
    players = [
        m.user.get_username()
        for m in game.memberships.select_related("user").order_by("pseudo")
        if m.user is not None
    ]
    gms = [gm.user.get_username() for gm in game.game_masters.select_related("user") if gm.user]
    print(json.dumps({"players": players, "gms": gms, "events": game.last_seq}))


def writer(db: Path, every: float, out: Path) -> None:
    """Record a game master's award every ``every`` seconds until stopped (SIGTERM)."""
    _django(db)
    from ronde.web.games import service
    from ronde.web.games.models import Game

    stop = False

    def _stop(*_args: Any) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, _stop)
    game = Game.objects.get(slug=SLUG)
    pseudos = list(game.memberships.values_list("pseudo", flat=True))
    done = 0
    while not stop:
        who = pseudos[done % len(pseudos)]
        args = {"player": who, "points": 1, "reason": "b"}
        if service.record(game, None, "award", "Mj", args).ok:
            done += 1
        out.write_text(str(done))
        until = time.monotonic() + every
        while not stop and time.monotonic() < until:
            time.sleep(min(0.05, every))


# -- the benchmark ----------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(port: int, db: Path, tmp: Path, threads: int) -> subprocess.Popen[bytes]:
    env = {**_env(tmp), "RONDE_BENCH_VIEWS": "1"}
    log = (tmp / "server.log").open("wb")
    proc = subprocess.Popen(
        [str(RONDE), "serve", "--port", str(port), "--db", str(db), "--threads", str(threads)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=tmp,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/sante/", timeout=1).read()
            return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit(f"server did not start:\n{(tmp / 'server.log').read_text()}")


def login(base: str, username: str, password: str) -> str:
    """Log in through the form; return the ``Cookie`` header of the session."""
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{base}/connexion/").read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token
    data = urllib.parse.urlencode(
        {"username": username, "password": password, "csrfmiddlewaretoken": token.group(1)}
    ).encode()
    opener.open(urllib.request.Request(f"{base}/connexion/", data=data, headers={"Referer": base}))
    cookies = {c.name: c.value for c in jar}
    assert "sessionid" in cookies, f"login failed for {username}"
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


def run_wrk(
    port: int, path: str, cookies: list[str], tmp: Path, seconds: float, connections: int
) -> dict[str, float]:
    script = tmp / "bench.lua"
    script.write_text(WRK_LUA)
    jar = tmp / f"cookies-{abs(hash(path))}.txt"
    jar.write_text("\n".join(cookies) + "\n")
    env = {**os.environ, "BENCH_COOKIES": str(jar), "BENCH_PATH": path}
    cmd = [
        "wrk",
        "-t2",
        f"-c{connections}",
        f"-d{max(1, round(seconds))}s",
        "--timeout",
        "30s",
        "-s",
        str(script),
        f"http://127.0.0.1:{port}",
    ]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    line = next(ln for ln in reversed(out.splitlines()) if ln.startswith("{"))
    r = json.loads(line)
    if r["errors"] or r["non2xx"]:
        raise SystemExit(f"{path}: {r['errors']} errors, {r['non2xx']} non-2xx answers\n{out}")
    return {
        "requests": r["requests"],
        "rps": r["requests"] / (r["duration_us"] / 1e6),
        "p50_ms": r["p50_us"] / 1000,
        "p99_ms": r["p99_us"] / 1000,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--players", type=int, default=20, help="player sessions used")
    parser.add_argument("--seconds", type=float, default=5.0, help="per page and round")
    parser.add_argument("--rounds", type=int, default=3, help="turns of every page")
    parser.add_argument("--write-every", type=float, default=2.0, help="seconds between writes")
    parser.add_argument("--threads", type=int, default=8, help="the server's threads")
    parser.add_argument("--until", default="J10 22:00", help="how far the bots play")
    parser.add_argument("--json", type=Path, default=ROOT / "out" / "bench-web.json")
    parser.add_argument("--setup", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--writer", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--writer-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.setup:
        setup_game(args.setup, args.until)
        return 0
    if args.writer:
        writer(args.writer, args.write_every, args.writer_out)
        return 0
    if shutil.which("wrk") is None:
        print("bench-web: wrk is not installed (Debian: apt-get install wrk); skipped.")
        return 0
    with tempfile.TemporaryDirectory(prefix="ronde-bench-web-") as name:
        tmp = Path(name)
        db = tmp / "bench.sqlite3"
        here = Path(__file__).resolve()
        info = json.loads(
            subprocess.run(
                [str(PY), str(here), "--setup", str(db), "--until", args.until],
                env=_env(tmp),
                capture_output=True,
                text=True,
                check=True,
            ).stdout.splitlines()[-1]
        )
        port = free_port()
        proc = start_server(port, db, tmp, args.threads)
        base = f"http://127.0.0.1:{port}"
        write_count = tmp / "writes.txt"
        writer_proc = None
        try:
            players = [login(base, u, PLAYER_PASSWORD) for u in info["players"][: args.players]]
            gms = [login(base, u, GM_PASSWORD) for u in info["gms"]]
            pages = {
                "bare view, no login (/sante/)": ("/sante/", ["-"]),
                BASELINE: ("/banc/constante/", players),
                "player page": (f"/partie/{SLUG}/moi/", players),
                "public board": (f"/partie/{SLUG}/", ["-"]),
                "game-master dashboard": (f"/mj/{SLUG}/", gms),
            }
            writer_proc = subprocess.Popen(
                [
                    str(PY),
                    str(here),
                    "--writer",
                    str(db),
                    "--writer-out",
                    str(write_count),
                    "--write-every",
                    str(args.write_every),
                ],
                env=_env(tmp),
                stdout=subprocess.DEVNULL,
                start_new_session=True,
            )
            rounds: dict[str, list[dict[str, float]]] = {label: [] for label in pages}
            for _path, cookies in pages.values():
                run_wrk(port, _path, cookies, tmp, 2, 4)  # warm-up

            def run(label: str) -> dict[str, float]:
                path, cookies = pages[label]
                r = run_wrk(port, path, cookies, tmp, args.seconds, args.connections)
                rounds[label].append(r)
                return r

            # each page runs between two runs of the baseline, and is compared with their
            # mean: a machine whose load changes weighs on both alike; the pages take
            # turns, round after round
            for _round in range(args.rounds):
                before = run(BASELINE)
                for label in pages:
                    if label == BASELINE:
                        continue
                    r = run(label)
                    after = run(BASELINE)
                    r["baseline_rps"] = (before["rps"] + after["rps"]) / 2
                    before = after
            results: dict[str, Any] = {}
            for label, rs in rounds.items():
                results[label] = {
                    "rps": statistics.median(r["rps"] for r in rs),
                    "p50_ms": statistics.median(r["p50_ms"] for r in rs),
                    "p99_ms": statistics.median(r["p99_ms"] for r in rs),
                    # the ratio to the mean of the baseline's runs just before and after
                    "ratio": statistics.median(
                        r["rps"] / r.get("baseline_rps", r["rps"]) for r in rs
                    ),
                    "rounds": rs,
                }
                r = results[label]
                print(
                    f"{label:44} {r['rps']:7.0f} req/s   p50 {r['p50_ms']:7.1f} ms"
                    f"   p99 {r['p99_ms']:7.1f} ms   ratio {r['ratio']:.2f}",
                    flush=True,
                )
        finally:
            for p in (writer_proc, proc):
                if p is None:
                    continue
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
        writes = int(write_count.read_text() or 0) if write_count.exists() else 0
    total = (args.seconds * (2 * len(pages) - 1) * args.rounds) + 2 * len(pages)
    print(
        f"{info['events']} events, {len(players)} player sessions, {args.connections} "
        f"connections (wrk), waitress {args.threads} threads, {writes} writes "
        f"(one every {args.write_every:g} s over ~{total:.0f} s); medians of {args.rounds} "
        f"rounds of {args.seconds:g} s per page; ratio: to the mean of the baseline's runs "
        f"just before and after; "
        f"{args.json}"
    )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(
        json.dumps({"events": info["events"], "writes": writes, "pages": results}, indent=2)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
