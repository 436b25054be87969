"""Game days and deadlines in Europe/Paris time (R0.5, R3.1–R3.6).

Day J*n* runs from 00:00 of the *n*-th calendar day counted from the start date
(J1 = the start date) to 00:00 of the next calendar day, Europe/Paris. Durations
such as "24 hours" are elapsed times, so a trial opened the day before a
daylight-saving change ends at another local clock time (R3.6).

Instants are kept timezone-aware in UTC inside the engine, so that comparisons
and durations are exact even in the repeated autumn hour (Python compares two
datetimes of the same zone by wall clock); every day boundary is computed, and
every time shown, in Europe/Paris.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

PARIS = ZoneInfo("Europe/Paris")
LAST_DAY = 13
TRIAL_WINDOW = timedelta(hours=24)

#: the years a game's J1 may fall in: a typo in a year must never make a game whose
#: dates cannot be converted (year 1, year 9999), nor one a century away
FIRST_YEAR = 2000
LAST_YEAR = 2100


def start_problem(start: date) -> str | None:
    """Why ``start`` cannot be a game's J1 (French), or ``None``."""
    if FIRST_YEAR <= start.year <= LAST_YEAR:
        return None
    return f"date du J1 hors limites : {start.isoformat()} (entre {FIRST_YEAR} et {LAST_YEAR})."


def check_instant(t: datetime) -> datetime:
    """``t`` if a game may hold it (its year between the first J1 year's eve and the
    year after the last one).

    Raises:
        ValueError: an instant out of those bounds (French message).
    """
    if not FIRST_YEAR - 1 <= t.year <= LAST_YEAR + 1:
        raise ValueError(
            f"date hors limites : {t.date().isoformat()} (les parties se jouent entre "
            f"{FIRST_YEAR} et {LAST_YEAR})."
        )
    return t


_DAY_TIME = re.compile(r"^\s*J\s*(\d{1,2})(?:\s+(\d{1,2})[:hH](\d{2}))?\s*$", re.IGNORECASE)


#: W1 and W2 of the "twice in the game" duties: J2–J7 and J8–J13 (R3.8)
DUTY_WINDOWS: tuple[tuple[int, int], ...] = ((2, 7), (8, 13))


#: W1 and W2 numbered 1 and 2
DUTY_WINDOW_DAYS: dict[int, tuple[int, int]] = dict(enumerate(DUTY_WINDOWS, 1))


def duty_window(day: int) -> int | None:
    """1 for W1, 2 for W2, ``None`` outside both (R3.8)."""
    index = period_index(day, DUTY_WINDOWS)
    return None if index is None else index + 1


def period_index(day: int, periods: tuple[tuple[int, int], ...]) -> int | None:
    """The index of the period (first, last day, inclusive) that holds ``day``, or ``None``."""
    for i, (first, last) in enumerate(periods):
        if first <= day <= last:
            return i
    return None


def elapsed(t: datetime, delta: timedelta) -> datetime:
    """``t`` plus an elapsed duration (R3.6), correct across daylight-saving changes.

    Python adds a timedelta to an aware datetime in wall-clock time; going through
    UTC makes it elapsed time.
    """
    return t.astimezone(UTC) + delta


def day_start(start: date, n: int) -> datetime:
    """Return the instant J*n* 00:00 Europe/Paris (``n`` may be 14: the end of J13)."""
    d = start + timedelta(days=n - 1)
    return datetime.combine(d, time(0, 0), tzinfo=PARIS).astimezone(UTC)


def day_of(start: date, t: datetime) -> int:
    """Return the game day number of instant ``t`` (0 or less before J1, 14+ after J13)."""
    local = t.astimezone(PARIS).date()
    return (local - start).days + 1


def grace(options: Mapping[str, str]) -> timedelta:
    """The grace after midnight of house rule A9: N minutes under ``grace_N``, else 0."""
    value = options.get("A9", "midnight")
    if value.startswith("grace_"):
        return timedelta(minutes=int(value.split("_")[1]))
    return timedelta(0)


def counting_start(start: date, n: int, options: Mapping[str, str]) -> datetime:
    """When day J*n* starts counting (R3.1, A9): J*n* 00:00, plus the grace of
    ``grace_N`` from J2 on (there is no J0 to give J1's first minutes to).

    ``counting_start(n + 1)`` is thus the end of J*n*: every check that a rule places
    at the end of J*n* runs then (``n + 1 = 14`` is the end of J13)."""
    if n <= 1:
        return day_start(start, n)
    return elapsed(day_start(start, n), grace(options))


def counting_day(start: date, t: datetime, options: Mapping[str, str]) -> int:
    """The game day instant ``t`` counts for (R3.1, R3.2, A9): its calendar day, except
    that under ``grace_N`` the first N minutes after midnight count for the day before.

    The one notion of "today" of the rules: quotas, every daily power and duty, every
    window and every end-of-day check use it, so that ``counting_start(n) <= t <
    counting_start(n + 1)`` exactly when ``counting_day(t) == n``."""
    n = day_of(start, t)
    if n >= 2 and t < counting_start(start, n, options):
        return n - 1
    return n


def local_instant(wall: datetime) -> datetime:
    """The instant (UTC) of a Europe/Paris wall-clock time (a naive ``wall``): a time that
    occurs twice (when clocks go back) is its first occurrence; one that does not exist
    (the hour skipped when clocks go forward) is an error.

    Raises:
        ValueError: the local time does not exist (French message).
    """
    local = wall.replace(tzinfo=PARIS, fold=0)
    instant = local.astimezone(UTC)
    if instant.astimezone(PARIS).replace(tzinfo=None) != wall.replace(tzinfo=None, fold=0):
        raise ValueError(
            f"heure inexistante à Paris : {wall:%d/%m/%Y %H:%M} (les horloges avancent "
            "d'une heure cette nuit-là)"
        )
    return instant


def at_clock(start: date, n: int, hour: int, minute: int) -> datetime:
    """Return J*n* at ``hour:minute`` local time; 24:00 is the next day's 00:00. A time
    repeated when clocks go back is its first occurrence (:func:`local_instant`).

    Raises:
        ValueError: a local time that does not exist (clocks going forward).
    """
    if hour == 24 and minute == 0:
        return day_start(start, n + 1)
    d = start + timedelta(days=n - 1)
    return local_instant(datetime.combine(d, time(hour, minute)))


def cutoff_1313(start: date) -> datetime:
    """The day-13 cut-off, J13 13:13:00 (R3.3)."""
    return at_clock(start, LAST_DAY, 13, 13)


def parse_time(text: str, start: date) -> datetime:
    """Parse ``"J3 10:00"`` (or ``"J3"``, meaning 00:00) or an ISO 8601 timestamp.

    Naive ISO timestamps are read as Europe/Paris local time. A local time that occurs
    twice (when clocks go back) is its first occurrence; one that does not exist (when
    clocks go forward) is refused.

    Raises:
        ValueError: the text is neither form, or names a local time that does not
            exist (the message is in French).
    """
    m = _DAY_TIME.match(text)
    if m:
        n = int(m.group(1))
        hour = int(m.group(2)) if m.group(2) else 0
        minute = int(m.group(3)) if m.group(3) else 0
        if not (1 <= n <= LAST_DAY + 1) or hour > 24 or minute > 59 or (hour == 24 and minute):
            raise ValueError(f"heure invalide : {text!r}")
        return at_clock(start, n, hour, minute)
    try:
        t = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"heure illisible : {text!r} (attendu « J3 10:00 » ou un horodatage ISO 8601)"
        ) from None
    check_instant(t)  # (before any conversion: year 1 and year 9999 overflow)
    if t.tzinfo is None:
        return local_instant(t)
    return t.astimezone(UTC)


def format_time(start: date, t: datetime) -> str:
    """Render ``t`` as ``J3 10:00`` (Europe/Paris), falling back to ISO outside the game."""
    n = day_of(start, t)
    local = t.astimezone(PARIS)
    if 1 <= n <= LAST_DAY + 1:
        return f"J{n} {local:%H:%M}"
    return local.isoformat()
