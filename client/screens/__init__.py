"""The Textual screens, each beside its stylesheet: the game screen and its help and results, the
race screen (which asks its room only what ``room_actions.RoomActions`` lists, never the race
controller), the lobby, arenas, my account, friends, statistics, the records' pages and the review;
``localized`` their translated footers. They use records/, widgets/, board/, net/, data/ and text/,
never race/ or apps/."""

from pathlib import Path, PurePath
from typing import Final

STYLESHEETS: Final[list[str | PurePath]] = sorted(Path(__file__).parent.glob("*.tcss"))
"""Every screen's stylesheet, for an app to read once as it starts: Textual reparses the whole
stylesheet (its own widgets' too, about 0.1 s) the first time a screen whose ``CSS_PATH`` is not
read yet is shown. Each rule names its screen or an id only that screen has, so reading them all
at once changes no style."""
