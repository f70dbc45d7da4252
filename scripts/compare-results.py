#!/usr/bin/env python3
"""Compares two `mdfi -f json` result files (x86-64 vs. an ARM build, see scripts/ci-cross.sh).

Same images, same detections (class, order) / same top-K classes; confidences may differ by
0.01 and boxes by 2 px, because the SIMD kernels sum in different orders (and ARMv7 NEON
flushes denormals). Exits 1 naming the first difference."""
import json
import sys


def fail(msg):
    print("compare-results: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) != 3:
        fail("usage: compare-results.py REFERENCE.json OTHER.json")
    with open(sys.argv[1]) as f:
        ref = json.load(f)
    with open(sys.argv[2]) as f:
        got = json.load(f)
    if len(ref) != len(got):
        fail(f"{len(ref)} records vs {len(got)}")
    exact = True
    for r, g in zip(ref, got):
        img = r.get("image")
        if img != g.get("image"):
            fail(f"image order differs: {img} vs {g.get('image')}")
        if "error" in r or "error" in g:
            fail(f"{img}: an error record: {r.get('error')} / {g.get('error')}")
        key, score = ("detections", "confidence") if "detections" in r else ("classes", "probability")
        a, b = r[key], g[key]
        if len(a) != len(b):
            fail(f"{img}: {len(a)} {key} vs {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            if x["class_id"] != y["class_id"]:
                fail(f"{img}: {key}[{i}] class {x['class_id']} vs {y['class_id']}")
            if abs(x[score] - y[score]) > 0.01:
                fail(f"{img}: {key}[{i}] {score} {x[score]} vs {y[score]}")
            if "box" in x:
                for c in ("x", "y", "w", "h"):
                    if abs(x["box"][c] - y["box"][c]) > 2:
                        fail(f"{img}: {key}[{i}] box.{c} {x['box'][c]} vs {y['box'][c]}")
            exact = exact and x == y
    print(f"compare-results: {len(ref)} images agree ({'identical' if exact else 'within tolerance'})")


if __name__ == "__main__":
    main()
