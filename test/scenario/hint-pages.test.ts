import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../shared/config/deployment-config.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { renderNotification } from '../../shared/notify/render-notification.ts';
import { replayScenario } from '../../shared/scenario/replay.ts';
import { parseScenario } from '../../shared/scenario/scenario.ts';
import { defaultRuleSet, scenarioJson } from '../support/engine-fixtures.ts';

/**
 * The page a replayed webhook outage sends, for an EKS cluster of each kind: only that kind's commands, filled in with
 * the cluster's name, Region and account from the configuration. Without a configuration, every hint, labelled.
 */

/** A webhook that hangs while writes stall on dev-euw1: webhook-blackhole pages, and its hints pause auto-repair. */
const OUTAGE = parseScenario(
  scenarioJson({
    clusters: { 'dev-euw1': { signals: { 'webhook.p99': '0.1*5 10*10', 'apiserver.write.p99': '0.2*5 5*10' } } },
  }),
  'scenarios/blackhole.json',
);

const configFor = (nodes: string) =>
  loadConfig(
    {
      clusters: [
        {
          name: 'dev-euw1',
          region: 'eu-west-1',
          accountId: '111122223333',
          source: { profile: 'eks', nodes, nodeGroups: ['eks-dev-euw1-general'] },
        },
      ],
    },
    'config/sentinel.json',
  );

async function pageFor(nodes?: string): Promise<{ page: Notification; text: string }> {
  const loaded = nodes ? configFor(nodes) : undefined;
  const result = await replayScenario(OUTAGE, {
    ruleSet: loaded?.ruleSet ?? defaultRuleSet(),
    ...(loaded && { config: loaded.config }),
  });
  const page = result.notifications.find((n) => n.kind === 'page' && n.rule === 'webhook-blackhole');
  if (!page) throw new Error('the outage sent no webhook-blackhole page');
  return { page, text: renderNotification(page).join('\n') };
}

/** The command by which each repairer is paused, as a page filled in for dev-euw1 shows it. */
const PAUSE_COMMANDS = {
  'managed-node-groups': "aws eks update-nodegroup-config --cluster-name 'dev-euw1' --region 'eu-west-1'",
  karpenter: 'NodeRepair=false',
  'auto-mode': "aws eks describe-cluster --name 'dev-euw1' --region 'eu-west-1' --query 'cluster.computeConfig'",
  'self-managed-groups': 'aws autoscaling suspend-processes',
} as const;

/** Which repairers a page tells on-call how to pause. */
const repairersIn = (text: string) =>
  Object.entries(PAUSE_COMMANDS).flatMap(([kind, command]) => (text.includes(command) ? [kind] : []));

describe('a replayed page for an EKS cluster', () => {
  it('with managed node groups shows only their commands, filled in', async () => {
    const { text } = await pageFor('managed-node-groups');

    expect(repairersIn(text)).toEqual(['managed-node-groups']);
    expect(text).toContain(
      "for ng in $(aws eks list-nodegroups --cluster-name 'dev-euw1' --region 'eu-west-1' --query 'nodegroups[]' --output text)",
    );
  });

  it('with Karpenter shows only the NodeRepair gate', async () => {
    const { text } = await pageFor('karpenter');

    expect(repairersIn(text)).toEqual(['karpenter']);
    expect(text).toContain('settings.featureGates.nodeRepair=false');
  });

  it('with Auto Mode says repair cannot be turned off and shows only its own command', async () => {
    const { text } = await pageFor('auto-mode');

    expect(repairersIn(text)).toEqual(['auto-mode']);
    expect(text).toMatch(/cannot be turned off or configured/);
  });

  it.each(['managed-node-groups', 'karpenter', 'auto-mode'])(
    'for %s names no placeholder the configuration could fill, and no note about the kind',
    async (nodes) => {
      const { page } = await pageFor(nodes);
      const commands = page.hints.flatMap((hint) => hint.commands ?? []).join('\n');

      expect([
        commands.match(/<cluster>|<region>|<cluster-account-id>|\{(cluster|region|account|asgs|selfManagedAsgs)\}/g),
        page.hints[0]?.text,
      ]).toEqual([null, expect.not.stringMatching(/does not say/)]);
    },
  );

  it('without a configuration shows every hint, labelled with where it applies, and names the placeholders', async () => {
    const { page, text } = await pageFor();

    expect(page.hints[0]?.text).toMatch(/does not say how its nodes are run/);
    expect([
      text.includes('[EKS managed node groups]'),
      text.includes('[Karpenter]'),
      text.includes('[EKS Auto Mode]'),
      text.includes('[Self-managed node groups]'),
      text.includes('--cluster-name <cluster> --region <region>'),
    ]).toEqual([true, true, true, true, true]);
  });
});
