"""The client's words in the player's language: the engine's words, places, statuses and deal codes
(``words``), and ratings as players read them (``rating_text``). No Textual, no network."""
