import { durationMs, isDuration } from '../engine/duration.ts';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z$/;

export function isIsoUtc(text: string): boolean {
  return ISO_UTC.test(text) && Number.isFinite(Date.parse(text));
}

export function isScenarioTime(text: string): boolean {
  return isIsoUtc(text) || (text.startsWith('+') && isDuration(text.slice(1)));
}

/** An absolute ISO-8601 UTC time, or an offset from the scenario's start such as `+90s`, `+12m`, `+3h`, `+2d`. */
export function scenarioTimeMs(text: string, startMs: number): number {
  return text.startsWith('+') ? startMs + durationMs(text.slice(1)) : Date.parse(text);
}
