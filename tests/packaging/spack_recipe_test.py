#!/usr/bin/env python3
"""The Spack recipe declares what the build's CMake requires, no more and no less.

Every find_package, pkg-config module and library that CMakeLists.txt and cmake/*.cmake (and the
tests' CMakeLists.txt) look for must have its depends_on in packaging/spack/package.py, with CMake's
minimum version where CMake names one, and every depends_on must answer one of them: a dependency
added to one side and not the other fails here (issue 18: hwloc, nlohmann-json and pkgconfig were
missing, so `spack install` stopped at configure).

Usage: spack_recipe_test.py SOURCE_DIR
"""

import ast
import pathlib
import re
import sys

# What CMake looks for, by the name CMake uses, and the Spack package that provides it.
SPACK_NAME = {
    "cmake": "cmake",  # cmake_minimum_required
    "MPI": "mpi",
    "HDF5": "hdf5",
    "CLI11": "cli11",
    "PkgConfig": "pkgconfig",
    "hwloc": "hwloc",
    "nlohmann_json": "nlohmann-json",
    "GTest": "googletest",
    "CUDAToolkit": "cuda",  # CudaPackage, the recipe's base class, depends on it when +cuda
    "nccl": "nccl",
    "ucx": "ucx",
}

CMAKE_LOOKS_FOR = [
    (re.compile(r"cmake_minimum_required\(\s*VERSION\s+([\d.]+)"), lambda m: ("cmake", m.group(1))),
    (re.compile(r"find_package\(\s*(\w+)(?:\s+([\d.]+))?"), lambda m: (m.group(1), m.group(2))),
    (re.compile(r"pkg_check_modules\(\s*\w+((?:\s+[^\s)]+)+)\s*\)"), None),  # modules, below
    (re.compile(r"find_library\(\s*\w+\s+NAMES\s+([\w.+-]+)"), lambda m: (m.group(1), None)),
    (re.compile(r"find_path\(\s*\w+\s+([\w+-]+)\.h\b"), lambda m: (m.group(1), None)),
]
PKG_CHECK_KEYWORDS = {"REQUIRED", "QUIET", "IMPORTED_TARGET", "GLOBAL", "NO_CMAKE_PATH", "NO_CMAKE_ENVIRONMENT_PATH"}


def version_key(version):
    """2.0 and 2 are the same minimum."""
    parts = version.split(".")
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


def cmake_requirements(source):
    """{CMake name: minimum version or None} over the build's CMake files, and where each was seen."""
    files = [source / "CMakeLists.txt", *sorted((source / "cmake").glob("*.cmake"))]
    files += sorted(p for d in ("src", "modules", "tests") for p in (source / d).rglob("CMakeLists.txt"))
    found = {}
    for path in files:
        text = re.sub(r"#[^\n]*", "", path.read_text())
        for pattern, read in CMAKE_LOOKS_FOR:
            for match in pattern.finditer(text):
                if read is None:
                    for word in match.group(1).split():
                        if word not in PKG_CHECK_KEYWORDS:
                            name, _, version = word.partition(">=")
                            found[name] = (version or None, path.relative_to(source))
                else:
                    name, version = read(match)
                    found[name] = (version, path.relative_to(source))
    return found


def recipe_dependencies(recipe):
    """{Spack name: minimum version or None} the recipe declares, its base classes' included."""
    tree = ast.parse(recipe.read_text())
    declared = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(getattr(b, "id", "") == "CudaPackage" for b in node.bases):
            declared["cuda"] = None
        if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "depends_on" and node.args
                and isinstance(node.args[0], ast.Constant)):
            spec = node.args[0].value
            name = re.match(r"[\w-]+", spec).group(0)
            version = re.search(r"@([\d.]+):", spec)
            declared[name] = version.group(1) if version else None
    return declared


def main():
    source = pathlib.Path(sys.argv[1])
    required = cmake_requirements(source)
    declared = recipe_dependencies(source / "packaging" / "spack" / "package.py")
    problems = []
    wanted = {}
    for name, (version, where) in sorted(required.items()):
        if name not in SPACK_NAME:
            problems.append(f"{where} looks for {name}, which this test cannot name in Spack: add it to SPACK_NAME "
                            "and a depends_on to packaging/spack/package.py")
            continue
        spack = SPACK_NAME[name]
        wanted[spack] = version
        if spack not in declared:
            problems.append(f"{where} requires {name}, and package.py has no depends_on(\"{spack}\")")
        elif version and version_key(declared[spack] or "") != version_key(version):
            problems.append(f"{where} requires {name} {version} or later, and package.py says "
                            f"depends_on(\"{spack}{'@' + declared[spack] + ':' if declared[spack] else ''}\")")
    for spack in sorted(set(declared) - set(wanted)):
        problems.append(f"package.py depends on {spack}, which no CMake file looks for")
    for line in problems:
        print("spack recipe: " + line)
    if not problems:
        print("spack recipe: every one of CMake's " + str(len(required)) + " requirements has its depends_on: " +
              ", ".join(f"{s}@{v}:" if v else s for s, v in sorted(wanted.items())))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
