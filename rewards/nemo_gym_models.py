"""NeMo-Gym's verify request and response, mirrored field for field.

NeMo-Gym (NVIDIA's RL environment framework) runs each environment as a *resources
server*: an HTTP service whose ``POST /verify`` takes a ``BaseVerifyRequest`` — the
request that was sent to the model (``responses_create_params``, OpenAI Responses API
create parameters) and the model's ``response`` (an OpenAI ``Response``) — and returns a
``BaseVerifyResponse``: the request with its ``reward``.  NeMo-Gym itself needs Python
>= 3.12 (3.13 from 0.5), so it cannot be a dependency here; these models copy its
published definitions instead, from the release the project is checked against:

* NeMo-Gym **0.4.0** (PyPI ``nemo_gym-0.4.0-py3-none-any.whl``):
  ``nemo_gym/base_resources_server.py`` — ``BaseRunRequest``, ``BaseVerifyRequest``,
  ``BaseVerifyResponse``, ``BaseSeedSessionRequest``/``Response``;
  ``nemo_gym/openai_utils.py`` — ``NeMoGymResponseCreateParamsNonStreaming`` (extra
  fields forbidden, as there), the input and output items, ``NeMoGymResponse``,
  ``NeMoGymResponseUsage``; ``nemo_gym/config_types.py`` — ``AggregateMetricsRequest``,
  ``AggregateMetrics``;
* OpenAI's ``Response`` (``openai/types/responses/response.py``) at **openai 2.7.2**, the
  newest release NeMo-Gym 0.4.0 accepts (``openai<=2.7.2``), for the fields
  ``NeMoGymResponse`` inherits (extra fields allowed, as OpenAI's models allow them).

Every field has NeMo-Gym's name, optionality and default.  Values whose types are
OpenAI's own nested parameter types (tools, tool choice, reasoning and text settings,
prompt references, annotations, log-probabilities, input content parts) are carried as
JSON values and not validated further: the verifier reads only the messages' text.

    >>> body = BaseVerifyRequest.model_validate({
    ...     "responses_create_params": {"input": [{"role": "user", "content": "Q?"}]},
    ...     "response": {"id": "r", "created_at": 0, "model": "m", "object": "response",
    ...                  "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
    ...                  "output": [{"id": "m1", "type": "message", "role": "assistant",
    ...                              "content": [{"type": "output_text", "text": "No.",
    ...                                           "annotations": []}]}]}})
    >>> type(body.response.output[0]).__name__, body.response.output[0].content[0].text
    ('NeMoGymResponseOutputMessage', 'No.')
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

#: the releases these models are copied from
NEMO_GYM_RELEASE = "nemo-gym 0.4.0"
OPENAI_RELEASE = "openai 2.7.2"

Json: TypeAlias = Any  # one of OpenAI's nested parameter types, carried as JSON
Status: TypeAlias = Literal["in_progress", "completed", "incomplete"]


class _OpenAIModel(BaseModel):
    """OpenAI's ``BaseModel``: fields it does not know are kept, not refused."""

    model_config = ConfigDict(extra="allow")


# ---- nemo_gym/openai_utils.py: Responses API inputs ------------------------------------------

class TokenIDLogProbMixin(BaseModel):
    prompt_token_ids: list[int]
    generation_token_ids: list[int]
    generation_log_probs: list[float]
    routed_experts: list[list[list[int]]] | None = None


class NeMoGymSummary(_OpenAIModel):  # openai Summary
    text: str
    type: Literal["summary_text"]


class NeMoGymResponseReasoningItem(BaseModel):
    id: str
    summary: list[NeMoGymSummary]
    type: Literal["reasoning"] = "reasoning"
    encrypted_content: str | None = None


class NeMoGymResponseOutputText(BaseModel):
    annotations: list[Json]
    text: str
    type: Literal["output_text"] = "output_text"
    logprobs: list[Json] | None = None


class NeMoGymResponseOutputRefusal(BaseModel):
    refusal: str
    type: Literal["refusal"] = "refusal"


NeMoGymContent: TypeAlias = NeMoGymResponseOutputText | NeMoGymResponseOutputRefusal


class NeMoGymResponseOutputMessage(BaseModel):
    id: str
    content: list[NeMoGymContent]
    role: Literal["assistant"] = "assistant"
    status: Status = "completed"
    type: Literal["message"] = "message"


class NeMoGymEasyInputMessage(BaseModel):
    content: str | list[Json]  # str or ResponseInputMessageContentListParam
    role: Literal["user", "assistant", "system", "developer"]
    type: Literal["message"] = "message"


class NeMoGymMessage(BaseModel):
    content: list[Json]  # ResponseInputMessageContentListParam
    role: Literal["user", "system", "developer"]
    status: Status = "completed"
    type: Literal["message"] = "message"


class NeMoGymFunctionCallOutput(BaseModel):
    call_id: str
    output: str
    type: Literal["function_call_output"] = "function_call_output"
    id: str | None = None
    status: Status | None = None


class NeMoGymResponseFunctionToolCall(BaseModel):
    arguments: str
    call_id: str
    name: str
    type: Literal["function_call"] = "function_call"
    id: str | None = None
    status: Status | None = None


class NeMoGymEasyInputMessageForTraining(NeMoGymEasyInputMessage, TokenIDLogProbMixin):
    pass


class NeMoGymMessageForTraining(NeMoGymMessage, TokenIDLogProbMixin):
    pass


class NeMoGymResponseOutputMessageForTraining(NeMoGymResponseOutputMessage,
                                              TokenIDLogProbMixin):
    pass


class NeMoGymResponseFunctionToolCallForTraining(NeMoGymResponseFunctionToolCall,
                                                 TokenIDLogProbMixin):
    pass


class NeMoGymResponseReasoningItemForTraining(NeMoGymResponseReasoningItem,
                                              TokenIDLogProbMixin):
    pass


NeMoGymResponseInputItem: TypeAlias = (
    NeMoGymEasyInputMessage | NeMoGymMessage | NeMoGymResponseOutputMessage
    | NeMoGymResponseFunctionToolCall | NeMoGymFunctionCallOutput
    | NeMoGymResponseReasoningItem
    # for training
    | NeMoGymEasyInputMessageForTraining | NeMoGymMessageForTraining
    | NeMoGymResponseOutputMessageForTraining | NeMoGymResponseFunctionToolCallForTraining
    | NeMoGymResponseReasoningItemForTraining)
NeMoGymResponseInput: TypeAlias = list[NeMoGymResponseInputItem]


class NeMoGymResponseCreateParamsNonStreaming(BaseModel):
    """OpenAI's ``ResponseCreateParamsNonStreaming`` as a validated model (extra fields
    are refused, as NeMo-Gym refuses them)."""

    model_config = ConfigDict(extra="forbid")

    background: bool | None = None
    include: list[str] | None = None
    input: str | NeMoGymResponseInput
    instructions: str | None = None
    max_output_tokens: int | None = None
    max_tool_calls: int | None = None
    metadata: dict[str, str] | None = None
    model: str | None = None
    parallel_tool_calls: bool = True
    previous_response_id: str | None = None
    prompt: Json | None = None
    reasoning: Json | None = None
    service_tier: Literal["auto", "default", "flex", "scale", "priority"] | None = None
    store: bool | None = None
    temperature: float | None = None
    text: Json | None = None
    tool_choice: Json = "auto"
    tools: list[Json] = Field(default_factory=list)
    top_logprobs: int | None = None
    top_p: float | None = None
    truncation: Literal["auto", "disabled"] | None = None
    user: str | None = None
    stream: Literal[False] | None = None


# ---- nemo_gym/openai_utils.py: Responses API outputs -----------------------------------------

NeMoGymResponseOutputItem: TypeAlias = NeMoGymResponseInputItem


class NeMoGymResponseInputTokensDetails(_OpenAIModel):
    cached_tokens: int


class NeMoGymResponseOutputTokensDetails(_OpenAIModel):
    reasoning_tokens: int


class NeMoGymResponseUsage(_OpenAIModel):
    input_tokens: int
    input_tokens_details: NeMoGymResponseInputTokensDetails
    output_tokens: int
    output_tokens_details: NeMoGymResponseOutputTokensDetails
    total_tokens: int


class NeMoGymResponse(_OpenAIModel):
    """OpenAI's ``Response`` (openai 2.7.2) with NeMo-Gym's ``output`` and ``usage``."""

    id: str
    created_at: float
    error: Json | None = None
    incomplete_details: Json | None = None
    instructions: str | list[Json] | None = None
    metadata: dict[str, str] | None = None
    model: str
    object: Literal["response"]
    output: list[NeMoGymResponseOutputItem]
    parallel_tool_calls: bool
    temperature: float | None = None
    tool_choice: Json
    tools: list[Json]
    top_p: float | None = None
    background: bool | None = None
    conversation: Json | None = None
    max_output_tokens: int | None = None
    max_tool_calls: int | None = None
    previous_response_id: str | None = None
    prompt: Json | None = None
    prompt_cache_key: str | None = None
    reasoning: Json | None = None
    safety_identifier: str | None = None
    service_tier: Literal["auto", "default", "flex", "scale", "priority"] | None = None
    status: Literal["completed", "failed", "in_progress", "cancelled", "queued",
                    "incomplete"] | None = None
    text: Json | None = None
    top_logprobs: int | None = None
    truncation: Literal["auto", "disabled"] | None = None
    usage: NeMoGymResponseUsage | None = None
    user: str | None = None


# ---- nemo_gym/base_resources_server.py -------------------------------------------------------

class BaseRunRequest(BaseModel):
    responses_create_params: NeMoGymResponseCreateParamsNonStreaming


class BaseVerifyRequest(BaseRunRequest):
    response: NeMoGymResponse


class BaseVerifyResponse(BaseVerifyRequest):
    reward: float


class BaseSeedSessionRequest(BaseModel):
    pass


class BaseSeedSessionResponse(BaseModel):
    pass


# ---- nemo_gym/config_types.py ----------------------------------------------------------------

class AggregateMetricsRequest(BaseModel):
    verify_responses: list[dict[str, Any]]


class AggregateMetrics(BaseModel):
    group_level_metrics: list[dict[str, Any]] = Field(default_factory=list)
    agent_metrics: dict[str, Any] = Field(default_factory=dict)
    key_metrics: dict[str, Any] = Field(default_factory=dict)


__all__ = ["NEMO_GYM_RELEASE", "OPENAI_RELEASE", "AggregateMetrics", "AggregateMetricsRequest",
           "BaseRunRequest", "BaseSeedSessionRequest", "BaseSeedSessionResponse",
           "BaseVerifyRequest", "BaseVerifyResponse", "NeMoGymEasyInputMessage",
           "NeMoGymFunctionCallOutput", "NeMoGymMessage", "NeMoGymResponse",
           "NeMoGymResponseCreateParamsNonStreaming", "NeMoGymResponseFunctionToolCall",
           "NeMoGymResponseOutputMessage", "NeMoGymResponseOutputRefusal",
           "NeMoGymResponseOutputText", "NeMoGymResponseReasoningItem", "NeMoGymResponseUsage",
           "NeMoGymSummary", "TokenIDLogProbMixin"]
