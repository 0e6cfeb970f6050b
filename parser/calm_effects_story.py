"""The parts of a CaLM effect item read by scanning, before the grammar: the story's
graph, the instruction's treatment and outcome, a record's ``Background``, and the item's
own text inside a rendered prompt.

The names of the variables are not known in advance (they are free text: "the ceo of a
company", 父母收入水平), so they are read first from the places where they stand
between fixed words — the story "X has a direct effect on Y." / "X对Y有直接影响。", the
instruction "… (ATE) of X on Y." / "考虑X作用于Y的…" and, in a record, the
``real_world_meaning`` "A represents X, B represents Y and C represents Z." — and only
then is every other sentence parsed, with the names replaced by placeholders
(``parser.calm_effects``).  Every scan here is a bounded walk over ``str.find``.
"""

from __future__ import annotations

from dataclasses import dataclass

from causal_oracle.oracle.calm.effects_model import EffectKind, Lang
from causal_oracle.oracle.errors import quote
from causal_oracle.parser.errors import ParseError

STORY_HEAD = {
    Lang.EN: "Imagine a self-contained, hypothetical world with only the following "
                 "conditions, and without any unmentioned factors or causal relationships:",
    Lang.CN: "设想一个只有以下条件，而没有其他因素或因果关系的假设世界：",
}
EDGE_EN = " has a direct effect on "
EDGE_CN = ("对", "有直接影响")

#: at most this many variables and edges in a story (CaLM's largest graphs have ~12 nodes):
#: the name scan is linear in the text times the number of names
MAX_NAMES = 64
MAX_EDGES = 256

PROMPT_HEAD = {Lang.EN: "Input Info:", Lang.CN: "输入信息："}
PROMPT_FIELDS = {Lang.EN: ("Instruction:", "Question:"), Lang.CN: ("指令：", "问题：")}


@dataclass(frozen=True, slots=True)
class ItemText:
    """The four texts a CaLM effect prompt is made of."""

    language: Lang
    story: str
    data: str
    instruction: str
    question: str


def fail(what: str, why: str, text: str) -> ParseError:
    return ParseError(f"cannot parse {what}: {why} in {quote(text)}", what=what)


def key_of(name: str, language: Lang) -> str:
    """The form names are compared in: case-insensitively (a sentence capitalises its
    first word, in Chinese stories too: "Musg对xrdt有直接影响"), blanks collapsed."""
    del language  # one rule for both languages
    return " ".join(name.split()).lower()


def read_story(story: str, language: Lang, known: tuple[str, ...] = ()
               ) -> tuple[list[str], list[tuple[int, int]]]:
    """Names (in order of first mention) and edges of the story's graph (``known``: names
    read elsewhere, which settle where a Chinese sentence splits)."""
    text = story.strip()
    head = STORY_HEAD[language]
    if text.startswith(head):
        text = text[len(head):]
    names: list[str] = []
    index: dict[str, int] = {}

    def node(raw: str) -> int:
        k = key_of(raw, language)
        if not k:
            raise fail("story", "an empty variable name", story)
        if k not in index:
            index[k] = len(names)
            names.append(k)
        return index[k]

    edges: list[tuple[int, int]] = []
    if language is Lang.EN:
        pos = 0
        while len(edges) <= MAX_EDGES:
            mid = text.find(EDGE_EN, pos)
            if mid < 0:
                break
            end = text.find(".", mid + len(EDGE_EN))
            while end >= 0 and end + 1 < len(text) and not text[end + 1].isspace():
                end = text.find(".", end + 1)  # a dot inside a name ("U.S.")
            if end < 0:
                raise fail("story", "a sentence without its final '.'", story)
            edges.append((node(text[pos:mid]), node(text[mid + len(EDGE_EN):end])))
            pos = end + 1
        rest = text[pos:].strip()
    else:
        pairs, rest = _cn_edges(text, known)
        edges = [(node(a), node(b)) for a, b in pairs]
    if len(names) > MAX_NAMES or len(edges) > MAX_EDGES:
        raise fail("story", f"more than {MAX_NAMES} variables or {MAX_EDGES} edges", story)
    if rest:
        raise fail("story", "a sentence that states no direct effect", rest)
    return names, edges


def _cn_edges(text: str, known: tuple[str, ...]) -> tuple[list[tuple[str, str]], str]:
    """The (cause, effect) pairs of "A对B有直接影响。" sentences.  A name may itself contain
    对 (顾客对产品的满意度), so each sentence has a cut at every 对 with text on both
    sides; the cut chosen is the one whose two sides are most often names elsewhere (a
    side of another sentence's possible cut, or ``known``), the first cut on a tie."""
    cuts: list[list[tuple[str, str]]] = []
    if text.count("。") > MAX_EDGES:
        raise fail("story", f"more than {MAX_EDGES} edges", text)
    for sentence in text.split("。"):
        sentence = sentence.strip()
        if not sentence:
            continue
        if not sentence.endswith(EDGE_CN[1]):
            return [], sentence
        body = sentence[: -len(EDGE_CN[1])]
        options = []
        pos = body.find(EDGE_CN[0])
        while pos >= 0:
            a, b = key_of(body[:pos], Lang.CN), key_of(body[pos + 1:], Lang.CN)
            if a and b:
                options.append((a, b))
            pos = body.find(EDGE_CN[0], pos + 1)
        if not options:
            return [], sentence
        cuts.append(options)
    pairs = []
    for i, options in enumerate(cuts):
        pool = {key_of(k, Lang.CN) for k in known}
        for j, other in enumerate(cuts):
            if j != i:
                pool.update(side for pair in other for side in pair)
        pairs.append(max(options, key=lambda p: (p[0] in pool) + (p[1] in pool)))
    return pairs, ""


INSTRUCTION_KIND = {kind.value: kind for kind in EffectKind}


def read_instruction(text: str, language: Lang, known: list[str]
                     ) -> tuple[EffectKind, str, str]:
    """The task, the treatment and the outcome the instruction names."""
    text = text.strip()
    if language is Lang.EN:
        if not text.startswith("Consider the ") or not text.endswith("."):
            raise fail("instruction", "not 'Consider the … of X on Y.'", text)
        close = text.find(") of ")
        open_ = text.rfind("(", 0, close)
        if close < 0 or open_ < 0:
            raise fail("instruction", "no '(ABBR) of'", text)
        abbr, pair = text[open_ + 1:close], text[close + len(") of "):-1]
        treatment, outcome = split_pair(pair, " on ", known, language, text)
    else:
        if not text.startswith("考虑") or "作用于" not in text:
            raise fail("instruction", "not '考虑X作用于Y的…'", text)
        close = text.rfind(")")
        comma = text.rfind(", ", 0, close)
        abbr = text[comma + 2:close] if comma >= 0 else ""
        body = text[2:]
        cut = body.find("作用于")
        treatment = key_of(body[:cut], language)
        rest = body[cut + 3:]
        outcome = ""
        for name in sorted(known, key=len, reverse=True):
            if rest.startswith(name + "的"):
                outcome = name
                break
        if not outcome:
            for tail in ("的“", "的必要性概率", "的充分性概率"):
                at = rest.find(tail)
                if at > 0:
                    outcome = rest[:at]
                    break
        if not outcome:
            raise fail("instruction", "no outcome before '的'", text)
    kind = INSTRUCTION_KIND.get(abbr)
    if kind is None:
        raise fail("instruction", f"an unknown task {abbr!r}", text)
    return kind, treatment, key_of(outcome, language)


def split_pair(pair: str, word: str, known: list[str], language: Lang,
               text: str) -> tuple[str, str]:
    """Split "X on Y" where either name may contain ``word``: the split whose both sides
    are known names, else the first."""
    cuts = []
    pos = pair.find(word)
    while pos >= 0:
        cuts.append(pos)
        pos = pair.find(word, pos + 1)
    if not cuts:
        raise fail("instruction", f"no {word.strip()!r} between treatment and outcome", text)
    for cut in cuts:
        a, b = key_of(pair[:cut], language), key_of(pair[cut + len(word):], language)
        if a in known and b in known:
            return a, b
    return key_of(pair[:cuts[0]], language), key_of(pair[cuts[0] + len(word):], language)


def split_prompt(prompt: str) -> ItemText:
    """The item's own text in a rendered CaLM effect prompt (any style: the item is the
    last 'Input Info:' block; in-context examples and adversarial replies come before)."""
    for language in (Lang.EN, Lang.CN):
        head = PROMPT_HEAD[language]
        start = prompt.rfind(head)
        if start < 0:
            continue
        body = prompt[start + len(head):]
        ins_word, q_word = PROMPT_FIELDS[language]
        at_ins = body.find("\n" + ins_word)
        at_q = body.find("\n" + q_word, at_ins + 1)
        if at_ins < 0 or at_q < 0:
            raise fail("prompt", f"no {ins_word!r} and {q_word!r} lines", prompt[start:])
        story, _, data = body[:at_ins].strip(" ").partition("\n")
        instruction = body[at_ins + 1 + len(ins_word):at_q].strip()
        q_line = body[at_q + 1 + len(q_word):]
        end = q_line.find("\n")
        q_line = q_line if end < 0 else q_line[:end]
        # the question ends at its question mark; zero-shot-CoT appends "Let's think step
        # by step." / "请逐步思考。" on the same line
        mark = max(q_line.rfind("?"), q_line.rfind("？"))
        question = (q_line if mark < 0 else q_line[:mark + 1]).strip()
        return ItemText(language, story.strip(), data.strip(), instruction, question)
    raise fail("prompt", "no 'Input Info:' / '输入信息：' block", prompt)


def read_background(graph: str, meaning: str, language: Lang
                    ) -> tuple[list[str], list[tuple[int, int]]]:
    """A record's ``Background``: names by letter and the edges 'A->B, …'."""
    head = "nodes " if language is Lang.EN else "个节点"
    at = graph.find(head)
    if at < 0:
        raise fail("graph", "no node list", graph)
    letters_end = graph.find(" and " if language is Lang.EN else "和", at)
    letters_text = graph[at + len(head):letters_end].rstrip(", ")
    letters = [p.strip() for p in letters_text.split(",") if p.strip()]
    word = " represents " if language is Lang.EN else "代表"
    starts = []
    for letter in letters:
        pos = meaning.find(f"{letter}{word}")
        if pos < 0:
            raise fail("real_world_meaning", f"no meaning of {letter}", meaning)
        starts.append(pos)
    names = []
    for i, pos in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(meaning)
        piece = meaning[pos + len(letters[i]) + len(word):end].strip()
        for tail in (" and", ",", ".", "。", "，"):
            if piece.endswith(tail):
                piece = piece[: -len(tail)].rstrip()
        names.append(key_of(piece, language))
    index = {letter: i for i, letter in enumerate(letters)}
    edges = []
    for arrow in graph[letters_end:].replace("。", ",").replace(".", ",").split(","):
        if "->" not in arrow:
            continue
        tail, _, head_ = arrow.partition("->")
        tail, head_ = trailing_letters(tail), head_.strip()
        if tail not in index or head_ not in index:
            raise fail("graph", f"an edge between unknown nodes {arrow!r}", graph)
        edges.append((index[tail], index[head_]))
    if len(names) > MAX_NAMES or len(edges) > MAX_EDGES:
        raise fail("graph", f"more than {MAX_NAMES} nodes or {MAX_EDGES} edges", graph)
    return names, edges


def trailing_letters(text: str) -> str:
    """The run of ASCII letters that ends ``text`` ("9条边A" → "A")."""
    text = text.rstrip()
    start = len(text)
    while start > 0 and text[start - 1].isascii() and text[start - 1].isalpha():
        start -= 1
    return text[start:]


_FORMAT = {
    (Lang.EN, False): 'Provide the calculation result to four decimal places and a final '
                      '"yes" or "no" answer in JSON format, like {"ANSWER": "Yes", '
                      '"PROB": "0.1234"}:',
    (Lang.EN, True): 'Provide the calculation result to four decimal places in JSON format, '
                     'like {"PROB": "0.1234"}:',
    (Lang.CN, False): '请根据上述信息，给出计算结果（答案保留四位小数），并给出最终答案“是“或”否“。'
                      '请以JSON格式返回最终结果，例如，{"ANSWER":"是","PROB":"0.1234"}：',
    (Lang.CN, True): '请根据上述信息，给出计算结果（答案保留四位小数）。请以JSON格式返回最终结果，'
                     '例如，{"PROB":"0.1234"}：',
}


def render_basic(item: ItemText, bound: bool) -> str:
    """The item as CaLM's ``basic`` style renders it (``prompt/ATE.py`` … ``PS.py``:
    one template for the five effects, one for PN/PS, each with its ``-CN`` twin)."""
    head = PROMPT_HEAD[item.language]
    ins, q = PROMPT_FIELDS[item.language]
    space = " " if item.language is Lang.EN else ""
    return (f"{head}{space}{item.story}\n{item.data}\n{ins}{space}{item.instruction}\n"
            f"{q}{space}{item.question}\n{_FORMAT[(item.language, bound)]}")
