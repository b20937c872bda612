"""Research scripts: experiments whose figures are in research/notes/strength.md, kept runnable.

Not part of the installed package (``pip install sixtysix`` leaves them out); run them
from a clone's root, e.g. ``python -m research.distill_soft --help``. They use the
installed ``sixtysix_env`` and ``sixtysix_training``.
"""
