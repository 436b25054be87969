"""The Django app of Ronde: games, their event log, accounts and pages."""
