"""One room, from joining to the results: the room as the frames describe it (``room_model``), a
spectator's copy of every racer's board (``spectating``), what the room's screen says
(``room_text``), and ``controller.RaceController``, which joins them to the connection's events and
drives the race screen, the results and the review, with its parts ``after_race`` (race again, a
ghost challenge, the review) and ``watching`` (a spectator's boards); it asks its App only what
``host.RaceHost`` lists. Only apps/ imports it."""
