import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CommandOutput } from '../../cli/command.ts';
import { backtestCommand, exportScenarioCommand } from '../../cli/history-commands.ts';
import { main } from '../../cli/main.ts';
import { testPageCommand } from '../../cli/test-page-command.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { parseScenario } from '../../shared/scenario/scenario.ts';
import { type AwsHarness, putScenario, startAwsHarness, TABLE, writeConfig } from '../../support/aws-harness.ts';
import { harnessClusters, trimmedScenario } from '../../support/poller-harness.ts';
import { type CloudFormationServer, startCloudFormationServer } from '../support/cloudformation-server.ts';

const STACK_FRAME = /\n\s+at /;

/** What a user at a terminal sees: progress goes to stderr. */
function capture(): CommandOutput & { stdoutText: () => string; stderrText: () => string } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    progress: (line) => stderr.push(line),
    stdoutText: () => stdout.join('\n'),
    stderrText: () => stderr.join('\n'),
  };
}

describe('commands for real accounts, against loopback AWS', () => {
  let harness: AwsHarness;
  let cloudformation: CloudFormationServer;
  let config: string;
  const scenario = trimmedScenario('scenarios/fleet-webhook-outage.json', 40);
  /** The history commands refuse history older than CloudWatch's 15 days of one-minute data: "now" is the day after. */
  const now = scenario.start + 86_400_000;
  const iso = (step: number) => new Date(scenario.start + step * 60_000).toISOString();

  beforeAll(async () => {
    harness = await startAwsHarness();
    cloudformation = await startCloudFormationServer();
    process.env.AWS_ENDPOINT_URL_CLOUDFORMATION = cloudformation.endpoint;
    const clusters = harnessClusters(['dev-a', 'dev-b', 'dev-c']);
    await putScenario(scenario, clusters);
    config = writeConfig({ clusters });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([harness.close(), cloudformation.close()]);
  });

  it('backtests real history, showing progress, and prints the page the rules would have sent', async () => {
    const out = capture();
    const code = await backtestCommand({ config, from: iso(0), to: iso(120) }, out, now);

    expect([code, out.stderrText(), out.stdoutText()]).toEqual([
      0,
      expect.stringMatching(/Fetching 121 minutes of 3 cluster\(s\)[\s\S]*fetched 1\/\d+ batches/),
      expect.stringMatching(/PAGE +Admission webhook is black-holing API writes on \S+ and 2 more/),
    ]);
  });

  it('backtests with --json, one object per notification, as replay --json prints them', async () => {
    const out = capture();
    const code = await backtestCommand({ config, from: iso(0), to: iso(120), json: true }, out, now);
    const lines = out
      .stdoutText()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; clusters: string[] });

    expect([code, lines.map((l) => [l.kind, l.clusters])]).toEqual([0, [['page', ['dev-a', 'dev-b', 'dev-c']]]]);
  });

  it('exports a scenario file that replays to the same page', async () => {
    const out = capture();
    await exportScenarioCommand({ config, cluster: 'dev-b', from: iso(0), to: iso(60) }, out, now);
    const exported = parseScenario(JSON.parse(out.stdoutText()), 'exported.json');

    expect([
      exported.steps,
      [...exported.clusters.keys()],
      exported.clusters.get('dev-b')?.['webhook.p99']?.[36],
    ]).toEqual([61, ['dev-b'], 10]);
  });

  describe('node churn from the deployed table', () => {
    const repairs = trimmedScenario('scenarios/karpenter-repair-loop.json', 40);
    const at = (step: number) => new Date(repairs.start + step * 60_000).toISOString();
    let repairConfig: string;

    beforeAll(async () => {
      const clusters = harnessClusters(['ml-euc1']);
      await putScenario(repairs, clusters);
      repairConfig = writeConfig({ clusters });
    }, 60_000);

    it('backtests a repair storm with the repairs the poller would read from the table', async () => {
      const out = capture();
      const code = await backtestCommand(
        { config: repairConfig, from: at(0), to: at(120), table: TABLE },
        out,
        repairs.start + 86_400_000,
      );

      expect([code, out.stdoutText()]).toEqual([
        0,
        expect.stringMatching(/PAGE +Node auto-repair is replacing nodes in a storm on ml-euc1/),
      ]);
    });

    it('says that node churn is left out without the table, and misses the storm', async () => {
      const out = capture();
      await backtestCommand({ config: repairConfig, from: at(0), to: at(120) }, out, repairs.start + 86_400_000);

      expect([out.stderrText(), out.stdoutText()]).toEqual([
        expect.stringContaining('Node churn not read for ml-euc1: give --stack or --table'),
        expect.not.stringMatching(/PAGE +Node auto-repair/),
      ]);
    });

    it('exports the repairs into the scenario file', async () => {
      const out = capture();
      await exportScenarioCommand(
        { config: repairConfig, cluster: 'ml-euc1', from: at(0), to: at(120), table: TABLE },
        out,
        repairs.start + 86_400_000,
      );
      const exported = parseScenario(JSON.parse(out.stdoutText()), 'exported.json');
      const sum = (values: ArrayLike<number | null> | undefined) =>
        Array.from(values ?? []).reduce<number>((n, v) => n + (v ?? 0), 0);

      expect(sum(exported.clusters.get('ml-euc1')?.['nodes.replaced'])).toBe(
        sum(repairs.clusters.get('ml-euc1')?.['nodes.replaced']?.slice(0, 121)),
      );
    });
  });

  it('refuses history older than CloudWatch keeps at one-minute resolution', async () => {
    const code = await main(['backtest', '--config', config, '--from', iso(0), '--to', iso(60)], capture());

    expect(code).toBe(2);
  });

  it('fails a dry-run poll against an unreachable endpoint with a clear message and no stack', async () => {
    const reachable = process.env.AWS_ENDPOINT_URL_CLOUDWATCH;
    process.env.AWS_ENDPOINT_URL_CLOUDWATCH = 'http://127.0.0.1:9';
    const out = capture();
    try {
      const code = await main(['poll', '--once', '--dry-run', '--config', config], out);

      expect([code, out.stderrText(), STACK_FRAME.test(out.stderrText())]).toEqual([
        3,
        expect.stringMatching(
          /could not read CloudWatch for 3 cluster\(s\):\n {2}- dev-a, dev-b, dev-c: .*ECONNREFUSED/,
        ),
        false,
      ]);
    } finally {
      process.env.AWS_ENDPOINT_URL_CLOUDWATCH = reachable;
    }
  }, 60_000);

  it('publishes a clearly marked test page through the stack’s paging topic', async () => {
    cloudformation.addStack('OpsStack', {
      PagingTopicArn: harness.topics.paging,
      NoticeTopicArn: harness.topics.notice,
      DigestTopicArn: harness.topics.digest,
      TableName: 'sentinel-test',
    });
    const out = capture();
    const code = await testPageCommand({ stack: 'OpsStack' }, out);
    const [published] = harness.sns.published;
    const page = JSON.parse(JSON.parse(published?.message ?? '{}').default) as Notification;

    expect([code, published?.topicArn, published?.subject, page.title]).toEqual([
      0,
      harness.topics.paging,
      expect.stringMatching(/^\[PAGE\] TEST - k8s-incident-sentinel test page from OpsStack, no action needed$/),
      expect.stringContaining('no action needed'),
    ]);
  });

  it('names the AWS error and exits 3, without a stack, apart from a check that failed', async () => {
    const listed = capture();
    const silences = capture();
    const listCode = await main(['incidents', 'list', '--table', 'NoSuchTable'], listed);
    const silenceCode = await main(['silence', 'list', '--table', 'NoSuchTable'], silences);

    expect([listCode, silenceCode]).toEqual([3, 3]);
    for (const out of [listed, silences]) {
      expect(out.stderrText()).toMatch(
        /^sentinel: AwsRequestError: AWS refused the request: ResourceNotFoundException \(HTTP 400\): .*Check the name given/,
      );
      expect(STACK_FRAME.test(out.stderrText())).toBe(false);
    }
  });

  it('says it could not reach AWS, and exits 3, when the endpoint is out of reach', async () => {
    const reachable = process.env.AWS_ENDPOINT_URL_DYNAMODB;
    process.env.AWS_ENDPOINT_URL_DYNAMODB = 'http://127.0.0.1:9';
    const out = capture();
    try {
      const code = await main(['incidents', 'list', '--table', 'sentinel-test'], out);

      expect([code, out.stderrText(), STACK_FRAME.test(out.stderrText())]).toEqual([
        3,
        expect.stringMatching(/^sentinel: AwsRequestError: could not reach AWS \(ECONNREFUSED\)/),
        false,
      ]);
    } finally {
      process.env.AWS_ENDPOINT_URL_DYNAMODB = reachable;
    }
  }, 60_000);

  it('shows no progress where the output takes none, as when stderr is not a terminal', async () => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const code = await backtestCommand(
      { config, from: iso(0), to: iso(60) },
      { stdout: (line) => stdout.push(line), stderr: (line) => stderr.push(line) },
      now,
    );

    // What it says about node churn left out is a warning, not progress: it stays.
    expect([code, stderr.filter((line) => !line.startsWith('Node churn not read')), stdout.length > 0]).toEqual([
      0,
      [],
      true,
    ]);
  });

  it('names a stack that does not exist', async () => {
    const out = capture();
    const code = await main(['test-page', '--stack', 'NoSuchStack'], out);

    expect([code, out.stderrText()]).toEqual([2, expect.stringContaining('cannot read stack NoSuchStack')]);
  });
});
