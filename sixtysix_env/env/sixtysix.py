"""Moved to :mod:`sixtysix_env.env.sixtysix_v0` (0.2.0); this path is an alias that warns once."""

from sixtysix_env.util.moved import alias

alias("sixtysix_env.env.sixtysix", __name__)
