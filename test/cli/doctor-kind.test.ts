import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { doctorCommand } from '../../cli/doctor-command.ts';
import { readConfigFile } from '../../io/input-files.ts';
import { type AwsHarness, startAwsHarness, writeConfig } from '../../support/aws-harness.ts';
import { DEFAULT_ACCOUNT_ID } from '../../support/cloudwatch-server.ts';
import { type EksServer, startEksServer } from '../../support/eks-server.ts';
import { webhookFailuresFromPrometheus } from '../../support/prometheus-signals.ts';
import { CapturedCommandOutput } from '../support/command-output.ts';
import { reportEverySignal } from '../support/doctor-fixtures.ts';

/**
 * `sentinel doctor` asks EKS how the nodes run of each EKS cluster whose configuration does not say (`source.nodes`),
 * against a loopback EKS: prod-euw1 runs two managed node groups, auto-use1 Auto Mode, gone-use1 is not a cluster EKS
 * knows, denied-use1 refuses the caller, dev-use1 lives in a workload account, and kinded-use1 says its kind already.
 * Every cluster reports every signal of its profile, so the coverage is full.
 */
const WORKLOAD = '222233334444';
const NOW = Date.parse('2026-11-23T09:00:00Z');

/** Every cluster publishes webhook.failures, which no source profile maps, so that every rule runs in full. */
const source = (name: string, nodes?: string) => ({
  ...(nodes && { nodes }),
  custom: webhookFailuresFromPrometheus(name),
});

const CONFIG = {
  ops: { accountId: DEFAULT_ACCOUNT_ID, region: 'us-east-1' },
  poll: { tripwire: { enabled: false } },
  clusters: [
    { name: 'prod-euw1', region: 'eu-west-1', source: source('prod-euw1') },
    { name: 'auto-use1', source: source('auto-use1') },
    { name: 'gone-use1', source: source('gone-use1') },
    { name: 'denied-use1', source: source('denied-use1') },
    { name: 'dev-use1', accountId: WORKLOAD, source: source('dev-use1') },
    { name: 'kinded-use1', source: source('kinded-use1', 'managed-node-groups') },
  ],
  subscriptions: { paging: [{ subscribers: [{ protocol: 'email', endpoint: 'oncall@example.com' }] }] },
};

describe('sentinel doctor on clusters whose kind the configuration does not say', () => {
  let harness: AwsHarness;
  let eks: EksServer;
  let file: string;
  let code: number;
  let report: string;

  beforeAll(async () => {
    harness = await startAwsHarness();
    eks = await startEksServer();
    process.env.AWS_ENDPOINT_URL_EKS = eks.endpoint;
    eks.clusters.set('prod-euw1', { nodegroups: ['general', 'system'] });
    eks.clusters.set('auto-use1', { autoMode: true });
    eks.clusters.set('denied-use1', { denied: true });
    eks.clusters.set('kinded-use1', { nodegroups: ['general'] });
    file = writeConfig(CONFIG);
    reportEverySignal(harness.cloudwatch, readConfigFile(file).config.clusters, NOW);
    const output = new CapturedCommandOutput();
    code = await doctorCommand({ config: file }, output, NOW);
    report = output.stdoutText;
  }, 60_000);

  afterAll(async () => {
    delete process.env.AWS_ENDPOINT_URL_EKS;
    await Promise.all([harness.close(), eks.close()]);
  });

  it('prints the setting to add for each cluster EKS describes, from its node groups or its Auto Mode', () => {
    expect(report).toContain(
      '- prod-euw1: EKS reports managed node groups (2): add "source": {"nodes": "managed-node-groups"}',
    );
    expect(report).toContain('- auto-use1: EKS reports Auto Mode: add "source": {"nodes": "auto-mode"}');
  });

  it('says, per cluster, what EKS does not know or refuses, and what it cannot be asked', () => {
    expect(report).toContain(
      '- gone-use1: EKS has no cluster named gone-use1 in us-east-1 (ResourceNotFoundException): check the cluster',
    );
    expect(report).toMatch(
      /- denied-use1: EKS could not be asked: AWS refused the request: AccessDeniedException \(HTTP 403\)/,
    );
    expect(report).toContain(`- dev-use1: in account ${WORKLOAD}, whose EKS the ops account cannot read`);
  });

  it('asks EKS nothing about a cluster whose configuration says its kind, nor about another account', () => {
    expect(report).not.toContain('kinded-use1: EKS');
    expect(eks.calls.DescribeCluster).toBe(4);
  });

  it('exits 0 when the coverage is full: a kind EKS could not give changes neither the coverage nor the exit code', () => {
    expect(code).toBe(0);
  });

  it('exits 0 still, and says so per cluster, when EKS cannot be reached at all', async () => {
    process.env.AWS_ENDPOINT_URL_EKS = 'http://127.0.0.1:9';
    const output = new CapturedCommandOutput();
    try {
      const unreachable = await doctorCommand({ config: file }, output, NOW);

      expect(unreachable).toBe(0);
      expect(output.stdoutText).toMatch(/- prod-euw1: EKS could not be asked: could not reach AWS \(ECONNREFUSED\)/);
    } finally {
      process.env.AWS_ENDPOINT_URL_EKS = eks.endpoint;
    }
  }, 60_000);
});
