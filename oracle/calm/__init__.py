"""CaLM (Chen et al. 2024): the formal objects, solvers and checkers of its tasks."""
