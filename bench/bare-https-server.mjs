// The bare Node HTTPS baseline for gets (`npm run bench`, gets measure): a server that answers every
// request with one fixed ConfigMap JSON body, with the API server's own serving certificate and the same
// client-certificate request, so gets/s reads as a share of what Node's TLS + HTTP stack alone achieves
// on this machine. Plain JavaScript, run as its own process (like the server), without tsx.
// Environment: BARE_HTTP (1.1 or 2; HTTP/2 also accepts HTTP/1.1, as the API server would), BARE_CERT,
// BARE_KEY, BARE_CA (PEM text), BARE_BODY (the reply). Prints "listening <port>" once ready.
import http2 from 'node:http2';
import https from 'node:https';

const body = Buffer.from(process.env.BARE_BODY ?? '{}');
const tls = { cert: process.env.BARE_CERT, key: process.env.BARE_KEY, ca: process.env.BARE_CA, requestCert: true, rejectUnauthorized: false };
const handler = (req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
};
const server = process.env.BARE_HTTP === '2' ? http2.createSecureServer({ ...tls, allowHTTP1: true }, handler) : https.createServer({ ...tls, keepAlive: true }, handler);
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
