"""Load a report in headless Chromium, with no dependency beyond the browser.

A probe script is injected into a copy of the page (the report itself carries
no test hook). It records JavaScript errors, console.error calls, CSP
violations (every blocked request to another host is one), alert() calls and
the Resource Timing entries (every request the page made), then writes them
into the DOM, which ``--dump-dom`` gives back. Chromium's own console log
(``--enable-logging=stderr``) is read as well. Host names resolve to nothing
(``--host-resolver-rules``), so even a slip cannot reach the network.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

__all__ = ["find_chromium", "load_report", "screenshot", "PageResult"]

PROBE = """<script>
(function () {
  var errors = [];
  window.addEventListener("error", function (e) {
    errors.push("error: " + (e.message || (e.target && (e.target.src || e.target.href)) || "?"));
  }, true);
  window.addEventListener("unhandledrejection", function (e) { errors.push("rejection: " + e.reason); });
  document.addEventListener("securitypolicyviolation", function (e) {
    errors.push("csp: " + e.violatedDirective + " " + e.blockedURI);
  });
  var consoleError = console.error;
  console.error = function () { errors.push("console: " + Array.prototype.join.call(arguments, " ")); consoleError.apply(console, arguments); };
  window.alert = function (m) { errors.push("alert: " + m); };
  function bottoms(selectors) {
    var out = {};
    selectors.forEach(function (s) {
      var el = document.querySelector(s);
      out[s] = el ? el.getBoundingClientRect().bottom + window.scrollY : null;
    });
    return out;
  }
  var clicked = {};
  function press() {
    /* Use the page's buttons as a reader would: copy, unfold, download. */
    var copy = document.querySelector("button[data-copy]");
    if (copy) { copy.click(); }
    var more = document.querySelector("button[data-more]");
    if (more) {
      var table = more.previousElementSibling;
      more.click();
      var row = table && table.querySelector("tr.more");
      clicked.more_visible = row ? getComputedStyle(row).display !== "none" : null;
    }
    var download = document.getElementById("download-record");
    if (download) {
      /* Catch the download link the page builds instead of saving a file (a real
         download can keep headless Chromium from exiting). */
      var realClick = HTMLAnchorElement.prototype.click;
      HTMLAnchorElement.prototype.click = function () {
        if (this.hasAttribute("download")) {
          clicked.download = { name: this.getAttribute("download"), href: this.href.slice(0, 5) };
        } else { realClick.call(this); }
      };
      download.click();
      HTMLAnchorElement.prototype.click = realClick;
    }
    setTimeout(function () { clicked.copy_label = copy ? copy.textContent : null; }, 100);
  }
  window.addEventListener("load", function () {
    setTimeout(press, 10);
    setTimeout(function () {
      var record = null, recordError = null;
      try { record = JSON.parse(document.getElementById("run-record").textContent); }
      catch (e) { recordError = String(e); }
      var out = document.createElement("pre");
      out.id = "__probe_result";
      out.textContent = JSON.stringify({
        errors: errors,
        resources: performance.getEntriesByType("resource").map(function (r) { return r.name; }),
        title: document.title,
        images: document.querySelectorAll("img").length,
        scripts: document.querySelectorAll("script").length,
        svgs: document.querySelectorAll("svg.chart").length,
        record_error: recordError,
        record_exception: record && record.outcome ? record.outcome.exception_message : null,
        record_script: record && record.invocation ? record.invocation.script : null,
        clicked: clicked,
        bottoms: bottoms([".headline", ".hero svg", ".hero-note", ".banner", "#outcome .traceback", ".verdict .unavailable"])
      });
      document.body.appendChild(out);
    }, 400);
  });
})();
</script>"""

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
         "--disable-component-update", "--disable-sync", "--disable-extensions", "--hide-scrollbars",
         "--host-resolver-rules=MAP * ~NOTFOUND", "--disable-dev-shm-usage"]


@dataclass(frozen=True)
class PageResult:
    errors: list[str]
    resources: list[str]
    console: list[str]  # Chromium's log lines about the page's console
    probe: dict
    dom: str


def find_chromium() -> Optional[str]:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _run(args: list[str], timeout: float, attempts: int = 2) -> subprocess.CompletedProcess:
    """Run Chromium once more if it hangs: on a loaded machine headless start-up sometimes stalls."""
    chromium = find_chromium()
    if chromium is None:
        raise FileNotFoundError("chromium not found")
    for attempt in range(attempts):
        with tempfile.TemporaryDirectory(prefix="tp-chromium-") as profile:
            # its own process group, so a hung browser is ended with all its helper processes
            proc = subprocess.Popen([chromium, *FLAGS, f"--user-data-dir={profile}", *args],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    start_new_session=True)
            try:
                out, err = proc.communicate(timeout=timeout)
                return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
                if attempt == attempts - 1:
                    raise
    raise AssertionError("unreachable")


def load_report(path: Path, timeout: float = 90, width: int = 1280, height: int = 800) -> PageResult:
    """Open ``path`` (a copy with the probe injected) and return what happened."""
    html = Path(path).read_text(encoding="utf-8")
    probed = html.replace("<head>", "<head>" + PROBE, 1)
    with tempfile.TemporaryDirectory(prefix="tp-page-") as folder:
        page = Path(folder) / Path(path).name
        page.write_text(probed, encoding="utf-8")
        proc = _run([f"--window-size={width},{height}", "--enable-logging=stderr", "--v=0",
                     "--virtual-time-budget=5000", "--dump-dom",
                     page.as_uri()], timeout)
    m = re.search(r'<pre id="__probe_result">(.*?)</pre>', proc.stdout, re.S)
    if not m:
        raise RuntimeError(f"the page did not finish loading: rc={proc.returncode}\n{proc.stderr[-3000:]}")
    probe = json.loads(_unescape(m.group(1)))
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return PageResult(errors=probe["errors"], resources=probe["resources"], console=console, probe=probe,
                      dom=proc.stdout)


def _unescape(text: str) -> str:
    return (text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
            .replace("&#39;", "'").replace("&amp;", "&"))


def screenshot(path: Path, out: Path, width: int = 1280, height: int = 800, timeout: float = 90) -> Path:
    """A PNG of the page's first ``width``×``height`` pixels."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    proc = _run([f"--window-size={width},{height}", f"--screenshot={out}", "--virtual-time-budget=3000",
                 Path(path).resolve().as_uri()], timeout)
    if not out.exists():
        raise RuntimeError(f"no screenshot: rc={proc.returncode}\n{proc.stderr[-3000:]}")
    return out
