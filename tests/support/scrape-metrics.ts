import parsePrometheusTextFormat, { type MetricFamily, type Sample } from 'parse-prometheus-text-format';

export type Scrape = {
  /** The text as served: the parser keeps no labels of a histogram, so per-label histogram lines are read here. */
  text: string;
  families: MetricFamily[];
  /** The samples of one family whose labels include `labels`; fails when the family is absent. */
  samples(name: string, labels?: Record<string, string>): Sample[];
  /** The value of a counter or gauge (the sum over matching samples), or a histogram's count. */
  total(name: string, labels?: Record<string, string>): number;
};

/** GETs `/metrics` and reads it with a real Prometheus text-format parser. */
export async function scrapeMetrics(metricsUrl: string): Promise<Scrape> {
  const response = await fetch(`${metricsUrl}/metrics`);
  if (response.status !== 200) throw new Error(`scrape answered ${response.status}`);
  const text = await response.text();
  const families = parsePrometheusTextFormat(text);
  const samples: Scrape['samples'] = (name, labels = {}) => {
    const family = families.find((candidate) => candidate.name === name);
    if (!family) throw new Error(`no metric ${name} in the scrape`);
    return family.metrics.filter((sample) =>
      Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value),
    );
  };
  return {
    text,
    families,
    samples,
    total: (name, labels) =>
      samples(name, labels).reduce((sum, sample) => sum + Number(sample.count ?? sample.value), 0),
  };
}
