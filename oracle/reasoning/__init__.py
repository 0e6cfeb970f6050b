"""Checking the reasoning of a reply, not only its final answer (``model``: the claims,
the facts of an item and the verdicts; ``graph_checks``: the structural claims against
the item's graph or class; ``verdicts``: every claim of a reply, and their contradictions)."""
