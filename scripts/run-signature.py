#!/usr/bin/env python3
"""Prints the vyre-gpu-driver arguments for the first public function of a
vyre program: --function NAME and one --arg per parameter (f32 memrefs and
index values; INDEX gives the value of every index parameter).

Usage: run-signature.py INPUT.mlir [INDEX]
"""

import re
import sys


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("--help", "-h"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 else 2)
    text = open(sys.argv[1]).read()
    index_value = sys.argv[2] if len(sys.argv) > 2 else "4"
    match = re.search(r"func\.func @(\w+)\((.*?)\)\s*(->[^{]*)?\{", text, re.S)
    if not match:
        sys.exit("run-signature.py: no function definition in " + sys.argv[1])
    name, params = match.group(1), match.group(2)
    words = ["--function", name]
    for param in re.finditer(r"%\w+\s*:\s*(memref<([^>]*)>|index)", params):
        if param.group(1) == "index":
            words += ["--arg", "index:" + index_value]
            continue
        dims = param.group(2).split("x")
        if dims[-1] != "f32" or any(not d.isdigit() for d in dims[:-1]):
            sys.exit("run-signature.py: only static f32 memrefs and index "
                     "parameters are supported, not memref<%s>" % param.group(2))
        words += ["--arg", "f32:" + "x".join(dims[:-1])]
    print(" ".join(words))


if __name__ == "__main__":
    main()
