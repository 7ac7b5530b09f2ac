/**
 * The one table of AWS prices the project uses: the weekly digest's cost estimate and `npm run bench`'s cost per
 * cluster-month both read it. us-east-1, on-demand, before the free tier, as each price page listed it when this was
 * written; each entry names the page it comes from, so that a price can be checked and changed in one place.
 */

export interface AwsPrice {
  /** Dollars per `unit`. */
  readonly usd: number;
  readonly unit: string;
  /** The price page the figure comes from. */
  readonly source: string;
}

const CLOUDWATCH = 'https://aws.amazon.com/cloudwatch/pricing/';
const LAMBDA = 'https://aws.amazon.com/lambda/pricing/';
const DYNAMODB = 'https://aws.amazon.com/dynamodb/pricing/on-demand/';
const SNS = 'https://aws.amazon.com/sns/pricing/';
const SQS = 'https://aws.amazon.com/sqs/pricing/';
const EVENTBRIDGE = 'https://aws.amazon.com/eventbridge/pricing/';
const KMS = 'https://aws.amazon.com/kms/pricing/';
const SECRETS_MANAGER = 'https://aws.amazon.com/secrets-manager/pricing/';
/**
 * Parameter Store's standard tier, SecureString parameters included, and its default (standard) throughput have no
 * charge: "Cost: No additional charge" for standard parameters
 * (https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-advanced-parameters.html, the source
 * the entries cite), and the standard throughput serves GetParameter "without additional cost", only higher
 * throughput is billed (https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-throughput.html);
 * AWS Systems Manager's price page (https://aws.amazon.com/systems-manager/pricing/) prices the advanced tier and the
 * higher throughput. Decrypting a SecureString is a KMS request on its key ("charges for use of AWS Key Management
 * Service encryption do apply",
 * https://docs.aws.amazon.com/systems-manager/latest/userguide/sysman-paramstore-securestring.html), the AWS managed
 * key aws/ssm included: its requests are billed at kmsRequest, though the key itself costs nothing.
 */
const PARAMETER_STORE =
  'https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-advanced-parameters.html';
const STEP_FUNCTIONS = 'https://aws.amazon.com/step-functions/pricing/';
const XRAY = 'https://aws.amazon.com/xray/pricing/';
/**
 * SNS delivers SMS through AWS End User Messaging SMS, which bills each message part plus the carrier's fee per part
 * (https://docs.aws.amazon.com/sms-voice/latest/userguide/sms-billing.html names the price page;
 * https://repost.aws/knowledge-center/sns-pinpoint-high-sms-charges gives the formula). The figure below, a US message
 * part before carrier fees, was not read from that price page: no copy of it was at hand when it was written, so
 * check it there before relying on it; prices vary by country and by origination number.
 */
const SNS_SMS = 'https://aws.amazon.com/end-user-messaging/pricing/ (not read: see above)';
/**
 * "When you use Container Insights to collect the following metrics, the metrics are charged as custom metrics"
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Container-Insights-metrics-EKS.html), at the custom
 * metric price of https://aws.amazon.com/cloudwatch/pricing/. Container Insights with enhanced observability is billed
 * per observation instead (Container-Insights-metrics-enhanced-EKS.html), which this table does not price.
 */
const CONTAINER_INSIGHTS = `${CLOUDWATCH} (custom metrics; Container-Insights-metrics-EKS.html)`;

const price = (usd: number, unit: string, source: string): AwsPrice => ({ usd, unit, source });

export const AWS_PRICES = {
  /** GetMetricData is billed per metric requested, whatever the datapoints: $0.01 per 1,000. */
  getMetricDataMetric: price(0.01 / 1000, 'metric requested by GetMetricData', CLOUDWATCH),
  /** A standard-resolution alarm is billed per metric it reads, metric-math alarms included ($0.10 each). */
  standardAlarmMetricMonth: price(0.1, 'standard-resolution alarm metric-month', CLOUDWATCH),
  highResolutionAlarmMetricMonth: price(0.3, 'high-resolution alarm metric-month', CLOUDWATCH),
  /** On top of the metric alarms it combines, which are billed as alarms of their own. */
  compositeAlarmMonth: price(0.5, 'composite alarm-month', CLOUDWATCH),
  dashboardMonth: price(3, 'dashboard-month', CLOUDWATCH),
  /** A custom metric (embedded metric format included) for each hour it receives data: first 10,000 metrics. */
  customMetricMonth: price(0.3, 'custom metric-month', CLOUDWATCH),
  logIngestionGb: price(0.5, 'GB of logs ingested (standard class)', CLOUDWATCH),
  logStorageGbMonth: price(0.03, 'GB-month of logs stored', CLOUDWATCH),
  lambdaArmGbSecond: price(0.000_013_333_4, 'GB-second of Lambda on arm64 (first tier)', LAMBDA),
  lambdaRequest: price(0.2 / 1e6, 'Lambda request', LAMBDA),
  /** EventBridge Scheduler invocations; the 14 million free a month are left out like every free tier. */
  schedulerInvocation: price(1 / 1e6, 'EventBridge Scheduler invocation', EVENTBRIDGE),
  /** Events that AWS services send to the default bus are free; custom events are not. */
  customEvent: price(1 / 1e6, 'custom event published to EventBridge', EVENTBRIDGE),
  dynamoWriteUnit: price(0.625 / 1e6, 'DynamoDB on-demand write request unit', DYNAMODB),
  dynamoReadUnit: price(0.125 / 1e6, 'DynamoDB on-demand read request unit', DYNAMODB),
  dynamoStorageGbMonth: price(0.25, 'GB-month of DynamoDB standard table storage', DYNAMODB),
  /** Point-in-time recovery is billed on the table's size, whatever the recovery period. */
  dynamoPitrGbMonth: price(0.2, 'GB-month of DynamoDB continuous backup (point-in-time recovery)', DYNAMODB),
  snsPublish: price(0.5 / 1e6, 'SNS standard topic request (64 KB chunk)', SNS),
  /** Per message part (160 GSM characters) to a US number, before the carriers' own fees; other countries differ. */
  smsMessagePartUs: price(0.00581, 'SMS message part sent to a US number', SNS_SMS),
  sqsRequest: price(0.4 / 1e6, 'SQS standard queue request (64 KB chunk)', SQS),
  kmsKeyMonth: price(1, 'customer managed KMS key-month', KMS),
  kmsRequest: price(0.03 / 10_000, 'KMS symmetric request', KMS),
  secretMonth: price(0.4, 'Secrets Manager secret-month', SECRETS_MANAGER),
  secretsManagerCall: price(0.05 / 10_000, 'Secrets Manager API call', SECRETS_MANAGER),
  /** A SecureString parameter of the standard tier, as the configuration may name instead of a secret. */
  standardParameterMonth: price(0, 'Parameter Store standard parameter-month', PARAMETER_STORE),
  /** GetParameter at the standard throughput; a SecureString read is one kmsRequest (Decrypt) on top. */
  standardParameterRead: price(0, 'Parameter Store GetParameter at standard throughput', PARAMETER_STORE),
  stepFunctionsStandardTransition: price(0.025 / 1000, 'Step Functions standard state transition', STEP_FUNCTIONS),
  stepFunctionsExpressRequest: price(1 / 1e6, 'Step Functions express request', STEP_FUNCTIONS),
  xrayTrace: price(5 / 1e6, 'X-Ray trace recorded', XRAY),
  /** Container Insights' metrics, each a custom metric: first 10,000 metrics of the account. */
  containerInsightsMetricMonth: price(0.3, 'Container Insights metric-month', CONTAINER_INSIGHTS),
} as const satisfies Record<string, AwsPrice>;

export type AwsPriceName = keyof typeof AWS_PRICES;

/** A month as the cost models count it: 30 days of one-minute steps. */
export const MINUTES_PER_MONTH = 30 * 24 * 60;
export const MONTH_MS = MINUTES_PER_MONTH * 60_000;
