#include "run/after_run.hpp"

#include <cstdio>
#include <fstream>

#include "record/export.hpp"
#include "results/run_data.hpp"

namespace npgpu {

int after_run_saved(const RunRecord& record, const std::string& run_group) {
  const RunOptions& o = record.options;
  if (!o.np_out.empty()) {
    RunData run;
    run.file = o.output;
    run.group = run_group;
    run.module = record.module.name;
    run.pattern = pattern_name(o.pattern);
    run.headline = headline_name(o.headline);
    run.status = record.status;
    run.curves = curves_of(record);
    std::ofstream out(o.np_out, std::ios::binary);
    out << np_out_text({run});
    out.close();
    if (out)
      std::printf("  np.out: %s (NetPIPE 3.x columns)\n", o.np_out.c_str());
    else
      std::fprintf(stderr, "npgpu: could not write --np-out %s; the record has every curve\n", o.np_out.c_str());
  }
  int code = 0;
  for (const ExpectationOutcome& outcome : record.expectations)
    if (!outcome.met) {
      std::fprintf(stderr, "npgpu: expectation not met: %s\n", describe_outcome(outcome).c_str());
      code = kExitExpectation;
    }
  if (code == 0 && !record.expectations.empty())
    std::printf("  expectations: all %zu met\n", record.expectations.size());
  return code;
}

}  // namespace npgpu
