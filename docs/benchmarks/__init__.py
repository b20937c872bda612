"""The leaderboard's benchmark files, one folder per protocol, installed as the package data
``sixtysix_env.leaderboard`` (read by :mod:`sixtysix_env.ranking.standings`). Not code."""
