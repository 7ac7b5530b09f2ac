import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EKS_CALLS_PER_SECOND } from '../../aws/eks/node-facts.ts';
import { doctorCommand } from '../../cli/doctor-command.ts';
import type { ClusterObservation } from '../../shared/doctor/diagnosis.ts';
import { type AwsHarness, startAwsHarness, writeConfig } from '../../support/aws-harness.ts';
import { DEFAULT_ACCOUNT_ID } from '../../support/cloudwatch-server.ts';
import { type EksClusterState, type EksServer, startEksServer } from '../../support/eks-server.ts';
import { EKS_READS_PER_SECOND } from '../../support/request-rate-quotas.ts';
import { CapturedCommandOutput } from '../support/command-output.ts';

/**
 * `sentinel doctor` on a fleet of EKS clusters whose configuration does not say how their nodes run, so that doctor
 * asks EKS about each: 30 in us-east-1 and 25 in eu-west-1 in the ops account, more at once than the loopback EKS
 * answers in a second in either Region, 8 in ap-southeast-2, and 6 in two workload accounts, which EKS is not asked
 * about. Each of the ops account's clusters runs Auto Mode, managed node groups or Fargate, by turns.
 */
const [A, B] = ['111111111111', '222222222222'];
const REGIONS = { 'us-east-1': 30, 'eu-west-1': 25, 'ap-southeast-2': 8 } as const;
const OWN = Object.entries(REGIONS).flatMap(([region, count]) =>
  Array.from({ length: count }, (_, i) => ({ name: `${region}-${i}`, region })),
);
const LINKED = [
  ...Array.from({ length: 4 }, (_, i) => ({ name: `a-${i}`, accountId: A })),
  ...Array.from({ length: 2 }, (_, i) => ({ name: `b-${i}`, region: 'eu-west-1', accountId: B })),
];
const stateOf = (index: number): EksClusterState =>
  [{ autoMode: true }, { nodegroups: ['general', 'system'] }, { fargateProfiles: ['default'] }][index % 3] ?? {};
/** What doctor must report of each of the ops account's clusters: what EKS says of it. */
const factsOf = (index: number) => {
  const state = stateOf(index);
  return {
    autoMode: state.autoMode ?? false,
    managedNodeGroups: [...(state.nodegroups ?? [])],
    fargateProfiles: [...(state.fargateProfiles ?? [])],
  };
};

/** A terminal's stderr: it takes progress. */
class TerminalOutput extends CapturedCommandOutput {
  readonly progressLines: string[] = [];
  progress(line: string) {
    this.err.push(line);
    this.progressLines.push(line);
  }
}

describe('sentinel doctor asking EKS about a fleet', () => {
  let harness: AwsHarness;
  let eks: EksServer;
  let output: TerminalOutput;
  let observations: ClusterObservation[];

  beforeAll(async () => {
    harness = await startAwsHarness();
    eks = await startEksServer();
    process.env.AWS_ENDPOINT_URL_EKS = eks.endpoint;
    OWN.forEach((cluster, index) => {
      eks.clusters.set(cluster.name, stateOf(index));
    });
    const file = writeConfig({
      ops: { accountId: DEFAULT_ACCOUNT_ID, region: 'us-east-1' },
      poll: { tripwire: { enabled: false } },
      clusters: [...OWN, ...LINKED],
      subscriptions: { paging: [{ subscribers: [{ protocol: 'email', endpoint: 'oncall@example.com' }] }] },
    });
    output = new TerminalOutput();
    await doctorCommand({ config: file, json: true }, output, Date.now(), 1_000);
    observations = (
      JSON.parse(output.out.join('\n')) as { clusters: { observation: ClusterObservation }[] }
    ).clusters.map((c) => c.observation);
  }, 60_000);

  afterAll(async () => {
    delete process.env.AWS_ENDPOINT_URL_EKS;
    await Promise.all([harness.close(), eks.close()]);
  });

  it('paces its EKS calls in each Region so that EKS throttles none of them', () => {
    expect(EKS_CALLS_PER_SECOND).toBeLessThan(EKS_READS_PER_SECOND);
    expect(eks.quota.throttled).toBe(0);
    // Each cluster of the ops account once per operation: no call was retried.
    expect(eks.calls).toEqual({
      DescribeCluster: OWN.length,
      ListNodegroups: OWN.length,
      ListFargateProfiles: OWN.length,
    });
  });

  it('reports what EKS says of every cluster of the ops account, in every Region', () => {
    const kinds = observations.slice(0, OWN.length).map((o) => [o.cluster, o.nodeKind]);

    expect(kinds).toEqual(OWN.map((c, index) => [c.name, { status: 'described', facts: factsOf(index) }]));
  });

  it("asks EKS nothing about a workload account's cluster, and says so", () => {
    expect(observations.slice(OWN.length).map((o) => [o.cluster, o.nodeKind?.status])).toEqual(
      LINKED.map((c) => [c.name, 'not-asked']),
    );
  });

  it('says how far it has got on stderr while it asks, and ends on the whole count', () => {
    expect(output.progressLines.length).toBeGreaterThan(2);
    expect(output.progressLines.at(-1)).toMatch(
      new RegExp(`^listed (\\d+) of \\1 metric names, .*looked up ${OWN.length} of ${OWN.length} clusters in EKS$`),
    );
    // Some line said a count halfway.
    expect(output.progressLines.some((line) => !line.includes(`looked up ${OWN.length} of`))).toBe(true);
  });

  it('keeps stdout for the report alone: the --json output parses whole', () => {
    expect(() => JSON.parse(output.out.join('\n'))).not.toThrow();
    expect(output.out.join('\n')).not.toContain('looked up');
  });
});
