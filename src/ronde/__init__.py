"""Ronde: software that runs *La Ronde des Pantins*, a 13-day hidden-role forum game.

The rules live in :mod:`ronde.engine` (pure, deterministic); everything else
(command line, scenario runner, simulator, event store) calls it through
commands and reads it through views.
"""

__version__ = "0.2.0"
