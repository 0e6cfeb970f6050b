"""CLadder (rungs 1–3 on small binary causal models): the formal objects (``model``),
identification of each query from the graph and the stated quantities (``identify``,
with the graph criteria in ``criteria`` and the stated numbers as polynomials in
``stated``), exact bounds over the box of printed values (``bounds``), the benchmark's
yes/no rule (``decide``), the solver (``solve``), explanations (``explain``) and the
causes of a gold disagreement (``causes``).  The independent checker is ``check``, which
imports nothing here but ``model``."""
