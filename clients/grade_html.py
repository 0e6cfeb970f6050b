"""A self-contained HTML page of a graded file: ``causal-oracle grade FILE --html OUT``.

The page renders ``GradeFileResult.to_json()`` (``clients.grade_file``) through the
audit page's pieces (``clients.html_page``: the document, the counts table, the bar
charts, the filterable rows table with its drill-down), so its counts are the CLI's
table's and the JSON's, and it needs no network when viewed:

* **Summary** — one line overall (items, accuracy, the unreadable share, accuracy over
  readable replies, and, on the rows with a gold, accuracy by the oracle and by the
  file's gold side by side), then the counts table overall (cells ``id="count-<key>"``,
  the keys of the JSON summary), per family and per task.
* **Charts** — the grades (correct, wrong, UNREADABLE, ungradable, error) stacked per
  family and per task.
* **Rows** — every graded row: row, id, family, task, grade, what the reply was read
  as, the expected answer, the reason (an error row's error); wrong, unreadable and
  error rows first, then ungradable and correct ones, each in file order; a text filter
  and grade, family and task filters; clicking a row shows its record.
* **Reasoning** (``grade FILE --reasoning --html``) — the share of right answers that
  rest on a false claim, then each reply with a claim, its claim spans highlighted:
  green a true claim, red a false one, grey one the certificate cannot decide, with
  the claim's kind and why (a false claim's witness) on hover (``title``); rendered
  here, no script needed.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from causal_oracle.clients.grade_file import GradeFileResult
from causal_oracle.clients.html_page import bars, counts_table, findings_section, page
from causal_oracle.clients.outputs import atomic_output

#: the grades a row can have, in the order the rows table lists them, with their colours
GRADES = {"wrong": "#c62828", "UNREADABLE": "#616161", "error": "#000000",
          "ungradable": "#5d4037", "correct": "#2e7d32"}

#: the counts table's columns: the JSON summary's key, the heading
COLUMNS = (("items", "items"), ("errors", "errors"), ("ungradable", "ungradable"),
           ("scored", "scored"), ("unreadable", "unreadable"), ("correct", "correct"),
           ("accuracy", "accuracy"), ("unreadable_share", "unreadable share"),
           ("accuracy_readable", "accuracy over readable"), ("gold_rows", "rows with gold"),
           ("accuracy_oracle_on_gold_rows", "accuracy (oracle) on them"),
           ("accuracy_gold", "accuracy (file's gold) on them"))

_RATES = ("accuracy", "unreadable_share", "accuracy_readable",
          "accuracy_oracle_on_gold_rows", "accuracy_gold")


def percent(rate: float | None) -> str:
    """A rate as the page shows it (``-``: nothing to divide)."""
    return "-" if rate is None else f"{100 * rate:.1f}%"


def _cells(tally: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in tally.items() if k not in _RATES}
    out["unreadable"] = tally["scored"] - tally["readable"]
    out.update({k: percent(tally[k]) for k in _RATES})
    return out


def _grades(tally: dict[str, Any]) -> dict[str, int]:
    """A tally's rows by grade, for the bars."""
    return {"correct": tally["correct"], "wrong": tally["readable"] - tally["correct"],
            "UNREADABLE": tally["scored"] - tally["readable"],
            "ungradable": tally["ungradable"], "error": tally["errors"]}


def _overall(s: dict[str, Any]) -> str:
    line = (f"{s['items']} items: accuracy {percent(s['accuracy'])} "
            f"({s['correct']} of {s['scored']} scored), unreadable "
            f"{percent(s['unreadable_share'])}, accuracy over readable replies "
            f"{percent(s['accuracy_readable'])}")
    if s["gold_rows"]:
        line += (f"; on the {s['gold_rows']} rows with a gold: "
                 f"{percent(s['accuracy_oracle_on_gold_rows'])} by the oracle, "
                 f"{percent(s['accuracy_gold'])} by the file's gold")
    if s["errors"]:
        line += f"; {s['errors']} rows could not be graded"
    return line + "."


def _row(record: dict[str, Any]) -> dict[str, Any]:
    """One record as the rows table shows it (``type``: its grade)."""
    reason = record.get("error") or record.get("reason")
    facts = [(k, str(record[k])) for k in ("id", "outcome", "normalised", "expected",
                                           "gold", "correct_gold", "readable", "gradable")
             if record.get(k) is not None]
    return {"row": record["row"], "id": record.get("id"), "type": record["outcome"],
            "family": record.get("family") or None, "task": record.get("task") or None,
            "normalised": record.get("normalised"), "expected": record.get("expected"),
            "reason": reason, "causes": [],
            "drawing": {"facts": facts, "graphs": [], "explanation": ""}}


#: at most this many replies are shown highlighted (the rest are counted)
MAX_REPLIES = 2000
#: a claim's background by verdict
VERDICT_COLOURS = {"true": "#c8e6c9", "false": "#ffcdd2", "not_decidable": "#e0e0e0"}
_REASONING_STYLE = ("<style>.reply{border:1px solid #ccc;padding:6px 10px;margin:8px 0;"
                    "white-space:pre-wrap;font-size:13px}.reply .who{color:#555;"
                    "font-size:12px;display:block}mark.claim{border-radius:3px;"
                    "padding:0 1px;cursor:help}"
                    + "".join(f"mark.claim-{v}{{background:{c}}}"
                              for v, c in VERDICT_COLOURS.items()) + "</style>")


def highlighted(reply: str, claims: list[dict[str, Any]]) -> str:
    """``reply`` as HTML with each claim's span in a ``mark`` coloured by its verdict,
    its kind and why in ``title``; a claim over a span already marked adds its why to
    that mark's title (and makes it red when it is false)."""
    marks: list[list[Any]] = []  # [start, end, verdict, notes]
    for c in sorted(claims, key=lambda c: (c["span"][0], -c["span"][1])):
        start, end = c["span"]
        note = f"{c['kind']} — {c['verdict'].replace('_', ' ')}: {c['why']}"
        if marks and start < marks[-1][1]:
            marks[-1][3].append(note)
            if c["verdict"] == "false":
                marks[-1][2] = "false"
            continue
        if 0 <= start < end <= len(reply):
            marks.append([start, end, c["verdict"], [note]])
    out, at = [], 0
    for start, end, verdict, notes in marks:
        out.append(html.escape(reply[at:start]))
        out.append(f'<mark class="claim claim-{html.escape(verdict)}" data-verdict='
                   f'"{html.escape(verdict)}" title="{html.escape(chr(10).join(notes))}">'
                   f"{html.escape(reply[start:end])}</mark>")
        at = end
    out.append(html.escape(reply[at:]))
    return "".join(out)


def _reasoning_section(data: dict[str, Any]) -> str:
    tally = data["summary"].get("reasoning")
    if tally is None:
        return ""
    share = tally["lucky_share"]
    line = (f"{tally['claims']} checkable claims in {tally['reasoned']} replies, "
            f"{tally['false_claims']} false (score {percent(tally['reasoning_score'])}); "
            f"right answers that rest on a false claim: {tally['lucky']} of "
            f"{tally['correct']} ({percent(share)}); right answers with no checkable "
            f"claim: {tally['unsupported']}.")
    shown = [r for r in data["records"] if (r.get("reasoning") or {}).get("claims")]
    parts = [f'<h2>Reasoning</h2>{_REASONING_STYLE}<p id="reasoning-summary">'
             f"{html.escape(line)}</p><p class=\"meta\">Each claim is highlighted: green "
             "true, red false, grey not decidable; hover for why (a false claim's "
             "witness).</p>"]
    for record in shown[:MAX_REPLIES]:
        r = record["reasoning"]
        who = (f"row {record['row']} · {record.get('family')} · {record['outcome']}"
               + (" · lucky" if r["lucky"] else ""))
        parts.append(f'<div class="reply" id="reply-{record["row"]}"><span class="who">'
                     f"{html.escape(who)}</span>{highlighted(r['reply'], r['claims'])}</div>")
    if len(shown) > MAX_REPLIES:
        parts.append(f'<p class="meta">{len(shown) - MAX_REPLIES} more replies with claims '
                     "are in the JSON report.</p>")
    return "\n".join(parts)


def render_grade_html(data: dict[str, Any], title: str = "causal-oracle grade") -> str:
    """The page of a ``GradeFileResult.to_json()`` as one HTML string."""
    rank = {grade: n for n, grade in enumerate(GRADES)}
    rows = sorted((_row(r) for r in data["records"]),
                  key=lambda f: (rank.get(f["type"], len(rank)), f["row"]))
    counts: list[tuple[str, dict[str, Any], str]] = [("overall", _cells(data["summary"]),
                                                      "count")]
    counts += [(f"family {k}", _cells(v), "") for k, v in data["by_family"].items()]
    counts += [(f"task {k}", _cells(v), "") for k, v in data["by_task"].items()]
    charts = [bars("overall", [("all rows", _grades(data["summary"]))], GRADES),
              bars("by family", [(k, _grades(v)) for k, v in data["by_family"].items()],
                   GRADES),
              bars("by task", [(k, _grades(v)) for k, v in data["by_task"].items()], GRADES)]
    present = {f["type"] for f in rows}
    table = findings_section(
        [("row", "row"), ("id", "id"), ("family", "family"), ("task", "task"),
         ("type", "grade"), ("normalised", "read as"), ("expected", "expected"),
         ("reason", "reason / error")],
        [("outcome", "type", "every grade", [g for g in GRADES if g in present]),
         ("family", "family", "every family", list(data["by_family"])),
         ("task", "task", "every task", list(data["by_task"]))],
        {"findings": rows, "sort": None, "quiet": list(GRADES)})
    source = data.get("source", {})
    reply = source.get("reply_column")
    return page(title, str(source.get("path") or "rows in memory"), f"""\
<p id="overall">{html.escape(_overall(data["summary"]))}</p>
<p class="meta">replies read from the column <b>{html.escape(str(reply))}</b>.
Accuracy = correct / scored (an unreadable reply is not correct); accuracy over
readable = correct / readable replies; the last two columns grade the same rows, those
with a gold the family reads, by the oracle and by the file's gold.</p>
{counts_table(COLUMNS, counts)}
<div class="charts">{"".join(charts)}</div>
<h2>Rows</h2>
{table}
{_reasoning_section(data)}""")


def write_grade_html(result: GradeFileResult | dict[str, Any], out: str | Path) -> None:
    """Write the page of ``result`` (or its ``to_json()``) to ``out``: replaced only
    when the write completes, its folder created when missing."""
    data = result.to_json() if isinstance(result, GradeFileResult) else result
    text = render_grade_html(data)
    with atomic_output(out, "wb") as handle:  # a lone surrogate of the data: its escape
        handle.write(text.encode("utf-8", "backslashreplace"))


__all__ = ["COLUMNS", "GRADES", "VERDICT_COLOURS", "highlighted", "percent",
           "render_grade_html", "write_grade_html"]
