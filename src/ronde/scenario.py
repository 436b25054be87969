"""Scenario files: load, run and check them (``scenarios/FORMAT.md``; ``ronde check``).

A malformed file raises :class:`ScenarioError` naming the file, the line and the
problem; a rules mismatch is a failed scenario (first mismatch only).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import yaml

from .catalog import default_catalog
from .engine.clock import check_instant, local_instant, parse_time, start_problem
from .engine.commands import Command
from .engine.errors import CODES, RuleViolation
from .engine.game import Game, all_actions
from .engine.names import nearest, resolve_character
from .engine.options import validate_options
from .engine.state import GameState
from .engine.trials import ALIKE_WHATEVER_THE_OUTCOME, frozen_by, legal_targets
from .engine.unmasking import before_verdicts
from .engine.views import public_identities

STEP_KEYS = {"at", "by", "do", "expect", "expect_error", "expect_answer"}
ACTIONS = frozenset(all_actions())
EXPECT_KEYS = {
    "trials",
    "unmasked",
    "characters",
    "targets",
    "points",
    "learned",
    "public",
    "secretary",
}


class ScenarioError(Exception):
    """A scenario file that cannot be read or is not a valid scenario."""

    def __init__(self, path: Path, line: int | None, problem: str) -> None:
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {problem}")
        self.path, self.line, self.problem = path, line, problem


@dataclass
class Step:
    """One step: an action (``do``) and/or checks (``expect``) at a time."""

    index: int
    line: int | None
    at: datetime
    by: str | None
    action: str | None
    args: dict[str, Any]
    expect_error: str | None
    expect_answer: str | None
    expect: dict[str, Any]


@dataclass
class Scenario:
    """A parsed scenario file."""

    path: Path
    name: str
    rules: list[str]
    start: date
    cast: dict[str, str]
    ronde: list[str]
    game_masters: list[str]
    options: dict[str, Any]
    steps: list[Step] = field(default_factory=list)
    seed: int = 0


@dataclass
class Outcome:
    """The result of running one scenario."""

    path: Path
    passed: bool
    step: int | None = None
    message: str = ""

    def line(self) -> str:
        if self.passed:
            return f"PASS {self.path}"
        return f"FAIL {self.path}: step {self.step}: {self.message}"


def _step_lines(text: str) -> list[int | None]:
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return []
    if not isinstance(root, yaml.MappingNode):
        return []
    for key, value in root.value:
        if getattr(key, "value", None) == "steps" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []


def _option_lines(text: str) -> tuple[int | None, dict[str, int]]:
    """The line of ``game.options`` and of each of its keys (1-based), for errors."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return None, {}
    node: yaml.Node | None = root
    for name in ("game", "options"):
        if not isinstance(node, yaml.MappingNode):
            return None, {}
        node = next((v for k, v in node.value if getattr(k, "value", None) == name), None)
    if node is None:
        return None, {}
    keys = node.value if isinstance(node, yaml.MappingNode) else []
    return node.start_mark.line + 1, {str(k.value): k.start_mark.line + 1 for k, _ in keys}


def _options(raw: object, text: str, path: Path) -> dict[str, Any]:
    """``game.options``, each house rule checked (an unknown id or value names its line)."""
    line, lines = _option_lines(text)
    if not raw:
        return {}
    if not isinstance(raw, dict):
        raise ScenarioError(path, line, "game.options doit être un dictionnaire (A9: grace_15 …)")
    for key, value in raw.items():
        try:
            validate_options({key: value})
        except RuleViolation as rv:
            raise ScenarioError(path, lines.get(str(key), line), rv.message) from None
    return dict(raw)


def _time(value: object, start: date, path: Path, line: int | None) -> datetime:
    try:
        if isinstance(value, datetime):
            check_instant(value)  # (before any conversion: year 1 overflows)
            return value.astimezone(UTC) if value.tzinfo else local_instant(value)
        return parse_time(str(value), start)
    except ValueError as exc:
        raise ScenarioError(path, line, str(exc)) from None


def load(path: Path) -> Scenario:
    """Read and validate a scenario file.

    Raises:
        ScenarioError: unreadable file, bad YAML, or a structure FORMAT.md does not allow.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(path, None, f"fichier illisible : {exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise ScenarioError(path, line, f"YAML invalide : {problem}") from None
    if not isinstance(data, dict):
        raise ScenarioError(
            path, 1, "un scénario est un dictionnaire YAML (name, rules, game, steps)"
        )
    game = data.get("game")
    if not isinstance(game, dict):
        raise ScenarioError(path, None, "clé « game » manquante ou invalide")
    for key in ("start", "ronde", "cast"):
        if key not in game:
            raise ScenarioError(path, None, f"game.{key} manquant")
    start_raw = game["start"]
    try:
        start = start_raw if isinstance(start_raw, date) else date.fromisoformat(str(start_raw))
    except ValueError:
        raise ScenarioError(path, None, f"game.start illisible : {start_raw!r}") from None
    if isinstance(start, datetime):
        start = start.date()
    if (problem := start_problem(start)) is not None:
        raise ScenarioError(path, None, f"game.start : {problem}")
    cast = game["cast"]
    ronde = game["ronde"]
    if not isinstance(cast, dict) or not isinstance(ronde, list):
        raise ScenarioError(path, None, "game.cast est un dictionnaire et game.ronde une liste")
    steps_raw = data.get("steps") or []
    if not isinstance(steps_raw, list):
        raise ScenarioError(path, None, "« steps » doit être une liste")
    lines = _step_lines(text)
    scenario = Scenario(
        path=path,
        name=str(data.get("name", path.stem)),
        rules=[str(r) for r in data.get("rules") or []],
        start=start,
        cast={str(k): str(v) for k, v in cast.items()},
        ronde=[str(c) for c in ronde],
        game_masters=[str(m) for m in game.get("game_masters") or ["Mj"]],
        options=_options(game.get("options"), text, path),
        seed=int(game.get("seed", 0) or 0),
    )
    previous: datetime | None = None
    for i, raw in enumerate(steps_raw, 1):
        line = lines[i - 1] if i - 1 < len(lines) else None
        if not isinstance(raw, dict):
            raise ScenarioError(path, line, f"l'étape {i} n'est pas un dictionnaire")
        if "at" in raw:
            at = _time(raw["at"], start, path, line)
        elif previous is not None:
            at = previous
        else:
            raise ScenarioError(path, line, f"l'étape {i} n'a pas d'heure (« at »)")
        if previous is not None and at < previous:
            raise ScenarioError(path, line, f"l'étape {i} remonte le temps")
        previous = at
        action = raw.get("do")
        expect = raw.get("expect") or {}
        if action is None and not expect:
            raise ScenarioError(path, line, f"l'étape {i} n'a ni « do » ni « expect »")
        if not isinstance(expect, dict):
            raise ScenarioError(path, line, "« expect » doit être un dictionnaire")
        unknown = set(expect) - EXPECT_KEYS
        if unknown:
            raise ScenarioError(
                path, line, f"vérification inconnue : {', '.join(map(str, unknown))}"
            )
        problem = _expect_problem(expect)
        if problem:
            raise ScenarioError(path, line, problem)
        if action is not None and "by" not in raw:
            raise ScenarioError(path, line, f"l'étape {i} n'a pas d'auteur (« by »)")
        if action is not None and str(action) not in ACTIONS:
            near = nearest(str(action), sorted(ACTIONS))
            hint = f" (vouliez-vous dire « {near} » ?)" if near else ""
            raise ScenarioError(path, line, f"action inconnue : {action}{hint}")
        if "expect_error" in raw and str(raw["expect_error"]) not in CODES:
            raise ScenarioError(path, line, f"code de refus inconnu : {raw['expect_error']}")
        answer = raw.get("expect_answer")
        if isinstance(answer, bool):
            answer = "yes" if answer else "no"
        scenario.steps.append(
            Step(
                index=i,
                line=line,
                at=at,
                by=str(raw["by"]) if "by" in raw else None,
                action=str(action) if action is not None else None,
                args={k: v for k, v in raw.items() if k not in STEP_KEYS},
                expect_error=str(raw["expect_error"]) if "expect_error" in raw else None,
                expect_answer=str(answer) if answer is not None else None,
                expect=expect,
            )
        )
    return scenario


TRIAL_STATUSES = frozenset({"open", "just", "unjust", "lapsed", "cancelled", "void"})


def _expect_problem(expect: dict[str, Any]) -> str | None:
    """What is malformed in an ``expect`` (FORMAT.md), in French; ``None`` if nothing."""
    for key, value in expect.items():
        where = f"vérification « {key} »"
        if key in ("unmasked",):
            if value is not None and not isinstance(value, list):
                return f"{where} : une liste de joueurs est attendue"
            continue
        if key == "secretary":
            if isinstance(value, dict | list):
                return f"{where} : un joueur est attendu"
            continue
        if not isinstance(value, dict):
            return f"{where} : un dictionnaire est attendu"
        for name, item in value.items():
            if key == "trials":
                if isinstance(name, bool) or not str(name).isdigit():
                    return f"{where} : « {name} » n'est pas un numéro de Procès"
                if str(item) not in TRIAL_STATUSES:
                    allowed = ", ".join(sorted(TRIAL_STATUSES))
                    return f"{where} : statut inconnu « {item} » ({allowed})"
            elif key == "points":
                if isinstance(item, bool) or not isinstance(item, int):
                    return f"{where} : {name} doit avoir un nombre entier de points, pas « {item} »"
            elif key == "targets":
                if item is not None and not isinstance(item, list):
                    return f"{where} : {name} : une liste de personnages est attendue"
            elif key == "learned":
                if not isinstance(item, dict):
                    return f"{where} : {name} : un dictionnaire joueur → personnage est attendu"
            elif isinstance(item, dict | list):
                return f"{where} : {name} : un personnage est attendu"
    return None


def build_game(s: Scenario) -> Game:
    """A fresh game for a scenario.

    Raises:
        ScenarioError: the setup is invalid (unknown character, bad cast ...).
    """
    try:
        return Game.create(
            start=s.start,
            cast=s.cast,
            ronde=s.ronde,
            catalog=default_catalog(),
            seed=s.seed,
            players=list(s.cast),
            game_masters=s.game_masters,
            options=s.options,
        )
    except RuleViolation as rv:
        raise ScenarioError(s.path, None, f"partie invalide : {rv.message}") from None


def run(s: Scenario) -> Outcome:
    """Run a scenario on a fresh game; the first mismatch fails it. An engine crash is
    reported as the failure of its step, never raised (the other files still run)."""
    current: list[int | None] = [None]
    try:
        return _run(s, current)
    except ScenarioError:
        raise
    except Exception as exc:  # a bug in the engine: report it
        problem = f"expected no engine error, got {type(exc).__name__}: {exc}"
        return Outcome(s.path, False, current[0], problem)


def announces_when_needed(s: Scenario) -> bool:
    """Whether the runner announces the verdicts of ``s``: a story that never says when a
    verdict is announced (no ``announce`` step) has each announced by the first game
    master as late as the story lets it be (R4.8: "as soon as they can"; late complaints
    and other players' actions meanwhile see it waiting), but before the first later
    step that checks anything (``expect``) or in which its accused acts (an action that
    A77 ``frozen`` would refuse alike until the announcement): a story that looks at the
    game after a verdict without saying it is announced tells it as announced. A story
    with an ``announce`` step (even a refused one) announces only where it says so."""
    return not any(step.action == "announce" for step in s.steps)


def _run(s: Scenario, current: list[int | None]) -> Outcome:
    game = build_game(s)
    lazy = announces_when_needed(s)
    for step in s.steps:
        current[0] = step.index
        game.advance(step.at)
        if lazy and (step.expect or _accused_acts(game.state, step)):
            announce_reached(game, step.at)
        if step.action is not None:
            problem = _do(game, step)
            if problem:
                return Outcome(s.path, False, step.index, problem)
        for key, expected in step.expect.items():
            problem = check(game.state, key, expected, game)
            if problem:
                return Outcome(s.path, False, step.index, problem)
    return Outcome(s.path, True)


def _accused_acts(g: GameState, step: Step) -> bool:
    """Whether ``step`` is an action of the accused of a verdict not yet announced that
    A77 ``frozen`` refuses alike until its announcement."""
    if step.action is None or step.by is None or step.action in ALIKE_WHATEVER_THE_OUTCOME:
        return False
    seat = g.seat_of(step.by)
    return seat is not None and frozen_by(g, seat) is not None


def announce_reached(game: Game, at: datetime) -> None:
    """The first game master announces, at ``at``, every verdict reached and not yet
    announced, in the order they were reached."""
    g = game.state
    if g.game_ended:
        return
    waiting = sorted(
        (t for t in g.trials if t.concluded and not t.announced),
        key=lambda t: (t.ended_at or at, t.number),
    )
    for t in waiting:
        game.execute(Command("announce", g.game_masters[0], at, {"trial": t.number}))


def _do(game: Game, step: Step) -> str | None:
    assert step.action is not None and step.by is not None
    before = len(game.log)
    cmd = Command(step.action, step.by, step.at, step.args)
    try:
        events = game.execute(cmd)
    except RuleViolation as rv:
        if step.expect_error is None:
            return f"expected {step.action} to be accepted, got refusal {rv.code} ({rv.message})"
        if rv.code != step.expect_error:
            return f"expected refusal {step.expect_error}, got refusal {rv.code} ({rv.message})"
        if len(game.log) != before:
            return "expected a refused action to change nothing, got new events"
        return None
    if step.expect_error is not None:
        return f"expected refusal {step.expect_error}, got the action accepted"
    if step.expect_answer is not None:
        answers = [e for e in events if getattr(e, "kind", None) == "answer" and hasattr(e, "data")]
        got = str(getattr(answers[-1], "data", {}).get("answer")) if answers else "no answer"
        if got != step.expect_answer:
            return f"expected answer {step.expect_answer}, got {got}"
    return None


def _seat(g: GameState, name: object) -> str | None:
    return g.seat_of(str(name))


def _norm_char(value: object) -> str:
    text = str(value)
    if text.casefold() == "none":
        return "none"
    try:
        return resolve_character(text)
    except RuleViolation:
        return text


#: what a ``learned`` or ``public`` check may write for "not known" (``none``, as the
#: ``characters`` check writes an unmasked player; ``nothing``; YAML's null)
_NOT_KNOWN = frozenset({"none", "nothing", "unknown"})


def _same_knowledge(got: str, expected: object) -> bool:
    """Whether ``got`` (a known Character, or ``nothing``) is what a check expects."""
    want = _norm_char(expected)
    if got == "nothing":
        return want.casefold() in _NOT_KNOWN
    return got == want


def check(g: GameState, key: str, expected: Any, game: Game | None = None) -> str | None:
    """Compare one ``expect`` entry with the state; return a mismatch or ``None``.

    ``targets``, ``learned`` and ``public`` show the game as the named player (or the
    public) knows it while verdicts wait for their announcement (A77: as his commands
    read it, ``game.reading_as``); the other checks show the truth (FORMAT.md)."""
    if key == "trials":
        for number, status in dict(expected).items():
            t = g.trial(int(number))
            got = t.status if t else "no such trial"
            if got != str(status):
                return f"expected trial {number} {status}, got {got}"
    elif key == "unmasked":
        want_names = {str(x) for x in expected or []}
        got_names = {p.pseudo for p in g.players.values() if not p.masked}
        if {x.casefold() for x in want_names} != {x.casefold() for x in got_names}:
            return f"expected unmasked {sorted(want_names)}, got {sorted(got_names)}"
    elif key == "characters":
        for name, character in dict(expected).items():
            seat = _seat(g, name)
            if seat is None:
                return f"expected player {name}, got no such player"
            got = g.players[seat].character or "none"
            if got != _norm_char(character):
                return f"expected {name} to be {character}, got {got}"
    elif key == "targets":
        for name, characters in dict(expected).items():
            seat = _seat(g, name)
            if seat is None:
                return f"expected player {name}, got no such player"
            p = g.players[seat]
            with game.reading_as(seat) if game is not None else before_verdicts(g):
                got_set = legal_targets(g, p, anonymous=False) | legal_targets(g, p, anonymous=True)
            want_set = {_norm_char(c) for c in characters or []}
            if got_set != want_set:
                return f"expected targets of {name} {sorted(want_set)}, got {sorted(got_set)}"
    elif key == "points":
        for name, points in dict(expected).items():
            seat = _seat(g, name)
            if seat is None:
                return f"expected player {name}, got no such player"
            got_points = g.players[seat].points
            if got_points != int(points):
                return f"expected {name} to have {points} points, got {got_points}"
    elif key == "learned":
        for name, others in dict(expected).items():
            seat = _seat(g, name)
            if seat is None:
                return f"expected player {name}, got no such player"
            for other, character in dict(others).items():
                oseat = _seat(g, other)
                with before_verdicts(g):
                    got = g.players[seat].learned.get(oseat or "", "nothing")
                if not _same_knowledge(got, character):
                    return f"expected {name} to have learned {other} is {character}, got {got}"
    elif key == "public":
        with before_verdicts(g):
            known = public_identities(g)
        for name, character in dict(expected).items():
            seat = _seat(g, name)
            got = known.get(seat or "", "nothing")
            if not _same_knowledge(got, character):
                return f"expected {name} publicly known as {character}, got {got}"
    elif key == "secretary":
        got = g.pseudo(g.secretary) if g.secretary else "none"
        if str(expected).casefold() != got.casefold():
            return f"expected secretary {expected}, got {got}"
    return None


def collect(paths: Iterable[Path]) -> list[Path]:
    """Every ``*.yaml`` file given, folders searched recursively, sorted."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(p.rglob("*.yaml")))
        else:
            out.append(p)
    return out


def check_paths(paths: Iterable[Path]) -> tuple[list[Outcome], list[ScenarioError]]:
    """Run every scenario under ``paths``; return outcomes and unreadable files."""
    outcomes: list[Outcome] = []
    errors: list[ScenarioError] = []
    for path in collect(paths):
        try:
            scenario = load(path)
            outcomes.append(run(scenario))
        except ScenarioError as exc:
            errors.append(exc)
    return outcomes, errors


def rule_ids(paths: Iterable[Path]) -> Mapping[str, list[Path]]:
    """Rule ids named by the ``rules:`` of the scenarios under ``paths``."""
    out: dict[str, list[Path]] = {}
    for path in collect(paths):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError):
            continue
        if isinstance(data, dict):
            for rid in data.get("rules") or []:
                out.setdefault(str(rid), []).append(path)
    return out
