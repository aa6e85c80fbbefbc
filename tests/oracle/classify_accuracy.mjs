// Top-1 accuracy of an ONNX classifier under onnxruntime on the input files svp_run reads:
// DIR/*.npy in name order (one image each) against DIR/labels.txt (one label per line, in
// file order; scripts/models/fashion_inputs.py writes both). The demo prints it beside
// svp-acl's accuracy on the same files.
//
//   node tests/oracle/classify_accuracy.mjs MODEL.onnx DIR
//
// Exit codes: 0 ok, 2 usage or onnxruntime-node missing, 1 runtime error.
import fs from 'node:fs';
import path from 'node:path';
import { ort, readNpy } from './ort_common.mjs';

async function main() {
  const [model, dir] = process.argv.slice(2);
  if (!model || !dir) {
    console.error('usage: node classify_accuracy.mjs MODEL.onnx DIR');
    process.exit(2);
  }
  const labels = fs.readFileSync(path.join(dir, 'labels.txt'), 'ascii').split('\n').filter((l) => l.trim()).map(Number);
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.npy')).sort();
  if (files.length !== labels.length) {
    throw new Error(`${dir}: ${files.length} .npy files but ${labels.length} labels`);
  }
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const input = session.inputNames[0];
  const output = session.outputNames[0];
  let correct = 0;
  for (let i = 0; i < files.length; ++i) {
    const scores = (await session.run({ [input]: readNpy(path.join(dir, files[i])) }))[output].data;
    let best = 0;
    for (let k = 1; k < scores.length; ++k) if (scores[k] > scores[best]) best = k;
    if (best === labels[i]) ++correct;
  }
  const pct = (100 * correct) / files.length;
  console.log(`onnxruntime top-1 accuracy ${pct.toFixed(2)} % (${correct} of ${files.length} test images)`);
}

main().catch((e) => {
  console.error(`classify_accuracy: ${e.message}`);
  process.exit(1);
});
