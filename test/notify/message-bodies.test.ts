import { opsgenieAlert, pagerDutyEvent } from '../../shared/delivery/vendor-messages.ts';
import { MESSAGE_LIMIT_BYTES, publishBytes } from '../../shared/notify/fit-message.ts';
import {
  CLUSTER_ATTRIBUTE_BYTES,
  CLUSTER_ATTRIBUTE_NAMES,
  MORE_CLUSTERS,
  renderMessage,
} from '../../shared/notify/message-bodies.ts';
import { fleetPage } from './fleet-page.ts';

const clusterAttribute = (rendered: ReturnType<typeof renderMessage>) =>
  JSON.parse(rendered.attributes.cluster?.StringValue ?? '[]') as string[];

describe('a page as SNS carries it', () => {
  it('goes out whole, with every cluster in its attribute, when it fits', () => {
    const page = fleetPage(3);

    const rendered = renderMessage(page);

    expect(rendered.truncated).toBeUndefined();
    expect(clusterAttribute(rendered)).toEqual(page.clusters);
    expect(rendered.attributes['clusters-truncated']).toBeUndefined();
    expect(JSON.parse(rendered.bodies.sqs)).toEqual(page);
  });

  it('fits 256 KiB as the resolve of 10,000 clusters, whose changes name every cluster that recovered', () => {
    const page = fleetPage(10_000);
    const resolve = {
      ...page,
      kind: 'resolve' as const,
      reason: 'resolved' as const,
      changes: [`Recovered: ${page.clusters.join(', ')}`],
    };

    const rendered = renderMessage(resolve);

    expect(publishBytes(rendered)).toBeLessThanOrEqual(MESSAGE_LIMIT_BYTES);
    expect(rendered.truncated).toMatch(/rest of what changed left out/);
    expect(rendered.bodies.email).toContain(`Recovered: ${page.clusters[0]}`);
  });

  describe('grouping 3,000 clusters with long names', () => {
    const page = fleetPage(3000);
    const rendered = renderMessage(page);
    const json = JSON.parse(rendered.bodies.sqs);

    it('fits 256 KiB with its subject and attributes, and uses most of it', () => {
      expect(publishBytes(rendered)).toBeLessThanOrEqual(MESSAGE_LIMIT_BYTES);
      expect(publishBytes(rendered)).toBeGreaterThan(MESSAGE_LIMIT_BYTES - 2048);
    });

    it('lists the first clusters in its attribute, ends the list with a marker and flags the cut', () => {
      const listed = clusterAttribute(rendered);

      expect(listed.at(-1)).toBe(MORE_CLUSTERS);
      expect(listed.slice(0, -1)).toEqual(page.clusters.slice(0, listed.length - 1));
      expect(listed.length - 1).toBeLessThanOrEqual(CLUSTER_ATTRIBUTE_NAMES);
      expect(Buffer.byteLength(rendered.attributes.cluster?.StringValue ?? '')).toBeLessThanOrEqual(
        CLUSTER_ATTRIBUTE_BYTES,
      );
      expect(rendered.attributes['clusters-truncated']).toEqual({ DataType: 'String', StringValue: 'true' });
    });

    it('says in the JSON how many clusters it left out, and keeps each listed cluster with its incident', () => {
      expect(json.omitted).toEqual({
        clusters: 3000 - json.clusters.length,
        evidenceOf: json.clusters.length - 10,
        of: 3000,
      });
      expect(json.clusters.length).toBeGreaterThan(CLUSTER_ATTRIBUTE_NAMES);
      expect(json.clusters).toEqual(page.clusters.slice(0, json.clusters.length));
      expect(json.incidents).toEqual(page.incidents.slice(0, json.clusters.length));
      expect(json.evidence.map((e: { cluster: string }) => e.cluster)).toEqual(page.clusters.slice(0, 10));
    });

    it('says the cut in the email, where on-call reads it, with the counts of the incident', () => {
      const left = json.omitted.clusters;

      expect(rendered.bodies.email).toContain(
        `Where: ${page.clusters[0]} (account 111122223333, ap-southeast-5) and 2999 more\n`,
      );
      expect(rendered.bodies.email).toContain('Clusters (3000):\n');
      expect(rendered.bodies.email).toContain(
        `  ... ${left} more clusters not listed here (full list: the incident table`,
      );
      const note = `truncated to fit 256 KiB: ${left} of 3000 clusters not listed; evidence shown for the first 10 of 3000 clusters`;

      expect(rendered.bodies.email).toContain(note);
      expect(rendered.truncated).toBe(note);
    });
  });

  it('leaves out evidence before it leaves out a cluster, and keeps the most evidence that fits', () => {
    const page = fleetPage(40);
    const limit = publishBytes(renderMessage(page)) - 1;

    const rendered = renderMessage(page, limit);
    const json = JSON.parse(rendered.bodies.sqs);

    expect(publishBytes(rendered)).toBeLessThanOrEqual(limit);
    expect([json.clusters.length, json.evidence.length, json.omitted]).toEqual([
      40,
      39,
      { clusters: 0, evidenceOf: 1, of: 40 },
    ]);
    expect(rendered.bodies.email).not.toContain('not listed here');
  });

  it('names every cluster of a 400-cluster fleet page, and their incidents, when the names are of common length', () => {
    const page = fleetPage(400, (i) => `prod-${String(i).padStart(4, '0')}-euw1`);

    const json = JSON.parse(renderMessage(page).bodies.sqs);

    expect([json.clusters, json.incidents]).toEqual([page.clusters, page.incidents]);
    expect(json.omitted.clusters).toBe(0);
  });

  it('leaves evidence and hints out when one cluster alone is too large, and says so', () => {
    const page = { ...fleetPage(1), hints: [{ text: 'x'.repeat(300_000), source: 'test' }] };

    const rendered = renderMessage(page);

    expect(publishBytes(rendered)).toBeLessThanOrEqual(MESSAGE_LIMIT_BYTES);
    expect(rendered.truncated).toBe('truncated to fit 256 KiB: evidence and hints left out');
    expect(rendered.bodies.email).toContain('truncated to fit 256 KiB: evidence and hints left out');
  });
});

describe('the links of a notification', () => {
  const page = {
    ...fleetPage(1),
    graph: 'https://eu-west-1.console.aws.amazon.com/cloudwatch/home?region=eu-west-1#metricsV2:graph=~(view~%27x)',
  };

  it('are both in the email', () => {
    const { email } = renderMessage(page).bodies;

    expect(email).toContain(`Runbook: ${page.runbook}\nGraph of the evidence: ${page.graph}\n`);
  });

  it('are the last next steps of the Chatbot message', () => {
    const chat = JSON.parse(renderMessage(page).bodies.https);

    expect(chat.content.nextSteps.slice(-2)).toEqual([
      `<${page.runbook}|Runbook>`,
      `<${page.graph}|Graph of the evidence>`,
    ]);
  });

  it('are in the next steps of a resolve too, which has nothing else to do', () => {
    const chat = JSON.parse(renderMessage({ ...page, kind: 'resolve' }).bodies.https);

    expect(chat.content.nextSteps).toEqual([`<${page.runbook}|Runbook>`, `<${page.graph}|Graph of the evidence>`]);
  });
});

describe('the first screen of a one-cluster page', () => {
  const page = { ...fleetPage(1, () => 'main'), title: 'Admission webhook is black-holing API writes on main' };
  const where = 'account 111122223333, ap-southeast-5';

  it('names the account and Region in the subject, the SMS, the top of the email and the Chatbot title', () => {
    const { subject, bodies } = renderMessage(page);
    const chat = JSON.parse(bodies.https);

    expect([subject, bodies.sms, bodies.email.split('\n')[3], chat.content.title]).toEqual([
      `[PAGE] Admission webhook is black-holing API writes on main (${where})`,
      `PAGE webhook-blackhole since 2026-11-20 10:00Z on main (${where})`,
      `Where: main (${where})`,
      `PAGE: Admission webhook is black-holing API writes on main (${where})`,
    ]);
  });

  it('names the account and Region in the PagerDuty summary and details and in the Opsgenie message and details', () => {
    const trigger = pagerDutyEvent(page, 'trigger');
    const alert = opsgenieAlert(page);

    expect([trigger.payload?.summary, alert.message]).toEqual([
      `Admission webhook is black-holing API writes on main (${where})`,
      `Admission webhook is black-holing API writes on main (${where})`,
    ]);
    expect([trigger.payload?.custom_details.account, trigger.payload?.custom_details.region]).toEqual([
      '111122223333',
      'ap-southeast-5',
    ]);
    expect([alert.details.account, alert.details.region]).toEqual(['111122223333', 'ap-southeast-5']);
  });

  it('keeps the title whole and leaves where to the body when both do not fit the subject', () => {
    const long = { ...page, title: `Admission webhook is black-holing API writes on ${'m'.repeat(40)}` };

    expect(renderMessage(long).subject).toBe(`[PAGE] ${long.title}`);
  });
});
