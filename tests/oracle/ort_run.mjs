// The independent oracle: runs an ONNX model with onnxruntime (npm onnxruntime-node, CPU)
// in its own process and writes every output as .npy. Used by tests and benchmarks to
// check svp-acl's compiled models against a runtime that shares no code with ours.
//
//   node tests/oracle/ort_run.mjs MODEL.onnx OUT_DIR [name=input.npy ...] [--threads N]
//
// Inputs not given are an error (the oracle never invents data). Outputs are written as
// OUT_DIR/<output name>.npy (name sanitised: characters outside [A-Za-z0-9_.-] become _),
// and OUT_DIR/outputs.json lists them in order. Exit codes: 0 ok, 2 usage, 1 runtime error.
import fs from 'node:fs';
import path from 'node:path';
import { ort, readNpy, writeNpy } from './ort_common.mjs';

async function main() {
  const args = process.argv.slice(2);
  let threads = 1;
  const ti = args.indexOf('--threads');
  if (ti >= 0) {
    threads = Number(args[ti + 1]);
    args.splice(ti, 2);
  }
  if (args.length < 2 || !Number.isInteger(threads) || threads < 1) {
    console.error('usage: node ort_run.mjs MODEL.onnx OUT_DIR [name=input.npy ...] [--threads N]');
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
    intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all',
  });
  for (const name of session.inputNames) {
    if (!(name in feeds)) throw new Error(`model input "${name}" not given (inputs: ${session.inputNames.join(', ')})`);
  }
  const results = await session.run(feeds);
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
