"""``python -m engine`` is the ``tooldeck`` command."""

import sys

from engine.cli import main

sys.exit(main())
