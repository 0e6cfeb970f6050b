"""The skeleton of the HTML audit page: its style, its script, its SVG bar charts.

``clients.html_report`` fills the page with one audit's counts and findings; this
module holds what every page shares and knows nothing of an audit:

* ``STYLE`` — the page's CSS;
* ``SCRIPT`` — the findings table (text, outcome, family and cause filters; sortable
  columns) and the drill-down: a finding's facts (a table), its parse error or reason
  (preformatted, the caret included), its explanation, and its graphs drawn as inline
  SVG from their names and edges (``entry.audit_record.Picture``: nodes on a circle,
  directed edges as arrows, undirected ones dashed, bidirected ones dotted with two
  heads, highlighted edges thick and red, marked nodes filled);
* ``bars`` — a horizontal stacked bar chart of outcome counts as inline SVG.

Nothing is fetched: the page works offline, from a file.
"""

from __future__ import annotations

import html
from typing import Any

#: one colour per outcome (``Outcome.value``), in the order the bars stack
COLOURS = {"agree": "#2e7d32", "disagree": "#c62828", "ambiguous": "#f9a825",
           "undetermined": "#6a1b9a", "inconsistent": "#5d4037", "unreadable": "#616161",
           "internal_error": "#000000"}


def _total(counts: dict[str, Any]) -> int:
    return sum(counts.get(outcome, 0) for outcome in COLOURS)


def bars(title: str, rows: list[tuple[str, dict[str, Any]]]) -> str:
    """Stacked horizontal bars, one per ``(name, {outcome: count})``, as inline SVG."""
    width, bar_h, left = 680, 18, 290
    height = 30 + bar_h * 1.5 * max(len(rows), 1)
    top = max([_total(c) for _, c in rows] or [1]) or 1
    out = [f'<svg class="chart" role="img" aria-label="{html.escape(title)}" '
           f'width="{width}" height="{height:.0f}" xmlns="http://www.w3.org/2000/svg">',
           f'<text x="0" y="14" font-weight="bold">{html.escape(title)}</text>']
    for i, (name, counts) in enumerate(rows):
        y = 26 + i * bar_h * 1.5
        x = float(left)
        out.append(f'<text x="0" y="{y + 13:.0f}" font-size="12">{html.escape(name)}</text>')
        for outcome, colour in COLOURS.items():
            count = counts.get(outcome, 0)
            if not count:
                continue
            w = (width - left - 60) * count / top
            out.append(f'<rect x="{x:.1f}" y="{y:.0f}" width="{w:.1f}" height="{bar_h}" '
                       f'fill="{colour}"><title>{outcome}: {count}</title></rect>')
            x += w
        out.append(f'<text x="{x + 4:.1f}" y="{y + 13:.0f}" font-size="12">'
                   f'{_total(counts)}</text>')
    out.append("</svg>")
    return "".join(out)


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
const COLS = ['row','family','type','facets','question','gold','oracle','reason'];
let sortKey = 'row', sortDir = 1;
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
  const cause = document.getElementById('cause').value;
  const kind = document.getElementById('outcome').value;
  const fam = document.getElementById('family').value;
  const shown = DATA.findings.filter(f =>
    (!cause || f.causes.includes(cause)) && (!kind || f.type === kind) &&
    (!fam || f.family === fam) &&
    (!q || COLS.some(c => cell(f[c]).toLowerCase().includes(q)) ||
     cell(f.id).toLowerCase().includes(q)));
  shown.sort((a, b) => {
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
    (f.type === 'unreadable' || f.type === 'internal_error' ? '' : '<em>no graph to draw</em>');
  document.getElementById('drill-text').textContent = (f.drawing && f.drawing.explanation) ||
    (f.type === 'unreadable' || f.type === 'internal_error' ? '' :
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
for (const id of ['cause', 'outcome', 'family'])
  document.getElementById(id).addEventListener('change', render);
render();
"""

__all__ = ["COLOURS", "SCRIPT", "STYLE", "bars"]
