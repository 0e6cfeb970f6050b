"""Every CLEAR answer the oracle writes reads back as a right reply, in every process.

What ``answer`` prints is what a model is told to write: an empty find-all list
("None"), a find-one question nothing answers ("None"), a multiple-choice question with
several valid options ("A, D"), and the task name ``answer`` reports ("CLEAR
2_node_relation") handed back to ``grade``.  An example the oracle picks among many (a
Markov-equivalent DAG) is the same whatever ``PYTHONHASHSEED`` is.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from causal_oracle.entry import default

DAG = "Given a DAG (directed acyclic graph) with nodes A, B, C and directed edges A->B, C->B.\n"


@pytest.mark.parametrize("question", [
    "List all parents of node A.",                       # an empty list
    "Find all directed paths from node A to node C.",    # no path
    "Which of the following is one of descendants of node A?\nA. B\nB. C\nC. A\nD. B",
    "How many children does node A have?",
    "Find one maximal valid backdoor adjustment set for treatment A and outcome B.",
])
def test_the_oracles_answer_grades_right_under_its_own_task_name(question: str) -> None:
    answer = default().answer(DAG + question)
    assert answer.task.startswith("CLEAR ")
    for task in (None, answer.task, "CLEAR"):
        graded = default().grade(DAG + question, answer.answer_text, task)
        assert graded.correct is True, (task, answer.answer_text, graded)


def test_an_empty_list_is_written_none_and_read_in_any_case() -> None:
    prompt = DAG + "List all parents of node A."
    assert default().answer(prompt).answer_text == "None"
    for reply in ("None", "none.", "Answer: none", "<answer>None</answer>"):
        assert default().grade(prompt, reply).correct is True, reply
    assert default().grade(prompt, "B").correct is False


def test_none_answers_a_find_one_question_only_when_nothing_is_valid() -> None:
    cyclic = ("Given a directed graph with nodes A, B, C and directed edges A->B, B->C, C->A.\n"
              "Find one cycle in this graph.")
    acyclic = ("Given a directed graph with nodes A, B, C and directed edges A->B, B->C.\n"
               "Find one cycle in this graph.")
    assert default().answer(acyclic).answer_text == "None"
    assert default().grade(acyclic, "None").correct is True
    none = default().grade(cyclic, "None")
    assert none.correct is False and "valid" in none.reason
    assert default().grade(cyclic, default().answer(cyclic).answer_text).correct is True


def test_several_valid_options_are_graded_option_by_option() -> None:
    prompt = DAG + "Which of the following is one of descendants of node A?\nA. B\nB. C\nC. A\nD. B"
    assert default().answer(prompt).answer_text == "A, D"
    assert default().grade(prompt, "A").correct is True
    assert default().grade(prompt, "D, A").correct is True
    wrong = default().grade(prompt, "A, B")
    assert wrong.correct is False and "option B is not valid" in wrong.reason
    unread = default().grade(prompt, "E")                         # not an option: unreadable
    assert unread.correct is False and not unread.readable


def test_an_unknown_task_name_is_still_refused() -> None:
    from causal_oracle.entry import InputError

    with pytest.raises(InputError, match="unknown task 'PLANETS orbit'"):
        default().grade(DAG + "List all parents of node B.", "A, C", "PLANETS orbit")


_EXAMPLE = """
from causal_oracle.entry import default
print(default().answer("Given a DAG (directed acyclic graph) with nodes Z, F, D, S, E and "
                       "directed edges F->D, Z->F, F->S, E->S, Z->E.\\nFind another graph "
                       "that belongs to the same Markov Equivalent Class of the given "
                       "graph.").answer_text)
"""


def test_a_chosen_example_does_not_depend_on_the_process() -> None:
    outs = {subprocess.run([sys.executable, "-c", _EXAMPLE], check=True, capture_output=True,
                           text=True, timeout=120,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout
            for seed in ("0", "1", "2", "3", "4", "5")}
    assert len(outs) == 1, outs
