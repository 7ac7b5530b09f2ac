import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SnsDigestPublisher } from '../../aws/sns/digest-publisher.ts';
import { SnsNotifier } from '../../aws/sns/notifier.ts';
import type { Digest } from '../../shared/digest/digest.ts';
import { renderDigest } from '../../shared/digest/render-digest.ts';
import { MESSAGE_LIMIT_BYTES } from '../../shared/notify/fit-message.ts';
import { MORE_CLUSTERS, renderMessage } from '../../shared/notify/message-bodies.ts';
import { type SnsServer, startSnsServer } from '../../support/sns-server.ts';
import { digestOf, incidentOf, isoMinute, NO_ACTIVITY, openedWith } from '../digest/digest-fixtures.ts';
import { fleetPage } from '../notify/fleet-page.ts';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

describe('publishing to a loopback SNS that enforces 256 KiB, attributes included', () => {
  let server: SnsServer;
  let client: SNSClient;
  let topics: { paging: string; notice: string };

  beforeAll(async () => {
    server = await startSnsServer();
    // The SDK's default retries, as the pipeline's clients have: a keep-alive socket the loopback server closed while
    // a large digest rendered is retried on a fresh one. A refused message is not retried.
    client = new SNSClient({ endpoint: server.endpoint, region: 'us-east-1', credentials });
  });

  afterAll(async () => {
    client.destroy();
    await server.close();
  });

  beforeEach(() => {
    server.reset();
    topics = { paging: server.createTopic('paging'), notice: server.createTopic('notice') };
  });

  it('delivers a grouped page for 3,000 clusters with long names, its cluster attribute cut and flagged', async () => {
    const page = fleetPage(3000);

    await new SnsNotifier(client, topics).publish(page);

    const [sent] = server.published;
    const json = JSON.parse(JSON.parse(sent?.message ?? '{}').default);
    expect(sent?.topicArn).toBe(topics.paging);
    expect(JSON.parse(sent?.messageAttributes.cluster?.StringValue ?? '[]').at(-1)).toBe(MORE_CLUSTERS);
    expect(sent?.messageAttributes['clusters-truncated']).toEqual({ DataType: 'String', StringValue: 'true' });
    expect(json.clusters.length + json.omitted.clusters).toBe(3000);
  });

  it('refuses the same page when the cluster attribute carries all 3,000 names, as it once did', async () => {
    const { subject, bodies, attributes } = renderMessage(fleetPage(3000));
    const everyName = { DataType: 'String.Array', StringValue: JSON.stringify(fleetPage(3000).clusters) };

    const publish = client.send(
      new PublishCommand({
        TopicArn: topics.paging,
        Subject: subject,
        MessageStructure: 'json',
        Message: JSON.stringify(bodies),
        MessageAttributes: { ...attributes, cluster: everyName },
      }),
    );

    await expect(publish).rejects.toMatchObject({ name: 'InvalidParameterException' });
    expect(server.published).toEqual([]);
  });

  it('delivers a digest shortened to fit, its attributes counted', async () => {
    const incidents = Array.from({ length: 1000 }, (_, i) =>
      incidentOf({ cluster: `prod-${i}`.padEnd(100, 'x'), rule: 'webhook-blackhole', openedAt: isoMinute(i) }),
    );
    const digest: Digest = digestOf({
      ...NO_ACTIVITY,
      incidents,
      notifications: incidents.map((i) => openedWith(i)),
    });
    const message = renderDigest(digest);

    await new SnsDigestPublisher(client, server.createTopic('digest')).publish(message);

    const [sent] = server.published;
    expect(message.truncated).toMatch(/^shortened to fit 256 KiB/);
    expect(Buffer.byteLength(sent?.message ?? '')).toBeGreaterThan(MESSAGE_LIMIT_BYTES - 8192);
    expect(sent?.messageAttributes).toEqual({
      kind: { DataType: 'String', StringValue: 'digest' },
      week: { DataType: 'String', StringValue: digest.week.label },
    });
  });
});
