/**
 * The loopback Anthropic upstream the proxy benches (fairness, proxy abuse) send their attacks to,
 * in a process of its own so its writes do not delay the measuring client.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** Answers by `model`: `big` an SSE stream of `bytes` of text deltas, `hold` nothing until the client goes, else a short answer. Listens on a free port and prints it. */
const UPSTREAM = `
const http = require('node:http');
const bigBytes = Number(process.argv[1]);
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let model = '';
    try { model = JSON.parse(Buffer.concat(chunks).toString()).model; } catch {}
    if (model === 'hold') { res.writeHead(200, { 'content-type': 'text/event-stream' }); res.flushHeaders(); return; }
    if (model === 'big') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message_start\\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"big","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}\\n\\n');
      res.write('event: content_block_start\\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\\n\\n');
      const delta = 'event: content_block_delta\\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"' + 'x'.repeat(64 * 1024) + '"}}\\n\\n';
      let sent = 0;
      const pump = () => {
        while (sent < bigBytes) {
          sent += delta.length;
          if (!res.write(delta)) return void res.once('drain', pump);
        }
        res.end('event: content_block_stop\\ndata: {"type":"content_block_stop","index":0}\\n\\nevent: message_stop\\ndata: {"type":"message_stop"}\\n\\n');
      };
      res.on('close', () => (sent = bigBytes + 1));
      return pump();
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'm', type: 'message', role: 'assistant', model, content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } }));
  });
});
server.listen(0, '127.0.0.1', () => console.log('upstream ready ' + server.address().port));
`;

export async function startLoopbackUpstream(bigBytes: number): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['-e', UPSTREAM, String(bigBytes)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bench upstream exited (${code})`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /upstream ready (\d+)/.exec(chunk.toString());
      if (match) resolve(Number(match[1]));
    });
  });
  return { child, port };
}
