"""Standard-library helpers every layer may use: argument checks
(:mod:`.checks`), the exceptions (:mod:`.errors`), bounded file reading and
atomic writing (:mod:`.files`), progress bars (:mod:`.progress`), the
machine's description (:mod:`.machine`) and
the package version (:mod:`.version`). They import nothing of the package.
"""
