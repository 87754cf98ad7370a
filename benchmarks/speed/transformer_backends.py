"""Faster transformer backends on this CPU? pearl-minilm's transformer (mean-pooled) through
torch, ONNX Runtime (float32 and dynamic int8) and OpenVINO (float32).

Issue 52 asks for a backend chosen by measurement that gives at least 2x the phrases/s of the
float model with a per-phrase cosine of at least 0.995 against its vectors. This exports the
transformer and mean pooling of a model folder (pearl-minilm's by default; its character
channel stays in torch whatever the backend) with ``torch.onnx.export`` (dynamo), quantises
it with ONNX Runtime's ``quantize_dynamic`` (int8 weights, per channel, MatMul only: the
per-tensor default of all ops gave a minimum cosine of 0.79), and encodes the same PPDB
phrases with each backend, alternating, after a warm-up; the median of the rounds is
compared. Needs ``pip install onnx onnxscript onnxruntime openvino`` (a missing one is
skipped and named). Writes results/benchmarks/transformer_backends.{json,md}.

    python benchmarks/speed/transformer_backends.py [--model pearl-minilm] [--n 5000]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from pearl_lab import data_root, ppdb_phrases

from pearl import PhraseEncoder

OUT = Path(__file__).resolve().parents[2] / "results" / "benchmarks"


class MeanPooled(torch.nn.Module):
    """The transformer and mean pooling: what the backends replace."""

    def __init__(self, auto_model) -> None:
        super().__init__()
        self.auto_model = auto_model

    def forward(self, input_ids, attention_mask):
        h = self.auto_model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            token_type_ids=torch.zeros_like(input_ids),
        ).last_hidden_state
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        return (h * m).sum(1) / m.sum(1).clamp(min=1e-9)


def batches(tokenizer, texts: list[str], batch_size: int, max_len: int):
    """Length-sorted batches of (positions, ids, mask) as sentence-transformers forms them."""
    order = np.argsort([len(t) for t in texts], kind="stable")
    for s in range(0, len(texts), batch_size):
        idx = order[s : s + batch_size]
        enc = tokenizer([texts[i] for i in idx], padding=True, truncation=True, max_length=max_len)
        yield idx, np.asarray(enc["input_ids"]), np.asarray(enc["attention_mask"])


def encode_with(run, tokenizer, texts, batch_size, max_len, dim) -> np.ndarray:
    out = np.empty((len(texts), dim), dtype=np.float32)
    for idx, ids, mask in batches(tokenizer, texts, batch_size, max_len):
        out[idx] = run(ids.astype(np.int64), mask.astype(np.int64))
    return out


def backends(module: MeanPooled, folder: Path, sample) -> dict:
    """name -> a function (ids, mask) -> vectors; the missing packages named."""
    threads = torch.get_num_threads()

    def torch_run(ids, mask):
        with torch.inference_mode():
            return module(torch.from_numpy(ids), torch.from_numpy(mask)).numpy()

    runs, missing = {"torch float32": torch_run}, []
    need = ("onnx", "onnxscript", "onnxruntime")
    if any(importlib.util.find_spec(p) is None for p in need):
        return runs, [p for p in need if importlib.util.find_spec(p) is None] + ["openvino"]
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    f32, i8 = folder / "model.onnx", folder / "model.int8.onnx"
    b, s = torch.export.Dim("batch"), torch.export.Dim("seq")
    program = torch.onnx.export(
        module,
        tuple(torch.from_numpy(x) for x in sample),
        dynamo=True,
        input_names=["input_ids", "attention_mask"],
        output_names=["mean_pooled"],
        dynamic_shapes={"input_ids": {0: b, 1: s}, "attention_mask": {0: b, 1: s}},
    )
    program.save(str(f32))
    quantize_dynamic(
        str(f32), str(i8), weight_type=QuantType.QInt8, per_channel=True,
        op_types_to_quantize=["MatMul"],
    )  # fmt: skip
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    for name, path in (("onnxruntime float32", f32), ("onnxruntime int8", i8)):
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        runs[name] = lambda ids, mask, s=session: s.run(
            None, {"input_ids": ids, "attention_mask": mask}
        )[0]
    if importlib.util.find_spec("openvino") is None:
        missing.append("openvino")
    else:
        import openvino as ov

        compiled = ov.Core().compile_model(
            str(f32), "CPU", {"INFERENCE_NUM_THREADS": str(threads), "PERFORMANCE_HINT": "LATENCY"}
        )
        runs["openvino float32"] = lambda ids, mask: compiled(
            {"input_ids": ids, "attention_mask": mask}
        )[0]
    return runs, missing


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="pearl-minilm")
    ap.add_argument("--n", type=int, default=5_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--data", type=Path, default=data_root())
    args = ap.parse_args()
    texts = ppdb_phrases(args.n, args.data)
    enc = PhraseEncoder(args.model)
    transformer = enc.model[0]
    tokenizer, max_len = transformer.tokenizer, transformer.max_seq_length
    module = MeanPooled(transformer.auto_model.eval())
    dim = transformer.get_embedding_dimension()
    sample = next(batches(tokenizer, texts[:8], 8, max_len))[1:]
    with tempfile.TemporaryDirectory() as tmp:
        runs, missing = backends(module, Path(tmp), sample)
        for run in runs.values():  # warm-up
            encode_with(run, tokenizer, texts[:256], args.batch_size, max_len, dim)
        times = {name: [] for name in runs}
        vectors = {}
        for _ in range(args.rounds):
            for name, run in runs.items():
                t = time.perf_counter()
                vectors[name] = encode_with(run, tokenizer, texts, args.batch_size, max_len, dim)
                times[name].append(time.perf_counter() - t)
    ref = vectors["torch float32"]
    ref = ref / np.linalg.norm(ref, axis=1, keepdims=True)
    base = statistics.median(times["torch float32"])
    rows = []
    for name, ts in times.items():
        v = vectors[name] / np.linalg.norm(vectors[name], axis=1, keepdims=True)
        cos = (v * ref).sum(1)
        rows.append(
            {
                "backend": name,
                "phrases_per_s": round(len(texts) / statistics.median(ts)),
                "speed_vs_torch": round(base / statistics.median(ts), 2),
                "cosine_min": round(float(cos.min()), 4),
                "cosine_mean": round(float(cos.mean()), 4),
                "passes": None
                if name == "torch float32"
                else bool(base / statistics.median(ts) >= 2 and cos.min() >= 0.995),
            }
        )
    command = "python benchmarks/speed/transformer_backends.py " + " ".join(
        f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if k != "data"
    )
    record = {
        "command": command,
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"torch threads {torch.get_num_threads()}",
        "phrases": len(texts),
        "missing": missing,
        "rows": rows,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "transformer_backends.json").write_text(json.dumps(record, indent=2) + "\n")
    lines = [
        f"# Transformer backends for {args.model} (transformer + mean pooling)",
        "",
        f"`{command}`: {len(texts):,} PPDB phrases, batch {args.batch_size}, median of "
        f"{args.rounds} alternating rounds; {record['machine']}. Target (issue 52): at least "
        "2x torch's phrases/s with every phrase's cosine to torch's vector >= 0.995.",
        "",
        "| backend | phrases/s | x torch | min cosine | mean cosine | meets the target |",
        "|---|---:|---:|---:|---:|---|",
    ]
    verdict = {None: "(reference)", True: "yes", False: "no"}
    for r in rows:
        lines.append(
            f"| {r['backend']} | {r['phrases_per_s']:,} | {r['speed_vs_torch']:.2f} | "
            f"{r['cosine_min']:.4f} | {r['cosine_mean']:.4f} | {verdict[r['passes']]} |"
        )
    if missing:
        lines += ["", f"Not measured (not installed): {', '.join(missing)}."]
    (OUT / "transformer_backends.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
