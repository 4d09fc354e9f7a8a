"""``python -m seahaven``: the same as the ``seahaven`` command."""

from .cli import main

raise SystemExit(main())
