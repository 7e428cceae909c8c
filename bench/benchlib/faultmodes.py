"""The fault matrix over the other ways a run goes (faults.MODES): board to board
(--peer-chip under --sim), an ESP-Hosted pair (--coprocessor under --sim), a link
sweep (--sweep) and boards together (--lab --aggregate): each fault at each phase
of each, with the invariants of faults.py. bash bench/run.sh --only faults_modes."""
from . import faults
from .common import not_measured

SECTION = "faults_modes"


def figure_ids():
    return [SECTION + fid[len("faults"):] for fid in faults.figure_ids()]


def placeholder(fid, reason):
    return not_measured(fid, SECTION, fid, "count", None, reason)


def measure(ctx):
    return faults.measure(ctx, SECTION, modes=True)
