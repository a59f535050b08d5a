// End-of-test summary: a JSON file for trend tracking (with p(99), which k6 leaves out by default) and a short text on
// stdout. Defining handleSummary replaces k6's own text summary.

// Every scenario sets these in its options so the percentiles below exist in the summary data.
export const TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'];

/**
 * The parts of k6's summary data read here (https://grafana.com/docs/k6/latest/results-output/end-of-test/).
 * @typedef {{ type: string, values: Record<string, number>, thresholds?: Record<string, { ok: boolean }> }} SummaryMetric
 * @typedef {{ metrics: Record<string, SummaryMetric>, state: { testRunDurationMs: number } }} SummaryData
 */

/**
 * @param {SummaryMetric | undefined} metric
 * @param {string} stat
 */
function stat(metric, stat) {
  return metric && metric.values[stat] !== undefined ? metric.values[stat] : null;
}

/**
 * @param {string} scenario
 * @returns {(data: SummaryData) => Record<string, string>}
 */
export function summaryWriter(scenario) {
  return (data) => {
    const latency = data.metrics['http_req_duration{name:callback}'];
    /** @type {Record<string, Record<string, boolean>>} */
    const thresholds = {};
    let passed = true;
    for (const [name, metric] of Object.entries(data.metrics)) {
      for (const [expression, result] of Object.entries(metric.thresholds || {})) {
        (thresholds[name] = thresholds[name] || {})[expression] = result.ok;
        passed = passed && result.ok;
      }
    }
    const summary = {
      scenario,
      channel: __ENV.CHANNEL || 'stripe',
      durationSeconds: data.state.testRunDurationMs / 1000,
      callbacks: stat(data.metrics['http_reqs{name:callback}'], 'count'),
      callbacksPerSecond: stat(data.metrics['http_reqs{name:callback}'], 'rate'),
      failedRate: stat(data.metrics['http_req_failed{name:callback}'], 'rate'),
      shed: stat(data.metrics.callbacks_shed, 'count') || 0,
      latencyMs: Object.fromEntries(TREND_STATS.map((name) => [name, stat(latency, name)])),
      checksRate: stat(data.metrics.checks, 'rate'),
      thresholds,
      thresholdsPassed: passed,
    };
    const file = __ENV.SUMMARY_FILE || `summary-${scenario}.json`;
    const ms = (/** @type {string} */ name) => {
      const value = summary.latencyMs[name];
      return value === null ? '-' : `${value.toFixed(1)} ms`;
    };
    const text = [
      `${scenario} (${summary.channel}): ${summary.callbacks} callbacks in ${summary.durationSeconds.toFixed(0)} s,`
        + ` failed rate ${summary.failedRate}, shed ${summary.shed}, checks ${summary.checksRate}`,
      `callback latency: p(50) ${ms('med')}, p(95) ${ms('p(95)')}, p(99) ${ms('p(99)')}, max ${ms('max')}`,
      ...Object.entries(thresholds).flatMap(([name, results]) => Object.entries(results)
        .map(([expression, ok]) => `${ok ? 'pass' : 'FAIL'}  ${name}: ${expression}`)),
      `summary written to ${file}`,
      '',
    ].join('\n');
    return { stdout: text, [file]: `${JSON.stringify(summary, null, 2)}\n` };
  };
}
