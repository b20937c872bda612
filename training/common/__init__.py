"""What both backends share, knowing neither: the run's lifecycle (:mod:`.lifecycle`:
opening a run, new or resumed, the evaluations, snapshots and saves, closing it), run
folders and saves under held signals (:mod:`.runs`), the opponent pool (:mod:`.pool`),
the evaluation's figures and charts (:mod:`.figures`), the torch actor as numpy
(:mod:`.numpy_policy`), suit renaming and hidden-card features (:mod:`.learning`), the
suit-equivariant layers (:mod:`.equivariant`), behaviour cloning through its own small
interface (:mod:`.bc`), learning curves (:mod:`.plot_curve`) and match equity
(:mod:`.match_equity`). Nothing here imports SB3 or Ray.
"""
