#!/usr/bin/env python3
"""The house as built (docs/ARCHITECTURE.md, "Layers"): every #include "..." of include/, src/ and
modules/ must point down or sideways within its own folder. One line per include that crosses a
layer the wrong way, and exit 1; nothing and exit 0 where none does.

    check_layers.py SOURCE_DIR
"""
import pathlib
import re
import sys

# src/'s folders from the bottom up: each may include its own folder, the folders it names, and
# include/npgpu (the module contract). record and report are siblings: neither reads the other.
SRC_LAYERS = {
    "contract": [],
    "system": [],
    "results": ["system"],
    "record": ["system", "results"],
    "report": ["system", "results"],
    "run": ["system", "results", "record", "report"],
    "cli": ["system", "results", "record", "report", "run"],
}
# What modules share; not modules themselves. A module folder includes these, its own folder and
# include/npgpu, never another module's folder nor anything of src/.
SHARED_MODULE_FOLDERS = {"cuda_common", "mpi_common", "net_common", "pair"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def allowed(top: str, sub: str, target: str) -> bool:
    """Whether a file in top/sub (src/run, modules/mpi, include/npgpu) may include `target`."""
    first = target.split("/")[0] if "/" in target else ""
    if first == "npgpu":
        return True
    if top == "include":
        return False
    if top == "src":
        if sub == "":  # main.cpp: the top of the house
            return first in SRC_LAYERS
        return first == sub or first in SRC_LAYERS[sub]
    if sub == "":  # modules/catalog.cpp, system_probes.cpp: the registry, over every module folder
        return first != "" and first not in SRC_LAYERS
    return first == sub or first in SHARED_MODULE_FOLDERS


def crossings(root: pathlib.Path):
    for top in ("include", "src", "modules"):
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in {".hpp", ".cpp", ".cu", ".h", ".in"}:
                continue
            parts = path.relative_to(root / top).parts
            sub = parts[0] if len(parts) > 1 else ""
            if top == "src" and sub and sub not in SRC_LAYERS:
                yield f"{path.relative_to(root)}: src/{sub} is no layer of the house (tests/layers/check_layers.py)"
                continue
            for target in INCLUDE.findall(path.read_text()):
                if (path.parent / target).exists():  # beside the file, in its own folder
                    continue
                if not allowed(top, sub, target):
                    yield f'{path.relative_to(root)}: includes "{target}", which its layer may not'


def main() -> int:
    found = list(crossings(pathlib.Path(sys.argv[1])))
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
