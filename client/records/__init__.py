"""The server's records as the client reads them: the read API over HTTP (``records_api``), a
racer's steps through a race (``replay``), the cards-home graph (``progress_graph``), the race's
analysis in words (``race_analysis``) and its signed record checked here (``verification``).
No screens: the review and the records' screens (client/screens/) draw them."""
