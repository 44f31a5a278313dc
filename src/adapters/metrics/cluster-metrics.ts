import type { PromClientMetrics } from './prom-client-metrics.ts';
import { promClient } from './prom-client-module.ts';

/**
 * In a worker of `http.workers`: answers the primary's requests for this worker's metrics (prom-client
 * listens on the worker's IPC channel once an AggregatorRegistry exists).
 */
export function reportToPrimary(metrics: PromClientMetrics): void {
  const { AggregatorRegistry } = promClient();
  AggregatorRegistry.setRegistries([metrics.registry]);
  new AggregatorRegistry();
}

/**
 * In the primary of `http.workers`: the metrics of every worker, asked over IPC at each scrape and
 * aggregated as prom-client does (counters, histograms and most gauges summed; event-loop lag averaged),
 * so a scrape sees the instance, not whichever worker happened to take it.
 */
export function clusterExposition(): () => Promise<string> {
  const aggregator = new (promClient().AggregatorRegistry)();
  return () => aggregator.clusterMetrics();
}
