#pragma once
// A fleet reference (`npgpu baseline`): healthy records of many nodes of one kind folded into one
// figure per path and size, for `npgpu report --baseline` to judge other nodes of that kind by.
// Plain data: the report folds and judges it, the record keeps it.
#include <string>
#include <vector>

namespace npgpu {

// One path of the fleet: a kind of run on a kind of hardware, over a kind of link.
struct FleetPath {
  std::string label;                       // run_label: module, pattern and the aspects that tell runs apart
  std::string cpu_model, gpu_model, link;  // what it judges by: "one host", "two hosts", a matrix class
  std::vector<double> bytes;
  std::vector<double> rate;     // B/s: the median over the records of each one's fastest trial
  std::vector<double> spread;   // log of the rate, 1.48 MAD across the records
  std::vector<double> records;  // how many records stand behind each figure
};

struct FleetReference {
  std::string made_by;         // "npgpu 0.1.0"
  int method_version = 1;      // the way of measuring of every record folded
  std::vector<std::string> records;  // "file:/runs/0001 (hosts a, b)", each record folded
  std::vector<FleetPath> paths;
};

}  // namespace npgpu
