// An MPI program that does on purpose, when asked, what the sanitizers must catch: the proof that
// a finding in one rank fails a run started as the tests start npgpu. Without an argument it only
// starts and stops MPI, which must pass: Open MPI's own leaks are suppressed (tests/lsan.supp).
#include <mpi.h>

#include <climits>
#include <cstring>

namespace {

// volatile: the compiler may drop neither the allocations nor what is done with them.
char* volatile kept = nullptr;
volatile int sink = 0;

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* what = argc > 1 ? argv[1] : "";
  if (std::strcmp(what, "leak") == 0) {
    kept = new char[4];
    kept = nullptr;
  } else if (std::strcmp(what, "overflow") == 0) {
    kept = new char[4];
    std::memset(kept, 0, argc + 3);  // argc is 2: one byte past the end
    delete[] kept;
  } else if (std::strcmp(what, "ub") == 0) {
    const int big = INT_MAX - 2 + argc;  // INT_MAX, unknown to the compiler
    sink = big + 1;
  }
  MPI_Finalize();
  return 0;
}
