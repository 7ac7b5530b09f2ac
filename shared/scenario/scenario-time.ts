import { durationMs, isDuration } from '../engine/duration.ts';
import { isIsoUtc } from '../time.ts';

export function isScenarioTime(text: string): boolean {
  return isIsoUtc(text) || (text.startsWith('+') && isDuration(text.slice(1)));
}

/** An absolute ISO-8601 UTC time, or an offset from the scenario's start such as `+90s`, `+12m`, `+3h`, `+2d`. */
export function scenarioTimeMs(text: string, startMs: number): number {
  return text.startsWith('+') ? startMs + durationMs(text.slice(1)) : Date.parse(text);
}
