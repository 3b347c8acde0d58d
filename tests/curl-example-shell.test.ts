import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { curlExample } from '../components/settings/curl-example';

// Beside components/settings/curl-example.test.ts: this one needs a real shell, which the components layer may not import.
describe('curlExample in a real shell', () => {
  it('quotes what it fills in, so a stray quote cannot end the shell string', () => {
    const text = curlExample({ origin: "http://x'; touch /tmp/pwned; '", token: "a'b" });
    // The two assignments, run by a real shell, give back exactly the values.
    const script = `${text.split('\n').filter((line) => /^(TOKEN|BASE)=/.test(line)).join('\n')}\nprintf '%s\\n%s' "$TOKEN" "$BASE"`;
    expect(execFileSync('sh', ['-c', script], { encoding: 'utf8' })).toBe("a'b\nhttp://x'; touch /tmp/pwned; '");
  });
});
