import { describe, expect, it } from 'vitest';
import { exportUrl } from './export-urls';

describe('exportUrl', () => {
  it('names the format, the session id escaped', () => {
    expect(exportUrl('a b', 'json')).toBe('/api/export/a%20b?format=json');
    expect(exportUrl('s', 'bundle')).toBe('/api/export/s?format=bundle');
  });

  it('adds the Markdown switches only where they differ from tool calls on, reasoning off', () => {
    expect(exportUrl('s', 'md')).toBe('/api/export/s?format=md');
    expect(exportUrl('s', 'md', { toolCalls: true, reasoning: false })).toBe('/api/export/s?format=md');
    expect(exportUrl('s', 'md', { toolCalls: false, reasoning: true })).toBe('/api/export/s?format=md&toolCalls=0&reasoning=1');
    expect(exportUrl('s', 'md', { toolCalls: true, reasoning: true })).toBe('/api/export/s?format=md&reasoning=1');
    // the switches are the Markdown's alone
    expect(exportUrl('s', 'json', { toolCalls: false, reasoning: true })).toBe('/api/export/s?format=json');
  });
});
