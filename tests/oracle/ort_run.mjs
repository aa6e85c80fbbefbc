// The independent oracle: runs an ONNX model with onnxruntime (npm onnxruntime-node, CPU)
// in its own process and writes every output as .npy. Used by tests and benchmarks to
// check svp-acl's compiled models against a runtime that shares no code with ours.
//
//   node tests/oracle/ort_run.mjs MODEL.onnx OUT_DIR [name=input.npy ...] [--threads N] [--items K] [--as-written]
//
// --as-written: no graph optimisations, every node computed as the file states it. Needed
// for quantization references: with its optimisations on, onnxruntime (1.20+, its
// WeightBiasQuantization transformer) requantizes a float Conv/Gemm weight that sits
// between a DequantizeLinear input and a QuantizeLinear output to int8 *per tensor*, so a
// fake-quantized per-channel weight silently becomes a coarser one (LeNet's first conv: up
// to 0.03 off, 2.8 output steps).
// --items K: every input holds K items stacked along dimension 0 for a model of a fixed
// batch; the model runs once per item and each output is the K results stacked the same
// way (tests run many inputs through one session instead of one process per input).
// Inputs not given are an error (the oracle never invents data). Outputs are written as
// OUT_DIR/<output name>.npy (name sanitised: characters outside [A-Za-z0-9_.-] become _),
// and OUT_DIR/outputs.json lists them in order. Exit codes: 0 ok, 2 usage, 1 runtime error.
import fs from 'node:fs';
import path from 'node:path';
import { ort, readNpy, writeNpy } from './ort_common.mjs';

async function main() {
  const args = process.argv.slice(2);
  const option = (flag) => {
    const i = args.indexOf(flag);
    if (i < 0) return 1;
    const v = Number(args[i + 1]);
    args.splice(i, 2);
    return v;
  };
  const asWritten = args.indexOf('--as-written');
  if (asWritten >= 0) args.splice(asWritten, 1);
  const threads = option('--threads');
  const items = option('--items');
  if (args.length < 2 || !Number.isInteger(threads) || threads < 1 || !Number.isInteger(items) || items < 1) {
    console.error('usage: node ort_run.mjs MODEL.onnx OUT_DIR [name=input.npy ...] [--threads N] [--items K] [--as-written]');
    process.exit(2);
  }
  const [model, outDir, ...pairs] = args;
  const feeds = {};
  for (const p of pairs) {
    const eq = p.indexOf('=');
    if (eq <= 0) {
      console.error(`ort_run: input "${p}" is not name=file.npy`);
      process.exit(2);
    }
    feeds[p.slice(0, eq)] = readNpy(p.slice(eq + 1));
  }
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: asWritten >= 0 ? 'disabled' : 'all',
  });
  for (const name of session.inputNames) {
    if (!(name in feeds)) throw new Error(`model input "${name}" not given (inputs: ${session.inputNames.join(', ')})`);
  }
  let results;
  if (items === 1) {
    results = await session.run(feeds);
  } else {
    const parts = [];
    for (let k = 0; k < items; ++k) {
      const slice = {};
      for (const [name, t] of Object.entries(feeds)) {
        if (t.dims.length === 0 || t.dims[0] % items !== 0) {
          throw new Error(`--items ${items}: input "${name}" of shape [${t.dims}] does not hold ${items} items`);
        }
        const n = t.data.length / items;
        slice[name] = new ort.Tensor(t.type, t.data.slice(k * n, (k + 1) * n), [t.dims[0] / items, ...t.dims.slice(1)]);
      }
      parts.push(await session.run(slice));
    }
    results = {};
    for (const name of session.outputNames) {
      const first = parts[0][name];
      const data = new first.data.constructor(first.data.length * items);
      parts.forEach((r, k) => data.set(r[name].data, k * first.data.length));
      results[name] = new ort.Tensor(first.type, data, [first.dims[0] * items, ...first.dims.slice(1)]);
    }
  }
  fs.mkdirSync(outDir, { recursive: true });
  const listed = [];
  for (const name of session.outputNames) {
    const file = `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.npy`;
    writeNpy(path.join(outDir, file), results[name]);
    listed.push({ name, file, dims: results[name].dims, type: results[name].type });
  }
  fs.writeFileSync(path.join(outDir, 'outputs.json'), JSON.stringify(listed, null, 1));
}

main().catch((e) => {
  console.error(`ort_run: ${e.message}`);
  process.exit(1);
});
