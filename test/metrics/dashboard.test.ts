import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/index.js';

/**
 * The Grafana dashboard (docs/grafana/herald-dashboard.json) and the autoscaling rules in
 * docs/scaling.md query Herald's metrics by name: every name they use must be one a Herald process
 * serves, so that a renamed metric fails here instead of leaving an empty panel or an autoscaler
 * that silently stops scaling.
 */
const DASHBOARD = new URL('../../docs/grafana/herald-dashboard.json', import.meta.url);
const SCALING = new URL('../../docs/scaling.md', import.meta.url);

/**
 * The series names a process can serve: a worker's registry (it has every gauge a web has, the
 * slots' and its partitions').
 */
async function servedNames(): Promise<Set<string>> {
  const metrics = createMetrics();
  metrics.setProbes({
    utilisation: () => ({ slots: 1, busy: 0, busySeconds: 0, ratio: 0 }),
    consumedPartitions: [0],
  });
  const names = new Set<string>();
  for (const m of await metrics.registry.getMetricsAsJSON()) {
    names.add(m.name);
    // A histogram is queried through its series.
    if (String(m.type) === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(m.name + s);
  }
  return names;
}

const metricNamesIn = (text: string): string[] => [...new Set(text.match(/\bherald_[a-z0-9_]+/g) ?? [])];

interface Panel {
  readonly title: string;
  readonly targets?: ReadonlyArray<{ readonly expr: string }>;
  readonly panels?: readonly Panel[];
}

describe('the dashboard and the autoscaling rules use served metrics only', () => {
  it('every query of every panel', async () => {
    const served = await servedNames();
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] };
    const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
    const unknown: string[] = [];
    let queries = 0;
    for (const panel of panels) {
      for (const { expr } of panel.targets ?? []) {
        queries++;
        const names = metricNamesIn(expr);
        expect(names.length, `${panel.title}: ${expr}`).toBeGreaterThan(0);
        for (const name of names) if (!served.has(name)) unknown.push(`${panel.title}: ${name}`);
      }
    }
    expect(queries).toBeGreaterThan(10);
    expect(unknown).toEqual([]);
  });

  it('the KEDA and HPA rules in docs/scaling.md', async () => {
    const served = await servedNames();
    const names = metricNamesIn(readFileSync(SCALING, 'utf8'));
    expect(names).toContain('herald_pipe_queue_oldest_waiting_age_seconds');
    expect(names.filter((n) => !served.has(n))).toEqual([]);
  });
});
