#pragma once
// The end of a catalog entry (CatalogEntry's make and unavailable_here) for a module whose code
// needs CUDA or NCCL, e.g. NPGPU_NEEDS_CUDA(make_p2p_module, p2p_unavailable_here): the module's
// factory and its check of this machine where the build has what the module needs; both null
// where it lacks it, since neither function is built there.
#include "gpu.hpp"  // cuda_unavailable_here, p2p_unavailable_here

#ifdef NPGPU_HAVE_CUDA
#define NPGPU_NEEDS_CUDA(make, unavailable_here) make, unavailable_here
#else
#define NPGPU_NEEDS_CUDA(make, unavailable_here) nullptr, nullptr
#endif

#ifdef NPGPU_HAVE_NCCL
#define NPGPU_NEEDS_NCCL(make, unavailable_here) make, unavailable_here
#else
#define NPGPU_NEEDS_NCCL(make, unavailable_here) nullptr, nullptr
#endif
