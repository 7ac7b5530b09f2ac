import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import type { HintScope } from '../../shared/engine/hint-scope.ts';
import { DEFAULT_RULES } from '../../shared/engine/rules/index.ts';
import { repoPath } from '../support/engine-fixtures.ts';
import { awsCalls, markdownCommands } from '../support/shell-commands.ts';

/**
 * Every claim a hint or a runbook makes about how AWS, Karpenter or Gatekeeper behaves carries a citation of that
 * service's own documentation: a hint in its `source`, with the page's address; a runbook in its Sources section.
 */

/** How a citation of each AWS service's documentation names it. */
const SERVICE_DOCS: Readonly<Record<string, RegExp>> = {
  eks: /\bEKS\b/,
  autoscaling: /Auto\s+Scaling/,
  ec2: /\bEC2\b/,
  cloudwatch: /CloudWatch|AWS\/EKS/,
  cloudformation: /CloudFormation/,
  oam: /\bOAM\b|cross-account observability/,
  logs: /CloudWatch Logs|control plane logs/,
  kms: /\bKMS\b/,
  cloudtrail: /CloudTrail/,
  events: /EventBridge/,
  elbv2: /Elastic Load Balancing|load balancer/i,
};

/** Whose documentation a hint scoped to each kind must cite: the part that behaves as the hint says. */
const SCOPE_DOCS: Readonly<Record<HintScope, RegExp>> = {
  'managed-node-groups': /\bEKS\b/,
  'self-managed-groups': /Auto\s+Scaling/,
  karpenter: /Karpenter/,
  'auto-mode': /\bEKS\b/,
  fargate: /Fargate/,
  'eks-control-plane': /\bEKS\b/,
  'self-managed-control-plane': /kube-apiserver|Kubernetes/,
};

const hints = DEFAULT_RULES.flatMap((rule) =>
  rule.hints.map((hint, index) => ({ where: `${rule.id} hint ${index}`, hint })),
);

describe('citations in hints', () => {
  it('cite the documentation of every AWS service a hint’s commands call', () => {
    const uncited = hints.flatMap(({ where, hint }) =>
      (hint.commands ?? [])
        .flatMap(awsCalls)
        .filter((call) => !(SERVICE_DOCS[call.service] ?? /$^/).test(hint.source))
        .map((call) => `${where}: aws ${call.service} ${call.operation}, source "${hint.source}"`),
    );

    expect(uncited).toEqual([]);
  });

  it('cite the documentation of the kind of cluster a hint is scoped to', () => {
    const uncited = hints.flatMap(({ where, hint }) =>
      (hint.appliesTo ?? [])
        .filter((scope) => !SCOPE_DOCS[scope].test(hint.source))
        .map((scope) => `${where}: ${scope}, source "${hint.source}"`),
    );

    expect(uncited).toEqual([]);
  });

  it('give the address of every AWS, Karpenter or Gatekeeper page they cite', () => {
    const vendorDocs = /Amazon|AWS|EKS|EC2|Auto Scaling|CloudWatch|OAM|Karpenter|Gatekeeper main\.go/;
    const unaddressed = hints
      .filter(({ hint }) =>
        hint.source.split('; ').some((part) => vendorDocs.test(part) && !/https:\/\/|values/.test(part)),
      )
      .filter(({ hint }) => !/Gatekeeper issue/.test(hint.source) || /https:\/\//.test(hint.source))
      .map(({ where, hint }) => `${where}: ${hint.source}`);

    expect(unaddressed).toEqual([]);
  });

  it('do not cite an incident report for a step its authors decided against', () => {
    // The OPA post-mortem: "We also considered but decided against disabling GKE node auto-repair."
    const pausing = hints.filter(({ hint }) =>
      /node-repair-config enabled=false|NodeRepair=false|ReplaceUnhealthy|auto repair|auto-repair/i.test(
        [hint.text, ...(hint.commands ?? [])].join(' '),
      ),
    );
    const againstTheReport = pausing.filter(({ hint }) => /post-mortem/i.test(hint.source) && /pause/i.test(hint.text));

    expect(pausing.length).toBeGreaterThan(3);
    expect(againstTheReport.map(({ where }) => where)).toEqual([]);
  });
});

describe('citations in runbooks', () => {
  const runbooks = readdirSync(repoPath('docs/runbooks'))
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .map((file) => ({ file, text: readFileSync(repoPath(`docs/runbooks/${file}`), 'utf8') }));

  it.each(runbooks.map((r) => [r.file, r.text]))(
    '%s cites, in its Sources, the documentation of every AWS service its commands call',
    (_, text) => {
      const sources = text.slice(text.indexOf('\n## Sources'));
      const services = new Set(markdownCommands(text).flatMap((command) => awsCalls(command).map((c) => c.service)));
      const uncited = [...services].filter((service) => !(SERVICE_DOCS[service] ?? /$^/).test(sources));

      expect(uncited).toEqual([]);
    },
  );

  it.each(runbooks.map((r) => [r.file, r.text]))('%s resolves every reference-style link it uses', (_, text) => {
    const defined = new Set([...text.matchAll(/^\[([^\]]+)\]: https:\/\//gm)].map((m) => m[1]));
    const used = [...text.matchAll(/\]\[([a-z][a-z-]*)\]/g)]
      .map((m) => m[1])
      .concat([...text.matchAll(/\(\[([a-z-]+)\]\)/g)].map((m) => m[1]));

    expect(used.filter((name) => !defined.has(name))).toEqual([]);
  });
});
