/**
 * Admission webhook failures as the harness's and the generated fleets' clusters publish them: Prometheus's
 * `apiserver_admission_webhook_failures`, put into CloudWatch under a namespace of their own, read as a custom source.
 */
export function webhookFailuresFromPrometheus(cluster: string) {
  return {
    'webhook.failures': {
      namespace: 'Sentinel/Prometheus',
      metricName: 'apiserver_admission_webhook_failures',
      dimensions: { ClusterName: cluster },
      stat: 'Sum',
    },
  } as const;
}
