#pragma once
// The console reporter: a header, one line per size with progress, and a closing summary; for
// --pairs all, a line per step and size, the matrices and the flagged links.
#include <cstdio>

#include "results/run_record.hpp"

namespace npgpu {

class ConsoleReporter final : public Reporter {
 public:
  explicit ConsoleReporter(std::FILE* out) : out_(out) {}
  void begin(const RunRecord& record) override;
  void size_done(const RunRecord& record, std::size_t first_curve, std::size_t index,
                 const Progress& progress) override;
  void matrix_cells_done(const RunRecord& record, int shift, std::size_t index, const Progress& progress) override;
  void end(const RunRecord& record) override;

 private:
  void print_aggregate(const RunRecord& record);
  void print_pairs_aggregate(const RunRecord& record);
  void print_measured_again(const RunRecord& record);
  void print_matrices(const RunRecord& record);  // console_matrix.cpp, with matrix_cells_done
  std::FILE* out_;
};

}  // namespace npgpu
