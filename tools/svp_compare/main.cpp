// svp_compare --golden=DIR --actual=DIR [--output=DIR] [--threshold=0.99]: per-layer
// accuracy of a quantized model against its float original, from two model dumps of the
// same inputs (docs/accuracy.md).
#include <CLI/CLI.hpp>
#include <iostream>

#include "svp_compare/app.h"

int main(int argc, char** argv) {
  svp::compare::AppOptions options;
  CLI::App app{
      "svp_compare: compares the layer outputs of two model dumps (svp_run --dump) of the same inputs, "
      "the float model's (golden) and the quantized model's (actual): cosine similarity, relative distance, "
      "max / mean absolute error and softmax KL divergence per layer; writes compare.csv and compare.html",
      "svp_compare"};
  app.add_option("--golden", options.golden, "dump directory of the float model")->required();
  app.add_option("--actual", options.actual, "dump directory of the quantized model")->required();
  app.add_option("--output", options.output, "directory for compare.csv and compare.html (default: none written)");
  app.add_option("--threshold", options.threshold, "cosine below which a layer is reported")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help is a ParseError too (exit 0); every other parse error is a usage error.
    return app.exit(e) == 0 ? svp::compare::kExitOk : svp::compare::kExitUsage;
  }
  return svp::compare::RunCompare(options, std::cout, std::cerr);
}
