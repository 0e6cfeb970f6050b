"""The words the English claim reader knows besides the templates' own (``claims.lark``).

``parser.claims_text`` cuts a reply into clauses with these lists: arrows as models
write them, contractions and number words it rewrites, filler it drops, the hedges that
make a sentence claim nothing, the discourse leads it strips from a clause's start, the
verbs that show a comma starts a new clause, and the words that introduce a variable's
name.  Data only: one list per role, each read by one pass of the clause cutter.
"""

from __future__ import annotations

#: arrows as written → the arrow the templates use
ARROWS = (("<->", "<->"), ("<-->", "<->"), ("-->", "->"), ("->", "->"), ("<--", "<-"),
          ("<-", "<-"), ("--", "--"), ("→", "->"), ("⟶", "->"), ("←", "<-"),
          ("⟵", "<-"), ("↔", "<->"), ("⟷", "<->"), ("–", "--"), ("—", "--"), ("-", "--"))
#: words rewritten as the templates' words
CONTRACTIONS = {"isn't": ("is", "not"), "aren't": ("are", "not"), "doesn't": ("does", "not"),
                "don't": ("do", "not"), "can't": ("can", "not"), "cannot": ("can", "not"),
                "wasn't": ("was", "not"), "weren't": ("were", "not"),
                "non-adjacent": ("not", "adjacent"), "nonadjacent": ("not", "adjacent"),
                "back-door": ("backdoor",), "front-door": ("frontdoor",),
                "d-separate": ("d-separates",), "uncorrelated": ("not", "correlated"),
                "unconfounded": ("not", "confounded"), "v-structure": ("collider",),
                "unidentifiable": ("not", "identifiable"), "non-identifiable":
                ("not", "identifiable"), "unblocked": ("open",), "doesnt": ("does", "not"),
                "isnt": ("is", "not")}
#: number words read as numbers
NUMBER_WORDS = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
                "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10"}
#: words that carry no claim: dropped everywhere
FILLER = frozenset({"the", "a", "an", "also", "indeed", "actually", "really", "clearly",
                    "obviously", "both", "definitely", "certainly", "just", "still",
                    "itself", "therefore", "thus", "hence"})
#: filler whose characters belong to the claim's span ("The edge …")
ARTICLES = frozenset({"the", "a", "an"})
#: a clause with one of these hedges: it claims nothing checkable
HEDGES = frozenset({"might", "may", "could", "if", "suppose", "supposing", "assume",
                    "assuming", "perhaps", "possibly", "probably", "likely", "unless",
                    "whether", "maybe", "would", "necessarily", "seems", "seem",
                    "unclear", "unknown", "hypothesize", "assumption"})
#: discourse leads stripped from a clause's start ("In other words, …")
LEAD_PHRASES = (("in", "other", "words"), ("as", "result"), ("this", "means", "that"),
                ("this", "means"), ("which", "means", "that"), ("which", "means"),
                ("that", "means"), ("we", "know", "that"), ("we", "can", "see", "that"),
                ("we", "see", "that"), ("we", "can", "conclude", "that"),
                ("we", "conclude", "that"), ("it", "follows", "that"),
                ("this", "shows", "that"), ("this", "implies", "that"), ("note", "that"),
                ("we", "find", "that"), ("we", "have"), ("in", "conclusion"),
                ("premise", "states", "that"), ("premise", "states"), ("premise", "says"),
                ("premise", "says", "that"), ("since",), ("that",), ("graph", "has", "edges"),
                ("edges", "are"), ("graph", "is"), ("we", "get"), ("that", "is"),
                ("i", "e"),
                ("given", "that"), ("we", "are", "told", "that"), ("recall", "that"),
                ("in", "summary"), ("to", "summarize"), ("it", "is", "clear", "that"),
                ("it", "is", "true", "that"), ("this", "is", "because"), ("because",),
                ("so",), ("thus",), ("therefore",), ("hence",), ("however",), ("but",),
                ("and",), ("rather",), ("then",), ("consequently",), ("moreover",),
                ("furthermore",), ("finally",), ("next",), ("now",), ("overall",),
                ("similarly",), ("additionally",), ("instead",), ("also",),
                ("first",), ("second",), ("third",), ("lastly",))
#: the leads by their first word, longest first
LEADS_BY_WORD: dict[str, list[tuple[str, ...]]] = {}
for _phrase in sorted(LEAD_PHRASES, key=len, reverse=True):  # longest first
    LEADS_BY_WORD.setdefault(_phrase[0], []).append(_phrase)
#: a name followed by one of these after a comma starts a clause ("…, A is independent of B")
VERBS = frozenset({"is", "are", "was", "were", "causes", "cause", "correlates", "directly",
                   "does", "do", "has", "have", "affects", "influences", "depends",
                   "mediates", "confounds", "points", "blocks", "d-separates", "isn't",
                   "doesn't", "aren't"})
#: words after which a one-letter name is a variable ("node a")
INTRODUCERS = frozenset({"node", "nodes", "variable", "variables", "vertex", "vertices"})

__all__ = ["ARROWS", "ARTICLES", "CONTRACTIONS", "FILLER", "HEDGES", "INTRODUCERS",
           "LEADS_BY_WORD", "LEAD_PHRASES", "NUMBER_WORDS", "VERBS"]
