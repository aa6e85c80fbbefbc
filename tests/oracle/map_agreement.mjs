// How well two sets of probability maps agree with a float reference: the cosine and the
// IoU of the maps binarised at a threshold (DB post-processing's 0.3 by default), per item
// and in the mean, for a detector's int8 outputs against onnxruntime's float ones.
//
//   node map_agreement.mjs [--threshold T] [--json OUT] REF.npy A.npy B.npy [REF.npy A.npy B.npy ...]
//
// Each triple is one item: the float reference map and two candidates (e.g. the textbook
// quantization and svp-acl's). Prints a table; --json writes {"a": [...], "b": [...]}.
import fs from 'node:fs';
import { readNpy } from './ort_common.mjs';

const args = process.argv.slice(2);
let threshold = 0.3, json = null;
for (let i = 0; i < args.length;) {
  if (args[i] === '--threshold') { threshold = Number(args[i + 1]); args.splice(i, 2); }
  else if (args[i] === '--json') { json = args[i + 1]; args.splice(i, 2); }
  else ++i;
}
if (!args.length || args.length % 3 !== 0 || !(threshold > 0 && threshold < 1)) {
  console.error('usage: node map_agreement.mjs [--threshold T] [--json OUT] REF.npy A.npy B.npy [...]');
  process.exit(2);
}

function agreement(ref, other) {
  if (ref.length !== other.length) throw new Error(`maps of ${ref.length} and ${other.length} values`);
  let dot = 0, nr = 0, no = 0, inter = 0, union = 0;
  for (let k = 0; k < ref.length; ++k) {
    dot += ref[k] * other[k]; nr += ref[k] * ref[k]; no += other[k] * other[k];
    const a = ref[k] > threshold, b = other[k] > threshold;
    if (a && b) ++inter;
    if (a || b) ++union;
  }
  return { cosine: nr && no ? dot / Math.sqrt(nr * no) : (nr === no ? 1 : 0), iou: union ? inter / union : 1 };
}

const result = { a: [], b: [] };
console.log('item\tcosine A\tIoU A\tcosine B\tIoU B');
for (let i = 0; i < args.length; i += 3) {
  const ref = readNpy(args[i]).data;
  const a = agreement(ref, readNpy(args[i + 1]).data), b = agreement(ref, readNpy(args[i + 2]).data);
  result.a.push(a); result.b.push(b);
  console.log(`${args[i + 1]}\t${a.cosine.toFixed(4)}\t${a.iou.toFixed(4)}\t${b.cosine.toFixed(4)}\t${b.iou.toFixed(4)}`);
}
const mean = (xs, k) => xs.reduce((s, x) => s + x[k], 0) / xs.length;
console.log(`mean\t${mean(result.a, 'cosine').toFixed(4)}\t${mean(result.a, 'iou').toFixed(4)}\t` +
            `${mean(result.b, 'cosine').toFixed(4)}\t${mean(result.b, 'iou').toFixed(4)}`);
if (json) fs.writeFileSync(json, JSON.stringify(result));
