"""Moved to :mod:`sixtysix_env.ranking.standings` (0.2.0); this path is an alias that warns once."""

from sixtysix_env.util.moved import alias

alias("sixtysix_env.standings", __name__)
