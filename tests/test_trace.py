"""`pypto trace FILE -o trace.html`: the page's structure (every pass, unchanged passes marked, diff markup,
function anchors, nothing fetched from the network), the collector (times, verified properties, check-run
verdicts, a failing pass), and the page in a real headless browser (Debian's `chromium`, installed here
when missing): the script builds the navigation, and clicking a pass shows its diff."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from pypto_core.cli import main
from pypto_core.errors import InternalError
from pypto_core.language.api import parse
from pypto_core.passes.manager import PassManager
from pypto_core.passes.pass_base import Pass
from pypto_core.trace import collect_trace, render_html
from pypto_core.trace.diff import diff_programs, split_sections

from .default_preset import default_passes, step_of
from .test_pipeline_toys import support
from .test_pipeline_toys.support import TOY_SOURCE

toy_plugin = support.toy_plugin

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "mixed_matmul_bias.py"
DEFAULT_PASSES = default_passes()
LAST = len(DEFAULT_PASSES)
SSA, NORMALIZE, OUTLINE = step_of("convert_to_ssa"), step_of("normalize_stmt_structure"), step_of("outline_incore_scopes")
TO_TILES, SPLIT = step_of("convert_tensor_to_tile_ops"), step_of("lower_auto_vector_split")
SCREENSHOT = ROOT / "docs" / "images" / "trace.png"
UPDATE_SCREENSHOT_ENV = "PYPTO_UPDATE_TRACE_SCREENSHOT"  # =1: the browser test rewrites docs/images/trace.png
INSTALL_TIMEOUT = 900


class _Collect(HTMLParser):
    """Elements of a page by tag, with their attributes; text of `<pre id=...>` elements."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.pre: dict[str, str] = {}
        self._in_pre: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        self.elements.append((tag, values))
        if tag == "pre" and values.get("id"):
            self._in_pre = values["id"]
            self.pre[self._in_pre] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self._in_pre = None

    def handle_data(self, data: str) -> None:
        if self._in_pre is not None:
            self.pre[self._in_pre] += data

    def find(self, tag: str | None = None, **attrs: str) -> list[dict[str, str]]:
        return [a for t, a in self.elements if (tag is None or t == tag)
                and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())]


def _elements(page: str) -> _Collect:
    parser = _Collect()
    parser.feed(page)
    return parser


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """`pypto trace` of the README's example with --verify check-run: the page and the stderr."""
    out = tmp_path_factory.mktemp("trace") / "trace.html"
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["trace", str(EXAMPLE), "-o", str(out), "--verify", "check-run"])
    assert code == 0, err.getvalue()
    return {"path": out, "page": out.read_text(encoding="utf-8"), "stderr": err.getvalue()}


# -- the page's structure -----------------------------------------------------------------------------
def test_every_pass_has_a_section_in_pipeline_order(traced):
    doc = _elements(traced["page"])
    sections = doc.find("section")
    assert [s["data-label"] for s in sections] == ["input"] + DEFAULT_PASSES
    assert [s["id"] for s in sections] == [f"pass-{i}" for i in range(len(DEFAULT_PASSES) + 1)]
    for s in sections[1:]:
        assert float(s["data-seconds"]) > 0  # the pass's time
        assert s["data-verification"] == "ok" and s["data-check-run"] in ("ok", "unchanged")


def test_passes_that_changed_nothing_are_marked(traced):
    doc = _elements(traced["page"])
    status = {s["data-label"]: s["data-status"] for s in doc.find("section")}
    assert status["normalize_stmt_structure"] == "unchanged"
    assert status["flatten_tile_nd_to_2d"] == "unchanged"
    assert status["outline_incore_scopes"] == "changed"
    page = traced["page"]
    unchanged = page[page.index(f'id="pass-{NORMALIZE}"'):page.index(f'id="pass-{NORMALIZE + 1}"')]
    assert '<span class="badge unchanged">no change</span>' in unchanged
    assert "no change: the program is the same as before the pass" in unchanged
    assert 'class="l add' not in unchanged and 'class="l del' not in unchanged


def test_diff_markup_has_added_and_removed_lines_with_changed_characters(traced):
    page = traced["page"]
    ssa = page[page.index(f'id="pass-{SSA}"'):page.index(f'id="pass-{SSA + 1}"')]
    assert '<div class="l del">' in ssa and '<div class="l add">' in ssa
    assert '<span class="x">' in ssa  # intra-line: the renamed variables
    # the removed line is the source's, the added one the SSA form, both highlighted
    assert re.search(r'class="l del"><span class="o">\d+</span><span class="n"></span><span class="g">-</span>', ssa)
    assert re.search(r'class="l add"><span class="o"></span><span class="n">\d+</span><span class="g">\+</span>', ssa)
    assert "__ssa_v0" in ssa
    outline = page[page.index(f'id="pass-{OUTLINE}"'):page.index(f'id="pass-{OUTLINE + 1}"')]
    assert 'data-fn="by_rows" data-status="added"' in outline  # a new function is one added block
    assert 'data-fn="main" data-status="changed"' in outline


def test_function_navigation_anchors(traced):
    doc = _elements(traced["page"])
    ids = {a["id"] for a in doc.find("div") if "id" in a}
    for fn in ("by_rows", "by_cols", "main"):
        assert f"p{OUTLINE}-f-{fn}" in ids and f"p{LAST}-f-{fn}" in ids
    assert "p0-f-main" in ids and "p0-f-by_rows" not in ids  # the input has main only
    assert {a["href"] for a in doc.find("a", **{"class": "fn-link"})} >= {f"#pass={OUTLINE}&fn=by_rows",
                                                                       "#pass=0&fn=main"}
    last = doc.find("section", id=f"pass-{LAST}")[0]
    assert set(last["data-functions"].split(",")) >= {"main", "by_rows", "by_cols"}


def test_verified_properties_and_check_run_verdicts_are_shown(traced):
    page = traced["page"]
    tile = page[page.index(f'id="pass-{TO_TILES}"'):page.index(f'id="pass-{TO_TILES + 1}"')]
    assert "<th>verified after</th>" in tile and '<span class="chip prop">' in tile
    assert "<th>check-run</th>" in tile and re.search(r"outputs match: cols, .*rows<", tile)
    unchanged = page[page.index(f'id="pass-{NORMALIZE}"'):page.index(f'id="pass-{NORMALIZE + 1}"')]
    assert "the pass returned its input: nothing to rerun" in unchanged or "outputs match" in unchanged


def test_the_page_is_self_contained(traced):
    page = traced["page"]
    assert "http://" not in page and "https://" not in page
    doc = _elements(page)
    assert not doc.find("link") and not doc.find("img") and not doc.find("iframe")
    assert all("src" not in a for _, a in doc.elements)  # every script is inline
    assert "@import" not in page and "url(" not in page
    assert page.count("<style>") == 1 and "<script>" in page


def test_progress_goes_to_stderr_one_line_per_pass(traced):
    lines = [line for line in traced["stderr"].splitlines() if re.match(rf"pypto trace: \[ *\d+/{LAST}\]", line)]
    assert len(lines) == LAST
    normalize = lines[NORMALIZE - 1]
    assert "normalize_stmt_structure" in normalize and normalize.endswith("no change")
    assert "wrote" in traced["stderr"].splitlines()[-1]


def test_trace_to_stdout_quiet_and_without_verification(capsys):
    code = main(["trace", str(EXAMPLE), "-o", "-", "-q", "--verify", "none",
                 "--pipeline", "convert_to_ssa,outline_incore_scopes"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    doc = _elements(out)
    assert [s["data-label"] for s in doc.find("section")] == ["input", "convert_to_ssa", "outline_incore_scopes"]
    assert "<th>verified after</th>" not in out and "<th>check-run</th>" not in out


# -- a failing pass -----------------------------------------------------------------------------------
class _Boom(Pass):
    name = "Boom"
    factory_name = "boom_for_trace_test"

    def run(self, program: Any, ctx: Any) -> Any:
        raise RuntimeError("boom: this pass always fails")


def test_a_failing_pass_is_traced_up_to_the_failure():
    from pypto_core.config import CliOverrides, load_config, resolve_config

    resolved = resolve_config(load_config(search_dir=ROOT / "tests"),
                              CliOverrides(pipeline="convert_to_ssa,outline_incore_scopes"))
    passes = [resolved.passes[0], _Boom(), resolved.passes[1]]
    manager = PassManager(passes, backend=resolved.backend, verify="basic")
    program = parse(EXAMPLE.read_text(), str(EXAMPLE))
    trace = collect_trace(program, manager, source=str(EXAMPLE))
    assert isinstance(trace.exception, InternalError) and trace.error_step == 2
    first, boom, after = trace.steps
    assert first.ran and first.verification == "ok" and boom.error and "boom: this pass always fails" in boom.error
    assert not after.ran and after.verification == "not run"
    page = render_html(trace)
    doc = _elements(page)
    assert [s["data-status"] for s in doc.find("section")] == ["input", "changed", "failed", "notrun"]
    assert "failed at pass 2" in page and "boom: this pass always fails" in page


def test_the_command_writes_the_page_of_a_failing_run_then_reports_it(tmp_path, capsys, toy_plugin):
    (tmp_path / "toy.py").write_text(TOY_SOURCE)
    out = tmp_path / "t.html"
    code = main(["trace", str(tmp_path / "toy.py"), "-o", str(out),
                 "--pipeline", "toy_mark,toy_needs_mark,toy_break_types,toy_unmark"])
    _, err = capsys.readouterr()
    assert code == 3 and "IR verification failed after pass 'toy_break_types'" in err
    assert "wrote " in err and "failed at pass 3" in err
    doc = _elements(out.read_text(encoding="utf-8"))
    sections = doc.find("section")
    assert [(s["data-label"], s["data-status"]) for s in sections] == [
        ("input", "input"), ("toy_mark", "changed"), ("toy_needs_mark", "unchanged"),
        ("toy_break_types", "failed"), ("toy_unmark", "notrun")]
    assert sections[3]["data-verification"] == "failed" and sections[4]["data-verification"] == "not run"


def test_a_file_that_is_no_program_writes_no_page(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\n")
    code = main(["trace", str(bad), "-o", str(tmp_path / "t.html")])
    assert code == 1 and not (tmp_path / "t.html").exists()  # not a program: nothing to trace


# -- the diff -----------------------------------------------------------------------------------------
TWO = '''import pypto.language as pl


@pl.program
class Two:
    @pl.function
    def helper(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        b = pl.add(a, 1.0)
        return b

    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = self.helper(x)
        return y
'''


def test_sections_and_function_level_diff():
    from pypto_core.language.printer import python_print

    text = python_print(parse(TWO, "two.py"))
    sections = split_sections(text)
    assert [s.name for s in sections] == ["", "helper", "main"]
    assert "\n".join(line for s in sections for line in s.lines) == "\n".join(text.splitlines())
    only_main = "\n".join(sections[0].lines + sections[2].lines)
    diffs = {d.name: d for d in diff_programs(text, only_main)}
    assert diffs["helper"].status == "removed" and diffs["helper"].removed == len(sections[1].lines)
    assert diffs["main"].status == "unchanged" and diffs["main"].added == 0
    back = {d.name: d for d in diff_programs(only_main, text)}
    assert back["helper"].status == "added"
    assert [d.name for d in diff_programs(text, only_main)] == ["", "helper", "main"]  # where it was


# -- in a real browser --------------------------------------------------------------------------------
_INSTALL: dict[str, Any] = {}


def _install_chromium() -> tuple[str | None, str]:
    """`chromium` on PATH, installing Debian's package when missing (as root, with apt); (path, reason)."""
    found = shutil.which("chromium")
    if found:
        return found, ""
    if not shutil.which("apt-get"):
        return None, "chromium is not installed and apt-get is not available to install it"
    if os.geteuid() != 0:
        return None, "chromium is not installed and installing it needs root (apt-get install chromium)"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    start = time.perf_counter()
    log = ""
    for attempt in (["apt-get", "install", "-y", "--no-install-recommends", "chromium"],
                    ["apt-get", "update"],
                    ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]):
        try:
            done = subprocess.run(attempt, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, f"could not install chromium ({' '.join(attempt)}): {exc}"
        log = (done.stdout + done.stderr)[-2000:]
        if attempt[1] == "install" and done.returncode == 0 and shutil.which("chromium"):
            _INSTALL["seconds"] = time.perf_counter() - start
            return shutil.which("chromium"), ""
    return None, f"could not install chromium with apt-get: {log.strip().splitlines()[-1:] or log}"


@pytest.fixture(scope="session")
def chromium() -> str:
    path, reason = _install_chromium()
    if path is None:
        pytest.skip(f"headless browser test: {reason}")
    return path


def _run_chromium(chromium: str, profile: Path, url: str, *args: str, timeout: float = 120) -> str:
    command = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--no-first-run", "--no-default-browser-check", "--disable-extensions",
               "--allow-file-access-from-files", f"--user-data-dir={profile}", *args, url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_browser_builds_the_navigation_from_the_url(chromium, traced, tmp_path):
    url = traced["path"].as_uri() + f"#pass={OUTLINE}&fn=by_rows"
    dom = _run_chromium(chromium, tmp_path / "profile", url, "--virtual-time-budget=3000", "--dump-dom")
    doc = _elements(dom)
    body = doc.find("body")[0]
    assert body.get("data-ready") == "1" and "js" in body["class"].split()
    assert body["data-current-pass"] == str(OUTLINE) and body["data-current-fn"] == "by_rows"
    links = [a for a in doc.find("a") if "data-step" in a]
    assert [a["data-step"] for a in links] == [str(i) for i in range(len(DEFAULT_PASSES) + 1)]
    assert "current" in links[OUTLINE]["class"].split()
    fn_links = [a["data-fn"] for a in doc.find("a") if "data-fn" in a]
    assert {"", "main", "by_rows", "by_cols"} <= set(fn_links)
    current = [s for s in doc.find("section") if "current" in s["class"].split()]
    assert [s["id"] for s in current] == [f"pass-{OUTLINE}"]
    filtered = {a["data-fn"] for a in doc.find("div") if "filtered" in a.get("class", "").split()}
    assert {"main", "by_cols"} <= filtered and "by_rows" not in filtered
    assert "<option value=\"by_cols\">by_cols</option>" in dom  # the function filter, built by the script


_CLICK_SCRIPT = """
<script>
window.addEventListener('load', function () {
  var out = {};
  function visible(e) { return !!e && getComputedStyle(e).display !== 'none' && e.offsetParent !== null; }
  function current() { return document.querySelector('section.pass.current'); }
  var li = document.querySelector('#pass-nav li.changed:nth-of-type(n+3)') ||
           document.querySelector('#pass-nav li.changed');
  var link = li.querySelector('a');
  out.clicked = link.dataset.step;
  link.click();
  setTimeout(function () {
    var cur = current();
    out.afterClick = {pass: document.body.dataset.currentPass, section: cur.id,
      shown: [].filter.call(document.querySelectorAll('section.pass'), visible).map(function (s) { return s.id; }),
      added: [].filter.call(cur.querySelectorAll('.l.add'), visible).length,
      removed: [].filter.call(cur.querySelectorAll('.l.del'), visible).length,
      navCurrent: document.querySelector('#pass-nav a.current').dataset.step};
    var unchanged = document.querySelector('#pass-nav li.unchanged a');
    unchanged.click();
    setTimeout(function () {
      var u = current();
      out.unchanged = {section: u.id, status: u.dataset.status,
        added: [].filter.call(u.querySelectorAll('.l.add'), visible).length,
        badge: !!u.querySelector('.pass-head .badge.unchanged')};
      document.querySelector('#pass-nav a[data-step="' + out.clicked + '"]').click();
      setTimeout(function () {
        document.querySelector('#views button[data-view="changes"]').click();
        setTimeout(function () {
          var c = current();
          out.changes = {view: document.body.dataset.view,
            far: [].filter.call(c.querySelectorAll('.l.far'), visible).length,
            farTotal: c.querySelectorAll('.l.far').length,
            gapsInChanged: c.querySelectorAll('.fn:not([data-status="unchanged"]) .gap').length,
            gaps: [].filter.call(c.querySelectorAll('.gap'), visible).length,
            hiddenBodies: [].filter.call(c.querySelectorAll('.fn[data-status="unchanged"] .body'),
              function (b) { return !visible(b); }).length,
            unchangedFns: c.querySelectorAll('.fn[data-status="unchanged"]').length};
          var fn = document.querySelector('#fn-nav a[data-fn="main"]');
          fn.click();
          setTimeout(function () {
            var c2 = current();
            out.fn = {fn: document.body.dataset.currentFn,
              shown: [].filter.call(c2.querySelectorAll('.fn'), visible).map(function (d) { return d.dataset.fn; })};
            var s = document.getElementById('search');
            s.value = '__ssa_v0'; s.dispatchEvent(new Event('input'));
            setTimeout(function () {
              out.search = {marks: document.querySelectorAll('section.pass.current mark').length,
                hits: [].filter.call(document.querySelectorAll('#pass-nav .hits'), function (h) { return !h.hidden; }).length};
              var pre = document.createElement('pre'); pre.id = 'test-result';
              pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
            }, 300);
          }, 100);
        }, 100);
      }, 100);
    }, 100);
  }, 100);
});
</script>
"""


def test_browser_clicking_a_pass_shows_its_diff(chromium, traced, tmp_path):
    page = traced["page"].replace("</body>", _CLICK_SCRIPT + "</body>")
    copy = tmp_path / "click.html"
    copy.write_text(page, encoding="utf-8")
    dom = _run_chromium(chromium, tmp_path / "profile", copy.as_uri(), "--virtual-time-budget=10000",
                        "--dump-dom")
    result = json.loads(_elements(dom).pre["test-result"])
    clicked = result["clicked"]
    after = result["afterClick"]
    assert after["pass"] == clicked and after["section"] == f"pass-{clicked}" and after["navCurrent"] == clicked
    assert after["shown"] == [f"pass-{clicked}"]  # one pass at a time
    assert after["added"] > 0 and after["removed"] > 0  # its diff, visible
    assert result["unchanged"]["status"] == "unchanged" and result["unchanged"]["badge"]
    assert result["unchanged"]["added"] == 0
    changes = result["changes"]
    assert changes["view"] == "changes" and changes["far"] == 0
    assert changes["gaps"] == changes["gapsInChanged"]  # '⋯ N unchanged lines' in changed functions
    assert changes["hiddenBodies"] == changes["unchangedFns"]  # unchanged functions fold to their name
    assert result["fn"] == {"fn": "main", "shown": ["main"]}
    assert result["search"]["marks"] > 0 and result["search"]["hits"] >= 1


def test_browser_screenshot(chromium, traced, tmp_path):
    shot = tmp_path / "trace.png"
    url = traced["path"].as_uri() + f"#pass={SPLIT}"
    _run_chromium(chromium, tmp_path / "profile", url, "--virtual-time-budget=3000", "--window-size=1440,900",
                  "--hide-scrollbars", f"--screenshot={shot}")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a rendered page, not a blank one
    if os.environ.get(UPDATE_SCREENSHOT_ENV) == "1":
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, SCREENSHOT)
