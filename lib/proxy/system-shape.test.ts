import { describe, expect, it } from 'vitest';
import { parseRequest } from './request';
import { readSystemShape, restoreSystem, shapeOfSystem } from './system-shape';

// Claude Code's system prompt: blocks, one with cache_control, and a trailing role-system message.
const BLOCKS = [
  { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1' },
  { type: 'text', text: 'You are Claude Code.\n\nBe careful.', cache_control: { type: 'ephemeral' } },
  { type: 'text', text: '' },
  { type: 'text', text: 'Primary working directory: /w', cache_control: { type: 'ephemeral', ttl: '1h' } },
];

describe('a system prompt sent as blocks, kept by its shape', () => {
  it('gives back the very blocks from the text the recording joined (request.ts), a trailing system message after them or not', () => {
    const shape = readSystemShape(JSON.parse(JSON.stringify(shapeOfSystem(BLOCKS))))!;
    expect(shape.blocks[1]).toEqual({ type: 'text', cache_control: { type: 'ephemeral' } });
    const joined = parseRequest('anthropic', { system: BLOCKS, messages: [] }).system!;
    expect(restoreSystem(shape, joined)).toEqual(BLOCKS);
    const withTrailing = parseRequest('anthropic', { system: BLOCKS, messages: [{ role: 'system', content: 'reminder' }] }).system!;
    expect(restoreSystem(shape, withTrailing)).toEqual(BLOCKS);
  });

  it('is no shape for a plain string or odd blocks, and does not fit a text changed since (then the text goes as one string)', () => {
    expect(shapeOfSystem('plain')).toBeNull();
    expect(shapeOfSystem([{ type: 'text' }])).toBeNull();
    expect(readSystemShape({ blocks: [{}], lengths: [] })).toBeNull();
    const shape = shapeOfSystem(BLOCKS)!;
    expect(restoreSystem(shape, 'x-anthropic-billing-header: [REDACTED]')).toBeNull();
    expect(restoreSystem(shape, `${BLOCKS[0]!.text}\n\nYou are Claude Code.\n\nBe careful.Primary`)).toBeNull();
  });
});
