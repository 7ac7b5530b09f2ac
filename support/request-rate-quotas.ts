/**
 * CloudWatch's request-rate quotas the loopback CloudWatch enforces besides GetMetricData's
 * (get-metric-data-quotas.ts), as CloudWatch documents them
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_limits.html): "Rate of DescribeAlarms
 * requests: 9 per second" and "Rate of ListMetrics requests: 25 per second", each per account and Region
 * (adjustable).
 */
export const DESCRIBE_ALARMS_PER_SECOND = 9;
export const LIST_METRICS_PER_SECOND = 25;

/**
 * The rate at which the loopback EKS answers the reads doctor makes (DescribeCluster, ListNodegroups and
 * ListFargateProfiles together) in each Region. An assumption, not a documented quota: EKS documents no request rate
 * for its API (its service quotas count resources only,
 * https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html). This is the 20 a second at which EC2, whose
 * throttling AWS does document, refills the bucket of each of its reads per account and Region
 * (https://docs.aws.amazon.com/ec2/latest/devguide/ec2-api-throttling.html), counted as the other rates here are,
 * over a sliding second, without the bucket's burst.
 */
export const EKS_READS_PER_SECOND = 20;

const WINDOW_MS = 1000;

/**
 * One operation's rate quota over a sliding one-second window in each Region, as GetMetricData's are counted
 * (get-metric-data-quotas.ts): a request is admitted when, with it, the last second of its Region holds no more
 * requests than the quota allows. A refused request is not counted, as a throttled call does not consume quota.
 */
export class RegionRateMeter {
  /** When each Region's admitted requests of the last second arrived, on the monotonic clock. */
  readonly #admitted = new Map<string, number[]>();
  /** Requests refused since the start (or the last reset), for tests and measurements. */
  throttled = 0;

  constructor(readonly perSecond: number) {}

  /** Admit a request signed for `region`, or refuse it (false). */
  admit(region: string): boolean {
    const at = performance.now();
    const admitted = this.#admitted.get(region) ?? [];
    while ((admitted[0] ?? at) <= at - WINDOW_MS) admitted.shift();
    if (admitted.length + 1 > this.perSecond) {
      this.throttled++;
      return false;
    }
    admitted.push(at);
    this.#admitted.set(region, admitted);
    return true;
  }

  reset(): void {
    this.#admitted.clear();
    this.throttled = 0;
  }
}
