/** A metric of the poller's own, written in CloudWatch embedded metric format. */
export interface EmfMetric {
  readonly name: string;
  readonly value: number;
  readonly unit: 'Count' | 'Milliseconds';
}

export const SELF_NAMESPACE = 'K8sIncidentSentinel';

/** One EMF log line: CloudWatch Logs turns it into metrics without a PutMetricData call. */
export function emfLine(deployment: string, metrics: readonly EmfMetric[], timestamp: number): string {
  return JSON.stringify({
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: SELF_NAMESPACE,
          Dimensions: [['Deployment']],
          Metrics: metrics.map(({ name, unit }) => ({ Name: name, Unit: unit })),
        },
      ],
    },
    Deployment: deployment,
    ...Object.fromEntries(metrics.map(({ name, value }) => [name, value])),
  });
}
