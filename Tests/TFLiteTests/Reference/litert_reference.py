"""Runs a .tflite model with Google's Python LiteRT interpreter: the reference for HybridAI's tests.

usage: litert_reference.py MODEL OUTPUT_DIR [--threads N] [--input FILE ...]

Each --input FILE holds the raw bytes of one input tensor, in the order of get_input_details().
Writes OUTPUT_DIR/output-<i>.bin (raw bytes of each output, in the order of get_output_details())
and OUTPUT_DIR/details.json (names, dtypes, shapes and quantization of inputs and outputs).
"""

import argparse
import json
import os

import numpy as np
from ai_edge_litert.interpreter import Interpreter


def describe(detail):
    scale, zero_point = detail["quantization"]
    return {
        "name": detail["name"],
        "dtype": np.dtype(detail["dtype"]).name,
        "shape": [int(d) for d in detail["shape"]],
        "scale": float(scale),
        "zero_point": int(zero_point),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("output_dir")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--input", action="append", default=[])
    args = parser.parse_args()

    interpreter = Interpreter(model_path=args.model, num_threads=args.threads)
    interpreter.allocate_tensors()
    inputs = interpreter.get_input_details()
    outputs = interpreter.get_output_details()
    if len(args.input) != len(inputs):
        raise SystemExit(f"the model has {len(inputs)} inputs, got {len(args.input)} files")
    for detail, path in zip(inputs, args.input):
        with open(path, "rb") as handle:
            raw = handle.read()
        value = np.frombuffer(raw, dtype=detail["dtype"]).reshape(detail["shape"])
        interpreter.set_tensor(detail["index"], value)
    interpreter.invoke()
    os.makedirs(args.output_dir, exist_ok=True)
    for position, detail in enumerate(outputs):
        value = interpreter.get_tensor(detail["index"])
        with open(os.path.join(args.output_dir, f"output-{position}.bin"), "wb") as handle:
            handle.write(np.ascontiguousarray(value).tobytes())
    with open(os.path.join(args.output_dir, "details.json"), "w") as handle:
        json.dump({"inputs": [describe(d) for d in inputs],
                   "outputs": [describe(d) for d in outputs],
                   "signatures": sorted(interpreter.get_signature_list().keys())}, handle)


if __name__ == "__main__":
    main()
