/**
 * The machine line every benchmark report opens with: the L3 size is part of it when the run
 * could read it, and results written before it was read still render.
 */
import { describe, expect, it } from 'vitest';
import { describeMachine } from '../bench/lib/format.js';
import { cacheMiB } from '../bench/lib/machine.js';

describe('the machine a report names', () => {
  const machine = { cpu: 'Intel(R) Xeon(R) Processor', cores: 2, memoryGiB: 24, platform: 'linux 6.18.44' };

  it('names the L3 size when the run read it, and leaves it out when not', () => {
    expect(describeMachine({ ...machine, l3MiB: 480 })).toBe('Intel(R) Xeon(R) Processor, 2 cores, 24 GiB, L3 480 MiB, linux 6.18.44');
    expect(describeMachine(machine)).toBe('Intel(R) Xeon(R) Processor, 2 cores, 24 GiB, linux 6.18.44');
  });

  it('reads a cache size as Linux writes it, in MiB', () => {
    expect(cacheMiB('491520K\n')).toBe(480);
    expect(cacheMiB('32M')).toBe(32);
    expect(cacheMiB('1G')).toBe(1024);
    expect(cacheMiB('512K')).toBe(0.5);
    for (const bad of ['', 'unknown', '32 MB', '-4K']) expect(cacheMiB(bad)).toBeUndefined();
  });
});
