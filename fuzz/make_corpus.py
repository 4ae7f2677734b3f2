#!/usr/bin/env python3
"""Writes fuzz/corpus/ from the test vectors in docs/wire-format.md (valid and invalid)."""
import os, re, sys
here = os.path.dirname(os.path.abspath(__file__))
doc = open(os.path.join(here, "..", "docs", "wire-format.md")).read().splitlines()
out = os.path.join(here, "corpus")
os.makedirs(out, exist_ok=True)
name, hexs, in_hex = None, {}, False
for line in doc:
    m = re.match(r"^(vector|invalid) (\S+)", line)
    if m:
        name, in_hex = m.group(2), False
    elif name and line.startswith("hex "):
        hexs[name] = line[4:]; in_hex = True
    elif in_hex and line.startswith("       "):
        hexs[name] += line
    else:
        in_hex = False
for n, h in hexs.items():
    h = "".join(c for c in h if c in "0123456789abcdefABCDEF") if h.strip() != "-" else ""
    open(os.path.join(out, n), "wb").write(bytes.fromhex(h))
print(f"{len(hexs)} corpus files in {out}")
