"""Reading a JSON Lines log (issue 14): the lines as Ronde writes them are read by
msgspec in one pass (``decode_line``), any other line by ``from_json``; both give the
same events, and every odd line is refused or read as before, named by its line."""

from __future__ import annotations

import gc
import random
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ronde import store
from ronde.catalog import default_catalog
from ronde.engine import events as E
from ronde.engine.clock import counting_day
from ronde.engine.events import (
    CharacterFact,
    ChorusDecided,
    MessageSent,
    Posted,
    TrialOpened,
    decode_line,
    decode_lines,
    from_json,
    to_json,
)
from ronde.engine.state import GameState
from ronde.sim import play_cast

from .conftest import SMALL_CAST, SMALL_RONDE, small_game
from .state_dump import canonical

T0 = datetime(2026, 12, 2, 9, 30, tzinfo=UTC)


def _simulated_logs() -> list[list[E.Event]]:
    return [
        play_cast(dict(SMALL_CAST), list(SMALL_RONDE), random.Random(seed)).game.log
        for seed in range(3)
    ]


def test_every_line_ronde_writes_is_read_in_one_pass_as_from_json_reads_it() -> None:
    for log in _simulated_logs():
        lines = store.dumps(log).split("\n")[:-1]
        decoded, missed = decode_lines(lines)
        assert missed == []
        for line, fast, e in zip(lines, decoded, log, strict=True):
            slow = from_json(orjson.loads(line))
            assert fast == slow == e and type(fast) is type(e)
            assert fast is not None and decode_line(line) == fast
            assert fast.at.utcoffset() == e.at.utcoffset()


def test_a_line_is_written_type_first_and_read_whatever_its_keys_order() -> None:
    e = ChorusDecided(at=T0, day=2, action="investigate", args={"b": 1, "a": 2}, members=("B",))
    line = store.dumps([e]).strip()
    assert line.startswith('{"type":"chorus_decided","v":1,"action":"investigate",')
    assert '"args":{"a":2,"b":1}' in line  # (keys sorted at every level below)
    assert decode_line(line) == decode_line(_line_of(e)) == e  # (or all keys sorted)
    assert store.dumps([decode_line(line)]) == store.dumps([e])  # type: ignore[list-item]


def test_replay_text_rebuilds_the_live_state() -> None:
    game = small_game()
    game.advance(datetime(2026, 12, 5, 12, tzinfo=UTC))
    replayed = store.replay_text(store.dumps(game.log))
    assert replayed.log == game.log
    assert canonical(replayed.state) == canonical(game.state)


def _line_of(e: E.Event, **change: Any) -> str:
    return orjson.dumps({**to_json(e), **change}, option=orjson.OPT_SORT_KEYS).decode()


POST = Posted(at=T0, player="Ana", trial=1)


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (_line_of(POST)[:-1], "JSON invalide"),
        ("[1]", "chaque ligne est un objet JSON"),
        (_line_of(POST, type="postd"), "type d'événement inconnu : 'postd'"),
        (_line_of(POST, v=9), "version 9 de posted non prise en charge"),
        (_line_of(POST, bogus=1), "événement posted mal formé : champ inconnu : bogus"),
        (_line_of(POST).replace('"player"', '"plyer"'), "événement posted mal formé"),
        (_line_of(POST, at="demain"), "événement posted mal formé"),
    ],
)
def test_an_odd_line_is_refused_with_its_line_and_a_french_message(line: str, problem: str) -> None:
    assert decode_line(line) is None
    good = _line_of(POST)
    text = "\n".join([good, good, line, good])
    for read in (text, text.encode()):  # (a text or a file's bytes)
        with pytest.raises(store.LogError) as exc:
            store.parse_log(read, Path("partie.jsonl"))
        assert exc.value.line == 3 and problem in exc.value.problem
        assert str(exc.value).startswith("partie.jsonl:3: ")


def test_other_lines_are_read_as_before_blank_lines_crlf_spaces_no_v() -> None:
    good = _line_of(POST)
    spaced = orjson.dumps(to_json(POST)).decode().replace(",", ", ")  # keys unsorted, spaces
    text = "\n".join([good, "", good + "\r", spaced, _line_of(POST).replace(',"v":1', "")])
    numbers, events = store.parse_log(text + "\n")
    assert numbers == [1, 3, 4, 5] and events == [POST] * 4


def test_a_field_of_another_type_is_left_to_from_json_which_reads_it_as_before() -> None:
    line = _line_of(POST, trial="1")
    assert decode_line(line) is None
    assert store.parse_log(line)[1][0].trial == "1"  # type: ignore[attr-defined]


def test_text_with_line_separators_is_one_line() -> None:
    """``str.splitlines`` cuts at U+2028, NEL, form feed ...: a log is cut at ``\\n`` only."""
    e = MessageSent(at=T0, to=(), kind="x", text="a\u2028b\x85c\x0cd\re", public=True)
    assert store.parse_log(store.dumps([e, e])) == ([1, 2], [e, e])


def test_an_export_reads_its_event_lines_only() -> None:
    good = _line_of(POST)
    text = "\n".join(
        [
            '{"ronde_export": 1}',
            good,  # (not an export's line: skipped, as before)
            orjson.dumps({"event": to_json(POST), "seq": 1}).decode(),
            '{"note": 1}',
        ]
    )
    assert store.parse_log(text) == ([3], [POST])


def test_an_older_version_is_upcast(monkeypatch: pytest.MonkeyPatch) -> None:
    """Posted at a (pretend) version 2, whose ``player`` was ``who`` in version 1."""
    monkeypatch.setattr(Posted, "VERSION", 2)
    monkeypatch.setitem(
        E.UPCASTERS, ("posted", 1), lambda d: {**{k: v for k, v in d.items() if k != "who"},
                                              "player": d["who"]}
    )  # fmt: skip
    old = _line_of(POST, v=1).replace('"player"', '"who"')
    assert decode_line(old) is None
    current = _line_of(POST)
    assert current.endswith('"v":2}')
    post = msgspec.structs.replace(POST, v=2)  # (read at the version it was written at)
    # (the pretend version is not the one the class declares to msgspec, ``Literal[1]``:
    # here only from_json reads it; a type truly at version 2 declares ``Literal[2]``)
    assert decode_line(current) is None
    both = "\n".join([old, current])
    assert E.decode_text(both) is None
    assert store.parse_log(both) == ([1, 2], [post, post])
    assert store.parse_log(both.encode()) == ([1, 2], [post, post])


# -- what text may hold: quotes, keys, separators, nested "type" and "v" -----------------
_PIECES = ['"', "\\", ",", ":", "}", "{", "\n", "\r", "\u2028", "é", ',"type":"', '","v":1}']
_TEXT = st.lists(
    st.sampled_from(_PIECES) | st.characters(exclude_categories=("Cs",)), max_size=12
).map("".join)
_DATA: Any = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | _TEXT,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["type", "v", "votes", "a", "z"]) | _TEXT, inner, max_size=4
        )
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(text=_TEXT, data=st.dictionaries(st.sampled_from(["type", "v", "votes", "a"]), _DATA))
def test_any_text_or_data_reads_back_equal(text: str, data: dict[str, Any]) -> None:
    log: list[E.Event] = [
        MessageSent(at=T0, to=("Ana",), kind="k", text=text, data=data),
        CharacterFact(at=T0, character="alice", player="Ana", kind=text, data=data),
        TrialOpened(at=T0, trial=1, opener="Ana", accused=(text,), supposed="x", arguments=text),
    ]
    text = store.dumps(log)
    assert store.parse_log(text)[1] == log
    assert store.parse_log(text.encode())[1] == log  # (a file's bytes: the whole text at once)
    assert E.decode_text(text.encode()) == log


# -- GameState.day: the window of the last day found ------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    minutes=st.lists(st.integers(-3 * 24 * 60, 17 * 24 * 60), min_size=1, max_size=30),
    grace=st.sampled_from(["midnight", "grace_5", "grace_180"]),
    local=st.booleans(),
)
def test_day_is_the_counting_day_in_any_order(minutes: list[int], grace: str, local: bool) -> None:
    start = date(2027, 3, 20)  # across a change of the clocks (J9)
    g = GameState(
        start=start,
        game_masters=("Mj",),
        options={"A9": grace},
        seed=0,
        ronde=(),
        players={},
        catalog=default_catalog(),
    )
    tz = timezone(timedelta(hours=1)) if local else UTC
    for m in minutes:
        t = (datetime(2027, 3, 19, 23, tzinfo=UTC) + timedelta(minutes=m)).astimezone(tz)
        assert g.day(t) == counting_day(start, t, g.options)


def test_a_whole_log_is_read_in_one_pass_as_line_by_line() -> None:
    for log in _simulated_logs():
        text = store.dumps(log)
        assert E.decode_text(text.encode()) == log
        assert E.decode_text(text.encode().rstrip(b"\n")) == log
        assert store.parse_log(text.encode()) == (list(range(1, len(log) + 1)), log)
        assert store.parse_log(text) == store.parse_log(text.encode())


def test_a_text_with_any_other_line_is_left_to_the_line_by_line_reading() -> None:
    good = _line_of(POST)
    odd = {
        "blank line": "\n".join([good, "", good]),
        "two events on one line": "\n".join([good, good + "," + good]),
        "two events on one line, spaced": "\n".join([good, good + " " + good]),
        "two events on one line, tight": "\n".join([good, good + good]),
        "spaces only": "\n".join([good, "  ", good]),
        "older or newer version": "\n".join([good, _line_of(POST, v=0), _line_of(POST, v=9)]),
        "an export": "\n".join(['{"ronde_export": 1}', good]),
        "invalid JSON": "\n".join([good, good[:-1]]),
        "two line ends": good + "\n\n",
        "empty": "",
    }
    for why, text in odd.items():
        assert E.decode_text(text.encode()) is None, why
        assert E.decode_text(text) is None, why
    # (a text that is not ASCII: line by line, where only its lines that need it are
    # copied as UTF-8; the same events)
    accented = MessageSent(at=T0, to=(), kind="x", text="Thème : café", public=True)
    text = store.dumps([POST, accented])
    assert E.decode_text(text) is None
    assert E.decode_text(text.encode()) == [POST, accented]
    assert store.parse_log(text) == store.parse_log(text.encode()) == ([1, 2], [POST, accented])


def test_a_file_that_is_not_utf8_is_refused_as_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "partie.jsonl"
    path.write_bytes(_line_of(POST).encode() + b"\n" + b'{"x": "\xff"}\n')
    with pytest.raises(store.LogError) as exc:
        store.read_events(path)
    assert "fichier illisible" in exc.value.problem


def test_a_hand_edited_log_that_ends_or_announces_a_trial_twice_is_refused(
    tmp_path: Path,
) -> None:
    """The engine ends a trial once and announces its verdict once (it reads the trials
    so): a log that does otherwise is refused at its line, not replayed."""
    log = play_cast(dict(SMALL_CAST), list(SMALL_RONDE), random.Random(1)).game.log
    ended = next(i for i, e in enumerate(log) if isinstance(e, E.TrialEnded))
    announced = next(i for i, e in enumerate(log) if isinstance(e, E.TrialAnnounced))
    path = tmp_path / "partie.jsonl"
    store.write_events(path, log)
    assert store.load_game(path).log == log
    twice = [(ended, log[ended]), (announced, log[announced])]
    edits = [(i + 2, [*log[: i + 1], again, *log[i + 1 :]]) for i, again in twice]
    still_open = msgspec.structs.replace(log[ended], status="open")  # (an end that ends nothing)
    edits.append((ended + 1, [*log[:ended], still_open, *log[ended + 1 :]]))
    for line, edited in edits:
        store.write_events(path, edited)
        with pytest.raises(store.LogError) as exc:
            store.load_game(path)
        assert exc.value.line == line and "Procès n°" in exc.value.problem


def test_an_event_split_over_two_lines_is_refused_at_its_line_as_line_by_line() -> None:
    """Review of issue 14: the whole text read at once must not take an event split over
    two lines, made up for by two events on another line (as many events as lines),
    which the line by line reading refuses at its first line. Split in a message's text,
    between two members, or inside a list of its data (a line that starts as an event
    does)."""
    message = MessageSent(
        at=T0, to=("Ana",), kind="x", text="a, b", public=False, data={"xs": [[1], [2]]}
    )
    one = store.dumps([message]).rstrip("\n")
    plain = store.dumps([msgspec.structs.replace(message, data={"xs": [1, 2]})]).rstrip("\n")
    splits = {
        "in a text": plain.replace('"a, b"', '"a\nb"'),
        "in a text, next to a list": one.replace('"a, b"', '"a\nb"'),
        "between members": plain.replace(',"kind"', '\n"kind"'),
        "in a list": plain.replace("[1,2]", "[1\n2]"),
        "in a list of lists": one.replace("[[1],[2]]", "[[1]\n[2]]"),
        "in a list, a line that starts as an event does": one.replace(
            "[[1],[2]]", '[[1],\n{"type":"posted"}]'
        ),
    }
    post = store.dumps([POST]).rstrip("\n")
    # (as many events as lines: two on a line to make up, tight or spaced, with or
    # without a comma: msgspec's ``decode_lines`` takes values apart at whitespace)
    for extra in (post + "," + post, post + " , " + post, post + " " + post, post + post):
        for why, split in splits.items():
            assert "\n" in split, why
            text = "\n".join([post, split, extra]) + "\n"
            assert E.decode_text(text.encode()) is None, why
            for read in (text, text.encode()):
                with pytest.raises(store.LogError) as exc:
                    store.parse_log(read)
                assert exc.value.line == 2 and "JSON invalide" in exc.value.problem, why


def test_reading_a_whole_log_leaves_the_garbage_collector_as_it_found_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The collector is paused while a whole log is read (``store._whole_log``), and
    running again after, whether the reading succeeds or fails; left off if it was."""
    text = store.dumps(_simulated_logs()[0])
    path = tmp_path / "partie.jsonl"
    path.write_text(text, encoding="utf-8")
    seen: list[bool] = []
    real = store.parse_log

    def parse(*args: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args)

    monkeypatch.setattr(store, "parse_log", parse)
    assert gc.isenabled()
    store.replay_text(text.encode())
    store.load_game(path)
    with pytest.raises(store.LogError):
        store.replay_text(b'{"type":"posted"\n')
    assert seen == [False, False, False] and gc.isenabled()
    gc.disable()
    try:
        store.replay_text(text.encode())
        assert not gc.isenabled()
    finally:
        gc.enable()
