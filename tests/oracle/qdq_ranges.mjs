// Per-tensor min/max over calibration items, for qdq_reference's textbook quantization:
// runs a model whose float tensors were all made outputs (`qdq_reference expose`) on each
// item and writes {"tensor": [min, max], ...}.
//
//   node tests/oracle/qdq_ranges.mjs EXPOSED.onnx RANGES.json INPUT_NAME item.npy [item.npy ...]
import fs from 'node:fs';
import { ort, readNpy } from './ort_common.mjs';

async function main() {
  const [model, out, inputName, ...items] = process.argv.slice(2);
  if (!items.length) {
    console.error('usage: node qdq_ranges.mjs EXPOSED.onnx RANGES.json INPUT_NAME item.npy [...]');
    process.exit(2);
  }
  const session = await ort.InferenceSession.create(model, { graphOptimizationLevel: 'disabled' });
  const ranges = {};
  for (const item of items) {
    const results = await session.run({ [inputName]: readNpy(item) });
    ranges[inputName] ??= [Infinity, -Infinity];
    for (const v of readNpy(item).data) {
      ranges[inputName][0] = Math.min(ranges[inputName][0], v);
      ranges[inputName][1] = Math.max(ranges[inputName][1], v);
    }
    for (const [name, t] of Object.entries(results)) {
      if (t.type !== 'float32') continue;
      let lo = Infinity, hi = -Infinity;
      for (const v of t.data) { if (v < lo) lo = v; if (v > hi) hi = v; }
      const r = (ranges[name] ??= [Infinity, -Infinity]);
      r[0] = Math.min(r[0], lo);
      r[1] = Math.max(r[1], hi);
    }
    console.error(`qdq_ranges: ${item}`);
  }
  fs.writeFileSync(out, JSON.stringify(ranges));
}
main().catch((e) => { console.error(`qdq_ranges: ${e.message}`); process.exit(1); });
