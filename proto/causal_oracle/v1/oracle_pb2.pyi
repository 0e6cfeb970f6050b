from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Profile(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROFILE_UNSPECIFIED: _ClassVar[Profile]
    PROFILE_CORR2CAUSE: _ClassVar[Profile]
    PROFILE_LOOSE: _ClassVar[Profile]
    PROFILE_STRICT: _ClassVar[Profile]

class CertificateDetail(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CERTIFICATE_DETAIL_UNSPECIFIED: _ClassVar[CertificateDetail]
    CERTIFICATE_DETAIL_NONE: _ClassVar[CertificateDetail]
    CERTIFICATE_DETAIL_SUMMARY: _ClassVar[CertificateDetail]
    CERTIFICATE_DETAIL_FULL: _ClassVar[CertificateDetail]

class ExplanationFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXPLANATION_FORMAT_UNSPECIFIED: _ClassVar[ExplanationFormat]
    EXPLANATION_FORMAT_NONE: _ClassVar[ExplanationFormat]
    EXPLANATION_FORMAT_TEXT: _ClassVar[ExplanationFormat]
    EXPLANATION_FORMAT_JSON: _ClassVar[ExplanationFormat]
    EXPLANATION_FORMAT_DOT: _ClassVar[ExplanationFormat]

class Relation(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RELATION_UNSPECIFIED: _ClassVar[Relation]
    RELATION_ENTAILMENT: _ClassVar[Relation]
    RELATION_NEUTRAL: _ClassVar[Relation]
    RELATION_CONTRADICTION: _ClassVar[Relation]
    RELATION_INCONSISTENT: _ClassVar[Relation]

class Grade(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GRADE_UNSPECIFIED: _ClassVar[Grade]
    GRADE_CORRECT: _ClassVar[Grade]
    GRADE_WRONG: _ClassVar[Grade]
    GRADE_UNREADABLE: _ClassVar[Grade]
    GRADE_UNGRADABLE: _ClassVar[Grade]

class ClaimVerdict(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLAIM_VERDICT_UNSPECIFIED: _ClassVar[ClaimVerdict]
    CLAIM_VERDICT_TRUE: _ClassVar[ClaimVerdict]
    CLAIM_VERDICT_FALSE: _ClassVar[ClaimVerdict]
    CLAIM_VERDICT_NOT_DECIDABLE: _ClassVar[ClaimVerdict]
PROFILE_UNSPECIFIED: Profile
PROFILE_CORR2CAUSE: Profile
PROFILE_LOOSE: Profile
PROFILE_STRICT: Profile
CERTIFICATE_DETAIL_UNSPECIFIED: CertificateDetail
CERTIFICATE_DETAIL_NONE: CertificateDetail
CERTIFICATE_DETAIL_SUMMARY: CertificateDetail
CERTIFICATE_DETAIL_FULL: CertificateDetail
EXPLANATION_FORMAT_UNSPECIFIED: ExplanationFormat
EXPLANATION_FORMAT_NONE: ExplanationFormat
EXPLANATION_FORMAT_TEXT: ExplanationFormat
EXPLANATION_FORMAT_JSON: ExplanationFormat
EXPLANATION_FORMAT_DOT: ExplanationFormat
RELATION_UNSPECIFIED: Relation
RELATION_ENTAILMENT: Relation
RELATION_NEUTRAL: Relation
RELATION_CONTRADICTION: Relation
RELATION_INCONSISTENT: Relation
GRADE_UNSPECIFIED: Grade
GRADE_CORRECT: Grade
GRADE_WRONG: Grade
GRADE_UNREADABLE: Grade
GRADE_UNGRADABLE: Grade
CLAIM_VERDICT_UNSPECIFIED: ClaimVerdict
CLAIM_VERDICT_TRUE: ClaimVerdict
CLAIM_VERDICT_FALSE: ClaimVerdict
CLAIM_VERDICT_NOT_DECIDABLE: ClaimVerdict

class Options(_message.Message):
    __slots__ = ("profile", "certificate_detail", "explanation_format")
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    CERTIFICATE_DETAIL_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FORMAT_FIELD_NUMBER: _ClassVar[int]
    profile: Profile
    certificate_detail: CertificateDetail
    explanation_format: ExplanationFormat
    def __init__(self, profile: _Optional[_Union[Profile, str]] = ..., certificate_detail: _Optional[_Union[CertificateDetail, str]] = ..., explanation_format: _Optional[_Union[ExplanationFormat, str]] = ...) -> None: ...

class VerifyRequest(_message.Message):
    __slots__ = ("premise", "hypothesis", "input", "model_answer", "options")
    PREMISE_FIELD_NUMBER: _ClassVar[int]
    HYPOTHESIS_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    MODEL_ANSWER_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    premise: str
    hypothesis: str
    input: str
    model_answer: str
    options: Options
    def __init__(self, premise: _Optional[str] = ..., hypothesis: _Optional[str] = ..., input: _Optional[str] = ..., model_answer: _Optional[str] = ..., options: _Optional[_Union[Options, _Mapping]] = ...) -> None: ...

class ProfileLabel(_message.Message):
    __slots__ = ("profile", "label")
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    profile: Profile
    label: int
    def __init__(self, profile: _Optional[_Union[Profile, str]] = ..., label: _Optional[int] = ...) -> None: ...

class Edge(_message.Message):
    __slots__ = ("source", "target")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    source: str
    target: str
    def __init__(self, source: _Optional[str] = ..., target: _Optional[str] = ...) -> None: ...

class Graph(_message.Message):
    __slots__ = ("edges",)
    EDGES_FIELD_NUMBER: _ClassVar[int]
    edges: _containers.RepeatedCompositeFieldContainer[Edge]
    def __init__(self, edges: _Optional[_Iterable[_Union[Edge, _Mapping]]] = ...) -> None: ...

class Path(_message.Message):
    __slots__ = ("nodes",)
    NODES_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, nodes: _Optional[_Iterable[str]] = ...) -> None: ...

class Witness(_message.Message):
    __slots__ = ("holds", "paths")
    HOLDS_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    holds: bool
    paths: _containers.RepeatedCompositeFieldContainer[Path]
    def __init__(self, holds: _Optional[bool] = ..., paths: _Optional[_Iterable[_Union[Path, _Mapping]]] = ...) -> None: ...

class Statement(_message.Message):
    __slots__ = ("x", "y", "given")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    GIVEN_FIELD_NUMBER: _ClassVar[int]
    x: str
    y: str
    given: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, x: _Optional[str] = ..., y: _Optional[str] = ..., given: _Optional[_Iterable[str]] = ...) -> None: ...

class Conflict(_message.Message):
    __slots__ = ("kind", "message", "statement", "path", "candidate")
    KIND_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    STATEMENT_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_FIELD_NUMBER: _ClassVar[int]
    kind: str
    message: str
    statement: Statement
    path: Path
    candidate: Graph
    def __init__(self, kind: _Optional[str] = ..., message: _Optional[str] = ..., statement: _Optional[_Union[Statement, _Mapping]] = ..., path: _Optional[_Union[Path, _Mapping]] = ..., candidate: _Optional[_Union[Graph, _Mapping]] = ...) -> None: ...

class Certificate(_message.Message):
    __slots__ = ("verdict", "profile", "relation_kind", "form", "pair", "class_size", "cpdag_directed", "cpdag_undirected", "members", "witnesses", "conflict", "class_size_exact")
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    RELATION_KIND_FIELD_NUMBER: _ClassVar[int]
    FORM_FIELD_NUMBER: _ClassVar[int]
    PAIR_FIELD_NUMBER: _ClassVar[int]
    CLASS_SIZE_FIELD_NUMBER: _ClassVar[int]
    CPDAG_DIRECTED_FIELD_NUMBER: _ClassVar[int]
    CPDAG_UNDIRECTED_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    WITNESSES_FIELD_NUMBER: _ClassVar[int]
    CONFLICT_FIELD_NUMBER: _ClassVar[int]
    CLASS_SIZE_EXACT_FIELD_NUMBER: _ClassVar[int]
    verdict: Relation
    profile: Profile
    relation_kind: str
    form: str
    pair: _containers.RepeatedScalarFieldContainer[str]
    class_size: int
    cpdag_directed: _containers.RepeatedCompositeFieldContainer[Edge]
    cpdag_undirected: _containers.RepeatedCompositeFieldContainer[Edge]
    members: _containers.RepeatedCompositeFieldContainer[Graph]
    witnesses: _containers.RepeatedCompositeFieldContainer[Witness]
    conflict: Conflict
    class_size_exact: str
    def __init__(self, verdict: _Optional[_Union[Relation, str]] = ..., profile: _Optional[_Union[Profile, str]] = ..., relation_kind: _Optional[str] = ..., form: _Optional[str] = ..., pair: _Optional[_Iterable[str]] = ..., class_size: _Optional[int] = ..., cpdag_directed: _Optional[_Iterable[_Union[Edge, _Mapping]]] = ..., cpdag_undirected: _Optional[_Iterable[_Union[Edge, _Mapping]]] = ..., members: _Optional[_Iterable[_Union[Graph, _Mapping]]] = ..., witnesses: _Optional[_Iterable[_Union[Witness, _Mapping]]] = ..., conflict: _Optional[_Union[Conflict, _Mapping]] = ..., class_size_exact: _Optional[str] = ...) -> None: ...

class VerifyResponse(_message.Message):
    __slots__ = ("label", "relation", "class_size", "holds_in", "ambiguous", "labels_by_profile", "profile", "certificate_checked", "reason", "explanation_format", "explanation", "certificate", "variables", "hypothesis_kind", "grade", "normalised_answer", "grade_reason", "class_size_exact")
    LABEL_FIELD_NUMBER: _ClassVar[int]
    RELATION_FIELD_NUMBER: _ClassVar[int]
    CLASS_SIZE_FIELD_NUMBER: _ClassVar[int]
    HOLDS_IN_FIELD_NUMBER: _ClassVar[int]
    AMBIGUOUS_FIELD_NUMBER: _ClassVar[int]
    LABELS_BY_PROFILE_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    CERTIFICATE_CHECKED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FORMAT_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    CERTIFICATE_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    HYPOTHESIS_KIND_FIELD_NUMBER: _ClassVar[int]
    GRADE_FIELD_NUMBER: _ClassVar[int]
    NORMALISED_ANSWER_FIELD_NUMBER: _ClassVar[int]
    GRADE_REASON_FIELD_NUMBER: _ClassVar[int]
    CLASS_SIZE_EXACT_FIELD_NUMBER: _ClassVar[int]
    label: int
    relation: Relation
    class_size: int
    holds_in: int
    ambiguous: bool
    labels_by_profile: _containers.RepeatedCompositeFieldContainer[ProfileLabel]
    profile: Profile
    certificate_checked: bool
    reason: str
    explanation_format: ExplanationFormat
    explanation: str
    certificate: Certificate
    variables: _containers.RepeatedScalarFieldContainer[str]
    hypothesis_kind: str
    grade: Grade
    normalised_answer: str
    grade_reason: str
    class_size_exact: str
    def __init__(self, label: _Optional[int] = ..., relation: _Optional[_Union[Relation, str]] = ..., class_size: _Optional[int] = ..., holds_in: _Optional[int] = ..., ambiguous: _Optional[bool] = ..., labels_by_profile: _Optional[_Iterable[_Union[ProfileLabel, _Mapping]]] = ..., profile: _Optional[_Union[Profile, str]] = ..., certificate_checked: _Optional[bool] = ..., reason: _Optional[str] = ..., explanation_format: _Optional[_Union[ExplanationFormat, str]] = ..., explanation: _Optional[str] = ..., certificate: _Optional[_Union[Certificate, _Mapping]] = ..., variables: _Optional[_Iterable[str]] = ..., hypothesis_kind: _Optional[str] = ..., grade: _Optional[_Union[Grade, str]] = ..., normalised_answer: _Optional[str] = ..., grade_reason: _Optional[str] = ..., class_size_exact: _Optional[str] = ...) -> None: ...

class VerifyStreamRequest(_message.Message):
    __slots__ = ("id", "request", "group")
    ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    id: int
    request: VerifyRequest
    group: VerifyGroup
    def __init__(self, id: _Optional[int] = ..., request: _Optional[_Union[VerifyRequest, _Mapping]] = ..., group: _Optional[_Union[VerifyGroup, _Mapping]] = ...) -> None: ...

class VerifyStreamResponse(_message.Message):
    __slots__ = ("id", "result", "error")
    ID_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    id: int
    result: VerifyResponse
    error: ItemError
    def __init__(self, id: _Optional[int] = ..., result: _Optional[_Union[VerifyResponse, _Mapping]] = ..., error: _Optional[_Union[ItemError, _Mapping]] = ...) -> None: ...

class AnswerRequest(_message.Message):
    __slots__ = ("prompt", "task", "model_answer", "reasoning")
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    MODEL_ANSWER_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    prompt: str
    task: str
    model_answer: str
    reasoning: bool
    def __init__(self, prompt: _Optional[str] = ..., task: _Optional[str] = ..., model_answer: _Optional[str] = ..., reasoning: _Optional[bool] = ...) -> None: ...

class AnswerResponse(_message.Message):
    __slots__ = ("task", "answer_text", "answer_json", "certificate_checked", "explanation", "grade", "normalised_answer", "grade_reason", "expected", "reasoning")
    TASK_FIELD_NUMBER: _ClassVar[int]
    ANSWER_TEXT_FIELD_NUMBER: _ClassVar[int]
    ANSWER_JSON_FIELD_NUMBER: _ClassVar[int]
    CERTIFICATE_CHECKED_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    GRADE_FIELD_NUMBER: _ClassVar[int]
    NORMALISED_ANSWER_FIELD_NUMBER: _ClassVar[int]
    GRADE_REASON_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    task: str
    answer_text: str
    answer_json: str
    certificate_checked: bool
    explanation: str
    grade: Grade
    normalised_answer: str
    grade_reason: str
    expected: str
    reasoning: Reasoning
    def __init__(self, task: _Optional[str] = ..., answer_text: _Optional[str] = ..., answer_json: _Optional[str] = ..., certificate_checked: _Optional[bool] = ..., explanation: _Optional[str] = ..., grade: _Optional[_Union[Grade, str]] = ..., normalised_answer: _Optional[str] = ..., grade_reason: _Optional[str] = ..., expected: _Optional[str] = ..., reasoning: _Optional[_Union[Reasoning, _Mapping]] = ...) -> None: ...

class ReasoningClaim(_message.Message):
    __slots__ = ("start", "end", "text", "kind", "polarity", "verdict", "why")
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    POLARITY_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    start: int
    end: int
    text: str
    kind: str
    polarity: bool
    verdict: ClaimVerdict
    why: str
    def __init__(self, start: _Optional[int] = ..., end: _Optional[int] = ..., text: _Optional[str] = ..., kind: _Optional[str] = ..., polarity: _Optional[bool] = ..., verdict: _Optional[_Union[ClaimVerdict, str]] = ..., why: _Optional[str] = ...) -> None: ...

class ReasoningContradiction(_message.Message):
    __slots__ = ("first", "second", "why")
    FIRST_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    first: int
    second: int
    why: str
    def __init__(self, first: _Optional[int] = ..., second: _Optional[int] = ..., why: _Optional[str] = ...) -> None: ...

class Reasoning(_message.Message):
    __slots__ = ("supported", "claims", "contradictions", "true_claims", "false_claims", "not_decidable", "score", "lucky", "unsupported")
    SUPPORTED_FIELD_NUMBER: _ClassVar[int]
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    CONTRADICTIONS_FIELD_NUMBER: _ClassVar[int]
    TRUE_CLAIMS_FIELD_NUMBER: _ClassVar[int]
    FALSE_CLAIMS_FIELD_NUMBER: _ClassVar[int]
    NOT_DECIDABLE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    LUCKY_FIELD_NUMBER: _ClassVar[int]
    UNSUPPORTED_FIELD_NUMBER: _ClassVar[int]
    supported: bool
    claims: _containers.RepeatedCompositeFieldContainer[ReasoningClaim]
    contradictions: _containers.RepeatedCompositeFieldContainer[ReasoningContradiction]
    true_claims: int
    false_claims: int
    not_decidable: int
    score: float
    lucky: bool
    unsupported: bool
    def __init__(self, supported: _Optional[bool] = ..., claims: _Optional[_Iterable[_Union[ReasoningClaim, _Mapping]]] = ..., contradictions: _Optional[_Iterable[_Union[ReasoningContradiction, _Mapping]]] = ..., true_claims: _Optional[int] = ..., false_claims: _Optional[int] = ..., not_decidable: _Optional[int] = ..., score: _Optional[float] = ..., lucky: _Optional[bool] = ..., unsupported: _Optional[bool] = ...) -> None: ...

class VerifyBatchRequest(_message.Message):
    __slots__ = ("items", "groups")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    GROUPS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[VerifyRequest]
    groups: _containers.RepeatedCompositeFieldContainer[VerifyGroup]
    def __init__(self, items: _Optional[_Iterable[_Union[VerifyRequest, _Mapping]]] = ..., groups: _Optional[_Iterable[_Union[VerifyGroup, _Mapping]]] = ...) -> None: ...

class VerifyGroup(_message.Message):
    __slots__ = ("premise", "items")
    PREMISE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    premise: str
    items: _containers.RepeatedCompositeFieldContainer[VerifyRequest]
    def __init__(self, premise: _Optional[str] = ..., items: _Optional[_Iterable[_Union[VerifyRequest, _Mapping]]] = ...) -> None: ...

class VerifyItem(_message.Message):
    __slots__ = ("result", "error")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    result: VerifyResponse
    error: ItemError
    def __init__(self, result: _Optional[_Union[VerifyResponse, _Mapping]] = ..., error: _Optional[_Union[ItemError, _Mapping]] = ...) -> None: ...

class VerifyBatchResponse(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[VerifyItem]
    def __init__(self, items: _Optional[_Iterable[_Union[VerifyItem, _Mapping]]] = ...) -> None: ...

class AnswerBatchRequest(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[AnswerRequest]
    def __init__(self, items: _Optional[_Iterable[_Union[AnswerRequest, _Mapping]]] = ...) -> None: ...

class AnswerItem(_message.Message):
    __slots__ = ("result", "error")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    result: AnswerResponse
    error: ItemError
    def __init__(self, result: _Optional[_Union[AnswerResponse, _Mapping]] = ..., error: _Optional[_Union[ItemError, _Mapping]] = ...) -> None: ...

class AnswerBatchResponse(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[AnswerItem]
    def __init__(self, items: _Optional[_Iterable[_Union[AnswerItem, _Mapping]]] = ...) -> None: ...

class ItemError(_message.Message):
    __slots__ = ("code", "kind", "message", "field", "line", "column", "expected", "context", "what", "description")
    CODE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    WHAT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    code: int
    kind: str
    message: str
    field: str
    line: int
    column: int
    expected: _containers.RepeatedScalarFieldContainer[str]
    context: str
    what: str
    description: str
    def __init__(self, code: _Optional[int] = ..., kind: _Optional[str] = ..., message: _Optional[str] = ..., field: _Optional[str] = ..., line: _Optional[int] = ..., column: _Optional[int] = ..., expected: _Optional[_Iterable[str]] = ..., context: _Optional[str] = ..., what: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...
