#!/usr/bin/python3
"""`adept view` end to end, in a real browser (headless Chromium).

Usage: test_view.py <path to the adept binary>

Writes two runs' batches.csv / results.csv with known values, has `adept view` write the page,
loads it in headless Chromium and checks what the page says it drew (<pre id="drawn">: series
names, point counts, value and axis ranges) against the CSVs; then `adept view --serve`: the page
and /data.json over HTTP, the data changing with a CSV, and the served page redrawing from its
poll; then the errors for a missing folder, a folder without runs and an empty CSV.
Exits 77 (skipped) when Chromium is not installed.
"""
import html
import http.server
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request

ADEPT = sys.argv[1] if len(sys.argv) > 1 else "build/release/bin/adept"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
BATCH_COLUMNS = ["epoch", "batch", "iteration", "box_loss", "cls_loss", "dfl_loss", "instances", "lr/pg0", "lr/pg1",
                 "lr/pg2", "images_per_s"]
RESULT_COLUMNS = ["epoch", "train/box_loss", "train/cls_loss", "train/dfl_loss", "metrics/precision(B)",
                  "metrics/recall(B)", "metrics/mAP50(B)", "metrics/mAP50-95(B)", "val/box_loss", "val/cls_loss",
                  "val/dfl_loss", "lr/pg0", "lr/pg1", "lr/pg2", "seconds"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def close(a, b, rel=1e-9):
    return a is not None and b is not None and abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def fmt(v):
    return "nan" if isinstance(v, float) and math.isnan(v) else f"{v:.6g}"


def write_run(folder, epochs, batches_per_epoch, seed, nan_at=None):
    """A run folder in the trainer's format; returns {'batches': {col: [values]}, 'results': ...}."""
    os.makedirs(folder, exist_ok=True)
    batches = {c: [] for c in BATCH_COLUMNS}
    results = {c: [] for c in RESULT_COLUMNS}
    it = 0
    for e in range(1, epochs + 1):
        for b in range(1, batches_per_epoch + 1):
            t = it + 1
            row = [e, b, it, 3.0 / t + 0.1 * ((seed * t) % 7), 4.0 / math.sqrt(t) + seed, 1.0 + 0.5 / t,
                   10 + (t * seed) % 9, 0.0 if it == 0 else 0.001 * t, 0.002, 0.003, 40.0 + seed + t]
            if nan_at == it:
                row[3] = float("nan")
            for c, v in zip(BATCH_COLUMNS, row):
                batches[c].append(float(v))
            it += 1
        row = [e, 2.0 / e, 3.0 / e + seed, 1.5 - 0.1 * e, 0.1 * e, 0.05 * e, 0.2 * e, 0.1 * e,
               float("nan") if e == 1 else 2.5 / e, 3.5 / e, 1.2, 0.01 / e, 0.01 / e, 0.01 / e, 4.0 + e]
        for c, v in zip(RESULT_COLUMNS, row):
            results[c].append(float(v))
    for name, table, cols in (("batches.csv", batches, BATCH_COLUMNS), ("results.csv", results, RESULT_COLUMNS)):
        with open(os.path.join(folder, name), "w") as f:
            f.write(",".join(cols) + "\n")
            for r in range(len(table[cols[0]])):
                f.write(",".join(fmt(table[c][r]) for c in cols) + "\n")
    # What the page should read back: the values as printed (6 significant digits).
    for table in (batches, results):
        for c in table:
            table[c] = [float(fmt(v)) for v in table[c]]
    return {"batches": batches, "results": results}


def chromium_dom(url, tmp, keep_dom=False):
    profile = tempfile.mkdtemp(dir=tmp, prefix="chromium-")
    out = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                          "--no-first-run", f"--user-data-dir={profile}", "--virtual-time-budget=5000", "--dump-dom",
                          url], capture_output=True, text=True, timeout=90, env=dict(os.environ, HOME=profile))
    m = re.search(r'<pre id="drawn"[^>]*>(.*?)</pre>', out.stdout, re.S)
    if not m or not m.group(1).strip():
        print(out.stdout[-2000:], out.stderr[-3000:])
        raise SystemExit(f"FAIL: {url}: the page drew nothing (no <pre id=\"drawn\">)")
    drawn = json.loads(html.unescape(m.group(1)))
    return (drawn, out.stdout) if keep_dom else drawn


def ema(ys, w):
    """TensorBoard's smoothing, written out independently of the page's code."""
    out, acc, n = [], 0.0, 0
    for y in ys:
        acc = acc * w + (1 - w) * y
        n += 1
        out.append(acc / (1 - w ** n))
    return out


def check_drawn(drawn, runs, smoothing, log, label):
    kinds = {"batch": ("batches", "iteration", BATCH_COLUMNS[3:]), "epoch": ("results", "epoch", RESULT_COLUMNS[1:])}
    charts = {(c["kind"], c["metric"]): c for c in drawn["charts"]}
    check(len(charts) == len(BATCH_COLUMNS) - 3 + len(RESULT_COLUMNS) - 1,
          f"{label}: {len(charts)} charts, expected one per metric column")
    check(drawn["smoothing"] == smoothing and drawn["log"] == log, f"{label}: controls {drawn['smoothing']} {drawn['log']}")
    for kind, (table, xcol, metrics) in kinds.items():
        for metric in metrics:
            chart = charts.get((kind, metric))
            if chart is None:
                check(False, f"{label}: no chart for {kind} {metric}")
                continue
            where = f"{label}: {kind} chart {metric}"
            check(chart["y"]["type"] == ("logarithmic" if log else "linear"), f"{where}: y axis {chart['y']['type']}")
            series = {s["name"]: s for s in chart["series"]}
            smoothed = smoothing > 0 and kind == "batch"
            expected_names = [n for run in runs for n in ([f"{run} (raw)", run] if smoothed else [run])]
            check([s["name"] for s in chart["series"]] == expected_names,
                  f"{where}: series {[s['name'] for s in chart['series']]}, expected {expected_names}")
            xs_all, ys_all = [], []
            for run, data in runs.items():
                t = data[table]
                pts = [(x, y) for x, y in zip(t[xcol], t[metric]) if not math.isnan(y) and not (log and y <= 0)]
                xs, ys = [p[0] for p in pts], [p[1] for p in pts]
                xs_all += xs
                drawn_ys = ema(ys, smoothing) if smoothed else ys
                ys_all += ys + drawn_ys
                for name, values in ([(f"{run} (raw)", ys)] if smoothed else []) + [(run, drawn_ys)]:
                    s = series.get(name)
                    if s is None:
                        continue
                    check(s["points"] == len(values), f"{where} {name}: {s['points']} points, the CSV has {len(values)}")
                    check(close(s["ymin"], min(values)) and close(s["ymax"], max(values)),
                          f"{where} {name}: y range [{s['ymin']}, {s['ymax']}], expected [{min(values)}, {max(values)}]")
                    check(s["first"][0] == xs[0] and close(s["first"][1], values[0]) and s["last"][0] == xs[-1]
                          and close(s["last"][1], values[-1]), f"{where} {name}: first {s['first']} last {s['last']}")
            check(chart["x"]["min"] == min(xs_all) and chart["x"]["max"] == max(xs_all),
                  f"{where}: x axis [{chart['x']['min']}, {chart['x']['max']}], the data [{min(xs_all)}, {max(xs_all)}]")
            lo, hi = min(ys_all), max(ys_all)
            check(chart["y"]["min"] <= lo * (1 + 1e-9) and chart["y"]["max"] >= hi * (1 - 1e-9) and
                  chart["y"]["max"] > chart["y"]["min"],
                  f"{where}: y axis [{chart['y']['min']}, {chart['y']['max']}] does not hold the data [{lo}, {hi}]")
            if kind == "batch":
                boundaries = sum(len(set(d["batches"]["epoch"])) - 1 for d in runs.values())
                check(chart["epoch_boundaries"] == boundaries,
                      f"{where}: {chart['epoch_boundaries']} epoch boundaries, expected {boundaries}")


# Appended to a copy of the page: drags across the first batch chart from 25 % to 75 % of its plot
# area (zoom), keeps what was drawn, double-clicks (reset), keeps that, then ticks "log scale" and
# moves the smoothing slider to 0.9.
INTERACT = """<script>
(function () {
  const keep = (id) => {
    const pre = document.createElement('pre');
    pre.id = id;
    pre.textContent = document.getElementById('drawn').textContent;
    document.body.appendChild(pre);
  };
  const canvas = document.querySelector('.chart[data-kind="batch"][data-metric="box_loss"] canvas');
  const chart = Chart.getChart(canvas);
  const a = chart.chartArea;
  const r = canvas.getBoundingClientRect();
  const mouse = (type, px) => canvas.dispatchEvent(new MouseEvent(type, {
      bubbles: true, button: 0, clientX: r.left + px, clientY: r.top + (a.top + a.bottom) / 2}));
  const x0 = a.left + 0.25 * (a.right - a.left);
  const x1 = a.left + 0.75 * (a.right - a.left);
  const value = (px) => chart.scales.x.getValueForPixel(px);
  document.body.dataset.want = JSON.stringify([value(x0), value(x1), value(a.left + 1) - value(a.left)]);
  mouse('mousedown', x0);
  mouse('mousemove', (x0 + x1) / 2);
  mouse('mousemove', x1);
  mouse('mouseup', x1);
  keep('after-drag');
  mouse('dblclick', x1);
  keep('after-reset');
  document.getElementById('log-scale').click();
  const slider = document.getElementById('smoothing');
  slider.value = '0.9';
  slider.dispatchEvent(new Event('input'));
})();
</script>
"""


def test_interaction(tmp, page, runs):
    text = open(page, encoding="utf-8").read()
    copy = os.path.join(tmp, "interact.html")
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", INTERACT + "</body>"))
    dom = chromium_dom("file://" + copy, tmp, keep_dom=True)
    drawn, raw = dom
    *want, per_pixel = json.loads(html.unescape(re.search(r'data-want="([^"]*)"', raw).group(1)))
    near = lambda a, b: abs(a - b) <= 1.01 * per_pixel  # the events' offsetX are whole pixels
    after = {k: json.loads(html.unescape(re.search(rf'<pre id="{k}">(.*?)</pre>', raw, re.S).group(1)))
             for k in ("after-drag", "after-reset")}
    zoom = after["after-drag"]["zoom"]
    check(zoom["batch"] is not None and near(zoom["batch"][0], want[0]) and near(zoom["batch"][1], want[1])
          and zoom["epoch"] is None, f"drag: zoom {zoom}, expected batch {want}")
    full = {(c["kind"], c["metric"]): c for c in after["after-reset"]["charts"]}
    for c in after["after-drag"]["charts"] if zoom["batch"] else []:
        where = f"drag: {c['kind']} chart {c['metric']}"
        if c["kind"] == "epoch":
            check(c["x"] == full[("epoch", c["metric"])]["x"], f"{where}: the epoch charts' x changed: {c['x']}")
            continue
        check(c["x"]["min"] == zoom["batch"][0] and c["x"]["max"] == zoom["batch"][1],
              f"{where}: x axis [{c['x']['min']}, {c['x']['max']}], the dragged range {want}")
        inside = [y for d in runs.values() for x, y in zip(d["batches"]["iteration"], d["batches"][c["metric"]])
                  if c["x"]["min"] <= x <= c["x"]["max"] and not math.isnan(y)]
        check(c["y"]["min"] <= min(inside) and c["y"]["max"] >= max(inside), f"{where}: y axis {c['y']} misses the range's data")
    box = next(c for c in after["after-drag"]["charts"] if c["metric"] == "box_loss")
    check(zoom["batch"] and box["y"]["max"] < full[("batch", "box_loss")]["y"]["max"],
          f"drag: box_loss's y axis did not fit the zoomed range ({box['y']} against {full[('batch', 'box_loss')]['y']})")
    check(after["after-reset"]["zoom"]["batch"] is None, "double-click: the zoom stayed")
    check_drawn(after["after-reset"], runs, 0.6, False, "after the zoom's reset")
    check_drawn(drawn, runs, 0.9, True, "after ticking log scale and smoothing 0.9")


def run(args, **kw):
    return subprocess.run([ADEPT, "view"] + args, capture_output=True, text=True, timeout=60, **kw)


def get(url, headers=None):
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def test_serve(tmp, runs_dir, runs):
    run_a = os.path.join(runs_dir, "detect", "a")
    server = subprocess.Popen([ADEPT, "view", run_a, "--serve", "--port", "0", "--poll_ms", "200"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        m = re.search(r"serving (http://127\.0\.0\.1:(\d+)/)", line)
        if not m:
            raise SystemExit(f"FAIL: --serve printed {line!r}; stderr {server.stderr.read()}")
        base = m.group(1)
        status, _, page = get(base)
        check(status == 200 and b"Chart.js v3.9.1" in page and b'"live": true' in page,
              f"--serve: GET / gave {status}, {len(page)} bytes without the inline Chart.js or the live flag")
        status, headers, body = get(base + "data.json")
        data = json.loads(body)
        rows = data["runs"][0]["batches"]["rows"]
        check(status == 200 and rows == len(runs["a"]["batches"]["epoch"]) and data["runs"][0]["name"] == "a",
              f"--serve: /data.json gave {status} with {rows} batch rows")
        etag = headers.get("ETag")
        check(etag == f'"{data["version"]}"', f"--serve: ETag {etag}, the data's version {data['version']}")
        status, _, _ = get(base + "data.json", {"If-None-Match": etag})
        check(status == 304, f"--serve: an unchanged version gave {status}, expected 304")

        # A page as served before the run went on, behind a same-origin forwarder so its polls reach
        # the server: the page must redraw from /data.json once the CSV has grown.
        _, _, stale_page = get(base)
        with open(os.path.join(run_a, "batches.csv"), "a") as f:
            f.write("4,1,15,0.5,0.6,0.7,12,0.001,0.002,0.003,55\n")
        status, _, body = get(base + "data.json", {"If-None-Match": etag})
        new = json.loads(body) if status == 200 else {}
        check(status == 200 and new["runs"][0]["batches"]["rows"] == rows + 1 and new["version"] != data["version"],
              f"--serve: after a row was appended /data.json gave {status}")

        class Forward(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path.startswith("/data.json"):
                    headers = {k: v for k, v in self.headers.items() if k.lower() == "if-none-match"}
                    code, h, payload = get(base + "data.json", headers)
                else:
                    code, h, payload = 200, {"Content-Type": "text/html"}, stale_page
                self.send_response(code)
                self.send_header("Content-Type", h.get("Content-Type", "application/json"))
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        forward = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Forward)
        threading.Thread(target=forward.serve_forever, daemon=True).start()
        try:
            drawn = chromium_dom(f"http://127.0.0.1:{forward.server_address[1]}/?smoothing=0", tmp)
        finally:
            forward.shutdown()
        box = next(c for c in drawn["charts"] if c["kind"] == "batch" and c["metric"] == "box_loss")
        check(drawn["live"] and drawn["version"] == new["version"] and box["series"][0]["points"] == rows + 1
              and box["x"]["max"] == 15,
              f"--serve: the page did not redraw from its poll (version {drawn['version']}, "
              f"{box['series'][0]['points']} points, x max {box['x']['max']})")
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_damaged(tmp, runs):
    """One empty and one damaged CSV beside a good run: the good run is drawn, the others warned about."""
    folder = os.path.join(tmp, "damaged")
    write_run(os.path.join(folder, "good"), 2, 3, 1)
    os.makedirs(os.path.join(folder, "empty"))
    open(os.path.join(folder, "empty", "results.csv"), "w").close()
    bad = os.path.join(folder, "bad")
    bad_runs = write_run(bad, 2, 3, 3)
    with open(os.path.join(bad, "batches.csv"), "a") as f:
        f.write("3,1,6,0.5,0.6\n")                                   # a short row: left out
        f.write("3,2,7,oops,0.6,0.7,12,0.001,0.002,0.003,55\n")      # a word: a gap
        f.write("3,3,8,0.5,0.6,0.7")                                  # being written: silent
    page = os.path.join(tmp, "damaged.html")
    out = run([folder, "--out", page])
    check(out.returncode == 0 and "3 runs" in out.stdout and os.path.isfile(page),
          f"adept view with a damaged run: exit {out.returncode}, {out.stdout} {out.stderr}")
    for message in ("results.csv is empty", "batches.csv line 8: 5 fields where the header has 11",
                    "batches.csv line 9, column box_loss: 'oops' is not a number",
                    "results.csv, column val/box_loss: 1 value is nan or inf (the first on line 2); drawn as gaps"):
        check(message in out.stderr, f"adept view with a damaged run: stderr {out.stderr!r} lacks {message!r}")
    check("line 10" not in out.stderr, f"the row being written was warned about: {out.stderr!r}")
    drawn = chromium_dom("file://" + page + "?smoothing=0", tmp)
    # 3, and the val/box_loss NaN of write_run's first epoch in good and bad
    check(len(drawn["warnings"]) == 5, f"the page lists {drawn['warnings']}, expected 5 warnings")
    box = next(c for c in drawn["charts"] if c["kind"] == "batch" and c["metric"] == "box_loss")
    points = {s["name"]: s["points"] for s in box["series"]}
    rows = len(bad_runs["batches"]["epoch"])
    check(points.get("good") == 6 and points.get("bad") == rows,  # the word is a gap
          f"damaged runs: box_loss points {points}, expected good 6 and bad {rows}")


def test_quirks(tmp):
    """CSVs as other tools write them: a byte order mark, quoted fields, a repeated column name, nan / inf
    values, binary bytes. Checked in the page's data and the warnings, without a browser."""
    folder = os.path.join(tmp, "quirks")
    files = {"bom": b"\xef\xbb\xbfepoch,a\n1,2\n2,3\n",
             "quoted": b'epoch,"a,b",c\n1,2,3\n2,"4",5\n',
             "twice": b"epoch,a,a\n1,2,3\n2,3,4\n",
             "nonfinite": b"epoch,a,b\n1,nan,nan\n2,inf,nan\n3,-1e400,\n4,,nan\n5,1,nan\n",  # b: never finite, silent
             "binary": b"epoch,\x01\xff\n1\x00,2\n"}
    for name, data in files.items():
        os.makedirs(os.path.join(folder, name))
        with open(os.path.join(folder, name, "results.csv"), "wb") as f:
            f.write(data)
    page = os.path.join(tmp, "quirks.html")
    out = run([folder, "--out", page])
    check(out.returncode == 0 and "5 runs" in out.stdout, f"adept view of odd CSVs: exit {out.returncode}, {out.stderr}")
    text = open(page, encoding="utf-8").read()
    start = text.index('{"runs":[')
    doc = json.loads(text[start:text.index("</script>", start)].replace("<\\/", "</"))
    results = {r["name"]: r["results"] for r in doc["runs"]}
    check(results["bom"] and results["bom"]["columns"] == ["epoch", "a"], f"byte order mark: {results['bom']}")
    check(results["quoted"] and results["quoted"]["data"].get("a,b") == [2, 4], f"quoted fields: {results['quoted']}")
    check(results["twice"] and results["twice"]["data"].get("a (2)") == [3, 4], f"a column named twice: {results['twice']}")
    check(results["nonfinite"] and results["nonfinite"]["rows"] == 5, f"nan / inf: {results['nonfinite']}")
    check(results["binary"] is None, f"a binary file was drawn: {results['binary']}")
    for message in ("the header names column 'a' twice; the second is drawn as 'a (2)'",
                    "column a: 3 values are nan or inf (the first on line 2); drawn as gaps",
                    "is not a text CSV (it holds NUL bytes); not drawn"):
        check(message in out.stderr, f"adept view of odd CSVs: stderr {out.stderr!r} lacks {message!r}")
    check(out.stderr.count("warning") == 3, f"adept view of odd CSVs warned {out.stderr!r}, expected 3 warnings")


def main():
    if not os.access(ADEPT, os.X_OK):
        raise SystemExit(f"FAIL: {ADEPT} is not an executable")
    if not CHROMIUM:
        print("SKIP: chromium is not installed (scripts/setup.sh installs it)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        runs_dir = os.path.join(tmp, "runs")
        runs = {"a": write_run(os.path.join(runs_dir, "detect", "a"), 3, 5, 1),
                "b": write_run(os.path.join(runs_dir, "detect", "b"), 2, 4, 2, nan_at=2)}
        # A folder of runs (two levels down), written beside the first run.
        out = run([runs_dir])
        page = os.path.join(runs_dir, "detect", "a", "view.html")
        check(out.returncode == 0 and "2 runs (a, b): wrote" in out.stdout, f"adept view: {out.stdout} {out.stderr}")
        text = open(page, encoding="utf-8").read()
        check(not re.search(r"<(script|link|img)[^>]+(src|href)=", text), "the page loads something from outside")
        drawn = chromium_dom("file://" + page, tmp)
        check_drawn(drawn, runs, 0.6, False, "static page")
        # The controls from the URL: no smoothing, log scale (zero and negative values left out).
        drawn = chromium_dom("file://" + page + "?smoothing=0&log=1", tmp)
        check_drawn(drawn, runs, 0, True, "static page, log scale")
        test_interaction(tmp, page, runs)
        # Run folders given one by one, to a chosen file.
        cmp_page = os.path.join(tmp, "cmp.html")
        out = run([os.path.join(runs_dir, "detect", "b"), os.path.join(runs_dir, "detect", "a"), "--out", cmp_page])
        check(out.returncode == 0 and "2 runs (b, a)" in out.stdout and os.path.isfile(cmp_page),
              f"adept view b a --out: {out.stdout} {out.stderr}")

        test_serve(tmp, runs_dir, runs)

        test_damaged(tmp, runs)
        test_quirks(tmp)

        empty = os.path.join(tmp, "empty")
        os.makedirs(os.path.join(empty, "sub"))
        for args, message in (([os.path.join(tmp, "missing")], "does not exist"),
                              ([empty], "holds no batches.csv or results.csv, nor do its subfolders"),
                              ([], "give one or more run folders")):
            out = run(args)
            check(out.returncode != 0 and message in out.stderr,
                  f"adept view {args}: exit {out.returncode}, stderr {out.stderr!r}, expected {message!r}")
    if failures:
        print(f"FAIL: {len(failures)} checks failed")
        return 1
    print("PASS: adept view draws the runs' CSVs, serves them live and names bad folders")
    return 0


if __name__ == "__main__":
    sys.exit(main())
