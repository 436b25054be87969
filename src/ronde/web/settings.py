"""Django settings of Ronde's web app.

Environment:
    DATABASE_URL: ``postgres://user:pass@host:port/name`` selects PostgreSQL;
        without it an embedded SQLite database is used (WAL, one write
        transaction at a time).
    RONDE_SQLITE_PATH: where that SQLite file lives (default ``out/web/ronde.sqlite3``).
    RONDE_SECRET_KEY: the secret key (default: a key stored beside the SQLite file).
    RONDE_DEBUG: ``1`` for Django's debug pages.
    RONDE_ALLOWED_HOSTS: comma-separated extra host names.
    RONDE_CONN_MAX_AGE: seconds a PostgreSQL connection is kept (default 60; tests: 0).
"""

from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

WEB_DIR = Path(__file__).resolve().parent

DEBUG = os.environ.get("RONDE_DEBUG", "") == "1"

SQLITE_PATH = Path(os.environ.get("RONDE_SQLITE_PATH", "out/web/ronde.sqlite3")).resolve()


def _secret_key() -> str:
    key = os.environ.get("RONDE_SECRET_KEY")
    if key:
        return key
    path = SQLITE_PATH.parent / "secret_key"
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        pass
    key = secrets.token_urlsafe(50)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(key, encoding="utf-8")
    except OSError:
        pass  # read-only tree: a per-process key (sessions do not survive a restart)
    return key


SECRET_KEY = _secret_key()

ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]", "testserver"] + [
    h.strip() for h in os.environ.get("RONDE_ALLOWED_HOSTS", "").split(",") if h.strip()
]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "ronde.web.games",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "ronde.web.games.middleware.FrenchFirstLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "ronde.web.games.middleware.CsrfSlotMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "ronde.web.urls"
WSGI_APPLICATION = "ronde.web.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


def database_from_url(url: str) -> dict[str, Any]:
    """A ``DATABASES['default']`` entry for a ``postgres://`` URL."""
    parts = urlparse(url)
    if parts.scheme not in ("postgres", "postgresql", "pgsql"):
        raise ValueError(f"DATABASE_URL: only PostgreSQL URLs are supported, not {parts.scheme!r}")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parts.path.lstrip("/")) or "ronde",
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
        "CONN_MAX_AGE": int(os.environ.get("RONDE_CONN_MAX_AGE", "60")),
        "CONN_HEALTH_CHECKS": True,
    }


def sqlite_database(path: Path) -> dict[str, Any]:
    """The embedded SQLite database: WAL, IMMEDIATE write transactions, a long busy wait."""
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(path),
        "OPTIONS": {
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=30000;"
            ),
            "transaction_mode": "IMMEDIATE",
            "timeout": 30,
        },
        # a file (not :memory:) so that threads and the live server share the test database
        "TEST": {"NAME": str(Path(tempfile.gettempdir()) / f"ronde-test-{os.getpid()}.sqlite3")},
    }


if os.environ.get("DATABASE_URL"):
    DATABASES = {"default": database_from_url(os.environ["DATABASE_URL"])}
else:
    DATABASES = {"default": sqlite_database(SQLITE_PATH)}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "fr"
# French only: every text is marked for translation (gettext, {% translate %}), so a
# language is added later with a .po file under LOCALE_PATHS and a line here.
LANGUAGES = [("fr", "Français")]
LOCALE_PATHS = [WEB_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "Europe/Paris"
USE_TZ = True

STATIC_URL = "/static/"
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False
X_FRAME_OPTIONS = "DENY"

MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}
