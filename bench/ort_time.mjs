// onnxruntime's side of bench/vs_onnxruntime.sh: session creation time and per-run
// latency of one model on the CPU execution provider, in this process only (onnxruntime
// is a benchmark/test dependency, never linked into svp-acl).
//
//   node bench/ort_time.mjs MODEL.onnx THREADS INPUT:d0,d1,... LOOPS WARMUP
//
// Prints one JSON line: {"load_ms", "p50_ms", "p99_ms", "mean_ms", "runs"}. The input is
// filled with a fixed pseudo-random pattern once and reused; the timed span is one
// session.run (the N-API call, onnxruntime's run, its output tensors handed back).
import { ort } from '../tests/oracle/ort_common.mjs';

const [model, threadsArg, inputArg, loopsArg, warmupArg] = process.argv.slice(2);
if (!model || !threadsArg || !inputArg || !loopsArg) {
  console.error('usage: node bench/ort_time.mjs MODEL.onnx THREADS INPUT:d0,d1,... LOOPS [WARMUP]');
  process.exit(2);
}
const threads = Number(threadsArg), loops = Number(loopsArg), warmup = Number(warmupArg ?? 1);
const colon = inputArg.lastIndexOf(':');
const name = inputArg.slice(0, colon);
const dims = inputArg.slice(colon + 1).split(',').map(Number);
if (colon < 0 || dims.some((d) => !Number.isInteger(d) || d <= 0) || !(threads > 0) || !(loops > 0)) {
  console.error(`bad arguments: ${process.argv.slice(2).join(' ')}`);
  process.exit(2);
}

const t0 = process.hrtime.bigint();
const session = await ort.InferenceSession.create(model, {
  executionProviders: ['cpu'],
  graphOptimizationLevel: 'all',
  executionMode: 'sequential',
  intraOpNumThreads: threads,
  interOpNumThreads: 1,
  // Errors only: a QDQ export leaves scale/zero-point initializers that onnxruntime's
  // fusions make unused, and it warns once per initializer.
  logSeverityLevel: 3,
});
const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;

const count = dims.reduce((a, b) => a * b, 1);
const data = new Float32Array(count);
let seed = 12345;
for (let i = 0; i < count; ++i) {
  seed = (seed * 1103515245 + 12345) >>> 0;
  data[i] = (seed >>> 8) / 16777216 - 0.5;
}
const feeds = { [name]: new ort.Tensor('float32', data, dims) };
for (let i = 0; i < warmup; ++i) await session.run(feeds);
const times = [];
for (let i = 0; i < loops; ++i) {
  const s = process.hrtime.bigint();
  await session.run(feeds);
  times.push(Number(process.hrtime.bigint() - s) / 1e6);
}
times.sort((a, b) => a - b);
// Nearest-rank percentiles, as svp_run reports them (a reported value was measured).
const rank = (p) => times[Math.min(times.length - 1, Math.max(0, Math.ceil((p / 100) * times.length) - 1))];
console.log(JSON.stringify({
  load_ms: loadMs, p50_ms: rank(50), p99_ms: rank(99),
  mean_ms: times.reduce((a, b) => a + b, 0) / times.length, runs: times.length,
}));
