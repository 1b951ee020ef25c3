#include "module_words.hpp"

namespace npgpu {

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

}  // namespace npgpu
