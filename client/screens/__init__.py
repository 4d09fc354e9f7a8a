"""The Textual screens, each beside its stylesheet: the game screen and its help and results, the
race screen (which asks its room only what ``room_actions.RoomActions`` lists, never the race
controller), the lobby, arenas, my account, friends, statistics, the records' pages and the review;
``localized`` their translated footers. They use records/, widgets/, board/, net/, data/ and text/,
never race/ or apps/."""
