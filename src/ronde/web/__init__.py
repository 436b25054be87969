"""The web console, player portal and public board of Ronde (Django).

``ronde.web.settings`` is the Django project; ``ronde.web.games`` is the app.
Every page is built from :func:`ronde.engine.views.view` for its viewer (game
master, one player, or the public), never from the game state.
"""
