"""``python -m tooldeck`` is the ``tooldeck`` command.

``python -m`` puts the current directory first on ``sys.path``; it is taken
off again before the command runs, and the CLI makes the directory importable
after every installed package instead (:mod:`tooldeck._importpath`).
"""

import os
import sys

_cwd = os.getcwd()
sys.path[:] = [entry for entry in sys.path if entry not in ("", ".", _cwd)]

from .cli import main  # noqa: E402 - only after the path is safe

sys.exit(main())
