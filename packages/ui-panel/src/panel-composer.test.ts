import { describe, expect, it } from 'vitest';
import { clampPanelWidth, completionAt } from './panel-app.js';

describe('completionAt', () => {
  it('completes @mentions anywhere and slash commands only at the start', () => {
    expect(completionAt('hi @cl', 6)).toEqual({ kind: 'mention', query: 'cl', start: 3 });
    expect(completionAt('@', 1)).toEqual({ kind: 'mention', query: '', start: 0 });
    expect(completionAt('/sta', 4)).toEqual({ kind: 'command', query: 'sta', start: 0 });
    expect(completionAt('run /sta', 8)).toBeNull();
    expect(completionAt('/status now', 11)).toBeNull();
    expect(completionAt('mail@example', 12)).toBeNull();
    // The caret decides: text after it does not matter.
    expect(completionAt('@gp rest', 3)).toEqual({ kind: 'mention', query: 'gp', start: 0 });
  });
});

describe('clampPanelWidth', () => {
  it('keeps the width within 280–960 px and falls back on nonsense', () => {
    expect(clampPanelWidth(100)).toBe(280);
    expect(clampPanelWidth(5000)).toBe(960);
    expect(clampPanelWidth(512.4)).toBe(512);
    expect(clampPanelWidth(Number.NaN)).toBe(380);
  });
});
