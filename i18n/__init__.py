"""The players' languages: message catalogs (gettext .po files, made with Babel) for both clients.

``i18n/locale/<lang>/LC_MESSAGES/<domain>.po`` holds one catalog per language and domain:
``terminal`` (the terminal client), ``web`` (the browser client, turned into JSON at build time by
scripts/build-web) and ``rules`` (the rules help per preset, which both clients show). English is
the source language. This package imports nothing of the project's: the clients import it.
"""
