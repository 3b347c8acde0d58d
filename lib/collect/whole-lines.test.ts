import { describe, expect, it } from 'vitest';
import { sendableLength, wholeLinesEnd } from './whole-lines.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
const user = (uuid: string) => JSON.stringify({ type: 'user', uuid, message: { role: 'user', content: 'hi' } });
const assistant = (uuid: string) => JSON.stringify({ type: 'assistant', uuid, message: { id: 'm1', content: [{ type: 'text', text: 'part' }] } });

describe('which new bytes go to the server', () => {
  it('sends whole lines only: a last line without its newline waits', () => {
    const text = `${user('u1')}\n${user('u2')}`;
    expect(wholeLinesEnd(bytes(text))).toBe(user('u1').length + 1);
    expect(sendableLength(bytes(text), false)).toBe(user('u1').length + 1);
    expect(sendableLength(bytes('{"type":"us'), true)).toBe(0);
  });

  it('counts bytes, not characters, with text that is not ASCII', () => {
    const line = JSON.stringify({ type: 'user', uuid: 'u1', message: { content: 'héllo 😀' } });
    expect(sendableLength(bytes(`${line}\n{"type"`), false)).toBe(Buffer.byteLength(line) + 1);
  });

  it('holds back an answer still being written (trailing assistant lines) until another line follows or the file settles', () => {
    const head = `${user('u1')}\n`;
    const text = `${head}${assistant('a1')}\n${assistant('a2')}\n`;
    expect(sendableLength(bytes(text), false)).toBe(Buffer.byteLength(head));
    expect(sendableLength(bytes(text), true)).toBe(Buffer.byteLength(text));
    const followed = `${text}${user('u2')}\n`;
    expect(sendableLength(bytes(followed), false)).toBe(Buffer.byteLength(followed));
    // nothing but an answer so far: nothing goes yet
    expect(sendableLength(bytes(`${assistant('a1')}\n`), false)).toBe(0);
  });

  it('sends a settled last line that is whole JSON though it has no newline', () => {
    const text = `${user('u1')}\n${user('u2')}`;
    expect(sendableLength(bytes(text), true)).toBe(Buffer.byteLength(text));
  });
});
