import { SINK_ARN, type SynthesizedSentinelApp, synthSentinelApp } from '../../support/synth-sentinel-app.ts';

/**
 * The logical ids of what holds state. CloudFormation replaces a resource whose logical id changes: a refactor that
 * moved the table into another construct would create a new, empty table and orphan the retained one with every
 * incident, silence and ledger entry in it. A change here must be a decision, with a migration, never a side effect.
 */

const STATEFUL = /^AWS::(DynamoDB::Table|KMS::Key|Logs::LogGroup|SQS::Queue)$/;

let synth: SynthesizedSentinelApp;
beforeAll(() => {
  synth = synthSentinelApp({ bundle: false, sinkArn: SINK_ARN });
});
afterAll(() => synth.dispose());

const statefulIds = (stackName: string) =>
  Object.entries(
    (synth.assembly.getStackByName(stackName).template as { Resources: Record<string, { Type: string }> }).Resources,
  )
    .filter(([, resource]) => STATEFUL.test(resource.Type))
    .map(([id, resource]) => `${resource.Type} ${id}`)
    .sort();

describe('the logical ids of stateful resources', () => {
  it('stay those of the OpsStack deployments already have: table, key, queues and log groups', () => {
    expect(statefulIds('OpsStack')).toEqual([
      'AWS::DynamoDB::Table TableCD117FA1',
      'AWS::KMS::Key Key961B73FD',
      'AWS::Logs::LogGroup DigestLogs96C9745F',
      'AWS::Logs::LogGroup NodeChurnLogsC1B14EA5',
      'AWS::Logs::LogGroup PagingDeliveryLogs11350C9D',
      'AWS::Logs::LogGroup PollerLogs034015E3',
      'AWS::Logs::LogGroup TripwireLogsC6553590',
      'AWS::SQS::Queue DeadLettersBBF8BAAB',
      'AWS::SQS::Queue PagingDeliveryQueueB3377358',
    ]);
  });

  it('keep the named node-events bus where it was: under a new id CloudFormation would fail on its name', () => {
    const template = synth.assembly.getStackByName('OpsStack').template as {
      Resources: Record<string, { Type: string }>;
    };
    const buses = Object.entries(template.Resources).filter(([, r]) => r.Type === 'AWS::Events::EventBus');

    expect(buses.map(([id]) => id)).toEqual(['NodeEventsLinkedAccountsBusB561F4E3']);
  });

  it('stay those of the workload accounts’ forwarding dead-letter queue', () => {
    expect(statefulIds('SourceAccountStack')).toEqual(['AWS::SQS::Queue NodeEventsDeadLetters800D21C3']);
  });
});
