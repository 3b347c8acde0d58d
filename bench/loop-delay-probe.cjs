/**
 * Preloaded into the server the proxy bench starts (NODE_OPTIONS=--require): the server's own
 * event-loop delay, which no client-side timing shows. On SIGUSR2 it writes the delays (ms) since
 * the last signal to LOOP_PROBE_FILE and starts again. With CPU_PROFILE_DIR (node refuses
 * --cpu-prof in NODE_OPTIONS) it also writes the CPU profile of the same span there.
 */
'use strict';
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const file = process.env.LOOP_PROBE_FILE;
const profileDir = process.env.CPU_PROFILE_DIR;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  let session = null;
  let span = 0;
  if (profileDir) {
    const inspector = require('node:inspector');
    session = new inspector.Session();
    session.connect();
    session.post('Profiler.enable', () => session.post('Profiler.start'));
  }
  process.on('SIGUSR2', () => {
    // The histogram holds whole intervals of the 1 ms timer: the delay is what passes 1 ms.
    const ms = (ns) => Math.max(0, Math.round((ns / 1e6 - 1) * 100) / 100);
    const figures = { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max), count: histogram.count };
    histogram.reset();
    if (!session) return writeFileSync(file, JSON.stringify(figures));
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(join(profileDir, `span-${++span}.cpuprofile`), JSON.stringify(result.profile));
      session.post('Profiler.start', () => writeFileSync(file, JSON.stringify(figures)));
    });
  });
}
