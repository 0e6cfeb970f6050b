"""CaLM (Chen et al. 2024, the causal suite inside OpenCompass): the formal objects,
solvers and checkers of its tasks.  The numeric effect tasks live in ``effects_model``
(the question as a formal object), ``effects`` (ATE, CDE, ETT, NDE, NIE by adjustment and
the mediation formulas, in exact rationals and over the box of printed values),
``tian_pearl`` (the Tian–Pearl bounds CaLM's PN/PS ask for) and ``check_effects`` (the
independent checker, which imports nothing of the solver but ``effects_model``)."""
