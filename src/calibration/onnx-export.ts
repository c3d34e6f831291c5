/**
 * Write a Mlp (mlp.ts) as an ONNX model — the protobuf is encoded here directly (no npm ONNX writer
 * is installed; `onnx-proto`/`onnx-buf` would pull in protobufjs for five messages). Field numbers
 * from onnx/onnx.proto: ModelProto{ir_version 1, producer_name 2, graph 7, opset_import 8},
 * GraphProto{node 1, name 2, initializer 5, input 11, output 12}, NodeProto{input 1, output 2,
 * name 3, op_type 4}, TensorProto{dims 1, data_type 2, name 8, raw_data 9}, ValueInfoProto{name 1,
 * type 2}, TypeProto{tensor_type 1}, TypeProto.Tensor{elem_type 1, shape 2},
 * TensorShapeProto{dim 1}, Dimension{dim_value 1, dim_param 2}, OperatorSetIdProto{domain 1, version 2}.
 * Graph: y = Add(MatMul(Tanh(Add(MatMul(x, W1ᵀ), b1)), W2ᵀ), b2), float32, batch dimension "N".
 */
import type { Mlp } from './mlp.js';

const FLOAT = 1;

class Writer {
  private readonly parts: number[] = [];
  varint(v: number): this {
    let x = BigInt.asUintN(64, BigInt(v));
    do {
      let byte = Number(x & 0x7fn);
      x >>= 7n;
      if (x !== 0n) byte |= 0x80;
      this.parts.push(byte);
    } while (x !== 0n);
    return this;
  }
  tag(field: number, wire: number): this {
    return this.varint((field << 3) | wire);
  }
  int(field: number, v: number): this {
    return this.tag(field, 0).varint(v);
  }
  bytes(field: number, b: Uint8Array): this {
    this.tag(field, 2).varint(b.length);
    for (const x of b) this.parts.push(x);
    return this;
  }
  string(field: number, s: string): this {
    return this.bytes(field, new TextEncoder().encode(s));
  }
  message(field: number, m: Writer): this {
    return this.bytes(field, m.finish());
  }
  finish(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

function tensor(name: string, dims: readonly number[], values: Float64Array): Writer {
  const raw = new Uint8Array(values.length * 4);
  const view = new DataView(raw.buffer);
  values.forEach((v, i) => view.setFloat32(i * 4, v, true));
  const w = new Writer();
  for (const d of dims) w.int(1, d);
  return w.int(2, FLOAT).string(8, name).bytes(9, raw);
}

function valueInfo(name: string, dims: readonly (number | string)[]): Writer {
  const shape = new Writer();
  for (const d of dims) shape.message(1, typeof d === 'number' ? new Writer().int(1, d) : new Writer().string(2, d));
  const tensorType = new Writer().int(1, FLOAT).message(2, shape);
  return new Writer().string(1, name).message(2, new Writer().message(1, tensorType));
}

function node(op: string, inputs: readonly string[], output: string): Writer {
  const w = new Writer();
  for (const i of inputs) w.string(1, i);
  return w.string(2, output).string(3, `${op}_${output}`).string(4, op);
}

function transpose(m: Float64Array, rows: number, cols: number): Float64Array {
  const t = new Float64Array(m.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) t[c * rows + r] = m[r * cols + c]!;
  return t;
}

/** Serialised ONNX ModelProto (opset 13) for `m`: input "x" [N, inputs] → output "y" [N, outputs]. */
export function mlpToOnnx(m: Mlp, graphName = 'so101_free_motion_residual'): Uint8Array {
  const g = new Writer();
  g.message(1, node('MatMul', ['x', 'W1T'], 'h0'));
  g.message(1, node('Add', ['h0', 'b1'], 'h1'));
  g.message(1, node('Tanh', ['h1'], 'h2'));
  g.message(1, node('MatMul', ['h2', 'W2T'], 'y0'));
  g.message(1, node('Add', ['y0', 'b2'], 'y'));
  g.string(2, graphName);
  g.message(5, tensor('W1T', [m.inputs, m.hidden], transpose(m.w1, m.hidden, m.inputs)));
  g.message(5, tensor('b1', [m.hidden], m.b1));
  g.message(5, tensor('W2T', [m.hidden, m.outputs], transpose(m.w2, m.outputs, m.hidden)));
  g.message(5, tensor('b2', [m.outputs], m.b2));
  g.message(11, valueInfo('x', ['N', m.inputs]));
  g.message(12, valueInfo('y', ['N', m.outputs]));
  return new Writer()
    .int(1, 8)
    .string(2, 'armguard')
    .message(7, g)
    .message(8, new Writer().string(1, '').int(2, 13))
    .finish();
}
