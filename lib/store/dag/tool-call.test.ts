import { describe, expect, it } from 'vitest';
import { toolCallFailed } from './tool-call.js';

describe('a failed tool call, whichever way in', () => {
  it('reads the proxy\'s and the importers\' is_error, the older imports\' isError and the chat\'s refused', () => {
    expect(toolCallFailed({ tool_call_id: 'a', is_error: true })).toBe(true);
    expect(toolCallFailed({ tool_call_id: 'a', isError: true })).toBe(true);
    expect(toolCallFailed({ tool_call_id: 'a', refused: true })).toBe(true);
    expect(toolCallFailed({ tool_call_id: 'a' })).toBe(false);
    expect(toolCallFailed({ is_error: 'yes' })).toBe(false);
  });
});
