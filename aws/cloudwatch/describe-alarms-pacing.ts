/**
 * DescribeAlarms' largest page, MaxRecords "Valid Range: Minimum value of 1. Maximum value of 100":
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_DescribeAlarms.html
 */
export const DESCRIBE_ALARMS_MAX_RECORDS = 100;

/**
 * DescribeAlarms calls started per second in each Region, by who starts them. CloudWatch allows "Rate of
 * DescribeAlarms requests: 9 per second per account and Region (adjustable)"
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_limits.html) to every caller of the
 * account at once, and the poller and `sentinel doctor` run in processes that share no pacer, so they share the quota
 * out: the poller's tripwire refresh takes 8, which reads the 100 pages of 10,000 alarms in one Region in about 14 s,
 * and doctor the one left, so that neither throttles the other however they overlap. At one a second, doctor reads
 * the tripwires of 10,000 clusters in one Region, 100 names a call, in about two minutes.
 */
export const DESCRIBE_ALARMS_CALLS_PER_SECOND = { tripwireRefresh: 8, doctor: 1 } as const;
