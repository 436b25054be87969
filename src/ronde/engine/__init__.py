"""The rules engine: pure, no I/O, no clock reads, no global randomness.

Commands go in through :class:`ronde.engine.game.Game`, events come out, everything
else reads the state through :mod:`ronde.engine.views`. Its layers (and the contracts
that keep them) are written once in ``pyproject.toml`` (``[tool.importlinter]``) and
explained in ``ARCHITECTURE.md``.
"""
