import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { clusterSchema } from '../../shared/config/deployment-config.ts';
import type { Hint } from '../../shared/engine/rule.ts';
import { DEFAULT_RULES } from '../../shared/engine/rules/index.ts';
import { signalSources } from '../../shared/pipeline/query-plan.ts';
import { repoPath } from '../support/engine-fixtures.ts';

/**
 * Each finding of the review of every hint and runbook against the AWS, Kubernetes, Karpenter and
 * Gatekeeper documentation, held against the text so it cannot come back.
 */

const runbook = (id: string) => readFileSync(repoPath(`docs/runbooks/${id}.md`), 'utf8');
const README = () => runbook('README');

/** The body of a `## title` section of a Markdown file. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}`);
  if (start < 0) throw new Error(`no section "${title}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

type AnyHint = Hint & { readonly commands?: readonly string[]; readonly appliesTo?: readonly string[] };
const hintsOf = (id: string): readonly AnyHint[] => DEFAULT_RULES.find((r) => r.id === id)?.hints ?? [];
const wording = (hint: AnyHint) => [hint.text, ...(hint.commands ?? [])].join('\n');
const allHints = () => DEFAULT_RULES.flatMap((rule) => rule.hints as readonly AnyHint[]);

describe('finding 1: node-churn rolls a bad AMI back with levers that exist', () => {
  it('never tells on-call to roll a managed node group back with update-nodegroup-version', () => {
    expect(runbook('node-churn')).not.toMatch(/update-nodegroup-version[\s\S]{0,200}--release-version/);
  });

  it('offers a launch-template version with the previous AMI, or a new node group and a drain, citing the API reference', () => {
    const text = section(runbook('node-churn'), 'Mitigate now');

    expect([
      /create-launch-template-version/.test(text),
      /--launch-template/.test(text),
      /drain/.test(text),
      /cannot roll back/i.test(text),
      /UpdateNodegroupVersion/.test(text),
    ]).toEqual([true, true, true, true, true]);
  });
});

describe('finding 2: the apiserver-restart-errors page sends no EKS user to flags they cannot set', () => {
  const CONTROL_PLANE_ONLY = /--shutdown-delay-duration|--shutdown-send-retry-after|health check/i;

  it('scopes every hint about apiserver flags or load-balancer health checks to a self-managed control plane', () => {
    const unscoped = hintsOf('apiserver-restart-errors')
      .filter((hint) => CONTROL_PLANE_ONLY.test(wording(hint)))
      .filter((hint) => JSON.stringify(hint.appliesTo) !== JSON.stringify(['self-managed-control-plane']));

    expect(unscoped.map((hint) => hint.text)).toEqual([]);
  });

  it('tells an EKS user what they can do instead, citing the EKS API', () => {
    const eks = hintsOf('apiserver-restart-errors').filter((hint) => hint.appliesTo?.includes('eks-control-plane'));

    expect(eks.some((hint) => /KubeApiServerConfig/.test(hint.source) && /list-updates/.test(wording(hint)))).toBe(
      true,
    );
  });
});

describe('finding 3: the signals-missing commands run as pasted', () => {
  it('gives aws oam list-attached-links the sink it requires', () => {
    const calls = hintsOf('signals-missing').flatMap(
      (hint) => wording(hint).match(/aws oam list-attached-links[^`\n;]*/g) ?? [],
    );

    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((call) => !call.includes('--sink-identifier'))).toEqual([]);
  });

  it('quotes /readyz?verbose, which zsh would otherwise take for a glob', () => {
    const unquoted = allHints().flatMap((hint) => wording(hint).match(/[^'"=]\/readyz\?verbose/g) ?? []);

    expect(unquoted).toEqual([]);
  });
});

describe('finding 4: pausing node auto-repair says how, for each kind of node, on the authority of its docs', () => {
  const pauseHints = () =>
    DEFAULT_RULES.flatMap((rule) => rule.hints as readonly AnyHint[]).filter((hint) =>
      /node-repair-config enabled=false|NodeRepair=false|ReplaceUnhealthy/.test(wording(hint)),
    );

  it('has no GKE command on a page about EKS', () => {
    expect(
      allHints()
        .filter((hint) => /gcloud/.test(wording(hint)))
        .map((hint) => hint.text),
    ).toEqual([]);
  });

  it('says how to turn Karpenter’s NodeRepair gate off: FEATURE_GATES and the Helm value', () => {
    const karpenter = pauseHints().filter((hint) => /NodeRepair=false/.test(wording(hint)));

    expect(karpenter.length).toBeGreaterThan(0);
    expect(
      karpenter.every(
        (hint) => /FEATURE_GATES/.test(wording(hint)) && /settings\.featureGates\.nodeRepair/.test(wording(hint)),
      ),
    ).toBe(true);
  });

  it('cites the repairer’s own documentation, not the post-mortem whose team kept auto-repair on', () => {
    expect(
      pauseHints()
        .filter((hint) => /post-mortem/i.test(hint.source))
        .map((hint) => hint.source),
    ).toEqual([]);
  });
});

describe('finding 5: node-repair-storm says when repairers stop by themselves and restores what it paused', () => {
  const text = () => runbook('node-repair-storm');

  it('does not claim that external repairers never slow down', () => {
    expect(text()).not.toMatch(/do not do that unless you configure it/);
  });

  it('states the documented 20% brakes of managed node groups, Karpenter and Auto Mode, with the page', () => {
    expect([
      /more than five nodes and more than 20\s?%/.test(text()),
      /more than 20\s?% of the nodes in (a|the) NodePool/.test(text()),
      /Automatically repair nodes in EKS clusters/.test(text()),
    ]).toEqual([true, true, true]);
  });

  it('restores the saved repair configuration instead of re-enabling with a bare enabled=true', () => {
    const recovery = section(text(), 'Confirm recovery');

    expect([/--node-repair-config enabled=true\b(?!,)/.test(recovery), /file:\/\//.test(recovery)]).toEqual([
      false,
      true,
    ]);
  });
});

describe('finding 6: webhook-availability-gaps probes Gatekeeper where Gatekeeper serves its health', () => {
  const text = () => runbook('webhook-availability-gaps');

  it('has no readiness probe on the webhook port at /healthz', () => {
    expect(text()).not.toMatch(/httpGet: \{scheme: HTTPS, port: 8443, path: \/healthz\}/);
  });

  it('points the probe at the health port and names --enable-tls-healthcheck, citing Gatekeeper', () => {
    const fix = section(text(), 'Fix for good');

    expect([/port: 9090/.test(fix), /--enable-tls-healthcheck/.test(fix), /--health-addr/.test(fix)]).toEqual([
      true,
      true,
      true,
    ]);
  });
});

describe('finding 7: the runbooks describe the webhook signals as the eks profile provides them', () => {
  const eks = signalSources(clusterSchema.parse({ name: 'prod-euw1' })).map((source) => source.signal);

  it('has no eks-profile source for webhook.failures (the fact the runbooks must reflect)', () => {
    expect(eks).not.toContain('webhook.failures');
  });

  it('says in the signals table that webhook.failures needs a custom metric on the eks profile', () => {
    expect(section(README(), 'Signals')).toMatch(/`webhook\.failures`[^\n]*custom/);
  });

  it('says that webhook.rejections also counts fail-closed calling errors', () => {
    expect(section(README(), 'Signals')).toMatch(/calling_webhook_error/);
  });

  it.each(['webhook-blackhole', 'webhook-availability-gaps', 'control-plane-degraded'])(
    'qualifies webhook.failures in the What fired section of %s',
    (id) => {
      const fired = section(runbook(id), 'What fired');

      expect(fired).toMatch(/webhook\.failures/);
      expect(fired).toMatch(/README\.md#signals/);
    },
  );
});

describe('finding 8: the README table of how rules relate is the rule set', () => {
  it('lists, for each root rule, exactly the rules it explains', () => {
    const table = section(README(), 'How the rules relate');
    const rows = [...table.matchAll(/^\| ([a-z][a-z-]*)\s+\| ([a-z][a-z, -]*?)\s+\|$/gm)].map((m) => [
      m[1],
      (m[2] ?? '').split(', ').sort(),
    ]);
    const explaining = DEFAULT_RULES.filter((rule) => rule.explains.length > 0).map((rule) => [
      rule.id,
      [...rule.explains].sort(),
    ]);

    expect(rows).toEqual(explaining);
  });
});
