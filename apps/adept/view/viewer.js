// The viewer page of `adept view`: one Chart.js line chart per metric column of the runs'
// batches.csv (x: iteration) and results.csv (x: epoch), the runs overlaid. After each drawing the
// page states what it drew in <pre id="drawn"> (JSON: per chart its series, their point counts and
// value ranges, and the axes' ranges), so a test in a headless browser can check it.
// URL parameters set the initial controls: ?smoothing=0.9&log=1&epochs=0.
(function () {
  'use strict';

  const config = JSON.parse(document.getElementById('view-config').textContent);
  let data = JSON.parse(document.getElementById('view-data').textContent);

  // The two kinds of chart: which table they draw, its x column and the columns that are no metric.
  const KINDS = {
    batch: { table: 'batches', x: 'iteration', skip: ['epoch', 'batch', 'iteration'], container: 'batch-charts',
             section: 'batch-section', label: 'iteration', smoothed: true, pointRadius: 0 },
    epoch: { table: 'results', x: 'epoch', skip: ['epoch'], container: 'epoch-charts', section: 'epoch-section',
             label: 'epoch', smoothed: false, pointRadius: 2.5 },
  };
  const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf',
                  '#7f7f7f', '#bcbd22'];

  const params = new URLSearchParams(location.search);
  const state = {
    smoothing: params.has('smoothing') ? Math.min(0.99, Math.max(0, Number(params.get('smoothing')) || 0)) : 0.6,
    log: params.get('log') === '1',
    epochLines: params.get('epochs') !== '0',
    zoom: { batch: null, epoch: null },  // [min, max] of x, per kind
    hidden: new Set(),                   // names of the runs switched off
  };
  const charts = new Map();  // 'kind:metric' -> {chart, kind, metric, el, info}
  let renders = 0;

  // TensorBoard-style smoothing: an exponential moving average divided by the sum of its weights
  // (so the first values are not pulled towards zero), i.e. the mean of the values so far weighted
  // by weight^age, updated as a running mean (a constant series stays exactly constant).
  function smooth(ys, weight) {
    const out = new Array(ys.length);
    let mean = 0;
    let weights = 0;
    for (let i = 0; i < ys.length; ++i) {
      weights = weights * weight + 1;
      mean += (ys[i] - mean) / weights;
      out[i] = mean;
    }
    return out;
  }

  function alpha(hex, a) {
    const n = parseInt(hex.slice(1), 16);
    return `rgba(${n >> 16}, ${(n >> 8) & 255}, ${n & 255}, ${a})`;
  }

  function runColor(index) { return COLORS[index % COLORS.length]; }

  // Round tick values for an axis spanning [min, max] (its ends are the data's, not rounded):
  // steps of 1, 2 or 5 times a power of ten (at least `minStep`), about `count` of them.
  function linearTicks(min, max, count, minStep) {
    const raw = Math.max((max - min) / count, minStep || 0, 1e-300);
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw * 0.999);
    const out = [];
    for (let v = Math.ceil(min / step - 1e-9) * step; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
    return out;
  }

  // Log axis ticks: the powers of ten within [min, max] where there are two or more, else the
  // values 1, 2 and 5 times a power of ten (else min and max).
  function logTicks(min, max) {
    const decades = [];
    for (let e = Math.ceil(Math.log10(min) - 1e-9); e <= Math.floor(Math.log10(max) + 1e-9); ++e)
      decades.push(Number(Math.pow(10, e).toPrecision(12)));
    if (decades.length >= 2) return decades;
    const out = [];
    for (let e = Math.floor(Math.log10(min)) - 1; e <= Math.ceil(Math.log10(max)); ++e)
      for (const m of [1, 2, 5]) {
        const v = Number((m * Math.pow(10, e)).toPrecision(12));
        if (v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9)) out.push(v);
      }
    return out.length >= 2 ? out : [min, max];
  }

  function formatTick(v) {
    if (v === 0) return '0';
    const a = Math.abs(v);
    return a >= 1e5 || a < 1e-4 ? Number(v.toPrecision(3)).toExponential() : String(Number(v.toPrecision(4)));
  }

  // The metric columns of a kind over all runs, in the order they first appear.
  function metricsOf(kind) {
    const k = KINDS[kind];
    const seen = [];
    for (const run of data.runs) {
      const table = run[k.table];
      if (!table) continue;
      for (const c of table.columns) if (!k.skip.includes(c) && !seen.includes(c)) seen.push(c);
    }
    return seen;
  }

  // The finite (x, y) points of one run's metric; non-positive y is left out on a log scale.
  function pointsOf(table, kind, metric) {
    const xs = table.data[KINDS[kind].x];
    const ys = table.data[metric];
    const out = { x: [], y: [] };
    if (!ys) return out;
    for (let i = 0; i < ys.length; ++i) {
      const x = xs ? xs[i] : i + 1;
      const y = ys[i];
      if (x === null || y === null || (state.log && y <= 0)) continue;
      out.x.push(x);
      out.y.push(y);
    }
    return out;
  }

  // The x of each run's first batch of every epoch after its first.
  function epochBoundaries(table) {
    const epochs = table.data.epoch;
    const xs = table.data[KINDS.batch.x];
    const out = [];
    if (!epochs || !xs) return out;
    for (let i = 1; i < epochs.length; ++i)
      if (epochs[i] !== null && epochs[i - 1] !== null && epochs[i] !== epochs[i - 1] && xs[i] !== null)
        out.push({ x: xs[i], epoch: epochs[i] });
    return out;
  }

  function datasetsOf(kind, metric) {
    const k = KINDS[kind];
    const datasets = [];
    const series = [];
    const boundaries = [];
    data.runs.forEach((run, r) => {
      const table = run[k.table];
      if (!table || !table.data[metric]) return;
      const p = pointsOf(table, kind, metric);
      const color = runColor(r);
      const hidden = state.hidden.has(run.name);
      const smoothing = k.smoothed ? state.smoothing : 0;
      const ys = smoothing > 0 ? smooth(p.y, smoothing) : p.y;
      const xy = (values) => values.map((y, i) => ({ x: p.x[i], y }));
      const describe = (name, values, raw) => ({
        name, raw, hidden, points: values.length,
        first: values.length ? [p.x[0], values[0]] : null,
        last: values.length ? [p.x[values.length - 1], values[values.length - 1]] : null,
        ymin: values.length ? values.reduce((a, b) => Math.min(a, b)) : null,
        ymax: values.length ? values.reduce((a, b) => Math.max(a, b)) : null,
      });
      if (smoothing > 0) {
        datasets.push({ label: `${run.name} (raw)`, data: xy(p.y), borderColor: alpha(color, 0.22),
                        backgroundColor: alpha(color, 0.22), borderWidth: 1, pointRadius: k.pointRadius,
                        order: 1, hidden, $raw: true, $run: run.name });  // behind the smoothed curves
        series.push(describe(`${run.name} (raw)`, p.y, true));
      }
      datasets.push({ label: run.name, data: xy(ys), borderColor: color, backgroundColor: color, borderWidth: 1.6,
                      pointRadius: k.pointRadius, order: 0, hidden, $raw: false, $run: run.name });
      series.push(describe(run.name, ys, false));
      if (kind === 'batch' && !hidden) for (const b of epochBoundaries(table)) boundaries.push({ ...b, color });
    });
    return { datasets, series, boundaries };
  }

  // Chart.js plugin: the epoch boundaries of the batch charts and the range being dragged.
  const overlay = {
    id: 'adeptOverlay',
    afterDatasetsDraw(chart) {
      const entry = chart.$adept;
      if (!entry) return;
      const { ctx, chartArea: a, scales: { x } } = chart;
      ctx.save();
      if (state.epochLines && entry.boundaries.length) {
        // One line per x (grey where runs of different colours share it); where they would be
        // closer than ~28 px, only every 2nd, 5th, 10th ... epoch.
        const byX = new Map();
        for (const b of entry.boundaries) {
          const seen = byX.get(b.x);
          if (!seen) byX.set(b.x, { ...b, px: x.getPixelForValue(b.x) });
          else if (seen.color !== b.color) seen.color = '#555555';
        }
        const shown = [...byX.values()].filter((b) => b.px >= a.left && b.px <= a.right);
        const spacing = (a.right - a.left) / Math.max(1, shown.length);
        const stride = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].find((s) => spacing * s >= 28) || 1000;
        ctx.setLineDash([4, 3]);
        ctx.lineWidth = 1;
        ctx.font = '10px system-ui, sans-serif';
        for (const b of shown) {
          if ((b.epoch - 1) % stride !== 0) continue;
          ctx.strokeStyle = alpha(b.color, 0.55);
          ctx.beginPath();
          ctx.moveTo(b.px, a.top);
          ctx.lineTo(b.px, a.bottom);
          ctx.stroke();
          ctx.fillStyle = alpha(b.color, 0.85);
          ctx.fillText(`e${b.epoch}`, b.px + 2, a.top + 9);
        }
        ctx.setLineDash([]);
      }
      if (entry.drag && entry.drag.to !== null) {
        const left = Math.max(a.left, Math.min(entry.drag.from, entry.drag.to));
        const right = Math.min(a.right, Math.max(entry.drag.from, entry.drag.to));
        ctx.fillStyle = 'rgba(66, 133, 244, 0.15)';
        ctx.fillRect(left, a.top, right - left, a.bottom - a.top);
        ctx.strokeStyle = 'rgba(66, 133, 244, 0.7)';
        ctx.strokeRect(left, a.top, right - left, a.bottom - a.top);
      }
      ctx.restore();
    },
    afterRender() { scheduleReport(); },
  };

  // Zoom by range selection: drag across the plot area; the range applies to every chart of the
  // kind. A double-click resets it.
  function attachZoom(entry) {
    const canvas = entry.chart.canvas;
    const inside = (ev) => {
      const a = entry.chart.chartArea;
      return ev.offsetX >= a.left && ev.offsetX <= a.right && ev.offsetY >= a.top && ev.offsetY <= a.bottom;
    };
    canvas.addEventListener('mousedown', (ev) => {
      if (ev.button !== 0 || !inside(ev)) return;
      entry.drag = { from: ev.offsetX, to: null };
    });
    canvas.addEventListener('mousemove', (ev) => {
      if (!entry.drag) return;
      entry.drag.to = ev.offsetX;
      entry.chart.draw();
    });
    const finish = (ev) => {
      if (!entry.drag) return;
      const drag = entry.drag;
      entry.drag = null;
      if (drag.to === null || Math.abs(drag.to - drag.from) < 5) { entry.chart.draw(); return; }
      const x = entry.chart.scales.x;
      const v0 = x.getValueForPixel(Math.max(entry.chart.chartArea.left, Math.min(drag.from, drag.to)));
      const v1 = x.getValueForPixel(Math.min(entry.chart.chartArea.right, Math.max(drag.from, drag.to)));
      setZoom(entry.kind, [v0, v1]);
    };
    canvas.addEventListener('mouseup', finish);
    canvas.addEventListener('mouseleave', finish);
    canvas.addEventListener('dblclick', () => setZoom(entry.kind, null));
  }

  function setZoom(kind, range) {
    state.zoom[kind] = range;
    draw();
  }

  function toggleRun(name) {
    if (state.hidden.has(name)) state.hidden.delete(name); else state.hidden.add(name);
    draw();
  }

  function makeChart(kind, metric, container) {
    const el = document.createElement('div');
    el.className = 'chart';
    el.dataset.kind = kind;
    el.dataset.metric = metric;
    const box = document.createElement('div');
    box.className = 'box';
    const canvas = document.createElement('canvas');
    box.appendChild(canvas);
    el.appendChild(box);
    container.appendChild(el);
    const chart = new Chart(canvas, {
      type: 'line',
      data: { datasets: [] },
      plugins: [overlay],
      options: {
        animation: false,
        maintainAspectRatio: false,
        parsing: false,
        normalized: true,
        clip: 4,  // lines at the axis' ends stay whole
        spanGaps: true,
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        scales: {
          x: { type: 'linear', bounds: 'data', title: { display: true, text: KINDS[kind].label },
               ticks: { maxRotation: 0, callback: formatTick },
               afterBuildTicks: (scale) => {
                 scale.ticks = linearTicks(scale.min, scale.max, 6, 1).map((value) => ({ value }));
               } },
          y: { type: 'linear', ticks: { callback: formatTick },
               afterBuildTicks: (scale) => {
                 if (scale.type === 'logarithmic') scale.ticks = logTicks(scale.min, scale.max).map((value) => ({ value }));
               } },
        },
        plugins: {
          title: { display: true, text: metric, font: { size: 13, weight: '600' } },
          legend: {
            labels: { boxWidth: 12, filter: (item, d) => !d.datasets[item.datasetIndex].$raw },
            onClick: (ev, item, legend) => toggleRun(legend.chart.data.datasets[item.datasetIndex].$run),
          },
          tooltip: {
            filter: (item) => !item.dataset.$raw,
            callbacks: { title: (items) => (items.length ? `${KINDS[kind].label} ${items[0].parsed.x}` : '') },
          },
          decimation: { enabled: true, algorithm: 'lttb' },  // about one point per pixel column
        },
      },
    });
    const entry = { chart, kind, metric, el, drag: null, boundaries: [], info: null };
    chart.$adept = entry;
    attachZoom(entry);
    return entry;
  }

  function drawRunList() {
    const runs = document.getElementById('runs');
    runs.textContent = '';
    data.runs.forEach((run, r) => {
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = !state.hidden.has(run.name);
      box.addEventListener('change', () => toggleRun(run.name));
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = runColor(r);
      const path = document.createElement('span');
      path.className = 'path';
      path.textContent = ` ${run.path}`;
      label.append(box, swatch, run.name, path);
      runs.appendChild(label);
    });
    // What could not be drawn (an empty or damaged CSV), as the server found it.
    const list = document.getElementById('warnings');
    list.textContent = '';
    for (const text of allWarnings()) {
      const item = document.createElement('li');
      item.textContent = text;
      list.appendChild(item);
    }
    list.hidden = list.childElementCount === 0;
  }

  function allWarnings() { return data.runs.flatMap((run) => run.warnings || []); }

  function draw() {
    drawRunList();
    for (const kind of Object.keys(KINDS)) {
      const k = KINDS[kind];
      const container = document.getElementById(k.container);
      const metrics = metricsOf(kind);
      for (const [id, entry] of charts)
        if (entry.kind === kind && !metrics.includes(entry.metric)) { entry.chart.destroy(); entry.el.remove(); charts.delete(id); }
      document.getElementById(k.section).hidden = metrics.length === 0;
      for (const metric of metrics) {
        const id = `${kind}:${metric}`;
        let entry = charts.get(id);
        if (!entry) { entry = makeChart(kind, metric, container); charts.set(id, entry); }
        container.appendChild(entry.el);  // keeps the column order
        const { datasets, series, boundaries } = datasetsOf(kind, metric);
        entry.boundaries = boundaries;
        entry.series = series;
        const chart = entry.chart;
        chart.data.datasets = datasets;
        const zoom = state.zoom[kind];
        chart.options.scales.x.min = zoom ? zoom[0] : undefined;
        chart.options.scales.x.max = zoom ? zoom[1] : undefined;
        chart.options.scales.y.type = state.log ? 'logarithmic' : 'linear';
        // A constant curve (a learning rate without warmup) gets a range around its value rather
        // than Chart.js's +-1.
        const shown = series.filter((s) => !s.hidden && s.points > 0);
        const lo = Math.min(...shown.map((s) => s.ymin));
        const hi = Math.max(...shown.map((s) => s.ymax));
        const flat = shown.length > 0 && lo === hi && !zoom;
        const pad = state.log ? 1.25 : Math.abs(hi) * 0.1 || 1;
        chart.options.scales.y.min = flat ? (state.log ? lo / pad : lo - pad) : undefined;
        chart.options.scales.y.max = flat ? (state.log ? hi * pad : hi + pad) : undefined;
        entry.el.classList.toggle('zoomed', !!zoom);
        chart.update('none');
      }
    }
    report();
  }

  let reportPending = false;
  function scheduleReport() {
    if (reportPending) return;
    reportPending = true;
    setTimeout(() => { reportPending = false; report(); }, 0);
  }

  // What was drawn, for tests: <pre id="drawn"> and data- attributes of each chart.
  function report() {
    ++renders;
    const out = { version: data.version, live: config.live, smoothing: state.smoothing, log: state.log,
                  epoch_lines: state.epochLines, zoom: state.zoom, renders, warnings: allWarnings(), charts: [] };
    for (const entry of charts.values()) {
      const { x, y } = entry.chart.scales;
      if (!x || !y) continue;
      const info = {
        kind: entry.kind, metric: entry.metric,
        x: { type: x.type, min: x.min, max: x.max }, y: { type: y.type, min: y.min, max: y.max },
        series: entry.series, epoch_boundaries: entry.boundaries.length,
      };
      out.charts.push(info);
      entry.el.dataset.series = entry.series.map((s) => `${s.name}:${s.points}`).join(';');
      entry.el.dataset.xRange = `${x.min},${x.max}`;
      entry.el.dataset.yRange = `${y.min},${y.max}`;
    }
    document.getElementById('drawn').textContent = JSON.stringify(out);
    document.body.dataset.renders = String(renders);
  }

  function setStatus(text, error) {
    const s = document.getElementById('status');
    s.textContent = text;
    s.classList.toggle('error', !!error);
  }

  async function poll() {
    try {
      const res = await fetch('data.json', { cache: 'no-store', headers: { 'If-None-Match': `"${data.version}"` } });
      if (res.status === 200) {
        data = await res.json();
        draw();
        setStatus(`live · updated ${new Date().toLocaleTimeString()}`);
      } else if (res.status === 304) {
        setStatus(`live · checked ${new Date().toLocaleTimeString()}`);
      } else {
        setStatus(`server: ${await res.text()}`, true);
      }
    } catch (e) {
      setStatus('server unreachable (adept view --serve stopped?)', true);
    }
    setTimeout(poll, config.poll_ms);
  }

  function init() {
    Chart.defaults.font.size = 11;
    const slider = document.getElementById('smoothing');
    const shown = document.getElementById('smoothing-value');
    slider.value = state.smoothing;
    shown.textContent = state.smoothing.toFixed(2);
    slider.addEventListener('input', () => {
      state.smoothing = Number(slider.value);
      shown.textContent = state.smoothing.toFixed(2);
      draw();
    });
    const log = document.getElementById('log-scale');
    log.checked = state.log;
    log.addEventListener('change', () => { state.log = log.checked; draw(); });
    const lines = document.getElementById('epoch-lines');
    lines.checked = state.epochLines;
    lines.addEventListener('change', () => { state.epochLines = lines.checked; draw(); });
    document.getElementById('reset-zoom').addEventListener('click', () => {
      state.zoom = { batch: null, epoch: null };
      draw();
    });
    const n = data.runs.length;
    setStatus(config.live ? 'live' : `${n} run${n === 1 ? '' : 's'} · static page`);
    draw();
    if (config.live) setTimeout(poll, config.poll_ms);
  }

  init();
})();
