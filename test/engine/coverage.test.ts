import { coverageOf, describeCoverage } from '../../shared/engine/coverage.ts';
import type { Finding } from '../../shared/engine/step.ts';

const finding = (fields: Partial<Finding>): Finding => ({
  cluster: 'prod-euw1',
  rule: 'control-plane-degraded',
  verdict: 'unmet',
  evidence: [],
  lacking: [],
  ...fields,
});

describe('coverageOf', () => {
  it('is full when the rule ran without lacking anything', () => {
    expect(coverageOf(finding({ verdict: 'met' })).status).toBe('full');
  });

  it('is partial when the rule ran without some of its signals, whatever it decided', () => {
    expect(coverageOf(finding({ verdict: 'unknown', lacking: ['apiserver.429'] }))).toEqual({
      cluster: 'prod-euw1',
      rule: 'control-plane-degraded',
      status: 'partial',
      missing: ['apiserver.429'],
    });
  });

  it('is skipped when the rule could not run at all', () => {
    expect(coverageOf(finding({ verdict: 'skipped', lacking: ['webhook.p99'] })).status).toBe('skipped');
  });
});

describe('describeCoverage', () => {
  it('says which signals a partly covered rule runs without', () => {
    expect(describeCoverage(coverageOf(finding({ lacking: ['apiserver.429', 'webhook.failures'] })))).toBe(
      'control-plane-degraded on prod-euw1: partial, runs without apiserver.429, webhook.failures',
    );
  });

  it('says which signals a skipped rule lacks', () => {
    expect(
      describeCoverage(
        coverageOf(finding({ rule: 'webhook-latency-tax', verdict: 'skipped', lacking: ['webhook.p99'] })),
      ),
    ).toBe('webhook-latency-tax on prod-euw1: skipped, no webhook.p99');
  });
});
