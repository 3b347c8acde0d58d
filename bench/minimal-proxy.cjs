/**
 * The floor for the proxy figures (bench/proxy-bench.ts): the smallest pass-through a Node
 * process can be (read the body, one keep-alive request upstream, each chunk written on), with
 * nothing recorded. Its added time is what one more process hop costs on this machine; the
 * recording proxy's figures are read against it. Usage: node minimal-proxy.cjs <port> <upstream root>
 */
'use strict';
const http = require('node:http');

const [port, upstream] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers = { ...req.headers, 'content-length': String(body.length) };
      delete headers.host;
      const forwarded = http.request(`${upstream}${req.url}`, { method: req.method, headers, agent }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        answer.on('data', (chunk) => res.write(chunk));
        answer.on('end', () => res.end());
      });
      forwarded.setNoDelay(true);
      forwarded.on('error', () => res.destroy());
      forwarded.end(body);
    });
  })
  .listen(Number(port), '127.0.0.1', () => process.stdout.write('minimal proxy ready\n'));
