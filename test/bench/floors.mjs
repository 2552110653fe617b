#!/usr/bin/env node
// The floors: bare node:http servers that bound what Node can do on this machine.
//   node test/bench/floors.mjs read BODY_FILE   answers every request with BODY_FILE's bytes
//   node test/bench/floors.mjs write LOG_FILE   parses the JSON body, appends one line to LOG_FILE
//                                              and fdatasyncs it before every reply (no batching)
//   node test/bench/floors.mjs write-nosync LOG_FILE   the same without the fdatasync: not durable,
//                                              it shows what the sync costs the floor (test/bench/ab.mjs)
//   node test/bench/floors.mjs pg-read BODY_FILE  one query per request against the PostgreSQL database
//                                              in WCM_BENCH_PG (the newest journal row, by its primary
//                                              key), then BODY_FILE's bytes: a page's round trip
// Both listen on a free port on 127.0.0.1 and print `listening PORT`.
import fs from 'node:fs';
import http from 'node:http';

const [mode, file] = process.argv.slice(2);
let handler;
if (mode === 'read') {
  const body = fs.readFileSync(file);
  const headers = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length };
  handler = (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, headers);
      res.end(body);
    });
  };
} else if (mode === 'write' || mode === 'write-nosync') {
  const sync = mode === 'write' ? fs.fdatasync : (fd, cb) => cb(null);
  const fd = fs.openSync(file, 'a');
  let n = 0;
  handler = (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let rec;
      try {
        rec = { id: ++n, ...JSON.parse(Buffer.concat(chunks).toString('utf8')) };
      } catch {
        res.writeHead(400).end();
        return;
      }
      const line = Buffer.from(JSON.stringify(rec) + '\n');
      fs.write(fd, line, 0, line.length, null, (err) => {
        if (err) return res.writeHead(500).end();
        sync(fd, (err2) => {
          if (err2) return res.writeHead(500).end();
          const out = JSON.stringify({ data: rec });
          res.writeHead(201, {
            'Content-Type': 'application/json; charset=utf-8',
            'Content-Length': Buffer.byteLength(out),
          });
          res.end(out);
        });
      });
    });
  };
} else if (mode === 'pg-read') {
  const { default: postgres } = await import('postgres');
  // The pool wcm serve opens (src/store/pg/open.ts), so both wait on the database alike.
  const sql = postgres(process.env.WCM_BENCH_PG, { max: 8, onnotice: () => {} });
  const body = fs.readFileSync(file);
  const headers = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length };
  handler = (req, res) => {
    req.resume();
    req.on('end', () => {
      sql`select seq::float8 as seq from wcm_journal order by seq desc limit 1`.then(
        () => res.writeHead(200, headers).end(body),
        () => res.writeHead(503).end(),
      );
    });
  };
} else {
  console.error('usage: floors.mjs read BODY_FILE | write LOG_FILE | write-nosync LOG_FILE | pg-read BODY_FILE');
  process.exit(2);
}
const server = http.createServer(handler);
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)) && server.closeAllConnections());
