#include "svp_compare/app.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "svp_compare/comparison.h"
#include "svp_compare/dump_dir.h"
#include "svp_compare/html_report.h"
#include "svp_compare/report.h"

namespace svp::compare {
namespace {

bool WriteTextFile(const std::filesystem::path& path, const std::string& text, std::ostream& err) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    err << "svp_compare: cannot write " << path.string() << "\n";
    return false;
  }
  return true;
}

}  // namespace

int RunCompare(const AppOptions& options, std::ostream& out, std::ostream& err) {
  if (options.golden.empty() || options.actual.empty()) {
    err << "svp_compare: --golden and --actual are required\n";
    return kExitUsage;
  }
  if (!std::isfinite(options.threshold) || options.threshold < -1.0 || options.threshold > 1.0) {
    err << "svp_compare: --threshold must be a cosine in [-1, 1]\n";
    return kExitUsage;
  }
  const DumpDirResult golden = OpenDumpDir(options.golden);
  if (!golden.ok) {
    err << "svp_compare: golden dump: " << golden.error << "\n";
    return kExitBadDump;
  }
  const DumpDirResult actual = OpenDumpDir(options.actual);
  if (!actual.ok) {
    err << "svp_compare: actual dump: " << actual.error << "\n";
    return kExitBadDump;
  }
  // A line per tenth of the layer outputs once the comparison has taken two seconds.
  const auto start = std::chrono::steady_clock::now();
  std::size_t next_tenth = 1;
  const auto progress = [&](std::size_t done, std::size_t total) {
    if (done * 10 < next_tenth * total) return;
    next_tenth = done * 10 / total + 1;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s >= 2.0) err << "svp_compare: compared " << done << "/" << total << " layer outputs (" << std::lround(s) << " s)\n";
  };
  const ComparisonResult compared = CompareDumps(golden.dump, actual.dump, progress);
  if (!compared.ok) {
    err << "svp_compare: " << compared.error << "\n";
    return kExitBadDump;
  }
  const Comparison& c = compared.comparison;
  out << "svp_compare: golden " << golden.dump.dir.string() << ", actual " << actual.dump.dir.string() << "\n";
  if (c.layers.empty()) {
    PrintTable(out, c, options.threshold);
    err << "svp_compare: no layer output of the actual dump could be compared with the golden dump "
           "(different models, or dumps of different executions?)\n";
    return kExitNothingMatched;
  }
  // Dumps of two different models still pair wherever layer names coincide (/conv1/Conv is
  // in many networks), so a table appears; most of the golden model going unpaired is the
  // tell, and the user should hear it before reading the rows.
  if (c.golden_unmatched.size() > c.layers.size()) {
    const auto model_of = [](const DumpDir& d) { return d.entries.empty() ? std::string("?") : d.entries[0].model; };
    err << "svp_compare: warning: only " << c.layers.size() << " of " << c.layers.size() + c.golden_unmatched.size()
        << " golden layer outputs have a partner in the actual dump (golden model \"" << model_of(golden.dump)
        << "\", actual \"" << model_of(actual.dump)
        << "\"): are these dumps of the same model? Compare a model with its own quantized build\n";
  }
  PrintTable(out, c, options.threshold);
  if (options.output.empty()) return kExitOk;
  const std::filesystem::path dir(options.output);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    err << "svp_compare: cannot create " << dir.string() << ": " << ec.message() << "\n";
    return kExitOutputFailed;
  }
  HtmlTitles titles;
  titles.golden = golden.dump.dir.string();
  titles.actual = actual.dump.dir.string();
  if (!WriteTextFile(dir / "compare.csv", CsvText(c, options.threshold), err) ||
      !WriteTextFile(dir / "compare.html", HtmlReport(c, options.threshold, titles), err)) {
    return kExitOutputFailed;
  }
  out << "wrote " << (dir / "compare.csv").string() << " and " << (dir / "compare.html").string() << "\n";
  return kExitOk;
}

}  // namespace svp::compare
