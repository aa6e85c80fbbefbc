// svp_compare without its command line: the options, the run and its exit codes, so tests
// call the same code main() does.
#pragma once

#include <ostream>
#include <string>

namespace svp::compare {

enum ExitCode : int {
  kExitOk = 0,
  kExitOutputFailed = 1,   // compare.csv / compare.html could not be written
  kExitUsage = 2,          // bad arguments
  kExitBadDump = 3,        // a dump directory, index.jsonl or .npy file unreadable or malformed
  kExitNothingMatched = 4, // no layer output of the two dumps could be compared
};

struct AppOptions {
  std::string golden;  // dump of the float model
  std::string actual;  // dump of the quantized model, same inputs
  std::string output;  // where compare.csv and compare.html go; empty: nowhere
  double threshold = 0.99;
};

// Prints the table to `out`, errors (naming the file and line) to `err`.
int RunCompare(const AppOptions& options, std::ostream& out, std::ostream& err);

}  // namespace svp::compare
