"""CaLM's answer phrases: the data its scorer reads model replies with.

CaLM (Chen et al. 2024, "CaLM: Causal Evaluation of Language Models", Apache-2.0, the
causal suite OpenCompass ships) reads a reply by looking for fixed phrases: a reply that
*opens* with the tail of an answer line ("answer (yes or no?): yes", …), or that contains
a phrase of a list ("answer is yes", "答案是“是", …).  The tuples below are those phrases,
in CaLM's order (order matters: its scorer stops at the first phrase of a list that
occurs), taken unchanged from its ``evaluation/labeling/common_answers.py`` and the
task modules that extend them — including phrases that occur twice and the few that
CaLM's source glued together by a missing comma, since its scorer reads them so.
``parser.calm_rules`` applies them; nothing here decides anything.

Each ``*_OPENINGS`` entry is ``(k, lines)``: a reply opening with any tail of at least
``k`` characters of one of ``lines`` reads as that answer.

Copyright 2024 OpenCausaLab (CaLM), Apache License 2.0; data reproduced with attribution.
"""

#: phrases read as yes anywhere in a reply (``common_true_list``), in CaLM's order
YES_PHRASES: tuple[str, ...] = (
    "answer (yes or no?): yes", "answer (yes or no? ): yes", "answer (yes or no ?): yes",
    "answer (yes or no ? ): yes", "answer is yes", "\"yes\"", "say yes", "as follows:\n\nyes",
    "answer: yes", "answer is: yes", "answer is:\n\nyes", "answer is:\nyes", "answer is \"yes\"",
    "should be yes", "is yes", "chose yes", "\n\nyes", "the correct answer is yes",
    "is identified", "is identifiable", "does cause", "答案是:是", "答案是:\n\n是", "“是”",
    "答案：是", "答案是:\n是", "答案:是", "答案是是", "\"是\"", "是的", "方法1比方法2更准确",
    "答：\n\n是", "答案为：是", "```\nyes\n\n```", "answer (yes or no?):yes",
    "answer (yes or no? ):yes", "answer (yes or no ?):yes", "answer (yes or no ? ):yes",
    "output: yes", "answer (yes or no?): yes", "answer is yes", "\"yes\"", "say yes",
    "as follows:\n\nyes", "answer: yes", "answer is: yes", "answer is:\n\nyes", "answer is:\nyes",
    "“是”", "答案：是", "answer (yes or no?): yes", "answer is yes", "\"yes\"", "answer: yes",
    "answer is: yes", "answer is:\n\nyes", "answer is:\nyes", "答案是:是", "答案是:\n\n是",
    "答案是:\n是", "答案:是", "答案是是", "\"是\"", "是的", "答案: 是", "回答是:是",
    "answer (yes or no?): yes", "answer is yes", "\"yes\"", "answer: yes", "answer is: yes",
    "answer is:\n\nyes", "answer is:\nyes", "答案是:是", "答案是:\n\n是", "答案是:\n是", "答案:是",
    "答案是是", "\"是\"", "是的", "答案: 是", "answer (yes or no?): yes",
    "answer (yes or no ?): yes", "answer is yes", "\"yes\"", "answer: yes", "answer is: yes",
    "answer is:\n\nyes", "so yes", "therefore, yes", "answer is:\nyes", "method 1 is correct",
    "correct to use method 1", "chose yes", "yes, it would", "答案是:是", "答案是:\n\n是",
    "答案是:\n是", "答案:是", "答案是是", "\"是\"", "是的", "方法1比方法2更准确", "答案: 是",
    "回答是:是", "答案为“是", "答案是“是", "答案应该是“是", "答案都是“是", "答案(是)",
    "答案是肯定", "答案是：是", "答案：是", "答案是:“是", "答案为:是", "答案是「是", "答案为 “是",
    "存在因果关系", "答案是真", "因此是“是", "答案为“有", "答案是是", "答案为“(是", "答案为\"\"是",
    "答案是:“是", "答案应为:\"是", "答案应为\"是", "答案为:是", "答案是:\"是", "答案应该是\"是",
    "答案为“yes", "具有因果关系", "答案是 “是", "答案“是", "答案必须是“yes", "答案处为“是",
    "答案应是“是", "答案為“是", "答案可以是“是", "答案的是“是", "答案为「是", "案为“\"是",
    "答案为 \"是", "答案是有", "答案是： 是", "答案为：是", "答案是对", "答案是：是",
    "答案是：\n是", "答案应为“是", "答案：是", "答案应该是“是", "答案(是或否？)：是的",
    "答案\"是\"", "答案都是\"是", "答案为是", "答案为 “是", "答案为\"是", "答案为“是",
    "答案是\"是\"", "答案是“是", "答案是“是”", "answer (yes )", "answering your query, yes",
    "so yes", "henceforth answering yes", "hence yes", "answer (yes)", "in short, yes",
    "hence - yes", "correct response should be yes", "thus, yes", "in short - yes",
    "答案是：\n\nyes", "leading us to believe yes!", "hence answering yes",
    "therefore should read - yes", "hence y es", "therefore, yes", "therefore yes",
    "the correct response should be marked as “yes.", "thus - yes", "the answer is \"yes.\"",
    "therefore, the answer is \"yes,\"", "answer (yes or no ? ) : yes", "answe: yes",
    "thus answering 'yes'", "thus answering yes", "thereby answering yes",
    "answer would thus be yes", "so answering 'yes'", "hence answering 'yes'",
    "therefore answering 'yes", "confirming our answer yes",
    "an answer for this question would be yes", "answer would be: yes", "implying a yes answer",
    "making the answer yes", "incident does have a causal relationship",
    "the cause and effect relationship exists", "there is a direct cause relationship",
    "must have a causal relationship", "answer would be yes",
    "a causal relationship exists between", "answer(yes", "answer for this question is yes",
    "answer (yes", "answer here is `yes`", "answer might be yes", "answer is a yes",
    "the answer yes", "henceforth – yes", "thus indicating yes", "hence indicating yes",
    "it's safe to say yes", "hence it's 'yes'", "thus answering 'yes’", "so it’s yes",
    "thus it can be said yes", "the correct response is yes", "answering the question with a yes",
    "the correct answer would be \"yes", "the answer is \"yes”", "answer \"yes",
    "the answer as yes", "the answer to the question yes", "the answer is causality",
    "the answer is yes", "the answer is \"yes", "答案是:是",
)

#: phrases read as no anywhere in a reply (``common_false_list``)
NO_PHRASES: tuple[str, ...] = (
    "answer (yes or no?): no", "answer (yes or no? ): no", "answer (yes or no ?): no",
    "answer (yes or no ? ): no", "answer is no", "\"no\"", "say no", "as follows:\n\nno",
    "answer: no", "answer is: no", "answer is:\n\nno", "answer is:\nno", "should be no",
    "answer is \"no\"", "is no", "chose no", "\n\nno", "the correct answer is no.",
    "is not identified", "答案是:否", "答案是：否", "答：否", "答案是:\n\n否", "“否”", "答案：否",
    "答案是:\n否", "答案:否", "答案是否", "\"否\"", "答案：不是", "回答是:否", "答：\n\n否",
    "不会导致", "```\nno\n\n```", "answer (yes or no?):no", "answer (yes or no? ):no",
    "answer (yes or no ?):no", "answer (yes or no ? ):no", "output: no", "answer (yes or no?): no",
    "answer is no", "\"no\"", "say no", "as follows:\n\nno", "answer: no", "answer is: no",
    "answer is:\n\nno", "answer is:\nno", "“否”", "答案：否", "答案：不是",
    "answer (yes or no?): no", "answer is no", "\"no\"", "answer: no", "answer is: no",
    "answer is:\n\nno", "answer is:\nno", "does not cause", "答案是:否", "答案是:\n\n否",
    "答案是:\n否", "答案:否", "答案是否", "\"否\"", "并没有导致", "回答是:否", "答案: 否",
    "不会导致", "回答是:\n\n否", "回答是:\n否", "answer (yes or no?): no", "answer is no",
    "\"no\"", "answer: no", "answer is: no", "answer is:\n\nno", "answer is:\nno", "答案是:否",
    "答案是:\n\n否", "答案是:\n否", "答案:否", "答案是否", "\"否\"", "回答是:否", "答案: 否",
    "answer (yes or no?): no", "answer is no", "\"no\"", "answer: no", "answer is: no",
    "answer is:\n\nno", "answer is:\nno", "method 2 is correct", "correct to use method 2",
    "chose no", "答案是:否", "答案是:\n\n否", "答案是:\n否", "答案:否", "答案是否", "\"否\"",
    "回答是:否", "方法2比方法1更准确", "方法2", "答案是:否", "答案是:\n\n否", "答案是:\n否",
    "答案:否", "答案是否", "\"否\"", "并没有导致", "回答是:否", "答案: 否", "不会导致",
    "回答是:\n\n否", "回答是:\n否", "答案为“否", "答案是“否", "答案是：\n\n- 否", "答案是：否",
    "答案为：否", "答案：否", "答案(是或否？)：否", "答案是不", "答案应该是“否", "答案应为否",
    "答案应该是\"否", "答案应为“否", "答案为否", "answering your query - no",
    "the answer is \"no.\"", "the answer is therefore no", "hence answering no",
    "hence answering 'no'", "answer should read : no", "therefore answer would be no",
    "answers should read 'no", "answer would need to be no", "answering your above query : no",
    "answer would be no", "therefore, answering 'no", "answer:no", "answer should remain no",
    "the answer to this question would be no", "answer is:no", "answer is therefore \"no.\"",
    "making the answer no", "answer(no)", "answer is, no", "answer might be \"no.\"",
    "answer it as no", "should be the answer no", "answering no", "thus answering 'no'",
    "thus, no", "therefore 'no'", "the answer can be no", "answer is “no",
    "the answer is mostly no", "answer is probably not", "answer is \"no", "答案是“否”",
    "答案（是或否？）：否", "答案是\"否\"", "答案为\"否\"", "答案是否", "答案为“否", "答案为“不",
    "答案为“没有", "答案“否", "答案为“非”", "答案为“无”", "答案为”否", "答案为 \"否", "答案为否",
    "答案是\\”否", "答案应该是“否", "答案是：\nno", "答案是：\n否", "答案是：\n不", "答案：否",
    "答案应为“非", "答案\"否", "答案为**否", "答案在“否", "答案可能为“否", "答案返回“否",
    "答案为\"否", "答案是“不", "答案应该为“否", "答案为'否", "答案为不存  在", "答案应为“否",
    "答案为《否", "答案是“无", "答案为\\“否", "答案将是“否", "答案还是“否", "答案：“不",
    "答案 为“否", "答案应该是否", "the answer is no", "不存在“因果”关系", "答案应为\"否",
    "答案应该是\"否", "答案是:否", "答案为:否", "答案选择\"否", "答案是:\"否", "答案应该为\"否",
    "答案应为\"否", "答案选择为:否", "答案为 “否", "答案为“非", "答案为“没",
)

#: phrases read as option 1 (``common_option_1_list``)
OPTION_1_PHRASES: tuple[str, ...] = (
    "answer (option 1 or 2 or 3 or 4 ?): option 1", "(option 1 or 2 or 3 or 4?): option 1",
    "answer (option 1 or 2 or 3 ?): option 1", "(option 1 or 2 or 3?): option 1",
    "answer (option 1 or option 2 ?): option 1", "answer (option 1 or option 2?): option 1",
    "should be 1", "is 1", "option 1", "answer is 1", "option one",
    "the correct answer is \"option 1", "正确答案是选项一", "答案为选项一", "应该选择选项一",
    "答案：选项一", "答案: 选项一", "答案:选项一", "答案是选项一", "选项一是正确", "选择选项一",
    "我认为选项一", "我的回答是选项一", "我的回答是:选项一", "option 1", "answer is 1",
    "option one", "答案：选项一", "option  1", "option#1", "选项1是最符合", "答案是选项1",
    "答案为选项1", "选项1是正确", "答案应该是选项1", "答案是选项 1",
    "answer is therefore option 1", "答案为选项一", "答案（选项一）", "选项一正确", "选选项一",
    "答案选项一", "即选项一", "答案是：\n选项一", "答案为选项一", "是选项一", "选项一是正确",
    "选项一为正确", "选项一的答案是正确", "答案为选项一", "答案:选项一", "是:选项一",
    "答案: 选项一",
)

#: phrases read as option 2 (``common_option_2_list``)
OPTION_2_PHRASES: tuple[str, ...] = (
    "answer (option 1 or option 2 ?): option 2", "answer (option 1 or option 2?): option 2",
    "answer (option 1 or 2 or 3 or 4 ?): option 2", "(option 1 or 2 or 3 or 4?): option 2",
    "answer (option 1 or 2 or 3 ?): option 2", "(option 1 or 2 or 3?): option 2", "should be 2",
    "is 2", "option 2", "answer is 2", "option two", "the correct answer is \"option 2",
    "正确答案是选项二", "答案为选项二", "应该选择选项二", "答案：选项二", "答案: 选项二",
    "答案:选项二", "答案是选项二", "选项二是正确", "选择选项二", "我认为选项二",
    "我的回答是选项二", "我的回答是:选项二", "option 2", "answer is 2", "option two",
    "答案：选项二", "option ##two##", "选项2是满足", "答案是选项2", "答案是选项 2", "答案为选项二",
    "答案是选项二", "是选项二", "答案（选项二）", "选项二正确", "选选项二", "答案选项二",
    "即选项二", "答案是：\n选项二", "答案为选项二", "选项二是正确", "选项二为正确", "答案为选项二",
    "答案:选项二", "是:选项二", "答案: 选项二",
)

#: phrases read as option 3 (``common_option_3_list``)
OPTION_3_PHRASES: tuple[str, ...] = (
    "answer (option 1 or 2 or 3 or 4 ?): option 3", "(option 1 or 2 or 3 or 4?): option 3",
    "answer (option 1 or 2 or 3 ?): option 3", "(option 1 or 2 or 3?): option 3", "should be 3",
    "is 3", "option 3", "answer is 3", "option three", "正确答案是选项三", "答案为选项三",
    "应该选择选项三", "答案：选项三", "答案: 选项三", "答案:选项三", "答案是选项三",
    "选项三是正确", "选择选项三", "我认为选项三", "我的回答是选项三", "我的回答是:选项三",
    "option 3", "answer is 3", "option three", "答案：选项三", "答案是选项3", "选项 3 是正确",
    "选项3是正确", "答案是选项 3", "答案为选项三", "答案是选项三", "是选项三", "选项三正确",
    "选选项三", "答案选项三", "即选项三", "答案是：\n选项三", "答案为选项三", "选项三是正确",
    "选项三为正确", "答案为选项三", "答案:选项三", "是:选项三", "答案: 选项三",
)

#: answer lines whose tails open a yes reply (``common_start_true_dict``)
YES_OPENINGS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, (
        "答案（是或否？）：是", "答案（是或否？）：- 是", "答案（是或否？）：\n\n是", "有",
    )),
    (3, (
        "answer (yes or no?): yes", "answer (yes or no? ): yes", "answer (yes or no ?): yes",
        "answer (yes or no ? ): yes", "answer (yes or no?): \n\nyes",
        "answer (yes or no? ): \n\nyes", "answer (yes or no ?): \n\nyes",
        "answer (yes or no ? ): \n\nyes", "answer (yes or no?):yes", "answer (yes or no? ):yes",
        "answer (yes or no ?):yes", "answer (yes or no ? ):yes", "answer (yes or no?): - yes",
        "answer (yes or no? ): - yes", "answer (yes or no ?): - yes",
        "answer (yes or no ? ): - yes", "答案为“是”",
    )),
    (4, (
        "answer (yes or no?): true", "answer (yes or no? ): true", "answer(yes;", "answer(yes)",
    )),
    (5, (
        "answer (yes )",
    )),
)

#: the same for no (``common_start_false_dict``)
NO_OPENINGS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, (
        "答案（是或否？）：否", "答案（是或否？）：- 否", "答案（是或否？）：\n\n否",
        "答案（是或否？）：不", "答案（是或否？）：- 不", "无",
    )),
    (2, (
        "答案（是或否？）：不是", "答案（是或否？）：- 不是", "answer (yes or no?): no",
        "answer (yes or no? ): no", "answer (yes or no ?): no", "answer (yes or no ? ): no",
        "answer (yes or no?):no", "answer (yes or no? ):no", "answer (yes or no ?):no",
        "answer (yes or no ? ):no", "answer (yes or no?): \n\nno", "answer (yes or no? ): \n\nno",
        "answer (yes or no ?): \n\nno", "answer (yes or no ? ): \n\nno",
        "answer (yes or no?): - no", "answer (yes or no? ): - no", "answer (yes or no ?): - no",
        "answer (yes or no ? ): - no",
    )),
    (3, (
        "答案为“否”", "answer (no)", "answer(no)",
    )),
    (4, (
        "answer (no )", "answe r(no )",
    )),
    (5, (
        "answer (yes or no?): false", "answer (yes or no? ): false",
    )),
)

#: the same for option 1 (``common_start_op1_dict``)
OPTION_1_OPENINGS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, (
        "答案（选项一或选项二或选项三？）：选项一", "答案（选项一或选项二或选项三？）： 选项一",
        "答案（选项一或选项二或选项三？）：一", "答案（选项一或选项二或选项三？）： 一",
        "answer (option 1 or 2 or 3?) : option 1", "answer (option 1 or 2 or 3?) : option1",
        "answer (option 1 or 2 or 3?):1", "answer (option 1 or 2 or 3?): 1",
        "答案（选项一或选项二或选项三或选项四？）：选项一",
        "答案（选项一或选项二或选项三或选项四？）： 选项一",
        "答案（选项一或选项二或选项三或选项四？）：一",
        "答案（选项一或选项二或选项三或选项四？）： 一",
        "answer (option 1 or 2 or 3 or 4?) : option 1",
        "answer (option 1 or 2 or 3 or 4?) : option1", "answer (option 1 or 2 or 3 or 4?):1",
        "answer (option 1 or 2 or 3 or 4?): 1", "答案（选项一或选项二？）：选项一",
        "answer (option 1 or option 2) : option 1", "answer (option 1 or option 2) : option1",
        "answer: option 1", "the correct answer is option 1", "the answer is option 1",
    )),
    (3, (
        "answer (option 1 or 2 or 3?) : option one",
        "answer (option 1 or 2 or 3 or 4?) : option one",
        "answer (option 1 or option 2) : option one",
    )),
)

#: the same for option 2 (``common_start_op2_dict``)
OPTION_2_OPENINGS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, (
        "答案（选项一或选项二或选项三？）：选项二", "答案（选项一或选项二或选项三？）： 选项二",
        "答案（选项一或选项二或选项三？）：二", "答案（选项一或选项二或选项三？）： 二",
        "answer (option 1 or 2 or 3?) : option 2", "answer (option 1 or 2 or 3?) : option2",
        "answer (option 1 or 2 or 3?):2", "answer (option 1 or 2 or 3?): 2",
        "答案（选项一或选项二或选项三或选项四？）：选项二",
        "答案（选项一或选项二或选项三或选项四？）： 选项二",
        "答案（选项一或选项二或选项三或选项四？）：二",
        "答案（选项一或选项二或选项三或选项四？）： 二",
        "answer (option 1 or 2 or 3 or 4?) : option 2",
        "answer (option 1 or 2 or 3 or 4?) : option2", "answer (option 1 or 2 or 3 or 4?):2",
        "answer (option 1 or 2 or 3 or 4?): 2", "答案（选项一或选项二？）：选项二",
        "answer (option 1 or option 2) : option 2", "answer (option 1 or option 2) : option2",
        "answer: option 2", "the correct answer is option 2", "the answer is option 2",
    )),
    (3, (
        "answer (option 1 or 2 or 3?) : option two",
        "answer (option 1 or 2 or 3 or 4?) : option two",
        "answer (option 1 or option 2) : option two",
    )),
)

#: the same for option 3 (``common_start_op3_dict``)
OPTION_3_OPENINGS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, (
        "答案（选项一或选项二或选项三？）：选项三", "答案（选项一或选项二或选项三？）： 选项三",
        "答案（选项一或选项二或选项三？）：三",
        "答案（选项一或选项二或选项三？）： 三answer (option 1 or 2 or 3?) : option 3",
        "answer (option 1 or 2 or 3?) : option3", "answer (option 1 or 2 or 3?):3",
        "answer (option 1 or 2 or 3?): 3", "答案（选项一或选项二或选项三或选项四？）：选项三",
        "答案（选项一或选项二或选项三或选项四？）： 选项三",
        "答案（选项一或选项二或选项三或选项四？）：三",
        "答案（选项一或选项二或选项三或选项四？）： 三answer (option 1 or 2 or 3 or 4?) : option 3",
        "answer (option 1 or 2 or 3 or 4?) : option3", "answer (option 1 or 2 or 3 or 4?):3",
        "answer (option 1 or 2 or 3 or 4?): 3",
    )),
    (5, (
        "answer (option 1 or 2 or 3?) : option three",
        "answer (option 1 or 2 or 3 or 4?) : option three",
    )),
)

#: CEI-B's own yes phrases, searched before the common ones
CEI_YES_PHRASES: tuple[str, ...] = (
    "can be identified", "可以被识别", "能被识别", "answer (yes or no?): yes", "answer is yes",
    "\"yes\"", "answer: yes", "answer is: yes", "answer is:\n\nyes", "answer is:\nyes",
    "is identified.", "can be identified", "可以被识别", "能被识别", "答案是:是", "答案是:\n\n是",
    "答案是:\n是", "答案:是", "答案是是", "\"是\"", "是的", "答案为“是”", "答案是“是”", "可以识别",
    "答案：是", "答案：可以", "答案：“是”", "thus answering yes", "henceforth; answering yes",
    "by answering yes", "answeristheyes", "answer would be yes", "answer (yes)",
    "hence answering yes", "hence my answer yes", "answer would definitely become yes",
    "answer remains yes", "my answer was 'yes'", "thus concludes our answer yes",
    "must answer yes", "answer should be 'yes'", "answer remains 'yes'",
    "henceforth answering yes", "answer should be marked yes", "answer comes out yes",
    "should answer 'yes", "our answer should be yes", "you should answer yes",
    "concluding answer - yes", "answer should indeed say yes", "answer : yes",
    "answer should also be yes", "hence answering yes", "the answer is trivially yes",
    "answer:  yes", "the answer is (yes)", "答案应为“是”",
)

#: CEI-B's own no phrases
CEI_NO_PHRASES: tuple[str, ...] = (
    "not identified", "不能被识别", "无法被识别", "answer (yes or no?): no", "answer is no",
    "\"no\"", "answer: no", "answer is: no", "answer is:\n\nno", "answer is:\nno",
    "not identified", "不能被识别", "无法被识别", "答案是:否", "答案是:\n\n否", "答案是:\n否",
    "答案:否", "答案是否", "\"否\"", "回答是:否", "答案为“否”", "答案是“否”", "因果效应不可被识别",
    "答案：否", "答案：无法识别", "不存在可识别的因果效应", "doesn't have a causal relationship",
    "the correct answer should be no", "answer would be no", "hence answering no",
    "answering your query 'no'", "therefore answering no", "answer would be “no”",
    "thus answering no", "this answers no", "thus, answering no", "answer should also be no",
    "answer would also turn out to be no", "answer would have to be no", "answer would be – no",
    "thus answering “no”", "answer = no", "answer should be no", "answer would definitely be no",
    "answer would need to be no", "answer would need to be marked no", "hence why i answered “no",
    "hence answering 'no'", "answer must necessarily remain no", "answer should marked no",
    "answer would most likely be no", "answer would also be no",
    "answer for now might have to be `no`", "henceforth - answer no", "answer could only be no",
    "answer would also be no", "henceforth answering “no", "answer would be no",
    "hence answering no", "cannot be identified", "answer (yes or no ?): no", "答案为“不”",
    "henceforth answering no", "答案为:否", "答案应该是“否", "因果效应不可被",
)

#: the CLadder-derived tasks' own yes phrases
CLADDER_YES_PHRASES: tuple[str, ...] = (
    "method 1 is more correct", "使用方法1更准确",
)

#: the CLadder-derived tasks' own no phrases
CLADDER_NO_PHRASES: tuple[str, ...] = (
    "method 2 is more correct", "method 2 is correct", "correct to use method 2",
    "方法2比方法1更准确", "方法2",
)

#: causal attribution's own yes phrases (FA and FP alike)
CA_YES_PHRASES: tuple[str, ...] = (
    "serves as the parent node of", "serves as a parent node of",
)
