import type { SilenceStore } from './ports.ts';
import { expiredSilence, extendedSilence, type Silence, SilenceError } from './silence.ts';

/** Silences in memory: for replay, a dry-run poll and tests. */
export class MemorySilences implements SilenceStore {
  private readonly silences = new Map<string, Silence>();

  async add(silence: Silence): Promise<void> {
    if (this.silences.has(silence.id)) throw new SilenceError(`a silence with id ${silence.id} already exists`);
    this.silences.set(silence.id, silence);
  }

  async endingAfter(at: number): Promise<Silence[]> {
    return [...this.silences.values()].filter((s) => s.to > at);
  }

  async expire(id: string, at: number, by: string): Promise<Silence | undefined> {
    const silence = this.silences.get(id);
    if (!silence || silence.to <= at) return undefined;
    const expired = expiredSilence(silence, at, by);
    this.silences.set(id, expired);
    return expired;
  }

  async extend(id: string, duration: string, at: number, by: string): Promise<Silence | undefined> {
    const silence = this.silences.get(id);
    if (!silence || silence.to <= at) return undefined;
    const extended = extendedSilence(silence, duration, at, by);
    this.silences.set(id, extended);
    return extended;
  }
}
