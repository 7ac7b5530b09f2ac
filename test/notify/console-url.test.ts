import { jsurl, metricsGraphUrl } from '../../shared/notify/console-url.ts';
import { parseJsurl } from '../support/jsurl.ts';

describe('a CloudWatch console graph link', () => {
  it('spells a graph as the console does in a link it shares', () => {
    // The console's own link to two Route 53 Resolver metrics (a blog post quoting its address bar, 2020).
    const graph = {
      metrics: [
        ['AWS/Route53Resolver', 'InboundQueryVolume'],
        ['.', 'OutboundQueryVolume'],
      ],
      view: 'timeSeries',
      stacked: false,
      region: 'ap-southeast-2',
      stat: 'Sum',
      period: 86400,
      start: '-P28D',
      end: 'P0D',
    };

    expect(jsurl(graph)).toBe(
      "~(metrics~(~(~'AWS*2fRoute53Resolver~'InboundQueryVolume)~(~'.~'OutboundQueryVolume))~view~'timeSeries~stacked~false~region~'ap-southeast-2~stat~'Sum~period~86400~start~'-P28D~end~'P0D)",
    );
  });

  it('escapes every character that would end a value or the link, and reads back the same', () => {
    const graph = {
      title: "Webhook's p99 (MAX) ~ 2.5 s: 100% of $writes → stalled #1 & more",
      expression: 'MAX([m1, m2]) / m3',
      empty: [],
      nested: { yes: true, none: null, small: 0.05 },
    };

    const text = jsurl(graph);

    expect(text).not.toMatch(/[\s#&%"<>→]/);
    expect(parseJsurl(text)).toEqual(graph);
  });

  it('opens in the Region it names, and in the last one used when it names none', () => {
    expect(metricsGraphUrl('eu-west-1', { view: 'timeSeries' })).toBe(
      "https://eu-west-1.console.aws.amazon.com/cloudwatch/home?region=eu-west-1#metricsV2:graph=~(view~'timeSeries)",
    );
    expect(metricsGraphUrl(undefined, { view: 'timeSeries' })).toBe(
      "https://console.aws.amazon.com/cloudwatch/home#metricsV2:graph=~(view~'timeSeries)",
    );
  });
});
