"""Each fixture page, in both forms (browser text and saved HTML), gives exactly its
expected extraction (``*.expected.yaml``): posts, then proposals and what is not
retained, with every doubtful name flagged."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from ronde.forum.proposals import ParseResult, parse_thread

from .conftest import FIXTURES, GMS, TODAY, page

FORMS = {
    "trial_woody": [("trial_woody.txt",), ("trial_woody.p1.html", "trial_woody.p2.html")],
    "trial_anonymous": [("trial_anonymous.txt",), ("trial_anonymous.html",)],
    "rehearsals_j5": [("rehearsals_j5.txt",), ("rehearsals_j5.html",)],
}


def extraction(result: ParseResult) -> dict[str, Any]:
    """The comparable summary of a parse (what the expected files hold)."""
    return {
        "title": result.thread.title,
        "kind": result.kind,
        "trial": None
        if result.trial is None
        else {
            "number": result.trial.number,
            "accused": result.trial.accused,
            "supposed": result.trial.supposed,
            "exists": result.trial.exists,
        },
        "posts": [
            {
                "author": p.author,
                "time": p.time.isoformat() if p.time else None,
                "stamp": list(p.stamp) if isinstance(p.stamp, tuple) else p.stamp,
                "edited": p.edited,
                "quotes": [b.author for b in p.quotes],
            }
            for p in result.thread.posts
        ],
        "proposals": [
            {"post": p.post, **p.step(), "doubtful": not p.sure}
            for p in result.proposals
            if p.action != "open_trial"
        ]
        + [
            {"post": p.post, "do": p.action, "by": p.by, "doubtful": not p.sure}
            for p in result.proposals
            if p.action == "open_trial"
        ],
        "ignored": [{"post": f.post, "reason": f.reason} for f in result.ignored],
    }


@pytest.mark.parametrize(("name", "files"), [(n, f) for n, forms in FORMS.items() for f in forms])
def test_fixture_gives_its_expected_extraction(
    name: str, files: tuple[str, ...], gm_view: dict[str, Any]
) -> None:
    expected = yaml.safe_load((FIXTURES / f"{name}.expected.yaml").read_text(encoding="utf-8"))
    result = parse_thread(page(*files), gm_view, today=TODAY, game_masters=GMS)
    assert extraction(result) == expected


def test_text_and_html_forms_agree_on_complaints(gm_view: dict[str, Any]) -> None:
    text = parse_thread(page("trial_woody.txt"), gm_view, today=TODAY, game_masters=GMS)
    html = parse_thread(
        page("trial_woody.p1.html", "trial_woody.p2.html"), gm_view, today=TODAY, game_masters=GMS
    )
    assert [c.step() for c in text.complaints] == [c.step() for c in html.complaints]
    assert [c.by for c in text.complaints] == [
        "Tartine",
        "Zorro",
        "Elodie",
        "Fanfan",
        "Sirius",
        "Bidule",
    ]
    sure = [c.by for c in text.complaints if c.sure]
    assert sure == ["Tartine", "Zorro", "Elodie"]
