import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cloudWatchClients } from '../../aws/clients.ts';
import { DESCRIBE_ALARMS_CALLS_PER_SECOND } from '../../aws/cloudwatch/describe-alarms-pacing.ts';
import { alarmStates } from '../../aws/cloudwatch/inventory.ts';
import { CloudWatchTripwireAlarms } from '../../aws/cloudwatch/tripwire-alarms.ts';
import { doctorCommand } from '../../cli/doctor-command.ts';
import { main } from '../../cli/main.ts';
import { readConfigFile } from '../../io/input-files.ts';
import { tripwireAlarmName } from '../../shared/pipeline/alarm-names.ts';
import { type AwsHarness, startAwsHarness, writeConfig } from '../../support/aws-harness.ts';
import { DEFAULT_ACCOUNT_ID } from '../../support/cloudwatch-server.ts';
import { type EksServer, startEksServer } from '../../support/eks-server.ts';
import { webhookFailuresFromPrometheus } from '../../support/prometheus-signals.ts';
import { DESCRIBE_ALARMS_PER_SECOND } from '../../support/request-rate-quotas.ts';
import { CapturedCommandOutput } from '../support/command-output.ts';
import { reportEverySignal } from '../support/doctor-fixtures.ts';
import { type OamServer, startOamServer } from '../support/oam-server.ts';

/**
 * `sentinel doctor` against loopback CloudWatch and OAM: prod-use1, in the ops account, reports every signal of its
 * profile and the custom webhook.failures; dev-use1, in a linked workload account, has no Container Insights and no
 * webhook.failures, and its tripwire reads nothing.
 */
const WORKLOAD = '222233334444';
const SINK = `arn:aws:oam:us-east-1:${DEFAULT_ACCOUNT_ID}:sink/0f0e0d0c-0000-4000-8000-000000000001`;
const NOW = Date.parse('2026-11-23T09:00:00Z');

const CONFIG = {
  ops: { accountId: DEFAULT_ACCOUNT_ID, region: 'us-east-1', existingSinks: [SINK] },
  clusters: [
    {
      name: 'prod-use1',
      source: {
        nodeGroups: ['eks-prod-general'],
        custom: webhookFailuresFromPrometheus('prod-use1'),
      },
    },
    { name: 'dev-use1', accountId: WORKLOAD, source: { nodeGroups: ['eks-dev-default'] } },
    { name: 'prod-euw1', region: 'eu-west-1', source: { nodeGroups: ['eks-prod-euw1'] } },
  ],
  subscriptions: { paging: [{ subscribers: [{ protocol: 'email', endpoint: 'oncall@example.com' }] }] },
};

describe('sentinel doctor', () => {
  let harness: AwsHarness;
  let oam: OamServer;
  let eks: EksServer;
  let file: string;
  let code: number;
  let report: string;

  beforeAll(async () => {
    harness = await startAwsHarness();
    oam = await startOamServer();
    process.env.AWS_ENDPOINT_URL_OAM = oam.endpoint;
    eks = await startEksServer();
    process.env.AWS_ENDPOINT_URL_EKS = eks.endpoint;
    eks.clusters.set('prod-use1', {});
    file = writeConfig(CONFIG);
    // Every metric of each cluster's profile reports; none of ContainerInsights for dev-use1, which has it off.
    reportEverySignal(
      harness.cloudwatch,
      readConfigFile(file).config.clusters,
      NOW,
      (cluster, metric) => cluster.name === 'dev-use1' && metric.namespace === 'ContainerInsights',
    );
    oam.addSink(SINK, [{ account: WORKLOAD, label: 'workload-a', resourceTypes: ['AWS::CloudWatch::Metric'] }]);
    harness.cloudwatch.setAlarm({ AlarmName: 'OpsStack-tripwire-prod-use1', StateValue: 'OK', StateReason: 'fine' });
    harness.cloudwatch.setAlarm({
      AlarmName: 'OpsStack-tripwire-dev-use1',
      StateValue: 'ALARM',
      StateReason:
        'Threshold Crossed: no datapoints were received for 1 period and 1 missing datapoint was treated as [Breaching].',
    });
    // prod-euw1's tripwire lives in eu-west-1; an alarm of the same name in the ops Region must not stand in for it.
    const tripwireArn = (region: string) =>
      `arn:aws:cloudwatch:${region}:${DEFAULT_ACCOUNT_ID}:alarm:OpsStack-tripwire-prod-euw1`;
    harness.cloudwatch.setAlarm({
      AlarmName: 'OpsStack-tripwire-prod-euw1',
      AlarmArn: tripwireArn('eu-west-1'),
      StateValue: 'ALARM',
      StateReason: 'Threshold Crossed: 2 out of the last 3 datapoints were greater than the threshold (1.0).',
    });
    harness.cloudwatch.setAlarm({
      AlarmName: 'OpsStack-tripwire-prod-euw1',
      AlarmArn: tripwireArn('us-east-1'),
      StateValue: 'OK',
      StateReason: 'an alarm of another deployment',
    });
    const output = new CapturedCommandOutput();
    code = await doctorCommand({ config: file }, output, NOW);
    report = output.stdoutText;
  }, 60_000);

  afterAll(async () => {
    delete process.env.AWS_ENDPOINT_URL_OAM;
    delete process.env.AWS_ENDPOINT_URL_EKS;
    await Promise.all([harness.close(), oam.close(), eks.close()]);
  });

  it('exits 1 while a page-level rule runs without some of its signals', () => {
    expect(code).toBe(1);
  });

  it('reports the cluster with every signal as it is: every metric fresh, Container Insights on, full coverage', () => {
    const prod = section(report, 'prod-use1');

    expect(prod).toMatch(/metrics: (\d+) of \1 found, newest datapoint 2 minutes old/);
    expect(prod).toContain('Container Insights: on');
    expect(prod).toContain('node churn: counted from Auto Scaling and EC2 events by the node-churn function');
    expect(prod).toContain('tripwire OpsStack-tripwire-prod-use1: OK');
    expect(prod).toMatch(/coverage: \d+ full, 0 partial, 0 skipped/);
  });

  it("reads the tripwire of a cluster outside the ops Region from that cluster's Region", () => {
    expect(section(report, 'prod-euw1')).toContain('tripwire OpsStack-tripwire-prod-euw1: ALARM');
  });

  it('reports the cluster without Container Insights and webhook.failures, with the rules they leave blind', () => {
    const dev = section(report, 'dev-use1');

    expect(dev).toContain('dev-use1 (account 222233334444, us-east-1)');
    expect(dev).toContain('signals without fresh data: nodes.total, nodes.notready');
    expect(dev).toContain('Container Insights: off');
    expect(dev).toContain(`link to ${SINK}: present`);
    expect(dev).toMatch(/skipped, no [^\n]*webhook\.failures|partial, runs without [^\n]*webhook\.failures/);
    expect(dev).toMatch(/nodes\.(total|notready)/);
  });

  it('names the fix for each gap: the setting to turn on and the metric to publish', () => {
    const fixes = report.slice(report.indexOf('To fix:'), report.indexOf('How the nodes run'));

    expect(fixes).toContain(
      '- dev-use1: turn on Container Insights for dev-use1 (nodes.total, nodes.notready), with the credentials of account 222233334444: aws eks create-addon --cluster-name dev-use1 --addon-name amazon-cloudwatch-observability --region us-east-1',
    );
    expect(fixes).toMatch(/- dev-use1: [^\n]*webhook\.failures/);
    expect(fixes).not.toContain('prod-use1:');
  });

  it('takes the Auto Scaling groups of a cluster EKS lists no managed node group of as self-managed groups', () => {
    expect(report).toContain(
      '- prod-use1: EKS reports no managed node group, no Fargate profile and Auto Mode off (the Auto Scaling groups of source.nodeGroups): add "source": {"nodes": "self-managed-groups"}',
    );
  });

  it('notices a tripwire in ALARM on missing data while the metrics are fresh', () => {
    expect(section(report, 'dev-use1')).toContain(
      'note: tripwire OpsStack-tripwire-dev-use1 is ALARM on missing data while the cluster’s metrics are fresh'.replace(
        '’',
        "'",
      ),
    );
  });

  it('prints the same diagnosis as JSON with --json, and exits the same', async () => {
    const output = new CapturedCommandOutput();
    const json = await doctorCommand({ config: file, json: true }, output, NOW);
    const diagnosis = JSON.parse(output.stdoutText) as { healthy: boolean; clusters: { cluster: string }[] };

    expect([json, diagnosis.healthy, diagnosis.clusters.map((c) => c.cluster)]).toEqual([
      1,
      false,
      ['prod-use1', 'dev-use1', 'prod-euw1'],
    ]);
  });

  it('exits 3, apart from an incomplete coverage (1), when CloudWatch cannot be asked', async () => {
    const reachable = process.env.AWS_ENDPOINT_URL_CLOUDWATCH;
    process.env.AWS_ENDPOINT_URL_CLOUDWATCH = 'http://127.0.0.1:9';
    const output = new CapturedCommandOutput();
    try {
      const unreachable = await main(['doctor', '--config', file], output);

      expect([unreachable, output.stderrText]).toEqual([
        3,
        expect.stringMatching(/^sentinel: AwsRequestError: could not reach AWS \(ECONNREFUSED\)/),
      ]);
      expect(output.stderrText).not.toMatch(/\n\s+at /);
    } finally {
      process.env.AWS_ENDPOINT_URL_CLOUDWATCH = reachable;
    }
  }, 60_000);

  it('reports a workload account whose link to the sink is missing, and the stack that creates it', async () => {
    oam.addSink(SINK, []);
    const output = new CapturedCommandOutput();
    await doctorCommand({ config: file }, output, NOW);

    expect(output.stdoutText).toContain(`link to ${SINK}: missing`);
    expect(output.stdoutText).toContain(
      `- dev-use1: link account 222233334444 to the sink ${SINK}: deploy the SourceAccountStack of us-east-1 there`,
    );
  });

  it("reads tripwire alarms beside a poller's refresh of the same Region, and CloudWatch throttles neither", async () => {
    // 1,000 tripwires: 10 pages for the refresh, 3 for doctor's 300, 13 calls that would all go in the first second.
    const names = Array.from({ length: 1_000 }, (_, i) => tripwireAlarmName('fleet', `fleet-${i}`));
    for (const name of names) {
      harness.cloudwatch.setAlarm({
        AlarmName: name,
        AlarmArn: `arn:aws:cloudwatch:us-east-1:${DEFAULT_ACCOUNT_ID}:alarm:${name}`,
        StateValue: 'OK',
        StateTransitionedTimestamp: new Date(NOW),
      });
    }
    const clientFor = cloudWatchClients('us-east-1');
    const refresh = new CloudWatchTripwireAlarms({ deployment: 'fleet', clientFor, regions: ['default'] });
    harness.cloudwatch.describeAlarmsQuota.reset();
    const before = harness.cloudwatch.calls.DescribeAlarms ?? 0;

    const [refreshed, asked] = await Promise.all([
      refresh.states(),
      alarmStates(clientFor('us-east-1'), names.slice(0, 300)),
    ]);

    expect(DESCRIBE_ALARMS_CALLS_PER_SECOND.tripwireRefresh + DESCRIBE_ALARMS_CALLS_PER_SECOND.doctor).toBe(
      DESCRIBE_ALARMS_PER_SECOND,
    );
    expect(harness.cloudwatch.describeAlarmsQuota.throttled).toBe(0);
    expect((harness.cloudwatch.calls.DescribeAlarms ?? 0) - before).toBe(13);
    expect([refreshed.length, asked.length]).toEqual([1_000, 300]);
  }, 30_000);
});

/** The lines of one cluster's part of the report. */
function section(report: string, cluster: string): string {
  const start = report.indexOf(`${cluster} (`);
  const end = report.indexOf('\n\n', start);
  return report.slice(start, end < 0 ? undefined : end);
}
