"""The HTML page of a Trace: one file, inline CSS and JS, no network.

Every pass is a `<section class="pass" id="pass-N">` holding its facts (time, properties verified after
it, check-run verdict, error) and its program, function by function (`<div class="fn" id="pN-f-NAME">`),
as a diff against the previous pass: `div.l.add` / `div.l.del` / `div.l.ctx` lines, changed characters
in `span.x`. The same markup serves four views switched by a class on `<body>`: the diff, the changes
only (3 lines of context), the program after the pass, the program before it.

Without JS every section is shown one after the other. The script builds the pass list and the function
list, shows one pass at a time, and reads its state from the URL: `#pass=3&fn=main&view=changes` (or the
same keys as a query string), so any view can be linked to.
"""

from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Iterable
from typing import Any

from pypto_core.trace.collector import Trace, TraceStep
from pypto_core.trace.diff import HEADER_SECTION, DiffLine, SectionDiff, diff_programs

VIEWS = ("diff", "changes", "after", "before")
HEADER_LABEL = "program header"

_TOKEN = re.compile(
    r"(?P<comment>#.*$)"
    r"|(?P<string>\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')"
    r"|(?P<deco>@[A-Za-z_][\w.]*)"
    r"|(?P<kw>\b(?:def|return|for|in|if|elif|else|with|as|class|pass|yield|while|break|continue|and|or|not"
    r"|is|None|True|False|self)\b)"
    r"|(?P<op>\bpl(?:\.[A-Za-z_]\w*)+)"
    r"|(?P<num>\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b)")
_CLASSES = {"comment": "tc", "string": "ts", "deco": "td", "kw": "tk", "op": "to", "num": "tn"}


@functools.lru_cache(maxsize=65536)  # most lines repeat from one pass to the next
def highlight(text: str) -> str:
    """`text` escaped for HTML, with spans for comments, strings, decorators, keywords, pl names, numbers."""
    out: list[str] = []
    pos = 0
    for m in _TOKEN.finditer(text):
        if m.start() > pos:
            out.append(html.escape(text[pos:m.start()], quote=False))
        kind = m.lastgroup or ""
        out.append(f'<span class="{_CLASSES[kind]}">{html.escape(m.group(), quote=False)}</span>')
        pos = m.end()
    out.append(html.escape(text[pos:], quote=False))
    return "".join(out)


def anchor_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name) if name else "_header"


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return ""
    ms = seconds * 1e3
    return f"{ms:.0f} ms" if ms >= 100 else f"{ms:.2f} ms" if ms < 10 else f"{ms:.1f} ms"


def _line(line: DiffLine) -> str:
    sign = {"add": "+", "del": "-", "ctx": " "}[line.kind]
    if line.segments is not None:
        body = "".join(f'<span class="x">{highlight(t)}</span>' if changed else highlight(t)
                       for changed, t in line.segments)
    else:
        body = highlight(line.text)
    classes = f"l {line.kind}" + (" far" if line.far else "")
    old = "" if line.old_no is None else str(line.old_no)
    new = "" if line.new_no is None else str(line.new_no)
    return (f'<div class="{classes}"><span class="o">{old}</span><span class="n">{new}</span>'
            f'<span class="g">{sign}</span><code>{body}</code></div>')


def _lines(lines: list[DiffLine]) -> Iterable[str]:
    i = 0
    while i < len(lines):
        if lines[i].far:
            j = i
            while j < len(lines) and lines[j].far:
                j += 1
            yield f'<div class="gap">⋯ {j - i} unchanged line{"s" if j - i != 1 else ""}</div>'
            yield from (_line(x) for x in lines[i:j])
            i = j
        else:
            yield _line(lines[i])
            i += 1


def _section_html(step: int, d: SectionDiff, first_step: bool) -> str:
    label = d.name or HEADER_LABEL
    status = "input" if first_step else d.status
    badge = ""
    if not first_step:
        counts = f" +{d.added} −{d.removed}" if d.status == "changed" else ""
        badge = f'<span class="badge {d.status}">{d.status}{counts}</span>'
    ident = f"p{step}-f-{anchor_name(d.name)}"
    link = f"#pass={step}" + (f"&amp;fn={_esc(d.name)}" if d.name else "")
    kind = "hdr" if d.name == HEADER_SECTION else "func"
    body = "\n".join(_lines(d.lines))
    return (f'<div class="fn {kind}" id="{ident}" data-fn="{_esc(d.name)}" data-status="{status}">'
            f'<div class="fn-head"><a class="fn-link" href="{link}">{_esc(label)}</a>{badge}</div>'
            f'<div class="body">{body}</div></div>')


def _chips(values: list[str], cls: str = "") -> str:
    if not values:
        return '<span class="none">none</span>'
    return "".join(f'<span class="chip {cls}">{_esc(v)}</span>' for v in values)


_VERDICT_TEXT = {"ok": "✓ ok", "failed": "✗ failed", "off": "off", "not run": "not run", "unchanged": "= unchanged"}


def _verdict(value: str) -> str:
    return f'<span class="verdict v-{value.replace(" ", "-")}">{_VERDICT_TEXT.get(value, value)}</span>'


def _step_status(step: TraceStep, trace: Trace) -> str:
    if step.error is not None:
        return "failed"
    if not step.ran:
        return "notrun"
    return "changed" if step.changed else "unchanged"


def _facts(step: TraceStep, trace: Trace) -> str:
    rows = [("pass", f"<code>{_esc(step.options)}</code> ({_esc(step.name)})")]
    if step.ran:
        rows.append(("time", f'{_ms(step.seconds)} <span class="dim">(checks after it: '
                             f'{_ms(step.checks_seconds) or "–"})</span>'))
    change = ("no change: the program is the same as before the pass" if step.ran and not step.changed
              else f"+{step.added} −{step.removed} lines in {', '.join(step.changed_functions) or 'the header'}"
              if step.ran else "the pass did not produce a program")
    rows.append(("change", _esc(change)))
    if trace.verify != "none":
        rows.append(("verified after", f"{_verdict(step.verification)} {_chips(step.verified, 'prop')}"))
    if step.check_run != "off":
        detail = f' <span class="dim">{_esc(step.check_run_detail)}</span>' if step.check_run_detail else ""
        rows.append(("check-run", _verdict(step.check_run) + detail))
    rows.append(("requires", _chips(step.required)))
    rows.append(("produces", _chips(step.produced)))
    if step.invalidated:
        rows.append(("invalidates", _chips(step.invalidated)))
    if step.nested_passes:
        rows.append(("nested", f"ran {step.nested_passes} pass(es) itself"))
    if step.memory:
        rows.append(("memory", _memory_bars(step.memory)))
    body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="facts">{body}</table>'


def _memory_bars(rows: list[Any]) -> str:
    """A bar per kernel and on-chip space: the bytes used against the backend's capacity
    (docs/memory_planning.md, the memory table)."""
    bars = []
    for row in rows:
        fraction = row.fraction
        width = min(fraction, 1.0) * 100 if fraction is not None else 100
        label = (f"{row.used} / {row.capacity} B ({fraction:.1%})" if fraction is not None
                 else f"{row.used} B (unbounded)")
        cls = "mem-bar over" if not row.fits else "mem-bar"
        bars.append(f'<div class="mem-row" data-kernel="{_esc(row.kernel)}" data-space="{row.space.name}">'
                    f'<span class="mem-name">{_esc(row.kernel)} {row.space.name}</span>'
                    f'<span class="{cls}"><span class="mem-fill" style="width:{width:.1f}%"></span></span>'
                    f'<span class="mem-text">{_esc(label)}</span></div>')
    return "".join(bars)


def _summary(trace: Trace) -> str:
    head = "<tr><th>#</th><th>pass</th><th>time</th><th>change</th>"
    head += "<th>verified</th>" if trace.verify != "none" else ""
    head += "<th>check-run</th>" if any(s.check_run != "off" for s in trace.steps) else ""
    head += "</tr>"
    rows = []
    for s in trace.steps:
        status = _step_status(s, trace)
        change = ("failed" if status == "failed" else "not run" if status == "notrun" else
                  "unchanged" if status == "unchanged" else f"+{s.added} −{s.removed}")
        row = (f'<tr class="st-{status}"><td>{s.index}</td><td><a href="#pass={s.index}">{_esc(s.label)}</a></td>'
               f"<td>{_ms(s.seconds)}</td><td>{_esc(change)}</td>")
        if trace.verify != "none":
            row += f"<td>{_verdict(s.verification)} {len(s.verified)} properties</td>"
        if any(x.check_run != "off" for x in trace.steps):
            row += f"<td>{_verdict(s.check_run)}</td>"
        rows.append(row + "</tr>")
    return f'<table class="summary"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def _pass_section(index: int, trace: Trace, before: str | None, step: TraceStep | None) -> str:
    if step is None:  # the input
        diffs = diff_programs(None, trace.input_text)
        attrs = {"step": 0, "label": "input", "status": "input", "seconds": "", "changed-fns": "",
                 "verification": "", "check-run": ""}
        title = "input"
        facts = (f'<p class="dim">The program as parsed from {_esc(trace.source or "the source")}. '
                 f"{len(trace.steps)} passes follow.</p>{_summary(trace)}")
        error = (f'<div class="error"><b>before any pass:</b><pre>{_esc(trace.error)}</pre></div>'
                 if trace.error is not None and trace.error_step == 0 else "")
    else:
        after = step.text if step.ran else None
        diffs = diff_programs(before, after) if after is not None else []
        status = _step_status(step, trace)
        attrs = {"step": index, "label": step.label, "status": status, "seconds": step.seconds or 0,
                 "changed-fns": ",".join(step.changed_functions), "added": step.added, "removed": step.removed,
                 "verification": step.verification, "check-run": step.check_run}
        title = step.label
        facts = _facts(step, trace)
        error = f'<div class="error"><pre>{_esc(step.error)}</pre></div>' if step.error is not None else ""
        if not step.ran:
            error += ('<p class="dim">No program after this pass: ' +
                      ("it raised." if step.error is not None else "an earlier pass failed.") + "</p>")
    fns = ",".join(d.name for d in diffs if d.name)
    data = " ".join(f'data-{k}="{_esc(v)}"' for k, v in attrs.items())
    mark = {"unchanged": '<span class="badge unchanged">no change</span>',
            "failed": '<span class="badge failed">failed</span>',
            "notrun": '<span class="badge notrun">not run</span>'}.get(str(attrs["status"]), "")
    sections = "\n".join(_section_html(index, d, step is None) for d in diffs)
    return (f'<section class="pass st-{attrs["status"]}" id="pass-{index}" {data} data-functions="{_esc(fns)}">'
            f'<header class="pass-head"><h2><span class="num">{index}</span> {_esc(title)} {mark}</h2></header>'
            f'{facts}{error}<div class="program">{sections}</div></section>')


def render_html(trace: Trace, title: str | None = None) -> str:
    """The whole page (module docstring)."""
    title = title or f"pypto trace: {trace.program_name}"
    parts: list[str] = []
    before: str | None = trace.input_text
    parts.append(_pass_section(0, trace, None, None))
    for step in trace.steps:
        parts.append(_pass_section(step.index, trace, before, step))
        if step.ran and step.text is not None:
            before = step.text
    changed = sum(1 for s in trace.steps if s.ran and s.changed)
    status = ("ok" if trace.error is None else
              f"failed at pass {trace.error_step}" if trace.error_step else "failed before the first pass")
    meta = {"program": trace.program_name, "source": trace.source, "backend": trace.backend,
            "verify": trace.verify, "passes": len(trace.steps), "changed": changed,
            "total": _ms(trace.total_seconds), "status": status, "created": trace.created}
    meta_html = " · ".join(f'<span class="m-{k}"><span class="dim">{k}</span> {_esc(v)}</span>'
                           for k, v in meta.items() if k not in ("program",) and v != "")
    data = json.dumps({"views": VIEWS, "status": status, "error": trace.error, "errorStep": trace.error_step})
    data = data.replace("</", "<\\/")
    view_buttons = "".join(f'<button type="button" data-view="{v}">{v}</button>' for v in VIEWS)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="pypto trace">
<title>{_esc(title)}</title>
<style>{_CSS}</style>
</head>
<body class="view-diff">
<header id="top">
<h1>pypto trace <span class="prog">{_esc(trace.program_name)}</span>
<span class="status s-{"ok" if trace.error is None else "failed"}">{_esc(status)}</span></h1>
<div class="meta">{meta_html}</div>
<div class="controls">
<span class="views" id="views" role="group" aria-label="view">{view_buttons}</span>
<label><input type="checkbox" id="hide-unchanged"> hide unchanged passes</label>
<label>function <select id="fn-filter"><option value="">all</option></select></label>
<input type="search" id="search" placeholder="search the IR  ( / )" autocomplete="off">
<span id="search-count" class="dim"></span>
<span class="keys dim">j/k pass · n/N changed pass · d/c/a/b view</span>
</div>
</header>
<div id="layout">
<aside id="sidebar">
<nav id="pass-nav" aria-label="passes"></nav>
<nav id="fn-nav" aria-label="functions"></nav>
</aside>
<main id="content">
<noscript><p class="dim">JavaScript is off: every pass is shown below, one after the other.</p></noscript>
{"".join(parts)}
</main>
</div>
<script type="application/json" id="trace-data">{data}</script>
<script>{_JS}</script>
</body>
</html>
"""


_CSS = r"""
:root{--bg:#fbfbfa;--fg:#1d2125;--dim:#6b7280;--line:#e5e7eb;--side:#f3f4f6;--accent:#2563eb;
--add:#e6ffec;--addx:#abf2bc;--del:#ffebe9;--delx:#ffc1bc;--warn:#b45309;--bad:#b91c1c;--good:#15803d}
*{box-sizing:border-box}
html,body{margin:0;height:100%}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--fg)}
code,pre,.body{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:12.5px}
#top{position:sticky;top:0;z-index:5;background:#fff;border-bottom:1px solid var(--line);padding:8px 14px}
#top h1{font-size:17px;margin:0 0 2px 0;display:flex;gap:10px;align-items:center}
#top .prog{font-family:ui-monospace,monospace;color:var(--accent)}
.status{font-size:12px;padding:1px 8px;border-radius:10px;font-weight:600}
.s-ok{background:#dcfce7;color:var(--good)} .s-failed{background:#fee2e2;color:var(--bad)}
.meta{font-size:12px;color:var(--fg)} .dim{color:var(--dim)}
.controls{display:flex;flex-wrap:wrap;gap:12px;align-items:center;margin-top:6px;font-size:13px}
.views button{border:1px solid var(--line);background:#fff;padding:3px 10px;cursor:pointer;font:inherit}
.views button:first-child{border-radius:6px 0 0 6px} .views button:last-child{border-radius:0 6px 6px 0}
.views button.on{background:var(--accent);color:#fff;border-color:var(--accent)}
#search{width:220px;padding:3px 8px;border:1px solid var(--line);border-radius:6px;font:inherit}
.keys{font-size:11px}
#layout{display:flex;min-height:calc(100% - 90px)}
#sidebar{display:none}
.js #sidebar{display:block;width:300px;flex:none;background:var(--side);border-right:1px solid var(--line);
position:sticky;top:92px;align-self:flex-start;max-height:calc(100vh - 92px);overflow:auto;padding:8px 0}
#sidebar h3{font-size:11px;text-transform:uppercase;letter-spacing:.06em;color:var(--dim);margin:10px 14px 4px}
#sidebar ol,#sidebar ul{list-style:none;margin:0;padding:0}
#sidebar a{display:block;padding:4px 14px;color:var(--fg);text-decoration:none;border-left:3px solid transparent}
#sidebar a:hover{background:#e5e7eb}
#sidebar a.current{background:#dbeafe;border-left-color:var(--accent)}
#pass-nav .row{display:flex;gap:6px;align-items:baseline}
#pass-nav .num{color:var(--dim);width:1.6em;text-align:right;flex:none;font-variant-numeric:tabular-nums}
#pass-nav .label{flex:1;font-family:ui-monospace,monospace;font-size:12.5px;overflow:hidden;text-overflow:ellipsis}
#pass-nav .t{color:var(--dim);font-size:11px;font-variant-numeric:tabular-nums}
#pass-nav .bar{height:3px;background:#93c5fd;margin:2px 0 0 2.2em;border-radius:2px;min-width:1px}
#pass-nav .marks{margin-left:2.2em;font-size:11px;display:flex;gap:6px;flex-wrap:wrap}
#pass-nav li.unchanged .label{color:var(--dim)}
#pass-nav li.notrun{opacity:.5}
#pass-nav li.failed .label{color:var(--bad);font-weight:600}
.hide-unchanged #pass-nav li.unchanged{display:none}
.hits{background:#fef08a;border-radius:8px;padding:0 5px;font-size:11px}
#fn-nav a{font-family:ui-monospace,monospace;font-size:12.5px}
#fn-nav a.changed::after{content:" ●";color:var(--warn)}
#fn-nav a.absent{color:var(--dim);text-decoration:line-through}
#content{flex:1;min-width:0;padding:10px 18px 60px}
.js section.pass{display:none} .js section.pass.current{display:block}
section.pass{margin-bottom:28px}
.pass-head h2{font-size:18px;margin:6px 0 8px;font-family:ui-monospace,monospace}
.pass-head .num{color:var(--dim);margin-right:4px}
.badge{font:600 11px system-ui,sans-serif;padding:1px 7px;border-radius:9px;margin-left:8px;vertical-align:middle}
.badge.unchanged{background:#e5e7eb;color:#374151} .badge.changed{background:#fef3c7;color:var(--warn)}
.badge.added{background:var(--addx);color:#14532d} .badge.removed{background:var(--delx);color:#7f1d1d}
.badge.failed{background:#fee2e2;color:var(--bad)} .badge.notrun{background:#f3f4f6;color:var(--dim)}
table.facts{border-collapse:collapse;margin:0 0 10px;font-size:13px}
table.facts th{text-align:left;color:var(--dim);font-weight:500;padding:2px 14px 2px 0;vertical-align:top;white-space:nowrap}
table.facts td{padding:2px 0}
.mem-row{display:flex;align-items:center;gap:8px;margin:1px 0}
.mem-name{min-width:14em;font-family:monospace}
.mem-bar{display:inline-block;width:240px;height:10px;border:1px solid var(--dim);border-radius:2px}
.mem-fill{display:block;height:100%;background:#4a8fd8}
.mem-bar.over .mem-fill{background:#d84a4a}
table.summary{border-collapse:collapse;margin:6px 0 14px;font-size:13px}
table.summary th,table.summary td{border-bottom:1px solid var(--line);padding:3px 12px 3px 0;text-align:left}
table.summary tr.st-unchanged td{color:var(--dim)} table.summary tr.st-failed td{color:var(--bad)}
.chip{display:inline-block;background:#eef2ff;color:#3730a3;border-radius:4px;padding:0 6px;margin:1px 3px 1px 0;
font:12px ui-monospace,monospace}
.none{color:var(--dim)}
.verdict{font-weight:600;margin-right:6px} .v-ok{color:var(--good)} .v-failed{color:var(--bad)}
.v-not-run,.v-off,.v-unchanged{color:var(--dim)}
.error{background:#fef2f2;border:1px solid #fecaca;border-radius:6px;padding:6px 10px;margin:8px 0;color:#7f1d1d}
.error pre{margin:0;white-space:pre-wrap}
.fn{border:1px solid var(--line);border-radius:6px;margin:10px 0;background:#fff;overflow:hidden}
.fn-head{background:#f9fafb;border-bottom:1px solid var(--line);padding:4px 10px;font-family:ui-monospace,monospace}
.fn-head a{color:var(--fg);text-decoration:none;font-weight:600}
.fn.hdr .fn-head a{font-weight:400;color:var(--dim)}
.body{overflow-x:auto;padding:2px 0}
.l{display:flex;white-space:pre;min-width:max-content}
.l .o,.l .n{width:3.4em;flex:none;text-align:right;color:#9ca3af;padding-right:6px;user-select:none}
.l .g{width:1.4em;flex:none;text-align:center;color:#9ca3af;user-select:none}
.l code{font:inherit;padding-right:16px}
.l.add{background:var(--add)} .l.add .g{color:#15803d}
.l.del{background:var(--del)} .l.del .g{color:#b91c1c}
.l.add .x{background:var(--addx);border-radius:2px} .l.del .x{background:var(--delx);border-radius:2px}
.gap{display:none;color:var(--dim);background:#f3f4f6;padding:1px 10px;font-size:11.5px}
.view-changes .l.far{display:none} .view-changes .gap{display:block}
.view-changes .fn[data-status=unchanged] .body{display:none}
.view-after .l.del,.view-before .l.add{display:none}
.view-after .l,.view-before .l{background:none} .view-after .x,.view-before .x{background:none!important}
.view-after .l .o,.view-before .l .n,.view-after .l .g,.view-before .l .g{display:none}
.fn.filtered{display:none}
mark{background:#fde047;padding:0} mark.cur{background:#f97316;color:#fff}
.tc{color:#6b7280;font-style:italic} .ts{color:#0a7d32} .td{color:#7c3aed} .tk{color:#b4308c;font-weight:600}
.to{color:#1d4ed8} .tn{color:#b45309}
"""

_JS = r"""
(function(){
'use strict';
var body=document.body; body.classList.add('js');
var info=JSON.parse(document.getElementById('trace-data').textContent);
var sections=[].slice.call(document.querySelectorAll('section.pass'));
var passNav=document.getElementById('pass-nav'), fnNav=document.getElementById('fn-nav');
var fnSelect=document.getElementById('fn-filter'), search=document.getElementById('search');
var state={pass:0,fn:'',view:'diff'};
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!=null)e.textContent=text;return e;}
function ms(s){var v=s*1000;return v>=100?v.toFixed(0)+' ms':v<10?v.toFixed(2)+' ms':v.toFixed(1)+' ms';}
function href(p,fn,view){var h='#pass='+p;if(fn)h+='&fn='+encodeURIComponent(fn);if(view&&view!=='diff')h+='&view='+view;return h;}
// -- the pass list ------------------------------------------------------------------------------------
var maxT=0; sections.forEach(function(s){maxT=Math.max(maxT,parseFloat(s.dataset.seconds||'0')||0);});
passNav.appendChild(el('h3',null,'passes'));
var ol=el('ol'); passNav.appendChild(ol);
var navLinks=sections.map(function(s){
  var d=s.dataset, li=el('li',d.status), a=el('a'); a.href=href(d.step); a.dataset.step=d.step;
  var row=el('div','row'); row.appendChild(el('span','num',d.step)); row.appendChild(el('span','label',d.label));
  var secs=parseFloat(d.seconds||''); if(d.step!=='0'&&!isNaN(secs)&&d.status!=='notrun')row.appendChild(el('span','t',ms(secs)));
  a.appendChild(row);
  if(d.step!=='0'&&d.status!=='notrun'&&maxT>0){var bar=el('div','bar');bar.style.width=Math.max(1,Math.round(200*secs/maxT))+'px';a.appendChild(bar);}
  var marks=el('div','marks');
  if(d.status==='unchanged')marks.appendChild(el('span','badge unchanged','no change'));
  else if(d.status==='changed')marks.appendChild(el('span','badge changed','+'+d.added+' \u2212'+d.removed));
  else if(d.status==='failed')marks.appendChild(el('span','badge failed','failed'));
  else if(d.status==='notrun')marks.appendChild(el('span','badge notrun','not run'));
  if(d.verification==='ok')marks.appendChild(el('span','v-ok','\u2713 verified'));
  if(d.verification==='failed')marks.appendChild(el('span','v-failed','\u2717 verification'));
  if(d.checkRun==='ok')marks.appendChild(el('span','v-ok','\u2713 check-run'));
  if(d.checkRun==='unchanged')marks.appendChild(el('span','v-unchanged','= check-run'));
  if(d.checkRun==='failed')marks.appendChild(el('span','v-failed','\u2717 check-run'));
  var hits=el('span','hits'); hits.hidden=true; marks.appendChild(hits); a._hits=hits;
  if(marks.childNodes.length>1)a.appendChild(marks); else {marks.removeChild(hits); a.appendChild(hits);}
  li.appendChild(a); ol.appendChild(li); return a;
});
// -- the function list --------------------------------------------------------------------------------
var allFns=[]; sections.forEach(function(s){(s.dataset.functions||'').split(',').forEach(function(f){if(f&&allFns.indexOf(f)<0)allFns.push(f);});});
fnNav.appendChild(el('h3',null,'functions'));
var ul=el('ul'); fnNav.appendChild(ul);
var allLink=el('a',null,'(all functions)'); allLink.dataset.fn=''; var li0=el('li'); li0.appendChild(allLink); ul.appendChild(li0);
var fnLinks=[allLink];
allFns.forEach(function(f){var li=el('li'),a=el('a',null,f);a.dataset.fn=f;li.appendChild(a);ul.appendChild(li);fnLinks.push(a);
  var o=el('option',null,f);o.value=f;fnSelect.appendChild(o);});
// -- state from and to the URL ------------------------------------------------------------------------
function parse(){
  var q=new URLSearchParams(location.search), h=new URLSearchParams(location.hash.replace(/^#/,''));
  function get(k){return h.has(k)?h.get(k):q.get(k);}
  var p=parseInt(get('pass')||'0',10); if(isNaN(p)||p<0||p>=sections.length)p=0;
  var v=get('view')||state.view; if(info.views.indexOf(v)<0)v='diff';
  state={pass:p,fn:get('fn')||'',view:v};
  if(get('q')!=null&&search.value!==get('q'))search.value=get('q');
}
function go(p,fn,view){
  var h=href(p,fn===undefined?state.fn:fn,view||state.view);
  if(location.hash!==h)location.hash=h; else show();
}
function show(){
  var cur=sections[state.pass];
  sections.forEach(function(s,i){s.classList.toggle('current',i===state.pass);});
  navLinks.forEach(function(a,i){a.classList.toggle('current',i===state.pass);a.href=href(i,state.fn,state.view);});
  info.views.forEach(function(v){body.classList.toggle('view-'+v,v===state.view);});
  [].forEach.call(document.querySelectorAll('#views button'),function(b){b.classList.toggle('on',b.dataset.view===state.view);});
  var present=(cur.dataset.functions||'').split(','), changed=(cur.dataset.changedFns||'').split(',');
  fnLinks.forEach(function(a){var f=a.dataset.fn;a.classList.toggle('current',f===state.fn);
    a.classList.toggle('changed',!!f&&changed.indexOf(f)>=0);a.classList.toggle('absent',!!f&&present.indexOf(f)<0);
    a.href=href(state.pass,f,state.view);});
  fnSelect.value=state.fn;
  [].forEach.call(cur.querySelectorAll('.fn'),function(d){d.classList.toggle('filtered',!!state.fn&&d.dataset.fn!==state.fn);});
  body.dataset.currentPass=String(state.pass); body.dataset.currentFn=state.fn; body.dataset.view=state.view;
  document.title=(state.pass?state.pass+' '+cur.dataset.label:'input')+' \u2014 '+document.querySelector('#top .prog').textContent+' \u2014 pypto trace';
  runSearch();
  var target=state.fn?cur.querySelector('.fn[data-fn="'+cssEscape(state.fn)+'"]'):null;
  if(target)target.scrollIntoView({block:'start'}); else window.scrollTo(0,0);
  var link=navLinks[state.pass]; if(link&&link.scrollIntoView)link.scrollIntoView({block:'nearest'});
}
function cssEscape(s){return s.replace(/["\\]/g,'\\$&');}
// -- search -------------------------------------------------------------------------------------------
var marks=[], markAt=-1;
function clearMarks(){[].forEach.call(document.querySelectorAll('mark'),function(m){var p=m.parentNode;p.replaceChild(document.createTextNode(m.textContent),m);p.normalize();});marks=[];markAt=-1;}
function runSearch(){
  clearMarks(); var term=search.value; var count=document.getElementById('search-count');
  navLinks.forEach(function(a){a._hits.hidden=true;});
  if(!term){count.textContent='';return;}
  var low=term.toLowerCase();
  sections.forEach(function(s,i){var n=0;[].forEach.call(s.querySelectorAll('.l:not(.del) code'),function(c){
    var t=c.textContent.toLowerCase(),k=t.indexOf(low);while(k>=0){n++;k=t.indexOf(low,k+low.length);}});
    navLinks[i]._hits.hidden=!n; navLinks[i]._hits.textContent=n;});
  var cur=sections[state.pass];
  [].forEach.call(cur.querySelectorAll('.fn:not(.filtered) .l code'),function(code){
    var walker=document.createTreeWalker(code,NodeFilter.SHOW_TEXT,null),nodes=[],node;
    while((node=walker.nextNode()))nodes.push(node);
    nodes.forEach(function(tn){var text=tn.nodeValue,lt=text.toLowerCase(),k=lt.indexOf(low);if(k<0)return;
      var frag=document.createDocumentFragment(),pos=0;
      while(k>=0){frag.appendChild(document.createTextNode(text.slice(pos,k)));var m=el('mark',null,text.slice(k,k+term.length));
        frag.appendChild(m);marks.push(m);pos=k+term.length;k=lt.indexOf(low,pos);}
      frag.appendChild(document.createTextNode(text.slice(pos)));tn.parentNode.replaceChild(frag,tn);});
  });
  count.textContent=marks.length+' here';
}
function nextMark(step){if(!marks.length)return;if(markAt>=0)marks[markAt].classList.remove('cur');
  markAt=(markAt+step+marks.length)%marks.length;marks[markAt].classList.add('cur');marks[markAt].scrollIntoView({block:'center'});}
var timer=null;
search.addEventListener('input',function(){clearTimeout(timer);timer=setTimeout(runSearch,120);});
search.addEventListener('keydown',function(e){if(e.key==='Enter'){nextMark(e.shiftKey?-1:1);e.preventDefault();}
  if(e.key==='Escape'){search.value='';runSearch();search.blur();}});
// -- controls -----------------------------------------------------------------------------------------
[].forEach.call(document.querySelectorAll('#views button'),function(b){b.addEventListener('click',function(){go(state.pass,state.fn,b.dataset.view);});});
fnSelect.addEventListener('change',function(){go(state.pass,fnSelect.value);});
var hide=document.getElementById('hide-unchanged');
hide.addEventListener('change',function(){body.classList.toggle('hide-unchanged',hide.checked);});
function changedFrom(i,step){for(var j=i+step;j>=0&&j<sections.length;j+=step){var st=sections[j].dataset.status;if(st==='changed'||st==='failed')return j;}return i;}
function visibleFrom(i,step){for(var j=i+step;j>=0&&j<sections.length;j+=step){if(!(hide.checked&&sections[j].dataset.status==='unchanged'))return j;}return i;}
document.addEventListener('keydown',function(e){
  if(e.target===search||e.target===fnSelect||e.metaKey||e.ctrlKey||e.altKey)return;
  var k=e.key;
  if(k==='j'||k==='ArrowDown'&&e.shiftKey)go(visibleFrom(state.pass,1));
  else if(k==='k'||k==='ArrowUp'&&e.shiftKey)go(visibleFrom(state.pass,-1));
  else if(k==='n')go(changedFrom(state.pass,1));
  else if(k==='N')go(changedFrom(state.pass,-1));
  else if(k==='/'){search.focus();e.preventDefault();}
  else if(k==='d'||k==='c'||k==='a'||k==='b')go(state.pass,state.fn,{d:'diff',c:'changes',a:'after',b:'before'}[k]);
  else return;
});
window.addEventListener('hashchange',function(){parse();show();});
parse(); show();
body.dataset.ready='1';
})();
"""
