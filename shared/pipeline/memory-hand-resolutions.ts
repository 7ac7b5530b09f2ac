import type { HandResolution } from '../engine/hand-resolution.ts';
import type { HandResolutionStore } from './ports.ts';

/** Hand resolutions in memory: for replay and tests. */
export class MemoryHandResolutions implements HandResolutionStore {
  private readonly resolutions = new Map<string, HandResolution>();

  async all(): Promise<HandResolution[]> {
    return [...this.resolutions.values()];
  }

  async record(resolution: HandResolution): Promise<HandResolution> {
    const kept = this.resolutions.get(resolution.group) ?? resolution;
    this.resolutions.set(resolution.group, kept);
    return kept;
  }
}
