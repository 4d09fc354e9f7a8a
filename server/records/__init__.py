"""The records, off the move path: the database, its schema and migrations, the archiver and the
archive, and the read API."""
