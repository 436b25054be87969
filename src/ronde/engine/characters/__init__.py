"""The character modules: one module per Character, holding all of its rules.

A character module imports the core of the engine (:mod:`ronde.engine.character`,
``trials``, ``unmasking``, ``verdicts``, ``constraints`` …) at the top of its file and
never another character module (an import-linter contract, ``pyproject.toml``). Their
list is :mod:`ronde.engine.registry`, the one place that names them all.
"""
