/**
 * V8's allocation-site pretenuring off for the whole process, set before the commands' modules are
 * evaluated (main.ts imports this first).
 *
 * Pretenuring tracks the object and array literals each allocation site creates (a memento beside
 * each young object) and, when a site's objects survive a scavenge, allocates that site's later
 * objects straight into the old generation. Under a receiver's load that backfires: a request's
 * objects allocated old keep the young objects they point to alive through every scavenge until
 * the next full collection, so those are copied and promoted too. Measured on `serve --redis`
 * (30 000 deliveries, 32 connections, the same build with and without this line, three pairs):
 * each scavenge promoted 2.4 MB instead of 0.7 MB, and serve's CPU per delivery (all threads)
 * was 48–52 µs against 40–42 µs (15 500–16 700 against 17 700–18 300 deliveries/s). The journal
 * backend gains less: 0.97× the CPU, 1.03× the throughput. Turning it off changes no result, only
 * where V8 first puts an object.
 */
import v8 from 'node:v8';

v8.setFlagsFromString('--no-allocation-site-pretenuring');
