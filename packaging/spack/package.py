# Spack recipe for npgpu. To use it, put it in a Spack package repository of your own:
#   spack repo create ~/npgpu-repo && mkdir -p ~/npgpu-repo/packages/npgpu
#   cp packaging/spack/package.py ~/npgpu-repo/packages/npgpu/ && spack repo add ~/npgpu-repo
# then build from a checkout with `spack develop --path /path/to/npgpu npgpu@main` and
# `spack install npgpu@main +cuda cuda_arch=90 +nccl +ucx` (or ~cuda on a cluster without GPUs).
from spack.package import *


class Npgpu(CMakePackage, CudaPackage):
    """Transfer benchmark for GPU clusters: NetPIPE's ping-pong driver walking message sizes over
    every path (host<->GPU, GPU<->GPU, MPI, NCCL, TCP), each run recorded in HDF5."""

    # The project's repository: set `git` to where your site keeps it (or use `spack develop`).
    homepage = "https://example.org/npgpu"
    git = "https://example.org/npgpu.git"

    version("main", branch="main")

    variant("nccl", default=False, description="Build the nccl module (ncclSend/ncclRecv between GPUs)")
    conflicts("+nccl", when="~cuda", msg="the nccl module needs +cuda")
    variant("ucx", default=False, description="Build the ucx module (UCX's UCP between ranks, the layer under MPI)")

    # What CMakeLists.txt and cmake/ look for, no more: tests/packaging/spack_recipe_test.py
    # compares the two.
    depends_on("cmake@3.22:", type="build")
    depends_on("pkgconfig", type="build")  # finds hwloc and ucx
    depends_on("mpi")
    depends_on("hdf5")  # the serial C library is enough: only rank 0 writes
    depends_on("hwloc@2:")
    depends_on("cli11", type="build")  # header-only
    depends_on("nlohmann-json@3.2:", type="build")  # header-only
    depends_on("googletest", type="test")
    depends_on("nccl", when="+nccl")
    depends_on("ucx", when="+ucx")  # found through pkg-config, as Spack's ucx installs ucx.pc

    def cmake_args(self):
        spec = self.spec
        args = [
            # The tristate options are given ON or OFF, never AUTO: the spec decides, not the build host.
            self.define_from_variant("NPGPU_CUDA", "cuda"),
            self.define_from_variant("NPGPU_NCCL", "nccl"),
            self.define_from_variant("NPGPU_UCX", "ucx"),
            self.define("NPGPU_TESTS", self.run_tests),
            # MPI_HOME picks that MPI's mpicc and mpiexec together (README, "On a cluster").
            self.define("MPI_HOME", spec["mpi"].prefix),
            self.define("HDF5_ROOT", spec["hdf5"].prefix),
        ]
        if spec.satisfies("+cuda"):
            cuda_arch = spec.variants["cuda_arch"].value
            if cuda_arch[0] != "none":
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(cuda_arch)))
        if spec.satisfies("+nccl"):
            args.append(self.define("NPGPU_NCCL_ROOT", spec["nccl"].prefix))
        return args
