#pragma once
// What each module says a break or a shortfall of its curves can mean on its path (PathWords);
// each is defined in its module's folder and named by its catalog entry. Built everywhere, so a
// build without CUDA still reports a GPU run in the GPU path's words.
#include "npgpu/path_words.hpp"

namespace npgpu {

PathWords memcpy_words(const PlacementFacts& facts);
PathWords mpi_words(const PlacementFacts& facts);
PathWords tcp_words(const PlacementFacts& facts);
PathWords cuda_copy_words(const PlacementFacts& facts);  // cudaMemcpy and cuMemcpy
PathWords p2p_words(const PlacementFacts& facts);
PathWords cuda_ipc_words(const PlacementFacts& facts);
PathWords nccl_words(const PlacementFacts& facts);

// A fact's value, or "" where the record has none.
std::string fact_of(const PlacementFacts& facts, const std::string& name);

}  // namespace npgpu
