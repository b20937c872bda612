"""The rules tower: the game itself, standard library only.

From the bottom up: :mod:`.cards` (the deck), :mod:`.rules` (the presets and
the scoring) and :mod:`.actions` (move ids), :mod:`.wording` (every sentence
the game speaks), :mod:`.events` (what happened in a hand), :mod:`.render`
(text pictures), :mod:`.engine` (a hand being played), :mod:`.view` (what one
seat may know of it) and :mod:`.match` (hands to 7 game points). Nothing here
imports numpy, Gymnasium or anything above this folder; the package's public
names are re-exported by :mod:`sixtysix_env`.
"""
