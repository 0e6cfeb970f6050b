"""The skeleton of the HTML pages: style, script, SVG bar charts, counts and rows.

``clients.html_report`` fills a page with one audit's counts and findings,
``clients.grade_html`` with one graded file's counts and rows; this module holds what
every page shares and knows nothing of an audit or a grade:

* ``page`` — the document: title, the source/date/version line, the body, the style
  and the script inlined;
* ``counts_table`` — a table of counts, one row per name, the first row's cells with
  ``id="<prefix>-<column>"`` so that tests and readers can find them;
* ``findings_section`` — the filterable, sortable table of rows with its drill-down,
  the rows given as JSON (``payload``: ``findings``, the ``columns`` shown, optionally
  the initial ``sort`` key — none keeps the given order — and the ``quiet`` row types
  that have no drawing to announce); each ``<select>`` filter names the row field it
  matches (``data-field``; a list field matches when it holds the value);
* ``STYLE`` — the page's CSS;
* ``SCRIPT`` — the rows table (a text filter over every column and the id, the select
  filters; sortable columns) and the drill-down: a row's facts (a table), its parse error or reason
  (preformatted, the caret included), its explanation, and its graphs drawn as inline
  SVG from their names and edges (``entry.audit_record.Picture``: nodes on a circle,
  directed edges as arrows, undirected ones dashed, bidirected ones dotted with two
  heads, highlighted edges thick and red, marked nodes filled);
* ``bars`` — a horizontal stacked bar chart of outcome counts as inline SVG (the
  audit's outcome colours, ``COLOURS``, unless others are given).

Nothing is fetched: the page works offline, from a file.
"""

from __future__ import annotations

import datetime
import html
import json
from collections.abc import Mapping, Sequence
from importlib import metadata
from typing import Any

#: one colour per outcome (``Outcome.value``), in the order the bars stack
COLOURS = {"agree": "#2e7d32", "disagree": "#c62828", "ambiguous": "#f9a825",
           "undetermined": "#6a1b9a", "inconsistent": "#5d4037", "unreadable": "#616161",
           "internal_error": "#000000", "answered": "#1565c0"}


def _total(counts: Mapping[str, Any], colours: Mapping[str, str]) -> int:
    return sum(counts.get(outcome, 0) for outcome in colours)


def bars(title: str, rows: Sequence[tuple[str, Mapping[str, Any]]],
         colours: Mapping[str, str] = COLOURS) -> str:
    """Stacked horizontal bars, one per ``(name, {outcome: count})``, as inline SVG;
    ``colours`` gives each outcome's colour, in the order the bars stack."""
    width, bar_h, left = 680, 18, 290
    height = 30 + bar_h * 1.5 * max(len(rows), 1)
    top = max([_total(c, colours) for _, c in rows] or [1]) or 1
    out = [f'<svg class="chart" role="img" aria-label="{html.escape(title)}" '
           f'width="{width}" height="{height:.0f}" xmlns="http://www.w3.org/2000/svg">',
           f'<text x="0" y="14" font-weight="bold">{html.escape(title)}</text>']
    for i, (name, counts) in enumerate(rows):
        y = 26 + i * bar_h * 1.5
        x = float(left)
        out.append(f'<text x="0" y="{y + 13:.0f}" font-size="12">{html.escape(name)}</text>')
        for outcome, colour in colours.items():
            count = counts.get(outcome, 0)
            if not count:
                continue
            w = (width - left - 60) * count / top
            out.append(f'<rect x="{x:.1f}" y="{y:.0f}" width="{w:.1f}" height="{bar_h}" '
                       f'fill="{colour}"><title>{outcome}: {count}</title></rect>')
            x += w
        out.append(f'<text x="{x + 4:.1f}" y="{y + 13:.0f}" font-size="12">'
                   f'{_total(counts, colours)}</text>')
    out.append("</svg>")
    return "".join(out)


def counts_table(heads: Sequence[tuple[str, str]],
                 rows: Sequence[tuple[str, Mapping[str, Any], str]]) -> str:
    """A ``table.counts`` (``id="counts"``): ``heads`` are ``(key, label)`` columns,
    ``rows`` ``(name, {key: cell}, prefix)``; a row with a prefix gives each cell the id
    ``<prefix>-<key>``.  A missing cell shows 0, ``None`` shows ``-``."""
    out = ['<table class="counts" id="counts"><tr><th></th>'
           + "".join(f"<th>{html.escape(label)}</th>" for _, label in heads) + "</tr>"]
    for name, cells, prefix in rows:
        out.append(f"<tr><th>{html.escape(name)}</th>")
        for key, _ in heads:
            value = cells.get(key, 0)
            ident = f' id="{html.escape(prefix)}-{html.escape(key)}"' if prefix else ""
            out.append(f"<td{ident}>{'-' if value is None else html.escape(str(value))}</td>")
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def _options(values: Sequence[str]) -> str:
    return "".join(f'<option value="{html.escape(v)}">{html.escape(v)}</option>'
                   for v in values)


def findings_section(heads: Sequence[tuple[str, str]],
                     selects: Sequence[tuple[str, str, str, Sequence[str]]],
                     payload: Mapping[str, Any]) -> str:
    """The rows table with its filters and drill-down.  ``heads``: ``(field, label)``
    columns; ``selects``: ``(id, field, "every …" label, values)`` filters; ``payload``:
    the page's JSON (``findings`` and whatever ``SCRIPT`` reads, see the docstring)."""
    data = json.dumps({"columns": [k for k, _ in heads], **payload},
                      ensure_ascii=False).replace("</", "<\\/")
    controls = "".join(
        f'<select id="{html.escape(ident)}" data-field="{html.escape(field)}">'
        f'<option value="">{html.escape(every)}</option>{_options(values)}</select>\n'
        for ident, field, every, values in selects)
    columns = "".join(f'<th data-key="{html.escape(k)}">{html.escape(label)}</th>'
                      for k, label in heads)
    return f"""<div class="controls">
<input id="filter" type="search" placeholder="filter (any column)">
{controls}<span id="count"></span></div>
<div id="drill"><h3 id="drill-title"></h3><pre id="drill-reason"></pre>
<p id="drill-causes"></p><table id="drill-facts"></table>
<div id="drill-graphs" class="graphs"></div><pre id="drill-text"></pre></div>
<table id="findings"><thead><tr>{columns}</tr></thead><tbody id="rows"></tbody></table>
<script id="data" type="application/json">{data}</script>
<script>{SCRIPT}</script>"""


def page(title: str, source: str, body: str) -> str:
    """The whole document: ``title``, the line naming ``source`` (``id="source"``), the
    date and the project's version (``id="version"``), then ``body``; nothing external."""
    try:
        version = metadata.version("causal-oracle")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a checkout
        version = "unknown"
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{STYLE}</style></head><body>
<h1>{html.escape(title)}</h1>
<p class="meta">source <span id="source">{html.escape(source)}</span> · {when} ·
causal-oracle <span id="version">{html.escape(version)}</span></p>
{body}
</body></html>
"""


STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}table{border-collapse:collapse;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#eee}#findings th{cursor:pointer;user-select:none}
th.sorted-asc::after{content:" ▲"}th.sorted-desc::after{content:" ▼"}
tr.finding:hover{background:#fff4d6;cursor:pointer}tr.finding.selected{background:#ffe0b2}
.charts{display:flex;flex-wrap:wrap;gap:24px}.meta{color:#555;font-size:13px}
#drill{border:2px solid #999;padding:10px;margin:12px 0;display:none}
#drill pre{white-space:pre-wrap;font-size:12px;max-height:420px;overflow:auto;
background:#fafafa;padding:6px}.graphs{display:flex;gap:16px;flex-wrap:wrap}
.counts td{text-align:right}.controls{margin:8px 0}.controls input{width:300px}
.legend{font-size:13px}details{margin:6px 0}
"""

SCRIPT = r"""
const DATA = JSON.parse(document.getElementById('data').textContent);
const body = document.getElementById('rows');
const COLS = DATA.columns;
const QUIET = new Set(DATA.quiet || ['unreadable', 'internal_error']);
const SELECTS = Array.from(document.querySelectorAll('.controls select[data-field]'));
let sortKey = DATA.sort === undefined ? 'row' : DATA.sort, sortDir = 1;
const RED = '#c62828';
function esc(t){ return String(t).replace(/&/g,'&amp;').replace(/</g,'&lt;')
  .replace(/>/g,'&gt;').replace(/"/g,'&quot;'); }
function key(a, b){ return a + '\u0000' + b; }
function graphSvg(g){
  const size = Math.max(280, 7 * g.title.length), radius = 100, r = 17;
  const n = g.names.length, pos = {};
  g.names.forEach((name, i) => { const a = 2 * Math.PI * i / Math.max(n, 1) - Math.PI / 2;
    pos[name] = [size / 2 + radius * Math.cos(a), size / 2 + 10 + radius * Math.sin(a)]; });
  const hot = new Set(g.highlight.map(e => key(e[0], e[1])));
  const marked = new Set(g.marked);
  const seg = (a, b) => { const [x1, y1] = pos[a], [x2, y2] = pos[b];
    const d = Math.hypot(x2 - x1, y2 - y1) || 1, ux = (x2 - x1) / d, uy = (y2 - y1) / d;
    return [x1 + ux * r, y1 + uy * r, x2 - ux * r, y2 - uy * r].map(v => v.toFixed(1)); };
  let out = '<svg class="graph" width="' + size + '" height="' + (size + 20) +
    '" xmlns="http://www.w3.org/2000/svg"><defs>' +
    '<marker id="arr" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7"' +
    ' orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#333"/></marker>' +
    '<marker id="arr-red" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" ' +
    'markerHeight="6" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="' + RED +
    '"/></marker></defs><text x="4" y="14" font-size="12" font-weight="bold">' +
    esc(g.title) + '</text>';
  const line = (a, b, kind, dash, heads) => {
    if (!(a in pos) || !(b in pos)) return '';
    const fwd = hot.has(key(a, b)), back = hot.has(key(b, a)), w = fwd || back;
    const [x1, y1, x2, y2] = back && kind !== 'directed' ? seg(b, a) : seg(a, b);
    const m = w ? 'url(#arr-red)' : 'url(#arr)';
    return '<line class="edge ' + kind + (w ? ' witness' : '') + '" x1="' + x1 + '" y1="' +
      y1 + '" x2="' + x2 + '" y2="' + y2 + '" stroke="' + (w ? RED : '#333') +
      '" stroke-width="' + (w ? 3 : 1.5) + '"' + (dash ? ' stroke-dasharray="' + dash + '"' : '') +
      (heads > 0 || (w && kind === 'undirected') ? ' marker-end="' + m + '"' : '') +
      (heads > 1 ? ' marker-start="' + m + '"' : '') + '><title>' + esc(a + ' ' + kind + ' ' + b) +
      '</title></line>'; };
  for (const [t, h] of g.directed) out += line(t, h, 'directed', '', 1);
  for (const [a, b] of g.undirected) out += line(a, b, 'undirected', '5,3', 0);
  for (const [a, b] of g.bidirected) out += line(a, b, 'bidirected', '2,3', 2);
  for (const name of g.names){ const [x, y] = pos[name];
    out += '<circle class="node' + (marked.has(name) ? ' marked' : '') + '" cx="' +
      x.toFixed(1) + '" cy="' + y.toFixed(1) + '" r="' + r + '" fill="' +
      (marked.has(name) ? '#ffcc80' : '#fff') + '" stroke="#333"/><text x="' + x.toFixed(1) +
      '" y="' + (y + 4).toFixed(1) + '" text-anchor="middle" font-size="11">' +
      esc(name.length > 8 ? name.slice(0, 7) + '…' : name) + '<title>' + esc(name) +
      '</title></text>'; }
  return out + '</svg>';
}
function cell(v){ return v === null || v === undefined ? '' : String(v); }
function render(){
  const q = document.getElementById('filter').value.toLowerCase();
  const picked = SELECTS.map(s => [s.dataset.field, s.value]).filter(p => p[1]);
  const shown = DATA.findings.filter(f =>
    picked.every(([k, v]) => Array.isArray(f[k]) ? f[k].includes(v) : cell(f[k]) === v) &&
    (!q || COLS.some(c => cell(f[c]).toLowerCase().includes(q)) ||
     cell(f.id).toLowerCase().includes(q)));
  if (sortKey !== null) shown.sort((a, b) => {
    const x = a[sortKey], y = b[sortKey];
    if (typeof x === 'number' && typeof y === 'number') return sortDir * (x - y);
    return sortDir * cell(x).localeCompare(cell(y));
  });
  body.innerHTML = '';
  for (const f of shown){
    const tr = document.createElement('tr');
    tr.className = 'finding'; tr.dataset.index = DATA.findings.indexOf(f);
    tr.dataset.outcome = f.type;
    for (const c of COLS){ const td = document.createElement('td');
      td.textContent = cell(f[c]); td.className = 'c-' + c; tr.appendChild(td); }
    tr.addEventListener('click', () => openDrill(tr));
    body.appendChild(tr);
  }
  document.getElementById('count').textContent = shown.length + ' of ' + DATA.findings.length;
}
function openDrill(tr){
  document.querySelectorAll('tr.selected').forEach(r => r.classList.remove('selected'));
  tr.classList.add('selected');
  const f = DATA.findings[Number(tr.dataset.index)];
  const d = document.getElementById('drill');
  d.style.display = 'block';
  document.getElementById('drill-title').textContent = f.type + ' — ' + (f.family || 'no family') +
    ', row ' + f.row + (f.id !== null && f.id !== undefined ? ' (' + f.id + ')' : '') +
    (f.question ? ': ' + f.question : '');
  document.getElementById('drill-causes').textContent = f.cause_text || '';
  document.getElementById('drill-reason').textContent = f.reason || '';
  const facts = (f.drawing && f.drawing.facts) || [];
  document.getElementById('drill-facts').innerHTML = facts.map(
    ([k, v]) => '<tr><th>' + esc(k) + '</th><td>' + esc(v) + '</td></tr>').join('');
  const graphs = (f.drawing && f.drawing.graphs) || [];
  document.getElementById('drill-graphs').innerHTML =
    graphs.length ? graphs.map(graphSvg).join('') :
    (QUIET.has(f.type) ? '' : '<em>no graph to draw</em>');
  document.getElementById('drill-text').textContent = (f.drawing && f.drawing.explanation) ||
    (QUIET.has(f.type) ? '' :
     '(explanation not embedded: run causal-oracle explain on this row)');
  d.scrollIntoView();
}
document.querySelectorAll('#findings th[data-key]').forEach(th => th.addEventListener('click',
  () => { const k = th.dataset.key;
  sortDir = k === sortKey ? -sortDir : 1; sortKey = k;
  document.querySelectorAll('th').forEach(h => h.classList.remove('sorted-asc','sorted-desc'));
  th.classList.add(sortDir > 0 ? 'sorted-asc' : 'sorted-desc');
  render();
}));
for (const id of ['filter']) document.getElementById(id).addEventListener('input', render);
for (const s of SELECTS) s.addEventListener('change', render);
render();
"""

__all__ = ["COLOURS", "SCRIPT", "STYLE", "bars", "counts_table", "findings_section", "page"]
