import { fitMessage, type MessageBodies, type RenderedMessage, SUBJECT_LIMIT } from '../notify/fit-message.ts';
import { asciiLine } from '../notify/message-bodies.ts';
import { formatEvidence, formatNumber } from '../notify/notification-text.ts';
import { POLL_RECORD_LIST_MAX } from '../pipeline/poll-record.ts';
import { formatMinutes } from '../time.ts';
import type {
  ClusterWeek,
  Digest,
  DigestIncident,
  DigestList,
  DigestSilence,
  LatentRisk,
  WeekFigures,
} from './digest.ts';
import { row, wrap } from './text-layout.ts';
import { type CivilDate, formatLocal, weekdayOf } from './zoned-time.ts';

const INDENT = '  ';
const DETAIL = '     ';

const LIST_NOUNS: Record<DigestList, string> = {
  clusters: 'clusters',
  incidents: 'incidents',
  noise: 'rules',
  nearMisses: 'near misses',
  latentRisks: 'latent risks',
  retried: 'retried notifications',
};

const plural = (count: number, noun: string) => `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;
const count = (value: number) => value.toLocaleString('en-US');

/** "3 pages, 1 open incident": what the week was, in a few words, for the subject and the first line. */
function headlineText(digest: Pick<Digest, 'headline' | 'pipeline'>): string {
  const { headline } = digest;
  const ran = digest.pipeline.polls > 0;
  // A blind or stopped pipeline also sends no page: its week must never read as a quiet one.
  if (ran && digest.pipeline.degraded)
    return `PIPELINE DEGRADED (${digest.pipeline.degraded}), ${plural(headline.pages, 'page')}`;
  if (headline.quiet) return ran ? 'quiet week, no pages' : 'NO POLLS RECORDED, check the poller';
  const parts = [plural(headline.pages, 'page')];
  if (headline.tickets > 0) parts.push(plural(headline.tickets, 'ticket'));
  if (headline.openIncidents > 0) parts.push(plural(headline.openIncidents, 'open incident'));
  else
    parts.push(
      headline.incidents === 1 ? 'the incident resolved' : `all ${count(headline.incidents)} incidents resolved`,
    );
  if (!ran) parts.push('but NO POLLS RECORDED');
  return parts.join(', ');
}

function sourceName(digest: Digest): string {
  return digest.source.kind === 'deployment' ? digest.source.name : `replay of ${digest.source.scenario}`;
}

function digestSubject(digest: Digest): string {
  return asciiLine(
    `Sentinel digest ${digest.week.label}: ${headlineText(digest)} (${sourceName(digest)})`,
    SUBJECT_LIMIT,
  );
}

/** The plain-text email: at most 100 columns a line, sections in the order a platform lead reads them. */
function digestEmail(digest: Digest): string {
  const { week } = digest;
  const lines = [
    ...wrap(`K8s Incident Sentinel, weekly digest ${week.label}: ${sourceName(digest)}`),
    ...wrap(
      `${weekdayOf(parseDay(week.firstDay))} ${week.firstDay} to ${weekdayOf(parseDay(week.lastDay))} ${week.lastDay}; all times are ${week.timeZone}.`,
    ),
    '',
  ];
  if (digest.source.kind === 'replay') {
    lines.push(
      ...wrap(
        `Preview from a replay of ${digest.source.file}: nothing was sent. The replay reads no CloudWatch metrics and its polls take no time, so metrics requested, GB-seconds and their cost are zero here; a deployed digest shows real figures.`,
      ),
      '',
    );
  }
  if (digest.omitted) lines.push(...omittedNote(digest), '');
  const before = digest.headline.previousWeekRecorded
    ? `The week before (${digest.previousWeek}) had ${describeFigures(digest.total.previousWeek)}.`
    : `Nothing was recorded the week before (${digest.previousWeek}), so there is nothing to compare with.`;
  if (digest.headline.quiet && !digest.pipeline.degraded) {
    // A quiet week still says so, and whether the pipeline ran: silence must never look like a quiet week.
    const ran =
      digest.pipeline.polls > 0
        ? `and the pipeline ran (${plural(digest.pipeline.polls, 'poll')})`
        : 'but NO POLL WAS RECORDED: the pipeline did not watch the clusters';
    lines.push(...wrap(`A quiet week: no page, no ticket, no incident, ${ran}. ${before}`));
  } else {
    lines.push(...wrap(`${capitalised(headlineText(digest))}.`));
    lines.push(...section('The week at a glance', glance(digest)));
    lines.push(...section('Incidents, open ones first', incidents(digest)));
    lines.push(...section('Noise: rules that most need tuning first', noise(digest)));
  }
  if (digest.silences.length > 0) lines.push(...section('Silences and what they held back', silences(digest)));
  lines.push(...section('Near misses and latent risks', risks(digest)));
  lines.push(...section('Pipeline health', pipeline(digest)));
  lines.push(...section('Estimated cost of the week', cost(digest)));
  return lines.join('\n');
}

function parseDay(day: string): CivilDate {
  const [year, month, date] = day.split('-').map(Number);
  return { year: year ?? 0, month: month ?? 0, day: date ?? 0 };
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function describeFigures(figures: WeekFigures): string {
  return `${plural(figures.pages, 'page')}, ${plural(figures.tickets, 'ticket')} and ${plural(figures.incidents, 'incident')}`;
}

function section(title: string, body: readonly string[]): string[] {
  return ['', title.toUpperCase(), '-'.repeat(title.length), ...body];
}

function cut(digest: Digest, list: DigestList): string[] {
  const left = digest.omitted?.[list] ?? 0;
  return left > 0
    ? wrap(`... ${count(left)} more ${LIST_NOUNS[list]} not listed, to fit one SNS message.`, INDENT)
    : [];
}

function omittedNote(digest: Digest): string[] {
  const what = Object.entries(digest.omitted ?? {})
    .filter(([, left]) => (left ?? 0) > 0)
    .map(([list, left]) => `${count(left ?? 0)} ${LIST_NOUNS[list as DigestList]}`);
  const command =
    digest.source.kind === 'deployment'
      ? `sentinel digest --config CONFIG --week ${digest.week.label} --table TABLE --json`
      : `sentinel digest --from-replay ${digest.source.file} --week ${digest.week.label} --json`;
  return wrap(
    `This digest was shortened to fit one SNS message (256 KiB): ${what.join(', ')} are not listed. \`${command}\` prints all of it.`,
  );
}

function glance(digest: Digest): string[] {
  const name = Math.min(40, Math.max(12, ...digest.clusters.map((c) => c.cluster.length)));
  const widths = [name, 14, 14, 14];
  const recorded = digest.headline.previousWeekRecorded;
  const cell = (now: number, before: number) => `${count(now)} (${recorded ? count(before) : '-'})`;
  const line = (label: string, week: Pick<ClusterWeek, 'thisWeek' | 'previousWeek'>) => {
    const numbers = [
      cell(week.thisWeek.pages, week.previousWeek.pages),
      cell(week.thisWeek.tickets, week.previousWeek.tickets),
      cell(week.thisWeek.incidents, week.previousWeek.incidents),
    ];
    // A name too long for its column gets a line of its own, so that the numbers stay aligned.
    return label.length > name
      ? [...wrap(label, INDENT), INDENT + row(['', ...numbers], widths)]
      : [INDENT + row([label, ...numbers], widths)];
  };
  return [
    ...wrap(
      `This week, with ${digest.previousWeek} in brackets${recorded ? '' : ' (nothing recorded then: -)'}. A page that names several clusters counts once in the total.`,
      INDENT,
    ),
    '',
    INDENT + row(['cluster', 'pages', 'tickets', 'incidents'], widths),
    ...digest.clusters.flatMap((c) => line(c.cluster, c)),
    ...cut(digest, 'clusters'),
    ...line('total', digest.total),
  ];
}

function incidents(digest: Digest): string[] {
  if (digest.incidents.length === 0) return wrap('No incident this week.', INDENT);
  return [
    ...digest.incidents.flatMap((incident, index) => incidentLines(incident, index + 1, digest)),
    ...cut(digest, 'incidents'),
  ];
}

function incidentLines(incident: DigestIncident, number: number, digest: Digest): string[] {
  const zone = digest.week.timeZone;
  const opened = `Opened ${formatLocal(Date.parse(incident.openedAt), zone)}${incident.openedBeforeWeek ? ' (before this week)' : ''}`;
  const lasted =
    incident.status === 'open'
      ? `still open at the end of the week, after ${formatMinutes(incident.openForMs)}`
      : `resolved after ${formatMinutes(incident.openForMs)}`;
  const extra = [`${plural(incident.notifications, 'notification')} this week`];
  if (incident.flaps > 0) extra.push(`flapped ${plural(incident.flaps, 'time')} since it opened`);
  return [
    ...wrap(
      `${incident.status.toUpperCase()} ${incident.severity}: ${incident.title}`,
      `${String(number).padStart(3)}. `,
      DETAIL,
    ),
    ...wrap(`Root cause ${incident.rule} on ${incident.clusters.join(', ')}`, DETAIL),
    ...(incident.symptoms.length > 0 ? wrap(`Symptoms: ${incident.symptoms.join(', ')}`, DETAIL) : []),
    ...wrap(`${opened}, ${lasted}; ${extra.join(', ')}.`, DETAIL),
  ];
}

function silences(digest: Digest): string[] {
  return digest.silences.flatMap((silence) => silenceLines(silence, digest.week.timeZone));
}

/** What a silence covers: its matchers, or the cluster and rule of one stored before matchers. */
function silenceScopeLine(silence: DigestSilence): string {
  const scope = silence.matchers
    ? silence.matchers.join(', ')
    : `${silence.cluster ?? 'every cluster'}, ${silence.rule ?? 'every rule'}`;
  return silence.includePages ? `${scope}, pages included` : scope;
}

function silenceLines(silence: DigestSilence, zone: string): string[] {
  const local = (iso: string) => formatLocal(Date.parse(iso), zone);
  const ended = silence.expired
    ? `expired early ${local(silence.expired.at)} by ${silence.expired.by}`
    : `until ${local(silence.to)}`;
  const held = silence.heldBack.map(
    (h) => `${h.severity} ${h.rule} on ${h.cluster}${h.shownAt ? ` (shown ${local(h.shownAt)})` : ' (never shown)'}`,
  );
  return [
    ...wrap(`${silence.id}: ${silenceScopeLine(silence)}: "${silence.reason}"`, INDENT, DETAIL),
    ...wrap(`Added by ${silence.author}; from ${local(silence.from)}, ${ended}.`, DETAIL),
    ...wrap(held.length > 0 ? `Held back: ${held.join('; ')}.` : 'Held back nothing.', DETAIL),
  ];
}

function fired(count: number): string {
  return count === 1 ? 'once' : `${count} times`;
}

function noise(digest: Digest): string[] {
  const minutes = digest.settings.shortLivedMinutes;
  if (digest.noise.length === 0) return wrap('No rule fired this week.', INDENT);
  const noisy = digest.noise.filter((rule) => rule.advice.length > 0);
  const calm = digest.noise.filter((rule) => rule.advice.length === 0);
  const lines = noisy.flatMap((rule) => [
    ...wrap(
      `${rule.rule}: fired ${fired(rule.fired)} (${rule.asRoot} as root cause); ${plural(rule.flaps, 'flap')} and ${plural(rule.reminders, 're-notification')} over its incidents' lives, ${rule.shortLived} resolved within ${minutes} min`,
      INDENT,
      DETAIL,
    ),
    ...rule.advice.flatMap((advice) => wrap(advice, `${DETAIL}- `, `${DETAIL}  `)),
  ]);
  if (noisy.length === 0) {
    lines.push(...wrap(`No rule flapped, re-notified or resolved within ${minutes} min.`, INDENT));
  }
  if (calm.length > 0) {
    const list = calm.map((rule) => `${rule.rule} (fired ${fired(rule.fired)})`).join(', ');
    lines.push(...wrap(`Fired without noise, nothing to change: ${list}.`, INDENT, DETAIL));
  }
  return [...lines, ...cut(digest, 'noise')];
}

function latentRiskLines(risk: LatentRisk, digest: Digest): string[] {
  const zone = digest.week.timeZone;
  const state = risk.stillOpen ? 'still open' : 'since resolved';
  const lines = wrap(
    `Latent risk: ${risk.rule} on ${risk.clusters.join(', ')}, a ticket open for ${formatMinutes(risk.openForMs)} since ${formatLocal(Date.parse(risk.openedAt), zone)} (${state}).`,
    INDENT,
    DETAIL,
  );
  if (risk.precursorOf.length > 0) {
    const warning = `It is the warning sign of ${risk.precursorOf.join(', ')}`;
    lines.push(
      ...wrap(
        risk.pagedThisWeek.length > 0
          ? `${warning}, and ${risk.pagedThisWeek.join(', ')} paged this week.`
          : `${warning}: fix it before it pages.`,
        DETAIL,
      ),
    );
  }
  if (risk.fix) lines.push(...wrap(`Fix: ${risk.fix}`, DETAIL));
  if (risk.runbook) lines.push(...wrap(`Runbook: ${risk.runbook}`, DETAIL));
  return lines;
}

function risks(digest: Digest): string[] {
  const margin = `${formatNumber(digest.settings.nearMissMargin * 100)}%`;
  const lines = [...digest.latentRisks.flatMap((risk) => latentRiskLines(risk, digest)), ...cut(digest, 'latentRisks')];
  const unrecorded = digest.nearMissesNotRecorded
    ? wrap(
        `Near misses not recorded: ${digest.nearMissesNotRecorded.toLocaleString('en-US')}. Each poll records the ${POLL_RECORD_LIST_MAX} closest to firing, so more clusters sat under a threshold than are listed here.`,
        INDENT,
      )
    : [];
  if (digest.nearMisses.length === 0) {
    lines.push(...wrap(`No rule came within ${margin} of a threshold without firing.`, INDENT), ...unrecorded);
    return lines;
  }
  lines.push(...wrap(`Rules that came within ${margin} of a threshold without firing, closest first:`, INDENT));
  for (const miss of digest.nearMisses) {
    const distance = `${formatNumber(Math.round(miss.closestDistance * 1000) / 10)}%`;
    lines.push(
      ...wrap(
        `${miss.rule} on ${miss.cluster}: ${plural(miss.polls, 'poll')}, closest ${distance} from firing, last at ${formatLocal(Date.parse(miss.lastAt), digest.week.timeZone)}`,
        INDENT,
        DETAIL,
      ),
      ...wrap(formatEvidence(miss.closest), DETAIL),
    );
  }
  lines.push(...cut(digest, 'nearMisses'), ...unrecorded);
  return lines;
}

function pipeline(digest: Digest): string[] {
  const health = digest.pipeline;
  const zone = digest.week.timeZone;
  if (health.polls === 0) {
    return wrap(
      'No poll was recorded this week: the pipeline did not run, or could not write to its table. Check the poll schedule, the poller dead-letter queue and the poller logs.',
      INDENT,
    );
  }
  const expected = digest.source.kind === 'deployment' ? ` of ${count(health.expectedPolls)} expected` : '';
  const lines = [
    ...wrap(
      `Polls: ${count(health.polls)} run${expected}, ${count(health.evaluated)} evaluated their minute, ${count(health.failed)} failed, ${count(health.late)} late (started more than ${digest.settings.lateAfterSeconds} s after schedule${health.late > 0 ? `, worst ${formatMinutes(health.maxLateMs)}` : ''}).`,
      INDENT,
    ),
  ];
  if (health.outOfTime) {
    lines.push(
      ...wrap(
        `${plural(health.outOfTime, 'poll')} ran out of time saving a step's incidents and left the rest to the next poll, which saved them first: a fleet outage's writes, paced to DynamoDB's partition line (docs/resilience.md).`,
        INDENT,
      ),
    );
  }
  if (health.firstPollAt && health.lastPollAt) {
    const gap = health.longestGap
      ? `; longest gap ${formatMinutes(health.longestGap.ms)}, from ${formatLocal(Date.parse(health.longestGap.from), zone)} to ${formatLocal(Date.parse(health.longestGap.to), zone)}`
      : '; no gap between polls';
    lines.push(
      ...wrap(
        `First poll ${formatLocal(Date.parse(health.firstPollAt), zone)}, last ${formatLocal(Date.parse(health.lastPollAt), zone)}${gap}.`,
        INDENT,
      ),
    );
  }
  lines.push(
    ...wrap(
      `Cluster reads: ${count(health.clusterReads)}, of which ${count(health.unreadableClusters)} failed. Metrics requested from CloudWatch: ${count(health.metricsRequested)}.`,
      INDENT,
    ),
    ...wrap(
      `Notifications: ${count(health.notificationsSent)} sent, ${count(health.notificationsPending)} not delivered, ${count(health.retried.length)} needed retries.`,
      INDENT,
    ),
  );
  for (const retried of health.retried) {
    const outcome = retried.delivered ? 'delivered' : 'NOT delivered';
    const error = retried.lastError ? `; last error: ${retried.lastError}` : '';
    lines.push(
      ...wrap(
        `- ${formatLocal(Date.parse(retried.at), zone)} ${retried.kind}: ${retried.title}: ${plural(retried.attempts, 'attempt')}, ${outcome}${error}`,
        DETAIL,
        `${DETAIL}  `,
      ),
    );
  }
  lines.push(...cut(digest, 'retried'));
  return lines;
}

function usd(value: number): string {
  return value > 0 && value < 0.005 ? 'under $0.01' : `$${value.toFixed(2)}`;
}

function cost(digest: Digest): string[] {
  const { cost } = digest;
  const { model } = cost;
  return [
    ...wrap(
      `CloudWatch GetMetricData: ${usd(cost.cloudWatchUsd)} for ${count(cost.metricsRequested)} metrics at $${model.cloudWatchUsdPer1000Metrics} per 1,000.`,
      INDENT,
      DETAIL,
    ),
    ...wrap(
      `Lambda poller (${model.pollerMemoryMb} MB, arm64): ${usd(cost.lambdaUsd)} for ${formatNumber(cost.lambdaGbSeconds)} GB-s at $${model.lambdaUsdPerGbSecond} per GB-s and ${count(cost.lambdaRequests)} requests at $${model.lambdaUsdPerMillionRequests.toFixed(2)} per million.`,
      INDENT,
      DETAIL,
    ),
    ...(cost.alarmMetrics > 0
      ? wrap(
          `Tripwire alarms: ${usd(cost.alarmUsd)} for ${count(cost.alarmMetrics)} alarm metrics over the week at $${model.cloudWatchUsdPerAlarmMetricMonth.toFixed(2)} per alarm metric-month.`,
          INDENT,
          DETAIL,
        )
      : []),
    ...wrap(
      `Total of the poller's reads and runs and the tripwire alarms: ${usd(cost.totalUsd)}, before the free tier, from the durations the polls measured (start-up time not included). The pipeline's own alarms, DynamoDB, SNS, logs and the dashboard are not in it: docs/benchmarks.md prices a whole cluster-month.`,
      INDENT,
      DETAIL,
    ),
  ];
}

/** AWS Chatbot custom-notification JSON: a summary for a chat channel; the email has the rest. */
function chatbotOf(digest: Digest): object {
  const headline = headlineText(digest);
  const open = digest.incidents.filter((i) => i.status === 'open').slice(0, 5);
  const noisy = digest.noise.filter((n) => n.advice.length > 0).slice(0, 3);
  const { thisWeek, previousWeek } = digest.total;
  return {
    version: '1.0',
    source: 'custom',
    id: `digest/${digest.week.label}`,
    content: {
      textType: 'client-markdown',
      title: `Weekly digest ${digest.week.label}: ${headline}`,
      description: [
        `*This week:* ${describeFigures(thisWeek)}; the week before: ${describeFigures(previousWeek)}.`,
        ...open.map((i) => `*Open:* ${i.rule} on ${i.clusters.join(', ')} since ${i.openedAt}`),
        ...noisy.map((n) => `*Noisy:* ${n.rule}: ${n.advice[0]}`),
        ...digest.latentRisks.slice(0, 3).map((r) => `*Latent risk:* ${r.rule} on ${r.clusters.join(', ')}`),
        `*Pipeline:* ${count(digest.pipeline.polls)} polls, ${count(digest.pipeline.failed)} failed, ${count(digest.pipeline.late)} late; estimated cost ${usd(digest.cost.totalUsd)}.`,
      ].join('\n'),
      keywords: ['digest', digest.week.label],
    },
    metadata: {
      threadId: `digest/${digest.week.label}`,
      summary: asciiLine(`Weekly digest ${digest.week.label}: ${headline}`, 200),
      eventType: 'digest',
      additionalContext: { week: digest.week.label, from: digest.week.from, to: digest.week.to },
    },
  };
}

function bodiesOf(digest: Digest): MessageBodies {
  const email = digestEmail(digest);
  const json = JSON.stringify(digest);
  return {
    default: email,
    email,
    sms: asciiLine(`Sentinel digest ${digest.week.label}: ${headlineText(digest)}`, 140),
    https: JSON.stringify(chatbotOf(digest)),
    sqs: json,
    lambda: json,
  };
}

/** The digest with every list cut to at most `keep` entries, saying how many each lost. */
function shortened(digest: Digest, keep: number): Digest {
  const omitted: Partial<Record<DigestList, number>> = {};
  const take = <T>(list: readonly T[], name: DigestList): readonly T[] => {
    if (list.length > keep) omitted[name] = list.length - keep;
    return list.slice(0, keep);
  };
  const cutDigest: Digest = {
    ...digest,
    clusters: take(digest.clusters, 'clusters'),
    incidents: take(digest.incidents, 'incidents'),
    noise: take(digest.noise, 'noise'),
    nearMisses: take(digest.nearMisses, 'nearMisses'),
    latentRisks: take(digest.latentRisks, 'latentRisks'),
    pipeline: { ...digest.pipeline, retried: take(digest.pipeline.retried, 'retried') },
  };
  return Object.keys(omitted).length > 0 ? { ...cutDigest, omitted } : digest;
}

/**
 * Subject, one body per protocol (the email text by default, the digest as JSON for SQS and Lambda, a Chatbot summary
 * for HTTPS) and the attributes subscribers filter on (`kind: digest`, `week`), within SNS's limit as SNS measures it
 * (fit-message.ts). A week too large for one message keeps the first entries of each list (the most important come
 * first) and says in the text and the JSON how many it left out.
 */
export function renderDigest(digest: Digest, limitBytes?: number): RenderedMessage {
  const subject = digestSubject(digest);
  const attributes = {
    kind: { DataType: 'String', StringValue: 'digest' },
    week: { DataType: 'String', StringValue: digest.week.label },
  } as const;
  const render = (keep: number): RenderedMessage => {
    const kept = shortened(digest, keep);
    const left = Object.entries(kept.omitted ?? {}).map(([list, n]) => `${n} ${LIST_NOUNS[list as DigestList]}`);
    return {
      subject,
      bodies: bodiesOf(kept),
      attributes,
      ...(left.length > 0 && { truncated: `shortened to fit 256 KiB: ${left.join(', ')} not listed` }),
    };
  };
  const longest = Math.max(
    digest.clusters.length,
    digest.incidents.length,
    digest.noise.length,
    digest.nearMisses.length,
    digest.latentRisks.length,
    digest.pipeline.retried.length,
  );
  const fitted = fitMessage(render, { least: 0, most: longest }, limitBytes);
  if (!fitted) throw new Error(`the digest of ${digest.week.label} does not fit even without its lists`);
  return fitted;
}
