"""Django settings of Ronde's web app, read from the environment.

Environment (docs/hosting.md):
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
    RONDE_SECRET_KEY_FILE: a file holding the secret key (a systemd credential, a mounted
        secret); RONDE_SECRET_KEY wins over it. Several servers share one key.
    RONDE_CACHE_URL: a cache shared by several servers (Django's cache framework):
        ``redis://host:6379/0``, ``memcached://host:11211``, ``db://ronde_cache`` (a table
        made by ``ronde manage migrate``), ``file:///var/cache/ronde`` or ``locmem://``.
        Without it each process keeps its own cache in memory (one server).
    RONDE_LOG_LEVEL: DEBUG, INFO (default: one access-log line per request), WARNING,
        ERROR. Logs go to the standard error (journald under systemd).

Every value is checked when the settings are read: a wrong one stops the start with a
French message naming the variable (:mod:`ronde.web.env`).

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

import contextlib
import importlib.util
import os
import secrets
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url

from ronde.web import env
from ronde.web.paths import data_dir, private_folder, sqlite_path

WEB_DIR = Path(__file__).resolve().parent


_flag = env.flag
_list = env.items


DEBUG = _flag("RONDE_DEBUG")


DATA_DIR = data_dir()
SQLITE_PATH = sqlite_path()
with contextlib.suppress(OSError):  # (read-only or foreign: the commands say so when they write)
    private_folder(DATA_DIR)


def read_or_create_secret(path: Path) -> str:
    """The key stored in ``path``, created (mode 0600, never readable by others) if absent."""
    try:
        key = path.read_text(encoding="utf-8").strip()
        if key:
            return key
    except FileNotFoundError:
        pass
    private_folder(path.parent)
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
    key = env.raw("RONDE_SECRET_KEY")
    if key:
        return key
    key_file = env.raw("RONDE_SECRET_KEY_FILE")
    if key_file:
        try:
            key = Path(key_file).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise env.ConfigError(
                f"RONDE_SECRET_KEY_FILE : {key_file} est illisible ({exc.strerror})."
            ) from None
        if not key:
            raise env.ConfigError(f"RONDE_SECRET_KEY_FILE : {key_file} est vide.")
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
    SECURE_HSTS_SECONDS = env.integer("RONDE_HSTS_SECONDS", 365 * 24 * 3600, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    # HSTS preload lists are an opt-in of the domain's owner, not of Ronde
    SILENCED_SYSTEM_CHECKS.append("security.W021")

INVITATION_DAYS = env.integer("RONDE_INVITATION_DAYS", 14, minimum=1)

# -- Sign in with Eternaltwin (issue 30, docs/eternaltwin.md) ------------------------------
# RONDE_ETERNALTWIN_URL: the Eternaltwin server's origin (``https://eternaltwin.org``);
# RONDE_ETERNALTWIN_CLIENT_ID: Ronde's client key there (``ronde@clients``);
# RONDE_ETERNALTWIN_CLIENT_SECRET: its secret. The callback to register is
# ``<site>/oauth/callback/``. Unless all three are set, the button is not shown.
# RONDE_ETERNALTWIN_TIMEOUT: seconds to wait for each answer of Eternaltwin (default 10).
ETERNALTWIN_URL = env.text("RONDE_ETERNALTWIN_URL").rstrip("/")
ETERNALTWIN_CLIENT_ID = env.text("RONDE_ETERNALTWIN_CLIENT_ID")
ETERNALTWIN_CLIENT_SECRET = env.text("RONDE_ETERNALTWIN_CLIENT_SECRET")
ETERNALTWIN_TIMEOUT = env.number("RONDE_ETERNALTWIN_TIMEOUT", 10.0)
# -- end of Eternaltwin ---------------------------------------------------------------------

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
    # one access-log line per request (static files apart); control characters out of
    # every form and query before any view reads them
    "ronde.web.middleware.AccessLogMiddleware",
    "ronde.web.middleware.CleanInputMiddleware",
    "csp.middleware.CSPMiddleware",
    "ronde.web.games.middleware.EternaltwinFormActionMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "ronde.web.games.middleware.FrenchFirstLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "ronde.web.games.middleware.CsrfSlotMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "ronde.web.games.middleware.OneTimeFormMiddleware",
    "ronde.web.games.middleware.BusyMiddleware",
    "ronde.web.games.middleware.MethodNotAllowedMiddleware",
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
    return env.integer("RONDE_CONN_MAX_AGE", 60, minimum=0)


def database_from_url(url: str) -> dict[str, Any]:
    """A ``DATABASES['default']`` entry for a database URL (dj-database-url: the query's
    options, such as ``sslmode=require``, are kept). SQLite URLs get Ronde's SQLite setup."""
    config: dict[str, Any] = dict(
        dj_database_url.parse(url, conn_max_age=_conn_max_age(), conn_health_checks=True)
    )
    if config["ENGINE"] == "django.db.backends.sqlite3":
        return sqlite_database(Path(config["NAME"]).expanduser().resolve())
    if config["ENGINE"] != "django.db.backends.postgresql":
        scheme = url.split(":", 1)[0]
        raise env.ConfigError(
            f"DATABASE_URL : seuls PostgreSQL (postgres://…) et SQLite (sqlite:///…) sont pris "
            f"en charge, pas « {scheme} »."
        )
    try:
        # (lazy: only a PostgreSQL database needs its driver, an optional extra)
        import psycopg  # noqa: F401
    except ImportError:
        from ronde.extras import missing

        raise env.ConfigError(missing("postgres")) from None
    return config


def sqlite_database(path: Path) -> dict[str, Any]:
    """The embedded SQLite database: WAL, IMMEDIATE write transactions, a long busy wait."""
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(path),
        "OPTIONS": {
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=70000;"
            ),
            "transaction_mode": "IMMEDIATE",
            # a writer waits for the lock up to ronde.web.games.busy.WAIT_SECONDS (then a
            # French "busy, retry" answer, never an error page)
            "timeout": 70,
        },
        # a file (not :memory:) so that threads and the live server share the test database
        "TEST": {"NAME": str(Path(tempfile.gettempdir()) / f"ronde-test-{os.getpid()}.sqlite3")},
    }


if env.raw("DATABASE_URL"):
    DATABASES = {"default": database_from_url(env.raw("DATABASE_URL"))}
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
STATIC_ROOT = Path(env.text("RONDE_STATIC_ROOT", str(DATA_DIR / "static"))).resolve()
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
CACHE_URL = env.url("RONDE_CACHE_URL", ("redis", "rediss", "memcached", "db", "file", "locmem"))


def cache_from_url(url: str) -> dict[str, Any]:
    """A ``CACHES`` entry for ``RONDE_CACHE_URL`` (Django's own backends)."""
    scheme, _, rest = url.partition("://")
    scheme = scheme.lower()
    if scheme in ("redis", "rediss"):
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    if scheme == "memcached":
        return {
            "BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache",
            "LOCATION": rest.rstrip("/"),
        }
    if scheme == "db":
        return {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": rest.strip("/") or "ronde_cache",
        }
    if scheme == "file":
        return {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": rest}
    return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": rest or "ronde"}


def _cache_client(url: str) -> None:
    """The optional client a cache URL needs (a French refusal naming the extra)."""
    scheme = url.split("://", 1)[0].lower()
    module, extra = {"redis": ("redis", "redis"), "rediss": ("redis", "redis")}.get(
        scheme, ("pymemcache", "memcached") if scheme == "memcached" else ("", "")
    )
    if not module:
        return
    try:
        __import__(module)
    except ImportError:
        from ronde.extras import missing

        raise env.ConfigError(f"RONDE_CACHE_URL : {missing(extra)}") from None


if CACHE_URL:
    _cache_client(CACHE_URL)
    # several servers: one cache for all, sessions included (a logout is seen by all)
    CACHES = {"default": cache_from_url(CACHE_URL)}
    SESSION_CACHE_ALIAS = "default"
else:
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

# Content-Security-Policy (django-csp): scripts, styles, images and requests from this site
# only; no inline script, style or event handler (they live in static/ronde/), no eval
# (htmx's allowEval is off, base.html), no frame, no plugin, forms posted here only.
_SELF = "'self'"
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [_SELF],
        "script-src": [_SELF],
        "style-src": [_SELF],
        # the empty favicon of base.html is a data: URL
        "img-src": [_SELF, "data:"],
        "font-src": [_SELF],
        "connect-src": [_SELF],
        "manifest-src": [_SELF],
        "worker-src": [_SELF],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": [_SELF],
        "frame-ancestors": ["'none'"],
    }
}

MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"

LOG_LEVEL = env.choice("RONDE_LOG_LEVEL", "INFO", env.LEVELS)

# Logs go to the standard error (journald under systemd: `journalctl -u ronde`), one line
# each: the time, the level, the logger, the message. `ronde.access` is the access log
# (one INFO line per request: method, path, status, duration, user; never a query string
# or a form); RONDE_LOG_LEVEL=WARNING silences it.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "line": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "line"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # django-axes logs every failed login as a warning
        "axes": {"level": "ERROR"},
        # waitress warns "Task queue depth is N" whenever a request waits for a thread:
        # under a burst of players that is every request, and not a fault (they wait
        # milliseconds); shown only with RONDE_LOG_LEVEL=DEBUG
        "waitress.queue": {"level": "DEBUG" if LOG_LEVEL == "DEBUG" else "ERROR"},
        # Django's own request log repeats the access log's errors with a traceback
        "django.request": {"level": "ERROR"},
        "django.server": {"level": "WARNING" if LOG_LEVEL != "DEBUG" else "INFO"},
    },
}

# -- notifications (ronde.web.games.notify) -------------------------------------------------
SITE_URL = os.environ.get("RONDE_SITE_URL", "").strip().rstrip("/")
EMAIL_HOST = os.environ.get("RONDE_EMAIL_HOST", "").strip()
EMAIL_ENABLED = bool(EMAIL_HOST)
EMAIL_PORT = env.integer("RONDE_EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = os.environ.get("RONDE_EMAIL_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("RONDE_EMAIL_PASSWORD", "")
EMAIL_USE_TLS = _flag("RONDE_EMAIL_TLS")
EMAIL_USE_SSL = _flag("RONDE_EMAIL_SSL")
EMAIL_TIMEOUT = env.integer("RONDE_EMAIL_TIMEOUT", 20, minimum=1)
DEFAULT_FROM_EMAIL = os.environ.get("RONDE_EMAIL_FROM", "Ronde <ronde@localhost>")
EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
# Web Push needs the optional part `push` (pywebpush): without it, push is not offered
PUSH_ENABLED = _flag("RONDE_PUSH", True) and importlib.util.find_spec("pywebpush") is not None
VAPID_SUBJECT = os.environ.get("RONDE_VAPID_SUBJECT", "").strip()
PUSH_HOSTS = _list("RONDE_PUSH_HOSTS")
