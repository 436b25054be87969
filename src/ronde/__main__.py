"""``python -m ronde``: the ``ronde`` command line."""

from ronde.cli import main

if __name__ == "__main__":
    main()
