import { redactText } from '../lib/redact/redact.js';

/** redact_ms_1mb_pem: one megabyte of PEM private-key headers with no END (issue 27 item 1), median of 9. */
export async function benchRedact(): Promise<Record<string, number>> {
  const text = '-----BEGIN RSA PRIVATE KEY-----\n'.repeat(32768);
  const times: number[] = [];
  for (let run = 0; run < 9; run++) {
    const start = performance.now();
    const result = redactText(text);
    times.push(performance.now() - start);
    if (result.count !== 32768) throw new Error(`redact bench: ${result.count} findings, expected 32768`);
  }
  times.sort((a, b) => a - b);
  return { redact_ms_1mb_pem: Math.round(times[4]! * 10) / 10 };
}
