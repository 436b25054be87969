"""Web benchmark (not a test): requests per second and latency percentiles of the
player page and the game-master dashboard, against a bare Django view, on the same
server, with 50 concurrent clients.

It starts ``ronde serve --demo`` (the 28-player demo game played to J5) on a fresh
SQLite file in a temporary folder, logs a game master and a player in, then, for
each page, runs 50 keep-alive clients (asyncio, one process) for a fixed time.
Only loopback traffic; bounded in time; the server is stopped at the end.

    make bench-web            # or: .venv/bin/python benchmarks/bench_web.py --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
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

ROOT = Path(__file__).resolve().parent.parent
RONDE = ROOT / ".venv" / "bin" / "ronde"
GM = ("Mj", "demo-mj-ronde")
PASSWORD = "demo-joueur-ronde"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(port: int, db: Path, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("DATABASE_URL", None)
    out = log.open("wb")
    proc = subprocess.Popen(
        [str(RONDE), "serve", "--demo", "--port", str(port), "--db", str(db)],
        stdout=out,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=db.parent,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/sante/", timeout=1).read()
            break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        raise SystemExit(f"server did not start:\n{log.read_text()}")
    text = log.read_text()
    player = re.search(r"Joueur  : (\S+) /", text)
    assert player, text
    return proc, player.group(1)


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


async def client(
    port: int, path: str, cookie: str, until: float, latencies: list[float], errors: list[str]
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\n"
        "Connection: keep-alive\r\n\r\n"
    ).encode()
    try:
        while time.perf_counter() < until:
            t0 = time.perf_counter()
            writer.write(request)
            await writer.drain()
            status = await reader.readline()
            length = 0
            close = False
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b""):
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
                elif name.lower() == "connection" and "close" in value.lower():
                    close = True
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - t0)
            if not status.startswith(b"HTTP/1.1 200") and not status.startswith(b"HTTP/1.0 200"):
                errors.append(status.decode().strip())
            if close:
                writer.close()
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
    finally:
        writer.close()


async def load(port: int, path: str, cookie: str, clients: int, seconds: float) -> dict[str, float]:
    latencies: list[float] = []
    errors: list[str] = []
    start = time.perf_counter()
    until = start + seconds
    await asyncio.gather(
        *(client(port, path, cookie, until, latencies, errors) for _ in range(clients))
    )
    elapsed = time.perf_counter() - start
    if errors:
        raise SystemExit(f"{path}: {len(errors)} errors, e.g. {errors[0]}")
    q = statistics.quantiles(latencies, n=100)
    return {
        "requests": len(latencies),
        "rps": len(latencies) / elapsed,
        "p50_ms": q[49] * 1000,
        "p99_ms": q[98] * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--json", type=Path, default=ROOT / "out" / "bench-web.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ronde-bench-") as tmp:
        port = free_port()
        proc, player = start_server(port, Path(tmp) / "bench.sqlite3", Path(tmp) / "server.log")
        try:
            base = f"http://127.0.0.1:{port}"
            pages = {
                "bare Django view (/sante/)": ("/sante/", ""),
                "player page (/partie/demo/moi/)": (
                    "/partie/demo/moi/",
                    login(base, player, PASSWORD),
                ),
                "game-master dashboard (/mj/demo/)": ("/mj/demo/", login(base, *GM)),
                "public board (/partie/demo/)": ("/partie/demo/", ""),
            }
            results = {}
            for label, (path, cookie) in pages.items():
                asyncio.run(load(port, path, cookie, 5, 2.0))  # warm-up
                results[label] = asyncio.run(load(port, path, cookie, args.clients, args.seconds))
                r = results[label]
                print(
                    f"{label:40} {r['rps']:7.1f} req/s   p50 {r['p50_ms']:7.1f} ms"
                    f"   p99 {r['p99_ms']:7.1f} ms   ({r['requests']} requests)",
                    flush=True,
                )
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2))
    print(f"{args.clients} concurrent clients, {args.seconds:.0f} s per page; {args.json}")


if __name__ == "__main__":
    sys.exit(main())
