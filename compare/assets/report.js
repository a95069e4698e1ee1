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

  // range is a tooltip line with the min and max over the rounds.
  function range(item) {
    const r = item.dataset.ranges && item.dataset.ranges[item.dataIndex];
    return r ? 'min ' + number.format(r[0]) + ', max ' + number.format(r[1]) : '';
  }

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
      // Many points over time read better as a plain line.
      pointRadius: spec.x.linear ? 0 : 3,
      pointHoverRadius: 4,
      maxBarThickness: 72,
    };
  }

  function scale(axis, spec, isY) {
    return {
      type: isY || axis.linear ? 'linear' : 'category',
      beginAtZero: isY,
      // Categories' points sit in the middle of their slot, not on the
      // edge (a single thread count's point would sit on the y axis).
      offset: !isY && !axis.linear,
      stacked: Boolean(spec.stacked),
      // Seconds are whole.
      ticks: axis.linear && !isY ? { precision: 0 } : {},
      title: { display: true, text: axis.title },
    };
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
      options: {
        responsive: true,
        interaction: { mode: 'nearest', intersect: false },
        scales: { x: scale(spec.x, spec, false), y: scale(spec.y, spec, true) },
        plugins: {
          title: { display: true, text: spec.title, font: { size: 13 } },
          legend: {
            position: 'bottom',
            labels: spec.type === 'line' ? lineLegend : { boxWidth: 14 },
          },
          tooltip: { callbacks: { afterLabel: range } },
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
