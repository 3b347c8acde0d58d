import { describe, expect, it } from 'vitest';
import { parseControlMessage } from './control-channel.js';

describe('parseControlMessage', () => {
  it('reads the shared shape and keeps only known fields of the right type', () => {
    expect(parseControlMessage('{"kind":"moved","userId":"0123456789abcdef","epoch":3}')).toEqual({ kind: 'moved', userId: '0123456789abcdef', epoch: 3 });
    expect(parseControlMessage('{"kind":"password","userId":"u","sessionVersion":4,"extra":1}')).toEqual({ kind: 'password', userId: 'u', sessionVersion: 4 });
    expect(parseControlMessage('{"kind":"disabled","userId":5,"epoch":"3"}')).toEqual({ kind: 'disabled' });
  });

  it('ignores what is not a control message', () => {
    expect(parseControlMessage(undefined)).toBeNull();
    expect(parseControlMessage('not json')).toBeNull();
    expect(parseControlMessage('{"userId":"u"}')).toBeNull();
    expect(parseControlMessage('[]')).toBeNull();
  });
});
