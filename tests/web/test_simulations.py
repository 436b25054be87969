"""The console's page of simulated house rules (issue 29): how to run a comparison,
and a report shown from its raw CSV (uploaded, or written there by ``ronde simulate
--report`` on the server), read and drawn by our code: an uploaded HTML file, or a CSV
carrying markup, is never shown as such."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from ronde.simreport import DEFAULT, Run, csv_text
from ronde.web.games.views_sim import report_folder

from .conftest import World, gm_client


def _csv() -> str:
    run = Run(seed=7, games=2, players=28, variants=[DEFAULT, "A9=grace_60"])
    run.rows = {
        DEFAULT: {0: {"events": 1000.0, "fall_decorators": 5.0}, 1: {"events": 1100.0}},
        "A9=grace_60": {0: {"events": 1010.0, "fall_decorators": 6.0}, 1: {"events": 1090.0}},
    }
    return csv_text(run)


def test_the_page_says_how_to_run_it(
    client: Client, world: World, settings: Any, tmp_path: Path
) -> None:
    settings.DATA_DIR = tmp_path
    url = reverse("gm_simulations", args=[world.game.slug])
    assert client.get(url).status_code == 302  # (the login first)
    gm_client(client, world)
    page = client.get(url).content.decode()
    assert "ronde simulate --compare" in page and "--report " + str(tmp_path) in page
    assert "Dernier rapport" not in page


def test_only_the_game_masters_see_it(client: Client, world: World) -> None:
    pseudo = next(iter(world.users))
    client.force_login(world.users[pseudo])
    assert client.get(reverse("gm_simulations", args=[world.game.slug])).status_code == 404


def test_an_uploaded_csv_is_drawn_by_our_code(
    client: Client, world: World, settings: Any, tmp_path: Path
) -> None:
    settings.DATA_DIR = tmp_path
    gm_client(client, world)
    url = reverse("gm_simulations", args=[world.game.slug])
    upload = SimpleUploadedFile("parties.csv", _csv().encode(), content_type="text/csv")
    answer = client.post(url, {"report": upload})
    assert answer.status_code == 302
    assert (report_folder(world.game) / "parties.csv").read_text(encoding="utf-8") == _csv()
    page = client.get(url).content.decode()
    assert "Dernier rapport" in page and "<svg" in page and "A9=grace_60" in page


def test_markup_is_refused_and_never_shown(
    client: Client, world: World, settings: Any, tmp_path: Path
) -> None:
    settings.DATA_DIR = tmp_path
    gm_client(client, world)
    url = reverse("gm_simulations", args=[world.game.slug])
    evil = _csv().replace("A9=grace_60", "<script>alert(1)</script>")
    for name, body in (
        ("parties.csv", evil),
        ("rapport.html", "<html><script>alert(1)</script></html>"),
        ("parties.csv", "\xff\xfe"),
    ):
        upload = SimpleUploadedFile(
            name, body.encode("latin-1", "replace") if "\xff" in body else body.encode()
        )
        page = client.post(url, {"report": upload}).content.decode()
        assert "<script>alert" not in page
        assert 'role="alert"' in page
    assert not (report_folder(world.game) / "parties.csv").exists()
