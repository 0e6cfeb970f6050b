"""causal-oracle: certified answers for causal-reasoning benchmarks.

The library API is a handful of verbs (see ``causal_oracle.api`` and, for the file
verbs, ``causal_oracle.clients.library_files`` for their full documentation)::

    import causal_oracle as co
    co.verify(premise, hypothesis)        # Corr2Cause label, class, certificate
    co.explain(premise, hypothesis)       # the derivation in words (text/json/dot)
    co.answer(prompt)                     # CI-Bench CP/BA/FI/CI, IE, or Corr2Cause
    co.grade(prompt, model_answer)        # is a model's answer right?
    co.grade_file("replies.jsonl")        # grade every reply in a file
    co.check_reasoning(prompt, reply)     # check every causal claim of the reasoning
    co.audit("data.jsonl")                # re-derive every gold label of a dataset

Every answer's certificate has been re-verified by the independent checker.
Everything not listed in ``__all__`` is internal and may change.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from causal_oracle.api import (
        BudgetExceeded,
        CertificateRejected,
        Grade,
        InputError,
        OracleError,
        ParseError,
        Profile,
        ReasoningResult,
        TaskAnswer,
        VerifyResult,
        answer,
        check_reasoning,
        explain,
        grade,
        verify,
    )
    from causal_oracle.clients.library_files import (
        AuditReport,
        GradeFileResult,
        audit,
        grade_file,
    )

__version__ = "0.1.0"

# ``causal_oracle.inspect`` (the Inspect scorer) is plugins/inspect.py: a root-level
# inspect.py would shadow the standard library for anything run from the checkout.
# (pytest also runs this file once as a plain module, without ``__path__``, when the checkout's
# folder name is not an identifier, as in a fresh clone into causal-oracle/.)
if "__path__" in globals():
    __path__.append(__import__("os").path.join(__path__[0], "plugins"))

__all__ = [
    "AuditReport",
    "BudgetExceeded",
    "CertificateRejected",
    "Grade",
    "GradeFileResult",
    "InputError",
    "OracleError",
    "ParseError",
    "Profile",
    "ReasoningResult",
    "TaskAnswer",
    "VerifyResult",
    "__version__",
    "answer",
    "audit",
    "check_reasoning",
    "explain",
    "grade",
    "grade_file",
    "verify",
]


#: the file verbs and their results, beside the engines that read files
_FILE_VERBS = frozenset(("AuditReport", "GradeFileResult", "audit", "grade_file"))


def __getattr__(name: str) -> Any:
    """The public names load ``causal_oracle.api`` (the item verbs, and through it the
    entry layer) or ``causal_oracle.clients.library_files`` (the file verbs) on first
    use, so ``import causal_oracle`` costs next to nothing (PEP 562)."""
    if name in __all__ and name != "__version__":
        if name in _FILE_VERBS:
            from causal_oracle.clients import library_files as module
        else:
            from causal_oracle import api as module

        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'causal_oracle' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
