// The CPU a running server (by pid) spends per request of one URL: 1000 warm-up requests, then `requests`
// (default 4000) over 16 connections (autocannon), its /proc/<pid>/stat user + system time before and after.
// Usage: [AUTH='Bearer …'] node bench/cpu-of-url.mjs <pid> <url> [requests]
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const [pid, url] = process.argv.slice(2);
const requests = Number(process.argv[4] ?? 4000);
const cpuMs = () => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
};
const headers = process.env.AUTH ? { authorization: process.env.AUTH } : {};
const load = (amount) =>
  new Promise((resolve, reject) =>
    autocannon({ url, connections: 16, amount, headers }, (error, result) =>
      error ? reject(error) : resolve(result),
    ),
  );
await load(1000);
const before = cpuMs();
const result = await load(requests);
const perRequest = (cpuMs() - before) / requests;
console.log(
  `${url}: ${perRequest.toFixed(3)} ms CPU per request, ${result.requests.average} req/s, non-2xx ${result.non2xx}`,
);
