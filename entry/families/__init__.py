"""The built-in benchmark families, registered in detection order.

Corr2Cause++ comes before Corr2Cause (its texts are Corr2Cause items in a dialect of
their own); CLadder before Corr2Cause, which claims any row with an ``input`` field
(CLadder claims only texts that open with its background sentence); IE before CI-Bench
is immaterial (their markers differ).  CaLM comes first: it claims only texts holding
its own templates' openings and rows that name a CaLM task (or carry its own record
fields), and its CLadder-derived rows must reach it before CLadder claims them.  A new
family adds its module and one entry to ``BUILT_IN``.
"""

from causal_oracle.entry.families import calm, cladder, clear, corr2cause, corr2causepp, tasks
from causal_oracle.entry.registry import REGISTRY

BUILT_IN = (
    calm.FAMILY,
    corr2causepp.FAMILY,
    cladder.FAMILY,
    corr2cause.FAMILY,
    clear.FAMILY,
    tasks.InterventionEffect(),
    tasks.CIBench(),
)

for _family in BUILT_IN:
    if _family.name not in REGISTRY:
        REGISTRY.register(_family)

__all__ = ["BUILT_IN"]
