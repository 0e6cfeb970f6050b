"""Corr2Cause's grammar and transformer: parsed text → checked ``oracle.statements`` objects.

The grammar (``corr2cause.lark``, loaded per start symbol by ``grammar``) accepts the
premise and hypothesis text exactly as the upstream generator writes it, with any
identifier as a variable name.  The transformer (``TRANSFORMER``: one method per
grammar rule) builds typed, immutable objects and checks what a grammar cannot, in one
place: ``Declared`` holds the premise head's variables and validates every statement —
the declared count matches the listed variables ("2 variables, A and B"), names are
distinct and declared, a statement never relates a variable to itself, and a related
variable is not also in its conditioning set.  A failed check raises ``SemanticError``
at the offending token, which ``parse_with`` reports as a ``ParseError`` with line and
column.  Name-level statements (``Raw``) wait for the head before names become indices.

>>> from causal_oracle.parser.errors import ParseError
>>> try:
...     parse_with("Suppose there is a closed system of 2 variables, A and A. All the "
...                "statistical relations among these 2 variables are as follows: "
...                "A is independent of B.", "premise", "premise")
... except ParseError as error:
...     print(str(error).splitlines()[0])
line 1, column 56: invalid premise: variable 'A' is declared twice
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lark import Lark, Token, v_args

from causal_oracle.oracle.budget import Pace
from causal_oracle.oracle.errors import quote
from causal_oracle.oracle.statements import (
    Correlation,
    Hypothesis,
    Independence,
    Premise,
    RelationKind,
    Span,
    SurfaceForm,
)
from causal_oracle.parser import numbers
from causal_oracle.parser.grammar import (
    PacedTransformer,
    SemanticError,
    load_grammar,
    run_parser,
)

GRAMMAR = Path(__file__).with_name("corr2cause.lark")
_TERMINAL_NAMES = {"NAME": "a variable name", "COUNT": "a number", "$END": "end of text"}


def grammar(start: str) -> Lark:
    return load_grammar(GRAMMAR, start)


def _span_of(meta: object) -> Span | None:
    if getattr(meta, "empty", True):
        return None
    return Span(meta.start_pos, meta.end_pos, meta.line, meta.column)  # type: ignore[attr-defined]


class Raw:
    """Name-level statements before variables are resolved to indices."""

    __slots__ = ("given", "kind", "names", "span")

    def __init__(self, kind: str, names: tuple[Token, ...], given: tuple[Token, ...],
                 span: Span | None) -> None:
        self.kind, self.names, self.given, self.span = kind, names, given, span


class Declared:
    """The one premise validator: the head's variables and every statement's checks.

    The grammar path (``_ToObjects.premise``) and both fast paths (``_assemble``,
    ``_bulk_statements``) build statements only through it, so they accept exactly the
    same premises.  A failed check raises ``SemanticError`` at the offending token (the
    fast paths then decline and the grammar path reports it with line and column).
    """

    __slots__ = ("index", "names")

    def __init__(self, declared: object, names: tuple[Any, ...], count2: object) -> None:
        stated = numbers.count(declared, "variables")  # type: ignore[arg-type]
        if stated != len(names):
            raise SemanticError(f"the premise declares {stated} variables but lists "
                                f"{len(names)}", declared)  # type: ignore[arg-type]
        again = numbers.count(count2, "variables")  # type: ignore[arg-type]
        if again != len(names):
            raise SemanticError(f"'these {again} variables' does not match the "
                                f"{len(names)} declared variables", count2)  # type: ignore[arg-type]
        index: dict[str, int] = {}
        for tok in names:
            if str(tok) in index:
                raise SemanticError(f"variable {quote(str(tok))} is declared twice", tok)
            index[str(tok)] = len(index)
        if len(index) > 62:
            raise SemanticError("at most 62 variables are supported", declared)  # type: ignore[arg-type]
        self.names = tuple(index)
        self.index = index

    def resolve(self, tok: Any) -> int:
        found = self.index.get(str(tok))
        if found is None:
            raise SemanticError(f"{quote(str(tok))} is not one of the declared variables "
                                 f"{', '.join(self.index)}", tok)
        return found

    def pair(self, first: Any, second: Any) -> tuple[int, int, int, int]:
        """(a, b, min, max) of a statement's two variables, which must differ."""
        a, b = self.resolve(first), self.resolve(second)
        if a == b:
            raise SemanticError(f"a statement relates {quote(str(first))} to itself", second)
        return (a, b, a, b) if a < b else (a, b, b, a)

    def given(self, tokens: Any, a: int, b: int) -> int:
        """The conditioning set's mask; neither related variable may be in it."""
        mask = 0
        for tok in tokens:
            g = self.resolve(tok)
            if g in (a, b):
                raise SemanticError(f"{quote(str(tok))} cannot be both a related variable and "
                                     f"in the conditioning set", tok)
            mask |= 1 << g
        return mask


class _ToObjects(PacedTransformer):
    """One method per grammar rule; builds typed, immutable objects."""

    def name_list(self, items: list[Token]) -> tuple[Token, ...]:
        return tuple(items)

    def intro(self, items: list[object]) -> tuple[Token, tuple[Token, ...]]:
        count, names = items
        return count, names  # type: ignore[return-value]

    @v_args(meta=True)
    def correlation(self, meta: object, items: list[Token]) -> Raw:
        return Raw("corr", (items[0], items[1]), (), _span_of(meta))

    @v_args(meta=True)
    def marginal_independence(self, meta: object, items: list[Token]) -> Raw:
        return Raw("indep", (items[0], items[1]), (), _span_of(meta))

    @v_args(meta=True)
    def conditional_independence(self, meta: object, items: list[object]) -> Raw:
        x, y, given = items
        return Raw("indep", (x, y), given, _span_of(meta))  # type: ignore[arg-type]

    def statements(self, items: list[Raw]) -> list[Raw]:
        return list(items)

    def premise_head(self, items: list[object]) -> tuple[object, Token]:
        intro, count2 = items
        return intro, count2  # type: ignore[return-value]

    def sentence_plain(self, items: list[Raw]) -> tuple[bool, Raw]:
        return False, items[0]

    def sentence_however(self, items: list[Raw]) -> tuple[bool, Raw]:
        return True, items[0]

    def premise(self, items: list[object]) -> Premise:
        ((declared, names), count2), statements = items  # type: ignore[misc]
        head = Declared(declared, tuple(names), count2)
        correlations: list[Correlation] = []
        independences: list[Independence] = []
        pace = Pace()
        for raw in statements:  # type: ignore[union-attr]
            pace.step()
            a, b, x, y = head.pair(*raw.names)
            if raw.kind == "corr":
                correlations.append(Correlation(x, y, raw.span))
            else:
                independences.append(Independence(x, y, head.given(raw.given, a, b), raw.span))
        return Premise(head.names, tuple(correlations), tuple(independences))

    def _hyp(kind: RelationKind, form: SurfaceForm):  # type: ignore[no-untyped-def]
        def build(self: _ToObjects, items: list[Token]) -> Hypothesis:
            first, second = items
            if str(first) == str(second):
                raise SemanticError("a hypothesis must relate two different variables", second)
            return Hypothesis(kind, str(first), str(second), form)

        return build

    directly_causes = _hyp(RelationKind.DIRECT_CAUSE, SurfaceForm.DIRECTLY_CAUSES)
    directly_affects = _hyp(RelationKind.DIRECT_CAUSE, SurfaceForm.DIRECTLY_AFFECTS)
    causes_something_else = _hyp(RelationKind.INDIRECT_CAUSE, SurfaceForm.CAUSES_SOMETHING_ELSE)
    cause_not_direct = _hyp(RelationKind.INDIRECT_CAUSE, SurfaceForm.CAUSE_NOT_DIRECT)
    through_mediators = _hyp(RelationKind.INDIRECT_CAUSE, SurfaceForm.THROUGH_MEDIATORS)
    collider_exists = _hyp(RelationKind.COMMON_EFFECT, SurfaceForm.COLLIDER_EXISTS)
    together_cause = _hyp(RelationKind.COMMON_EFFECT, SurfaceForm.TOGETHER_CAUSE)
    confounder_exists = _hyp(RelationKind.COMMON_CAUSE, SurfaceForm.CONFOUNDER_EXISTS)
    cause_both = _hyp(RelationKind.COMMON_CAUSE, SurfaceForm.CAUSE_BOTH)
    mediators_not_directly = _hyp(RelationKind.INDIRECT_CAUSE,
                                  SurfaceForm.MEDIATORS_NOT_DIRECTLY)
    collider_common_child = _hyp(RelationKind.COMMON_EFFECT, SurfaceForm.COLLIDER_COMMON_CHILD)
    confounder_common_parent = _hyp(RelationKind.COMMON_CAUSE,
                                    SurfaceForm.CONFOUNDER_COMMON_PARENT)
    del _hyp

    def directly_affected_by(self, items: list[Token]) -> Hypothesis:
        """Corr2Cause++ "P is directly affected by Q.": the edge Q → P."""
        first, second = items
        if str(first) == str(second):
            raise SemanticError("a hypothesis must relate two different variables", second)
        return Hypothesis(RelationKind.DIRECT_CAUSE, str(second), str(first),
                          SurfaceForm.DIRECTLY_AFFECTED_BY)

    # ---- Corr2Cause++ premise dialect (closed world: independences only)
    def pp_names(self, items: list[Token]) -> tuple[Token, ...]:
        return tuple(items)

    def pp_intro(self, items: list[object]) -> tuple[Token, tuple[Token, ...]]:
        count, names = items
        return count, names  # type: ignore[return-value]

    @v_args(meta=True)
    def pp_independence(self, meta: object, items: list[Token]) -> Raw:
        return Raw("indep", (items[0], items[1]), tuple(items[2:]), _span_of(meta))

    def pp_statements(self, items: list[Raw | None]) -> list[Raw]:
        return [i for i in items if i is not None]

    def pp_premise(self, items: list[object]) -> Premise:
        (count, names), statements = items  # type: ignore[misc]
        return self.premise([((count, names), count), statements])

    def item(self, items: list[object]) -> tuple[Premise, Hypothesis]:
        premise, hypothesis = items
        return premise, hypothesis  # type: ignore[return-value]


TRANSFORMER = _ToObjects()


def parse_with(text: str, start: str, what: str) -> object:
    return run_parser(grammar(start), _TERMINAL_NAMES, text, what, TRANSFORMER)

