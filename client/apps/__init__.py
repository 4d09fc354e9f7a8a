"""The Textual applications the ``seahaven-client`` command runs (client/__main__.py): ``app``
the networked client (``RaceApp``: the connection, the lobby, a room's controller), ``solo``
practice alone, ``demo`` the race screen without a server; and ``screenshots``, docs/'s SVGs
(``python -m client.apps.screenshots docs``). Nothing in client/ imports them but the command."""
