// page.js draws the capacity command's charts with Chart.js from the
// figures the page embeds as JSON in #capacity-data, then sets the body's
// data-charts-ready attribute to how many it drew (for tests and for
// scripts that capture the page).
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('capacity-data').textContent);
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  let drawn = 0;
  data.charts.forEach(function (c) {
    const canvas = document.getElementById(c.id);
    if (!canvas) return;
    new Chart(canvas, {
      type: 'scatter',
      data: {
        datasets: c.datasets.map(function (ds) {
          return {
            label: ds.label,
            data: ds.points.map(function (p) { return { x: p[0], y: p[1] }; }),
            showLine: ds.line, borderColor: ds.color, backgroundColor: ds.color,
            pointRadius: ds.radius, pointStyle: ds.style || 'circle', borderDash: ds.dash || [], borderWidth: 2
          };
        })
      },
      options: {
        scales: {
          x: { type: c.x.type, min: c.x.min, max: c.x.max, title: { display: true, text: c.x.title } },
          y: { type: c.y.type, min: c.y.min, max: c.y.max, title: { display: true, text: c.y.title } }
        },
        plugins: { title: { display: true, text: c.title } }
      }
    });
    drawn++;
  });
  document.body.dataset.chartsReady = String(drawn);
})();
