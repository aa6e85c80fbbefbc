// What the oracle scripts share: onnxruntime-node (from SVP_NPM_MODULES, scripts/npm_deps.sh)
// and .npy reading/writing as onnxruntime tensors.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const modulesDir = process.env.SVP_NPM_MODULES;
export let ort;
try {
  ort = modulesDir ? require(path.join(modulesDir, 'onnxruntime-node')) : require('onnxruntime-node');
} catch (e) {
  console.error(`onnxruntime-node not found (run scripts/npm_deps.sh; set SVP_NPM_MODULES): ${e.message}`);
  process.exit(2);
}

const NPY_TYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array], '|i1': ['int8', Int8Array],
  '|u1': ['uint8', Uint8Array], '<i2': ['int16', Int16Array], '<u2': ['uint16', Uint16Array],
  '<i4': ['int32', Int32Array], '<u4': ['uint32', Uint32Array], '<i8': ['int64', BigInt64Array],
  '<u8': ['uint64', BigUint64Array], '|b1': ['bool', Uint8Array],
};

export function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*True/.test(header);
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || shapeText === undefined || fortran || !NPY_TYPES[descr]) {
    throw new Error(`${file}: unsupported .npy header ${header.trim()}`);
  }
  const dims = shapeText.split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const [type, Ctor] = NPY_TYPES[descr];
  const bytes = buf.subarray(start + headerLen);
  const count = dims.reduce((a, b) => a * b, 1);
  if (bytes.length < count * Ctor.BYTES_PER_ELEMENT) throw new Error(`${file}: data shorter than its shape`);
  const copy = new Uint8Array(count * Ctor.BYTES_PER_ELEMENT);
  copy.set(bytes.subarray(0, copy.length));
  let data = new Ctor(copy.buffer);
  if (type === 'bool') data = Uint8Array.from(data, (v) => (v ? 1 : 0));
  return new ort.Tensor(type, data, dims);
}

const DESCR = {
  float32: '<f4', float64: '<f8', int8: '|i1', uint8: '|u1', int16: '<i2', uint16: '<u2', int32: '<i4',
  uint32: '<u4', int64: '<i8', uint64: '<u8', bool: '|b1',
};

export function writeNpy(file, tensor) {
  const descr = DESCR[tensor.type];
  if (!descr) throw new Error(`output type ${tensor.type} cannot be written as .npy`);
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const pad = 16 - ((10 + header.length + 1) % 16);
  header += ' '.repeat(pad === 16 ? 0 : pad) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = tensor.type === 'bool' ? Uint8Array.from(tensor.data, (v) => (v ? 1 : 0)) : tensor.data;
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

