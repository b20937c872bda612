"""The leaderboard's files read: the benchmark files' bounded reader and the standings.

:mod:`.standings` reads the benchmark files that make ``docs/leaderboard.md`` (installed
as ``sixtysix_env.leaderboard``) and nothing else: which agent is strongest, the
standings tables, the bounded reader (:func:`~.standings.read_json`,
:class:`~.standings.BenchmarkFileError`) and the Markdown cells every reader of those files
shares. Its users sit above it (``agents.listing``, ``play.session``, every module of
``benchmark/``); below it are only the helpers of ``util/`` and, for when a network was
shipped, ``policy.shipped``. Only the standard library: the files are JSON.
(Until this room it was ``policy/standings.py``, an alias of it now.)
"""
