import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArnFormat, type CfnElement, type Duration, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type SecretReference, secretStoreOf } from '../shared/config/deployment-config.ts';
import type { FunctionAccess } from './function-access.ts';

/** The repository root: entry files, the lock file and the config are found from here, whatever the working directory. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The name the functions read the bundled deployment configuration under (`SENTINEL_CONFIG_FILE`). */
export const BUNDLED_CONFIG_FILE = 'sentinel.config.json';

/**
 * Lets CommonJS dependencies call `require` inside the ESM bundle. The alias keeps the banner's names clear of any
 * top-level `createRequire` in bundled code.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __sentinelCreateRequire } from 'node:module'; const require = __sentinelCreateRequire(import.meta.url);";

/**
 * Why the functions are not traced. Active tracing showed X-Ray the Lambda segment alone, which the REPORT line and
 * PollDurationMs already give. What a trace would add is the time of each CloudWatch, DynamoDB and SNS call; that takes
 * Powertools' Tracer around the SDK clients, which bundles aws-xray-sdk-core (about 125 KB minified), enough to take
 * the poller's bundle past the 1 MB it is held to (docs/benchmarks.md), and more to load at every cold start.
 */
const NO_TRACING_REASON =
  'Tracing is off: X-Ray saw only the Lambda segment, which the logs and metrics already give, and tracing the SDK calls would take the poller bundle past its 1 MB limit (docs/deploy.md, Tracing).';

/**
 * What each service needs from the caller of a resource encrypted with the deployment's key, and nothing more:
 * - DynamoDB decrypts the table's key with the caller's permission: kms:Decrypt
 *   (https://docs.aws.amazon.com/kms/latest/developerguide/services-dynamodb.html);
 * - a publisher to an encrypted SNS topic needs kms:GenerateDataKey and kms:Decrypt (the key policy AWS gives a
 *   service that publishes to one: "Access policy for encrypted Amazon SNS topics",
 *   https://docs.aws.amazon.com/sms-voice/latest/userguide/configuration-sets-sns-creating-role.html; SNS's own page,
 *   https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html, writes kms:GenerateDataKey*, which also allows
 *   the key pair and without-plaintext variants SNS does not call);
 * - a producer to an encrypted SQS queue needs kms:GenerateDataKey and kms:Decrypt
 *   (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-key-management.html).
 */
export const KEY_USE = {
  table: ['kms:Decrypt'],
  topic: ['kms:GenerateDataKey', 'kms:Decrypt'],
  queue: ['kms:GenerateDataKey', 'kms:Decrypt'],
} as const;

/**
 * Lambda sends an asynchronous invocation it gave up on to an SQS destination with the function's role, which needs
 * sqs:SendMessage on the queue (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html).
 */
export const DEAD_LETTER_ACTIONS = ['sqs:SendMessage'] as const;

export interface SentinelFunctionProps {
  /** The handler file, relative to the repository root, e.g. `functions/poller/handler.ts`. */
  readonly entry: string;
  readonly description: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  /** The validated deployment configuration, copied into the bundle as `sentinel.config.json`. */
  readonly configFile: string;
  /** Encrypts the log group; without it, CloudWatch Logs encrypts it with its own key. */
  readonly key: kms.IKey | undefined;
  /** Where asynchronous invocations go once Lambda has given up on them. */
  readonly deadLetterQueue: sqs.IQueue;
  /** Lambda's own retries of a failed asynchronous invocation (0 to 2). */
  readonly retryAttempts: number;
  /** How long an asynchronous invocation may wait, throttled or retrying, before it goes to the dead-letter queue. */
  readonly maxEventAge: Duration;
  readonly reservedConcurrentExecutions?: number;
  readonly logRetention?: logs.RetentionDays;
}

/**
 * The one way this project builds a Lambda function: nodejs24.x on arm64, an ESM bundle with source maps made by the
 * locally installed esbuild, the deployment configuration inside the bundle (so a config change redeploys the code),
 * an encrypted log group with retention, no tracing, an explicit role that starts with nothing but its own log
 * group, and a failure destination for asynchronous invocations. Grants go through `bindTable`, `bindTopic` and
 * `bindMetricReads`, with the actions infra/function-access.ts names; the first two
 * set the environment variable naming the resource together with the permission.
 */
export class SentinelFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  /** One statement per key the function uses, with the actions of every use (see KEY_USE). */
  private readonly keyStatements = new Map<kms.IKey, iam.PolicyStatement>();

  constructor(scope: Construct, id: string, props: SentinelFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      encryptionKey: props.key,
    });
    // An explicit role instead of AWSLambdaBasicExecutionRole: it may write to its own log group and nowhere else.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description} (execution role)`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(PROJECT_ROOT, props.entry),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      description: props.description,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      tracing: lambda.Tracing.DISABLED,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      retryAttempts: props.retryAttempts,
      maxEventAge: props.maxEventAge,
      onFailure: new DeadLetterDestination(this, props.deadLetterQueue),
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        SENTINEL_CONFIG_FILE: BUNDLED_CONFIG_FILE,
        SENTINEL_DEPLOYMENT: Stack.of(this).stackName,
      },
      bundling: {
        format: nodejs.OutputFormat.ESM,
        target: 'node24',
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        // The SDK the tests ran against, from the lock file, rather than whatever version the runtime carries today.
        bundleAwsSDK: true,
        forceDockerBundling: false,
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir, outputDir) => [
            `cp ${shellQuote(bundlePath(props.configFile, inputDir))} ${shellQuote(path.posix.join(outputDir, BUNDLED_CONFIG_FILE))}`,
          ],
        },
      },
    });

    Validations.of(this.function).acknowledge(
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          'Asynchronous invocations that fail go to an on-failure destination (an encrypted SQS queue, alarmed), which records the request and the error; a DeadLetterConfig as well would deliver every failure twice.',
      },
      { id: 'Serverless-LambdaTracing', reason: NO_TRACING_REASON },
    );
  }

  addEnvironment(name: string, value: string): void {
    this.function.addEnvironment(name, value);
  }

  /** Allow `actions` on `key`, merged into one statement per key. */
  useKey(key: kms.IKey | undefined, actions: readonly string[]): void {
    if (!key) return;
    let statement = this.keyStatements.get(key);
    if (!statement) {
      statement = new iam.PolicyStatement({ resources: [key.keyArn] });
      this.keyStatements.set(key, statement);
      this.role.addToPrincipalPolicy(statement);
    }
    const missing = actions.filter((action) => !statement.actions.includes(action));
    if (missing.length > 0) statement.addActions(...missing);
  }
}

/**
 * The failure destination of asynchronous invocations: an encrypted SQS queue, granted only what Lambda needs to send
 * to it with the function's role (CDK's SqsDestination would grant GetQueueAttributes, GetQueueUrl and every key action).
 */
class DeadLetterDestination implements lambda.IDestination {
  constructor(
    private readonly owner: SentinelFunction,
    private readonly queue: sqs.IQueue,
  ) {}

  bind(): lambda.DestinationConfig {
    this.owner.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: [...DEAD_LETTER_ACTIONS], resources: [this.queue.queueArn] }),
    );
    this.owner.useKey(this.queue.encryptionMasterKey, KEY_USE.queue);
    return { destination: this.queue.queueArn };
  }
}

/**
 * Grant the function exactly `actions` on the table (infra/function-access.ts says which, from the adapters the
 * function's handler uses) and name the table in `SENTINEL_TABLE`. A function that queries gets the table's indexes
 * too (byDay); one that only writes items gets the table alone.
 */
export function bindTable(fn: SentinelFunction, table: dynamodb.ITable, actions: readonly string[]): void {
  fn.addEnvironment('SENTINEL_TABLE', table.tableName);
  const queries = actions.includes('dynamodb:Query');
  const indexes = `${table.tableArn}/index/*`;
  fn.role.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: [...actions], resources: [table.tableArn, ...(queries ? [indexes] : [])] }),
  );
  fn.useKey(table.encryptionKey, KEY_USE.table);
  if (!queries) return;
  const tableLogicalId = Stack.of(table).resolve((table.node.defaultChild as CfnElement).logicalId);
  Validations.of(fn.role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${tableLogicalId}.Arn>/index/*]`,
    reason: "The grant covers the table's own secondary indexes (byDay), which are queried; no other table.",
  });
}

/** Grant the function `actions` (sns:Publish) on one topic and put the topic's ARN in `envName`. */
export function bindTopic(fn: SentinelFunction, topic: sns.ITopic, envName: string, actions: readonly string[]): void {
  fn.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...actions], resources: [topic.topicArn] }));
  fn.useKey(topic.masterKey, KEY_USE.topic);
  fn.addEnvironment(envName, topic.topicArn);
}

/**
 * Grant the function CloudWatch metric reads. They take no resource-level permissions, so the resource is "*"; they
 * sit in a policy of their own, where the acknowledgement of that wildcard covers nothing else.
 */
export function bindMetricReads(fn: SentinelFunction, actions: readonly string[]): void {
  const policy = new iam.Policy(fn, 'ReadClusterMetrics', {
    statements: [new iam.PolicyStatement({ actions: [...actions], resources: ['*'] })],
  });
  fn.role.attachInlinePolicy(policy);
  Validations.of(policy).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'cloudwatch:GetMetricData does not support resource-level permissions: AWS requires Resource "*". The policy allows reads only: GetMetricData, and for the poller DescribeAlarms of the tripwire states.',
  });
}

/**
 * Grant the function its reads of the secrets and SecureString parameters named, and of no other, in a policy of its
 * own called `id`: `access.secrets` (secretsmanager:GetSecretValue) on the secrets, `access.parameters`
 * (ssm:GetParameter) on the parameters, each statement there only when the references name one of its kind. A
 * secret's ARN ends in a hyphen and six random characters that its name does not give, hence the `-??????`
 * (https://docs.aws.amazon.com/secretsmanager/latest/userguide/auth-and-access_examples.html); a parameter's ARN is
 * its name after `parameter/`, without the name's own leading "/"
 * (https://docs.aws.amazon.com/systems-manager/latest/userguide/sysman-paramstore-access.html). Decrypting a
 * parameter encrypted with the AWS managed key aws/ssm needs no grant: its key policy lets every principal of the
 * account use it through Parameter Store.
 */
export function bindSecretReads(
  fn: SentinelFunction,
  id: string,
  references: readonly SecretReference[],
  access: Pick<FunctionAccess, 'secrets' | 'parameters'>,
): void {
  const stack = Stack.of(fn);
  const named = (kind: 'secret' | 'parameter') => [
    ...new Set(
      references
        .map(secretStoreOf)
        .filter(({ store }) => store === kind)
        .map(({ name }) => name),
    ),
  ];
  const secrets = named('secret').map((name) =>
    stack.formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${name}-??????`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    }),
  );
  // `/a` and `a` name the same parameter, whose ARN holds its name without the leading slash: one resource for both.
  const parameters = [...new Set(named('parameter').map((name) => name.replace(/^\//, '')))].map((name) =>
    stack.formatArn({
      service: 'ssm',
      resource: 'parameter',
      resourceName: name,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    }),
  );
  const statements = [
    ...(secrets.length > 0 ? [new iam.PolicyStatement({ actions: [...access.secrets], resources: secrets })] : []),
    ...(parameters.length > 0
      ? [new iam.PolicyStatement({ actions: [...access.parameters], resources: parameters })]
      : []),
  ];
  const policy = new iam.Policy(fn, id, { statements });
  fn.role.attachInlinePolicy(policy);
  if (secrets.length === 0) return;
  Validations.of(policy).acknowledge({
    id: 'AwsSolutions-IAM5',
    reason:
      "The wildcard is the six random characters Secrets Manager appends to a secret's ARN; each resource names one secret of the configuration.",
  });
}

/**
 * The config file as the bundling commands see it: under the input directory when it lives in the repository (so
 * Docker bundling, if it is ever used, finds it too), otherwise its absolute path.
 */
function bundlePath(file: string, inputDir: string): string {
  const relative = path.relative(PROJECT_ROOT, path.resolve(file));
  if (relative.startsWith('..') || path.isAbsolute(relative)) return path.resolve(file);
  return path.posix.join(inputDir, ...relative.split(path.sep));
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
