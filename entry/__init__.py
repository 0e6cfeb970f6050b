"""The entry layer: the one way from text to certified answers.

``text → parser → formal objects → entry → solvers → certificate → checker``; the
CLI, the library API, the gRPC server, ``audit``, ``eval`` and the harness plug-ins
call this package and nothing below it.  ``Service`` owns the limits, the time budget
and every cache; ``REGISTRY`` holds the benchmark families (``entry.families``
registers the built-in ones; ``register`` adds another).
"""

from causal_oracle.entry.families.corr2cause_bulk import FastVerdict
from causal_oracle.entry.families.corr2cause_result import VerifyResult
from causal_oracle.entry.gold import binary_gold, join_input, split_input
from causal_oracle.entry.limits import DEFAULT_BUDGET_S, DEFAULT_CACHE_ITEMS, Limits
from causal_oracle.entry.registry import (
    REGISTRY,
    Family,
    GoldJudgement,
    Item,
    Judgement,
    Options,
    Registry,
    Rendered,
    Resource,
    import_modules,
    register,
)
from causal_oracle.entry.results import UNREADABLE, Explanation, Grade, TaskAnswer
from causal_oracle.entry.service import (
    Service,
    configure,
    configured,
    default,
    profile_of,
)
from causal_oracle.oracle.budget import budget
from causal_oracle.oracle.errors import (
    BudgetExceeded,
    CertificateRejected,
    InputError,
    OracleError,
)
from causal_oracle.oracle.relations import Profile
from causal_oracle.oracle.statements import RelationKind
from causal_oracle.parser.errors import ParseError

#: the per-member profiles ``verify`` takes (``compelled`` labels Corr2Cause++ items by
#: the CPDAG's directed edges: the ``corr2cause++`` family)
PROFILES = tuple(p.value for p in Profile if p is not Profile.COMPELLED)

__all__ = ["DEFAULT_BUDGET_S", "DEFAULT_CACHE_ITEMS", "PROFILES", "REGISTRY", "UNREADABLE",
           "BudgetExceeded", "CertificateRejected", "Explanation", "Family", "FastVerdict",
           "GoldJudgement", "Grade", "InputError", "Item", "Judgement", "Limits", "Options",
           "OracleError", "ParseError", "Profile", "Registry", "RelationKind", "Rendered",
           "Resource", "Service", "TaskAnswer", "VerifyResult", "binary_gold", "budget",
           "configure", "configured", "default", "import_modules", "join_input", "profile_of",
           "register", "split_input"]
