// memcpy's catalog entry, and what a break or a shortfall means on its path.
#include "npgpu/catalog.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {

std::unique_ptr<Module> make_memcpy_module();  // memcpy_module.cpp

namespace {

// A copy by one core through its caches; the C library picks the method by size.
PathWords memcpy_words(const PlacementFacts&) {
  return {"the copy outgrows a cache level (L1, L2, the last-level cache) and waits on the next one, or the C library's "
          "memcpy changes method at this size",
          "the C library's memcpy takes a faster method from this size (rep movsb, or non-temporal stores that bypass "
          "the caches)",
          "the copy leaves a cache level for the next one, or for memory, whose bandwidth takes over",
          "one core's loads and stores, which bound its copy below the memory system's peak (several ranks at once "
          "show that peak)"};
}

}  // namespace

NPGPU_MODULE(memcpy) {
  return {{{"memcpy", "host memory copy inside each rank (memcpy): the memory system's own speed, a ceiling for the others",
            Layout::per_rank, {Pattern::stream, Pattern::pingpong}, 64 * MiB, "", memcpy_words},
           make_memcpy_module, nullptr}};
}

}  // namespace npgpu
