/**
 * CloudWatch console deep links to a metrics graph. The console reads the graph from the URL fragment
 * `#metricsV2:graph=...` as a metric widget's JSON (its fields are those of "Metric Widget Structure and Syntax":
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/CloudWatch-Metric-Widget-Structure.html, with
 * `accountId` and `region` per metric as in a dashboard body:
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/CloudWatch-Dashboard-Body-Structure.html), written
 * in JSURL, the URL-safe JSON the console itself puts in its address bar when you share a graph. For example the
 * console's own link to two Route 53 Resolver metrics ends in
 * `#metricsV2:graph=~(metrics~(~(~'AWS*2fRoute53Resolver~'InboundQueryVolume)~(~'.~'OutboundQueryVolume))~view~'timeSeries~stacked~false~region~'ap-southeast-2~stat~'Sum~period~86400~start~'-P28D~end~'P0D)`
 * (test/notify/console-url.test.ts checks the encoding against it).
 */

/** A JSON value as the console's graph takes it. */
export type JsurlValue =
  | string
  | number
  | boolean
  | null
  | readonly JsurlValue[]
  | { readonly [key: string]: JsurlValue | undefined };

/**
 * JSURL: `~` before every value, strings after `'`, objects and arrays in parentheses. In strings and keys, letters,
 * digits, `_`, `-` and `.` stay as they are, `$` becomes `!`, and any other character becomes `*` and two hex digits
 * (`**` and four above U+00FF).
 */
export function jsurl(value: JsurlValue): string {
  if (value === null) return '~null';
  if (typeof value === 'number') return Number.isFinite(value) ? `~${value}` : '~null';
  if (typeof value === 'boolean') return `~${value}`;
  if (typeof value === 'string') return `~'${jsurlText(value)}`;
  if (isArray(value)) return `~(${value.map(jsurl).join('') || '~'})`;
  const entries = Object.entries(value).flatMap(([key, item]) =>
    item === undefined ? [] : [`${jsurlText(key)}${jsurl(item)}`],
  );
  return `~(${entries.join('~')})`;
}

function isArray(value: JsurlValue): value is readonly JsurlValue[] {
  return Array.isArray(value);
}

function jsurlText(text: string): string {
  return text.replace(/[^\w.-]/g, (character) => {
    if (character === '$') return '!';
    const code = character.charCodeAt(0);
    return code < 0x100 ? `*${code.toString(16).padStart(2, '0')}` : `**${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * The console address that opens `graph` in the metrics explorer, in `region` (the Region whose console shows it; a
 * metric of another Region names its own). Without a Region the console opens in the one the user last used.
 */
export function metricsGraphUrl(
  region: string | undefined,
  graph: { readonly [key: string]: JsurlValue | undefined },
): string {
  const home = region
    ? `https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}`
    : 'https://console.aws.amazon.com/cloudwatch/home';
  return `${home}#metricsV2:graph=${jsurl(graph)}`;
}
