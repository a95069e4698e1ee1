// report.js draws the charts of a sysbench-go comparison report with
// Chart.js. The page embeds each chart's figures as JSON in #report-data,
// and a canvas for each, with the chart's id. When every chart is drawn it
// sets the body's data-charts-ready attribute to how many there are, for
// tests and for scripts that capture the page.
(function () {
  'use strict';

  const data = JSON.parse(document.getElementById('report-data').textContent);

  // A report is read, not watched: draw each chart at once, in its final
  // state.
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;

  const number = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

  // format shows a value in its axis's unit, as a person reads it.
  function format(v, unit) {
    switch (unit) {
      case 'bytes': {
        let i = 0;
        while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
        return number.format(v) + ' ' + units[i];
      }
      case 'ms': return number.format(v) + ' ms';
      case '%': return number.format(v) + '%';
    }
    return number.format(v);
  }

  // range is a tooltip line with what the whisker spans: the min and max
  // over the rounds, or the interval the chart names (label).
  function range(unit, label) {
    return function (item) {
      const r = item.dataset.ranges && item.dataset.ranges[item.dataIndex];
      return r ? (label || 'rounds') + ' from ' + format(r[0], unit) + ' to ' + format(r[1], unit) : '';
    };
  }

  // whiskers draws, for each point or bar with a range, a line from the
  // rounds' min to their max, capped at both ends: how far apart the
  // rounds were, visible without hovering. It keeps on the chart how many
  // it drew ($whiskers), for the page's tests.
  const whiskers = {
    id: 'whiskers',
    afterDatasetsDraw: function (chart) {
      const ctx = chart.ctx, area = chart.chartArea;
      let drawn = 0;
      chart.data.datasets.forEach(function (ds, i) {
        if (!ds.ranges || !chart.isDatasetVisible(i)) return;
        const meta = chart.getDatasetMeta(i), y = chart.scales[meta.yAxisID];
        ds.ranges.forEach(function (r, j) {
          const el = meta.data[j];
          if (!r || !el || !Number.isFinite(el.x) || r[0] === r[1]) return;
          const top = Math.max(area.top, y.getPixelForValue(r[1]));
          const bottom = Math.min(area.bottom, y.getPixelForValue(r[0]));
          const cap = Math.min(7, (el.width || 14) / 3);
          ctx.save();
          ctx.strokeStyle = ds.borderColor;
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          ctx.moveTo(el.x, top);
          ctx.lineTo(el.x, bottom);
          ctx.moveTo(el.x - cap, top);
          ctx.lineTo(el.x + cap, top);
          ctx.moveTo(el.x - cap, bottom);
          ctx.lineTo(el.x + cap, bottom);
          ctx.stroke();
          ctx.restore();
          drawn++;
        });
      });
      chart.$whiskers = drawn;
    },
  };

  // bands shades, under the lines, the stretches of a chart over time
  // that its spec names (the cells' outages), each in its cell's colour.
  // It keeps on the chart the stretches it drew, clipped to the axis
  // ($bands), for the page's tests.
  const bands = {
    id: 'bands',
    beforeDatasetsDraw: function (chart, args, opts) {
      const ctx = chart.ctx, area = chart.chartArea, x = chart.scales.x;
      const drawn = [];
      for (const b of opts.bands || []) {
        const from = Math.max(b.from, x.min), to = Math.min(b.to, x.max);
        if (!(to > from)) continue;
        const left = x.getPixelForValue(from), right = x.getPixelForValue(to);
        ctx.save();
        ctx.fillStyle = b.color;
        ctx.fillRect(left, area.top, Math.max(right - left, 1), area.bottom - area.top);
        ctx.restore();
        drawn.push([from, to]);
      }
      chart.$bands = drawn;
    },
  };

  function dataset(spec, ds) {
    const bar = spec.type === 'bar';
    return {
      label: ds.label,
      data: ds.points || ds.values,
      ranges: ds.ranges,
      stack: ds.stack,
      borderColor: ds.color,
      backgroundColor: bar ? ds.fill : ds.color,
      borderWidth: bar ? 1 : 2,
      borderDash: ds.dash || [],
      // Many points over time read better as a plain line; a point with
      // no neighbour to join (a series of one, one between gaps) is shown.
      pointRadius: spec.x.linear ? lonePoint : 3,
      pointHoverRadius: 4,
      maxBarThickness: 72,
    };
  }

  // lonePoint is the radius of a line's point: 3 when neither neighbour
  // has a value (no line reaches it), else 0.
  function lonePoint(ctx) {
    const d = ctx.dataset.data, i = ctx.dataIndex;
    const has = (j) => j >= 0 && j < d.length && d[j] !== null && d[j].y !== null && d[j].y !== undefined;
    return has(i) && !has(i - 1) && !has(i + 1) ? 3 : 0;
  }

  // top is the largest value a chart draws, whiskers included, so that
  // the y axis leaves room for them.
  function top(spec) {
    let m = 0;
    for (const ds of spec.datasets) {
      for (const r of ds.ranges || []) if (r) m = Math.max(m, r[1]);
    }
    return m;
  }

  function scale(axis, spec, isY) {
    const s = {
      type: isY || axis.linear ? 'linear' : 'category',
      beginAtZero: isY,
      // Categories' points sit in the middle of their slot, not on the
      // edge (a single thread count's point would sit on the y axis).
      offset: !isY && !axis.linear,
      stacked: Boolean(spec.stacked),
      ticks: {},
      title: { display: true, text: axis.title },
    };
    if (axis.linear && !isY) s.ticks.precision = 0; // seconds are whole
    if (axis.unit) s.ticks.callback = function (v) { return format(v, axis.unit); };
    if (axis.min !== undefined) s.min = axis.min;
    if (axis.max !== undefined) s.max = axis.max;
    if (isY && !spec.stacked) {
      const m = top(spec);
      if (m > 0) s.suggestedMax = m;
    }
    return s;
  }

  // lineLegend shows each line in the legend as a short stretch of it,
  // dashed as it is (Chart.js's legend leaves a line's dash out).
  const lineLegend = {
    usePointStyle: true,
    pointStyle: 'line',
    pointStyleWidth: 28,
    generateLabels: function (chart) {
      const items = Chart.defaults.plugins.legend.labels.generateLabels(chart);
      for (const item of items) {
        item.lineDash = chart.data.datasets[item.datasetIndex].borderDash;
      }
      return items;
    },
  };

  function config(spec) {
    return {
      type: spec.type,
      data: {
        labels: spec.labels,
        datasets: spec.datasets.map(function (ds) { return dataset(spec, ds); }),
      },
      plugins: [whiskers, bands],
      options: {
        responsive: true,
        interaction: { mode: 'nearest', intersect: false },
        scales: { x: scale(spec.x, spec, false), y: scale(spec.y, spec, true) },
        plugins: {
          bands: { bands: spec.bands },
          title: { display: true, text: spec.title, font: { size: 13 } },
          legend: {
            position: 'bottom',
            labels: spec.type === 'line' ? lineLegend : { boxWidth: 14 },
          },
          tooltip: {
            callbacks: {
              label: function (item) { return item.dataset.label + ': ' + format(item.parsed.y, spec.y.unit); },
              afterLabel: range(spec.y.unit, spec.range_label),
            },
          },
        },
      },
    };
  }

  let drawn = 0;
  for (const spec of data.charts) {
    new Chart(document.getElementById(spec.id), config(spec));
    drawn++;
  }
  document.body.dataset.chartsReady = String(drawn);
})();
