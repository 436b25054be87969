"""Ronde's optional parts (extras of the package) and the French message that says how to
install one that is missing."""

from __future__ import annotations

#: extra -> (what it brings, in French)
EXTRAS = {
    "postgres": "le pilote PostgreSQL (psycopg)",
    "nlp": "le modèle de français de spaCy (aide à la contrainte de la Voyante)",
    "plot": "les graphiques de ronde simulate --plot (matplotlib)",
    "push": "l'envoi de notifications Web Push (pywebpush)",
    "redis": "le client Redis (RONDE_CACHE_URL=redis://…)",
    "memcached": "le client Memcached (RONDE_CACHE_URL=memcached://…)",
}


def install_command(extra: str) -> str:
    return f"pip install 'ronde[{extra}]'"


def missing(extra: str) -> str:
    """« X n'est pas installé : pip install 'ronde[extra]' ... »."""
    return (
        f"{EXTRAS[extra]} n'est pas installé : installez la partie optionnelle « {extra} » "
        f"dans l'environnement de Ronde ({install_command(extra)} ; docs/hosting.md)."
    )
