"""OpenCompass config: CaLM's formal tasks, each reply graded by the oracle and by CaLM.

Run with OpenCompass 0.5 installed beside causal-oracle (docs/opencompass.md):

    opencompass examples/opencompass_calm.py -w outputs/calm_oracle

after adding your ``models`` (or pass ``--models``/``--hf-path``).  Each dataset is a
CaLM task file (``<CALM_DATA>/<TASK>.json``, CaLM Lite's layout: one record per line)
rendered by OpenCompass's own ``CaLMDataset`` in ``PROMPT_STYLE``; its evaluator is
``OracleEvaluator`` (causal_oracle.clients.opencompass_evaluator), which reports
``certified_accuracy`` (the oracle's re-checked answer) beside
``benchmark_rule_accuracy`` (CaLM's own scoring, as OpenCompass's ``CaLMEvaluator``
scores), with per-reply details.  ``WITH_CALM_EVALUATOR`` adds a copy of each dataset
scored by OpenCompass's ``CaLMEvaluator`` itself (abbr ``…_calm``), for comparison.
"""

from opencompass.datasets import CaLMDataset, CaLMEvaluator
from opencompass.openicl.icl_inferencer import GenInferencer
from opencompass.openicl.icl_prompt_template import PromptTemplate
from opencompass.openicl.icl_retriever import ZeroRetriever

from causal_oracle.clients.opencompass_evaluator import OracleEvaluator

CALM_DATA = "./data/calm"
PROMPT_STYLE = "basic"  # CaLM's prompt styles: basic, adversarial-ignore, zero-shot-CoT, …
WITH_CALM_EVALUATOR = False

# CaLM's tasks derived from CLadder: their prompts are read by the CLadder family, found
# from the text; every other formal task is read as its own task (the oracle's CaLM family
# has one task per CaLM task, and the effect tasks' natural, basic and hard variants
# share one prompt template, so the text alone does not say which variant is asked)
CLADDER_DERIVED = ["BAS-B_backadj", "CB-B_collider-bias", "CORR-B_correlation",
                   "EAE-B_exp-away", "CR-B_det-counterfactual"]
# CaLM's formal tasks (those generated from a structure the prompt states)
CALM_FORMAL_TASKS = [
    "AR-B_CaLM-AR", "CA-B_FA", "CA-B_FP",
    "CEI-B_0.2-UC", "CEI-B_0.4-UC", "CEI-B_0.6-UC", "CEI-B_0.8-UC",
    *CLADDER_DERIVED,
    "BAS-C_max-BAS", "BAS-C_min-BAS", "BAS-C_mix-BAS", "FAS-C_FAS", "IV-C_CaLM-IV",
    "ATE-B_ATE-natural", "CDE-B_CDE-natural", "ETT-B_ETT-natural", "NDE-B_NDE-natural",
    "NIE-B_NIE-natural",
    "ATE-P_ATE-basic", "ATE-P_ATE-hard", "CDE-P_CDE-basic", "CDE-P_CDE-hard",
    "ETT-P_ETT-basic", "ETT-P_ETT-hard", "NDE-P_NDE-basic", "NDE-P_NDE-hard",
    "NIE-P_NIE-basic", "NIE-P_NIE-hard", "PN-P_PN-basic", "PN-P_PN-hard",
    "PS-P_PS-basic", "PS-P_PS-hard",
]
LANGUAGES = ["EN", "CN"]
# modules whose families register on import (none needed for the built-in ones)
FAMILY_MODULES = []

calm_reader_cfg = dict(input_columns=["question"], output_column="gt_item")
calm_infer_cfg = dict(prompt_template=dict(type=PromptTemplate, template="{question}"),
                      retriever=dict(type=ZeroRetriever),
                      inferencer=dict(type=GenInferencer, max_out_len=500))

calm_oracle_datasets = []
for _task in CALM_FORMAL_TASKS:
    for _language in LANGUAGES:
        _name = f"{_task}_{_language}"
        _style = PROMPT_STYLE + ("-CN" if _language == "CN" else "")
        _oracle_task = None if _task in CLADDER_DERIVED else _task
        _evaluators = [("oracle", dict(type=OracleEvaluator, task=_name, prompt_style=_style,
                                       oracle_task=_oracle_task,
                                       family_modules=FAMILY_MODULES))]
        if WITH_CALM_EVALUATOR:
            _evaluators.append(("calm", dict(type=CaLMEvaluator, core_metrics=True,
                                             error_analysis=False, prompt_style=_style,
                                             task=_name)))
        for _kind, _evaluator in _evaluators:
            calm_oracle_datasets.append(dict(
                abbr=f"calm_{_name}_{_kind}", type=CaLMDataset,
                path=f"{CALM_DATA}/{_name}.json", prompt_style=_style,
                reader_cfg=calm_reader_cfg, infer_cfg=calm_infer_cfg,
                eval_cfg=dict(evaluator=_evaluator)))

datasets = calm_oracle_datasets
