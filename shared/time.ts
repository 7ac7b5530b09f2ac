/** Times as every file and message of the project writes them: ISO-8601 UTC. */

/** ISO-8601 UTC to the second, as scenario files and notifications write times. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?Z$/;

/** An ISO-8601 UTC time that names a real instant: 2019-02-30 or 24:00 are refused, not rolled over. */
export function isIsoUtc(text: string): boolean {
  const match = ISO_UTC.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0));
  const time = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day, hour, minute, second));
  return (
    time.getUTCFullYear() === year &&
    time.getUTCMonth() + 1 === month &&
    time.getUTCDate() === day &&
    time.getUTCHours() === hour &&
    time.getUTCMinutes() === minute &&
    time.getUTCSeconds() === second
  );
}
