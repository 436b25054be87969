"""Django settings of Ronde's web app, read from the environment.

Environment (see the README, "Héberger une partie"):
    RONDE_DATA_DIR: the data folder: the SQLite database (``ronde.sqlite3``), the secret
        key (``secret_key``, mode 0600), collected static files, backups. Default: the
        per-user data folder of platformdirs (``~/.local/share/ronde`` on Linux), never
        the current folder.
    DATABASE_URL: a database URL read by dj-database-url (``postgres://user:pass@host/name
        ?sslmode=require``; its options are kept). Without it: SQLite in the data folder
        (WAL, one write transaction at a time).
    RONDE_SQLITE_PATH: another SQLite file (``ronde serve --db``).
    RONDE_SECRET_KEY: the secret key (default: the file ``secret_key`` of the data folder,
        created on first use with mode 0600).
    RONDE_ALLOWED_HOSTS: comma-separated host names served (besides localhost).
    RONDE_CSRF_TRUSTED_ORIGINS: comma-separated origins (``https://ronde.example.org``)
        trusted for forms posted through a proxy.
    RONDE_HTTPS_PROXY: ``1`` behind an HTTPS reverse proxy that sets ``X-Forwarded-Proto``:
        requests it marks https are https (links too), cookies are secure, HSTS is sent,
        plain-http requests are redirected to https.
    RONDE_HSTS_SECONDS: HSTS duration under RONDE_HTTPS_PROXY (default one year).
    RONDE_INVITATION_DAYS: days an invitation link stays valid (default 14).
    RONDE_STATIC_ROOT: where static files are collected (default ``static`` in the data folder).
    RONDE_PROXY_ADDRESS: the proxy whose X-Forwarded-* headers waitress keeps (127.0.0.1).
    RONDE_STATIC_FINDERS: ``1`` serves static files from the package (``ronde serve --dev``,
        ``--demo``); otherwise from the collected folder (``ronde serve`` collects them).
    RONDE_DEBUG: ``1`` for Django's debug pages (never on the internet).
    RONDE_CONN_MAX_AGE: seconds a PostgreSQL connection is kept (default 60; tests: 0).

Notifications (docs/notifications.md):
    RONDE_SITE_URL: this site's address as players reach it (``https://ronde.example.org``),
        for the links of e-mails (``ronde serve``: http://HOST:PORT by default).
    RONDE_EMAIL_HOST: the SMTP server (without it, no e-mail is offered); RONDE_EMAIL_PORT
        (default 25), RONDE_EMAIL_USER, RONDE_EMAIL_PASSWORD, RONDE_EMAIL_TLS (``1``:
        STARTTLS), RONDE_EMAIL_SSL (``1``: TLS from the start, port 465 usually),
        RONDE_EMAIL_FROM (the sender, default ``Ronde <ronde@localhost>``),
        RONDE_EMAIL_TIMEOUT (seconds, default 20).
    RONDE_PUSH: ``0`` turns Web Push off. Its VAPID keys are made on first use in the data
        folder (``vapid_private.pem``, mode 0600); RONDE_VAPID_SUBJECT: the contact the push
        services see (default ``mailto:`` the sender).
    RONDE_PUSH_HOSTS: comma-separated push service hosts accepted besides the browsers'
        own (FCM, Mozilla, Microsoft, Apple); a loopback host named here may use http
        (tests).
"""

from __future__ import annotations

import os
import secrets
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url

from ronde.web.paths import data_dir, sqlite_path

WEB_DIR = Path(__file__).resolve().parent


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "oui", "on")


def _list(name: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


DEBUG = _flag("RONDE_DEBUG")


DATA_DIR = data_dir()
SQLITE_PATH = sqlite_path()


def read_or_create_secret(path: Path) -> str:
    """The key stored in ``path``, created (mode 0600, never readable by others) if absent."""
    try:
        key = path.read_text(encoding="utf-8").strip()
        if key:
            return key
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it first: use its key
        return path.read_text(encoding="utf-8").strip()
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(key)
    os.chmod(path, 0o600)  # whatever the umask
    return key


def _secret_key() -> str:
    key = os.environ.get("RONDE_SECRET_KEY", "").strip()
    if key:
        return key
    try:
        return read_or_create_secret(DATA_DIR / "secret_key")
    except OSError:
        return secrets.token_urlsafe(50)  # read-only folder: sessions end with the process


SECRET_KEY = _secret_key()

# Django's test runner adds ``testserver`` by itself: it is never allowed otherwise
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]", *_list("RONDE_ALLOWED_HOSTS")]
CSRF_TRUSTED_ORIGINS = _list("RONDE_CSRF_TRUSTED_ORIGINS")

# axes.W006 says that locking by user name alone lets an attacker rotate user agents; it
# does not here: django-axes adds up every failure of one pseudo, whatever its user agent
# or address (and a lock by address would lock everyone out behind a proxy)
SILENCED_SYSTEM_CHECKS = ["axes.W006"]

HTTPS_PROXY = _flag("RONDE_HTTPS_PROXY")
if HTTPS_PROXY:
    # the proxy terminates TLS and says so; it must overwrite any X-Forwarded-Proto it gets
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^sante/$"]  # health checks from the machine itself
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("RONDE_HSTS_SECONDS", str(365 * 24 * 3600)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    # HSTS preload lists are an opt-in of the domain's owner, not of Ronde
    SILENCED_SYSTEM_CHECKS.append("security.W021")

INVITATION_DAYS = int(os.environ.get("RONDE_INVITATION_DAYS", "14"))

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "axes",
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
    "ronde.web.games.middleware.OneTimeFormMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",
]

AUTHENTICATION_BACKENDS = [
    # throttles failed logins (django-axes), then a pseudo whatever its case and accents
    "ronde.web.games.accounts.ThrottleBackend",
    "ronde.web.games.accounts.PseudoBackend",
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


def _conn_max_age() -> int:
    return int(os.environ.get("RONDE_CONN_MAX_AGE", "60"))


def database_from_url(url: str) -> dict[str, Any]:
    """A ``DATABASES['default']`` entry for a database URL (dj-database-url: the query's
    options, such as ``sslmode=require``, are kept). SQLite URLs get Ronde's SQLite setup."""
    config: dict[str, Any] = dict(
        dj_database_url.parse(url, conn_max_age=_conn_max_age(), conn_health_checks=True)
    )
    if config["ENGINE"] == "django.db.backends.sqlite3":
        return sqlite_database(Path(config["NAME"]).expanduser().resolve())
    if config["ENGINE"] != "django.db.backends.postgresql":
        raise ValueError(f"DATABASE_URL : seuls PostgreSQL et SQLite sont pris en charge ({url!r})")
    return config


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

# django-axes: 10 failures for one pseudo (whatever its case or accents) in 15 minutes
AXES_FAILURE_LIMIT = 10
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = ["username"]
AXES_USERNAME_CALLABLE = "ronde.web.games.accounts.throttle_key"
AXES_LOCKOUT_CALLABLE = "ronde.web.games.accounts.locked_out"
AXES_RESET_ON_SUCCESS = True
# failures while locked out do not push the time to retry further (it is shown)
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_ENABLE_ADMIN = False
AXES_DISABLE_ACCESS_LOG = True  # failures are counted; successful logins are not logged
AXES_VERBOSE = False

LANGUAGE_CODE = "fr"
# French only: every text is marked for translation (gettext, {% translate %}), so a
# language is added later with a .po file under LOCALE_PATHS and a line here.
LANGUAGES = [("fr", "Français")]
LOCALE_PATHS = [WEB_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "Europe/Paris"
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = Path(os.environ.get("RONDE_STATIC_ROOT", str(DATA_DIR / "static"))).resolve()
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# production serves the collected files (``ronde serve`` runs collectstatic first)
WHITENOISE_USE_FINDERS = DEBUG or _flag("RONDE_STATIC_FINDERS")
WHITENOISE_AUTOREFRESH = DEBUG

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

SESSION_COOKIE_HTTPONLY = True
# a session is read from the database once, then from this process's memory for a
# minute at most (``ronde.web.sessioncache``); every write goes to the database
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
SESSION_CACHE_ALIAS = "sessions"
CACHES = {
    # template fragments and other per-process caches (keys carry the game's version)
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "ronde-default",
    },
    "sessions": {
        "BACKEND": "ronde.web.sessioncache.ShortLocMemCache",
        "LOCATION": "ronde-sessions",
        "OPTIONS": {"MAX_ENTRIES": 5000, "MAX_AGE": 60},
    },
}
CSRF_COOKIE_HTTPONLY = False
X_FRAME_OPTIONS = "DENY"

MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    # django-axes logs every failed login as a warning
    "loggers": {"axes": {"level": "ERROR"}},
}

# -- notifications (ronde.web.games.notify) -------------------------------------------------
SITE_URL = os.environ.get("RONDE_SITE_URL", "").strip().rstrip("/")
EMAIL_HOST = os.environ.get("RONDE_EMAIL_HOST", "").strip()
EMAIL_ENABLED = bool(EMAIL_HOST)
EMAIL_PORT = int(os.environ.get("RONDE_EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("RONDE_EMAIL_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("RONDE_EMAIL_PASSWORD", "")
EMAIL_USE_TLS = _flag("RONDE_EMAIL_TLS")
EMAIL_USE_SSL = _flag("RONDE_EMAIL_SSL")
EMAIL_TIMEOUT = int(os.environ.get("RONDE_EMAIL_TIMEOUT", "20"))
DEFAULT_FROM_EMAIL = os.environ.get("RONDE_EMAIL_FROM", "Ronde <ronde@localhost>")
EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
PUSH_ENABLED = os.environ.get("RONDE_PUSH", "1").strip().lower() not in ("0", "false", "no", "non")
VAPID_SUBJECT = os.environ.get("RONDE_VAPID_SUBJECT", "").strip()
PUSH_HOSTS = _list("RONDE_PUSH_HOSTS")
