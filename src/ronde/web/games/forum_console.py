"""The forum bridge inside the console: pasted pages to steps the game masters
confirm and record, the constraint helpers' suggestions, and "À poster".

Nothing here decides a rule: steps are recorded through
:func:`ronde.web.games.service.record` (correction by replay for a forum time
before the last event, with its preview when it changes what was recorded).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from ronde.engine.clock import day_of, format_time, parse_time
from ronde.engine.errors import RuleViolation
from ronde.engine.names import french_name, resolve_character
from ronde.engine.views import View
from ronde.forum import checks
from ronde.forum.apply import already_recorded
from ronde.forum.proposals import ParseResult, Proposal, parse_pages
from ronde.forum.registre import mime_check
from ronde.forum.render import (
    ForumContext,
    Templates,
    forum_messages,
    load_templates,
    message_key,
    render,
)
from ronde.forum.thread import Diagnostic, Post, fold_pseudo

from . import service
from .access import number
from .models import Action, ForumTemplate, Game, Posting, Request

ACTIONS_FR = {
    "open_trial": "Ouvrir un Procès",
    "complain": "Plainte",
    "post": "Message dans un Procès",
    "rehearse": "Répétition",
    "announce": "Annonce du verdict (message des MJ)",
}


# -- reading ------------------------------------------------------------------------------
def read_uploads(files: Iterable[tuple[str, bytes]]) -> list[str]:
    """Uploaded saved pages as text (UTF-8, a broken byte replaced)."""
    return [data.decode("utf-8", errors="replace") for _name, data in files]


def parse(
    game: Game, v: View, pages: list[str], *, today: date | None, trial: int | None
) -> ParseResult:
    """Read the pasted or uploaded pages of one thread against the game."""
    return parse_pages(
        pages,
        v,
        today=today,
        trial=trial,
        game_masters=_gm_names(game),
        start=game.start,
    )


def _gm_names(game: Game) -> list[str]:
    return list(game.game_masters.values_list("name", flat=True))


_CLI_HINTS = (
    ("(--trial N pour le lire comme un Procès)", "(option « Lire comme le Procès n° »)"),
    (": indiquez-le avec --trial", ": choisissez-le dans « Lire comme le Procès n° »"),
    ("(--today AAAA-MM-JJ)", "(dans les options de lecture, « Date de la copie »)"),
    ("(--today)", "(option « Date de la copie »)"),
)


def console_message(text: str) -> str:
    """A reader's message with the command line's hints put as the page's options."""
    for cli, page in _CLI_HINTS:
        text = text.replace(cli, page)
    return text


def diagnostic_text(d: Diagnostic) -> str:
    """A reader's diagnostic for the page: where (post, line of the copy), then what."""
    where = []
    if d.post is not None:
        where.append(f"message {d.post}")
    if d.line is not None:
        where.append(f"ligne {d.line} de la copie")
    prefix = (", ".join(where) + " : ") if where else ""
    return prefix + console_message(d.message)


# -- steps ---------------------------------------------------------------------------------
@dataclass
class Step:
    """One proposal as the form carries it (every field editable but the action)."""

    n: int
    action: str
    by: str
    at: str
    trial: str = ""
    against: str = ""
    as_: str = ""
    arguments: str = ""
    anonymous: bool = False
    defends: str = ""
    post: int = 0
    author: str = ""
    excerpt: str = ""
    doubts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checked: bool = False
    #: the number of the trial this paste opens (its steps follow its real number)
    new_trial: str = ""
    recorded: str = ""
    problem: str = ""
    #: the whole source post as read (its time as the forum shows it, its text)
    time_text: str = ""
    source: str = ""
    #: a complaint known refused (code, French reason): recorded as a post if confirmed
    refusal: tuple[str, str] | None = None
    #: an MJs' verdict post: the verdict it states (checked against the game's)
    expect: str = ""

    @property
    def label(self) -> str:
        return ACTIONS_FR.get(self.action, self.action)

    @property
    def sure(self) -> bool:
        """Nothing to check: no doubt, not refused (a refusal is not among the doubts)."""
        return not self.doubts and self.refusal is None

    @property
    def meta(self) -> str:
        """What the form carries unchanged, in one field (the action and its source)."""
        return json.dumps(
            {
                "action": self.action,
                "post": self.post,
                "author": self.author,
                "excerpt": self.excerpt,
                "new_trial": self.new_trial,
                "time_text": self.time_text,
                "refusal": list(self.refusal) if self.refusal else None,
                "expect": self.expect,
            },
            ensure_ascii=False,
        )

    def args(self) -> dict[str, Any]:
        """The command's arguments (scenario vocabulary)."""
        out: dict[str, Any] = {}
        if self.action == "open_trial":
            accused = [a.strip() for a in self.against.replace(" et ", ",").split(",")]
            accused = [a for a in accused if a]
            out["against"] = accused if len(accused) > 1 else (accused[0] if accused else "")
            out["as"] = self.as_
            if self.arguments:
                out["arguments"] = self.arguments
        if self.action in ("complain", "post", "announce"):
            trial = number(self.trial)
            out["trial"] = trial if trial is not None else self.trial
        if self.action in ("open_trial", "complain") and self.anonymous:
            out["anonymous"] = True
        if self.action == "post" and self.defends:
            out["defends"] = self.defends
        return out

    def proposal(self, start: date) -> Proposal:
        """The step as the forum bridge records it (French error if its time is
        unreadable)."""
        return Proposal(
            self.action,
            self.by,
            self.when(start),
            self.args(),
            self.post,
            self.excerpt,
            refusal=self.refusal,
            expect=self.expect or None,
        )

    def when(self, start: date) -> datetime:
        """The forum time of the step (French error if unreadable)."""
        if not self.at.strip():
            raise RuleViolation(
                "invalid_argument",
                f"{self.label} de {self.by} : heure du message inconnue, indiquez-la (J5 09:40).",
            )
        try:
            return parse_time(self.at.strip(), start)
        except ValueError as exc:
            raise RuleViolation("invalid_argument", f"{self.label} de {self.by} : {exc}") from None


def steps_from(result: ParseResult, start: date) -> list[Step]:
    """The proposals of a parse as form rows; sure ones are ticked (a step without a
    time never: its doubt says how to give the copy's date)."""
    out = []
    new = "" if result.trial is None or result.trial.exists else str(result.trial.number)
    posts = {p.index: p for p in result.thread.posts}
    for n, prop in enumerate(result.proposals):
        out.append(_step(n, prop, start, new, posts.get(prop.post)))
    return out


def _step(n: int, prop: Proposal, start: date, new: str, post: Post | None) -> Step:
    a = prop.args
    against = a.get("against", "")
    return Step(
        n=n,
        action=prop.action,
        by=prop.by,
        at=format_time(start, prop.at) if prop.at is not None else "",
        trial=str(a.get("trial", "")),
        against=", ".join(against) if isinstance(against, list) else str(against),
        as_=str(a.get("as", "")),
        arguments=str(a.get("arguments", "")),
        anonymous=bool(a.get("anonymous", False)),
        defends=str(a.get("defends", "")),
        post=prop.post,
        author=post.author if post is not None else prop.by,
        excerpt=prop.excerpt,
        doubts=[console_message(d) for d in prop.doubts],
        notes=[console_message(d) for d in prop.notes],
        checked=prop.sure,
        new_trial=new,
        time_text=post.time_text if post is not None else "",
        source=post.text[:4000] if post is not None else "",
        refusal=prop.refusal,
        expect=prop.expect or "",
    )


def steps_from_post(data: Mapping[str, Any]) -> list[Step]:
    """The rows of the confirmation form."""
    out = []
    count = _int(data.get("count")) or 0
    for n in range(min(count, 500)):
        pre = f"s{n}-"
        try:
            meta = json.loads(str(data.get(pre + "meta", "")))
        except ValueError:
            continue
        if not isinstance(meta, dict):
            continue
        action = str(meta.get("action", ""))
        if action not in ACTIONS_FR:
            continue
        step = Step(
            n=n,
            action=action,
            by=str(data.get(pre + "by", "")).strip(),
            at=str(data.get(pre + "at", "")).strip(),
            trial=str(data.get(pre + "trial", "")).strip(),
            against=str(data.get(pre + "against", "")).strip(),
            as_=str(data.get(pre + "as", "")).strip(),
            arguments=str(data.get(pre + "arguments", "")).strip(),
            anonymous=bool(data.get(pre + "anonymous")),
            defends=str(data.get(pre + "defends", "")).strip(),
            post=_int(meta.get("post")) or 0,
            author=str(meta.get("author", "")),
            excerpt=str(meta.get("excerpt", "")),
            checked=bool(data.get(pre + "ok")),
            new_trial=str(meta.get("new_trial", "")).strip(),
            time_text=str(meta.get("time_text", "")),
            refusal=_refusal(meta.get("refusal")),
            expect=str(meta.get("expect") or "")
            if meta.get("expect") in ("just", "unjust")
            else "",
        )
        if step.as_:
            with contextlib.suppress(RuleViolation):  # else the engine refuses it
                step.as_ = resolve_character(step.as_)
        out.append(step)
    return out


def _refusal(value: object) -> tuple[str, str] | None:
    if isinstance(value, list) and len(value) == 2 and all(isinstance(x, str) for x in value):
        return value[0][:40], value[1][:400]
    return None


def _int(value: object) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def mark_recorded(game: Game, v: View, steps: list[Step]) -> None:
    """Flag the steps already recorded (:func:`ronde.forum.apply.already_recorded`: same
    action, author, forum minute and trial; a complaint already counted in its trial;
    a verdict already announced), so none is recorded twice."""
    standing = ServiceWriter(game).standing()
    for s in steps:
        try:
            prop = s.proposal(game.start)
        except RuleViolation:
            continue
        trials = v["trials"] if not (s.new_trial and s.action == "complain") else []
        why = already_recorded(prop, standing, trials)
        if why == "même action à la même heure":
            why = "déjà enregistré"
        if why:
            s.recorded = why
            s.checked = False


def opening_rank(v: View, start: date, when: datetime) -> int:
    """The number a trial opened at ``when`` gets: one more than the trials opened
    before it."""
    before = 0
    for t in v["trials"]:
        try:
            opened = parse_time(str(t.get("opened", "")), start)
        except ValueError:
            before += 1
            continue
        if opened <= when:
            before += 1
    return before + 1


def shifted_actions(game: Game, rank: int) -> list[Action]:
    """Recorded actions naming a trial numbered ``rank`` or more (they follow their
    trial when an earlier one is inserted before it)."""
    out = []
    for a in Action.objects.filter(game=game, struck=False).order_by("at", "id"):
        number = _int(a.args.get("trial"))
        if number is not None and number >= rank:
            out.append(a)
    return out


# -- recording -----------------------------------------------------------------------------------
class ServiceWriter:
    """The store's service for one game, as :func:`ronde.forum.apply.record_or_refuse`
    writes (the console and ``ronde forum parse --apply``): one locked write per step;
    another writer first is the code ``conflict``."""

    def __init__(self, game: Game, user: Any = None, request: Request | None = None) -> None:
        self.game = game
        self.user = user
        self.request = request

    def record(
        self,
        action: str,
        by: str,
        args: dict[str, Any],
        at: datetime,
        *,
        confirm: str | None = None,
        note: str = "",
    ) -> service.Outcome:
        try:
            return service.record(
                self.game,
                self.user,
                action,
                by,
                args,
                at=at,
                note=note,
                request=self.request,
                confirm=confirm,
            )
        except service.Conflict:
            return service.Outcome(False, "conflict", service.Conflict.message)

    def standing(self) -> list[tuple[str, str, datetime, Mapping[str, Any]]]:
        return [(a.action, a.by, a.at, a.args) for a in service.standing_actions(self.game)]

    def trials(self) -> list[Mapping[str, Any]]:
        return list(service.view_for(self.game, "game_master", self.user)["trials"])


# -- participation and constraint helpers ------------------------------------------------------
@dataclass
class Helper:
    """A helper's suggestion for one player's constraint on one day."""

    player: str
    character: str
    day: int
    met: bool | None
    text: str
    evidence: list[str]
    judged: str = ""

    @property
    def character_fr(self) -> str:
        return french_name(self.character)


HELPED = {"alice", "seer", "prompter", "mime", *checks.AREAS}


def posts_day(posts: list[Post], start: date, fallback: int) -> int:
    """The game day most posts were written on (else ``fallback``)."""
    days = Counter(day_of(start, p.time) for p in posts if p.time is not None)
    return days.most_common(1)[0][0] if days else fallback


def helpers(
    v: View,
    posts: list[Post],
    start: date,
    day: int,
    *,
    sentence: str = "",
    registre: Mapping[str, str] | None = None,
    judged: Mapping[tuple[str, int], str] | None = None,
) -> list[Helper]:
    """Suggestions for the masked players whose Character a helper can read, among
    those who posted on the page (or whose constraint is to judge today)."""
    out: list[Helper] = []
    judged = judged or {}
    authors = {fold_pseudo(p.author) for p in posts}
    for p in v["players"]:
        character = str(p.get("character") or "")
        if not p.get("masked") or character not in HELPED:
            continue
        pseudo = str(p["pseudo"])
        if fold_pseudo(pseudo) not in authors:
            if p.get("constraint_today") and day == v.get("day"):
                out.append(
                    Helper(
                        pseudo,
                        character,
                        day,
                        None,
                        "aucun message de ce joueur sur cette page : rien à suggérer",
                        [],
                        judged.get((pseudo, day), ""),
                    )
                )
            continue
        h = _suggest(character, pseudo, posts, start, day, sentence, registre or {})
        if h is not None:
            h.judged = judged.get((pseudo, day), "")
            if any(not q.proven and fold_pseudo(q.author) == fold_pseudo(pseudo) for q in posts):
                # a post of the copy may imitate this player's (Thread.unproven)
                h.text += " — copie du navigateur : auteur des messages non prouvé"
            out.append(h)
    return out


def _suggest(
    character: str,
    pseudo: str,
    posts: list[Post],
    start: date,
    day: int,
    sentence: str,
    registre: Mapping[str, str],
) -> Helper | None:
    s: checks.Suggestion | None = None
    if character in checks.AREAS:
        s = checks.cell_posts(posts, pseudo, character=character, day=day, start=start)
    elif character == "alice":
        s = checks.questions(posts, pseudo, day=day, start=start)
    elif character == "prompter":
        if not sentence.strip():
            return Helper(pseudo, character, day, None, "donnez sa phrase du J2 ci-dessous", [])
        s = checks.prompter_sentence(posts, pseudo, sentence, day=day, start=start)
    elif character == "seer":
        # (lazy: spaCy and its French model are heavy: loaded only for the Seer's check)
        from ronde.forum.future import load_model, seer

        nlp = load_model()
        if nlp is None:
            from ronde.extras import missing

            return Helper(pseudo, character, day, None, missing("nlp"), [])
        s = seer(posts, pseudo, day=day, start=start, nlp=nlp)
    elif character == "mime":
        model_text = registre.get("model", "")
        mime_text = registre.get("mime", "")
        if not (model_text.strip() and mime_text.strip()):
            return Helper(pseudo, character, day, None, "collez les deux Registres ci-dessous", [])
        r = mime_check(
            model_text,
            mime_text,
            model=registre.get("model_name", ""),
            mime=pseudo,
            model_day_before=registre.get("before", ""),
        )
        return Helper(pseudo, character, day, r.met, r.text, [*r.matched, *r.evidence])
    if s is None:
        return None
    return Helper(pseudo, character, day, s.met, s.text, list(s.evidence))


def judged_labels(verdicts: Mapping[tuple[str, int], Action]) -> dict[tuple[str, int], str]:
    """Constraints already judged (:func:`service.constraint_verdicts`, the one reading
    of them): (player, day) -> "respectée" / "non respectée"."""
    return {
        key: "respectée" if service.verdict_met(a) else "non respectée"
        for key, a in verdicts.items()
    }


def participation_rows(
    posts: list[Post], start: date, game_masters: list[str]
) -> list[dict[str, Any]]:
    """Who took part in the Rehearsals, per day (A69), for the page."""
    part = checks.participation(posts, [], start, game_masters=game_masters)
    rows = []
    for name in sorted(set(part.forum_days), key=str.casefold):
        rows.append(
            {
                "player": name,
                "days": sorted(part.rehearsal_days.get(name, set())),
                "posted": sorted(part.forum_days.get(name, set())),
            }
        )
    return rows


# -- À poster --------------------------------------------------------------------------------
def game_templates(game: Game) -> dict[str, str]:
    """The game's own templates (the latest text of each name; "" = the default)."""
    out: dict[str, str] = {}
    for t in ForumTemplate.objects.filter(game=game).order_by("saved_at", "id"):
        out[t.name] = t.text
    return {k: v for k, v in out.items() if v.strip()}


def templates_for(game: Game, extra: Mapping[str, str] | None = None) -> Templates:
    return load_templates(overrides={**game_templates(game), **(extra or {})})


@dataclass
class ToPost:
    """A message to post on the forum or send by MP."""

    key: str
    when: str
    at: str
    public: bool
    where: str
    kind: str
    text: str
    problem: str
    recipients: list[str]
    posting: Posting | None = None
    #: the recipients' seats, and when the engine sent it (its recipients' views show that
    #: time; a message held for a verdict's announcement is posted after it): read by
    #: :mod:`.delivery`
    seats: tuple[str, ...] = ()
    sent: str = ""
    engine_text: str = ""


_TOPICS = {
    "day_summary": "Annonces du jour",
    "reminder_j13": "Annonces du jour",
    "theme": "Annonces du jour",
}


#: rendered messages per game: (game version, templates) -> messages (one entry a game)
_RENDERED: dict[int, tuple[tuple[str, tuple[tuple[str, str], ...]], list[ToPost]]] = {}


def to_post(game: Game, user: Any = None) -> list[ToPost]:
    """Every public announcement and private message of the game, rendered in forum
    markup, in time order (the order to post), each with its posting if marked."""
    eng = service.current(game, user)
    game.refresh_from_db(fields=["version"])
    overrides = game_templates(game)
    key = (game.version, tuple(sorted(overrides.items())))
    cached = _RENDERED.get(game.pk)
    if cached is not None and cached[0] == key:
        rendered = cached[1]
    else:
        rendered = _render_all(eng, load_templates(overrides=overrides))
        _RENDERED[game.pk] = (key, rendered)
    postings = {p.key: p for p in Posting.objects.filter(game=game).select_related("posted_by")}
    return [dataclasses.replace(m, posting=postings.get(m.key)) for m in rendered]


def _render_all(eng: Any, tpl: Templates) -> list[ToPost]:
    ctx = ForumContext.from_game(eng)
    out = []
    for m in forum_messages(eng):
        recipients = [ctx.pseudo(s) for s in m.get("to") or ()]
        public = bool(m.get("public"))
        if not public and not recipients:
            continue  # a note to the game masters: nothing to post
        r = render(m, tpl, ctx)
        data = m.get("data") or {}
        trial = data.get("trial") if isinstance(data, dict) else None
        if public:
            if isinstance(trial, int) and trial in ctx.trials:
                t = ctx.trials[trial]
                where = f"Sujet du Procès n°{trial} ({', '.join(t['accused'])})"
            elif isinstance(data, dict) and data.get("forum") == "FM":
                where = "Forum Monde (FM)"  # A57: the Hero's declaration
            else:
                where = _TOPICS.get(str(m.get("kind")), "Annonces")
        else:
            where = "MP à " + ", ".join(recipients)
        out.append(
            ToPost(
                key=message_key(m),
                when=ctx.when(m.get("at")),
                at=str(m.get("at", "")),
                public=public,
                where=where,
                kind=str(m.get("kind", "")),
                text=r.text,
                problem=r.problem,
                recipients=recipients,
                seats=tuple(str(s) for s in m.get("to") or ()),
                sent=str(m.get("sent_at") or m.get("at", "")),
                engine_text=str(m.get("text", "")),
            )
        )
    return out


def mark_posted(game: Game, key: str, label: str, user: Any) -> bool:
    """Mark a message posted (once; the first mark stays). False if already marked."""
    _obj, created = Posting.objects.get_or_create(
        game=game,
        key=key,
        defaults={
            "label": label[:200],
            "posted_by": user if getattr(user, "is_authenticated", False) else None,
            "posted_at": service.now(),
        },
    )
    return created
