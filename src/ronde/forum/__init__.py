"""The forum bridge: Ronde's two hands on a MyHordes town forum, which has no API.

MyHordes forbids scripts that poll or post to its forum, so the bridge works by
hand both ways and makes that hand work quick and safe:

- **Writing** (:mod:`ronde.forum.render`): every announcement and private message
  of the engine in the forum's markup, from templates a game master can edit;
  ``render_message(message, templates, context) -> str``.
- **Reading** (:mod:`ronde.forum.thread`, :mod:`ronde.forum.proposals`): the text
  a browser copy of a thread page gives, or its saved HTML, becomes posts, then
  proposed actions in the scenario vocabulary for a game master to confirm;
  ``parse_thread(text_or_html, game_view) -> ParseResult``.
- **Constraint helpers** (:mod:`ronde.forum.checks`, :mod:`ronde.forum.future`,
  :mod:`ronde.forum.registre`): evidence for the constraints a game master rules on.

Nothing here reads or writes the network.
"""
