// svp_run command line (docs/svp_run.md): msame/ais_bench flags plus ours.
#include <cctype>
#include <iostream>

#include <CLI/CLI.hpp>

#include "svp_run/runner.h"

namespace {

// msame and ais_bench spell their switches with a value ("--profiler 1", "--debug true",
// "--display_all_summary True"); a bare switch means on.
void add_switch(CLI::App& app, const std::string& name, bool& target, const std::string& help) {
  app.add_option_function<std::string>(
         name,
         [&target, name](const std::string& v) {
           if (v.empty() || v == "1" || v == "true" || v == "True" || v == "TRUE" || v == "yes") {
             target = true;
           } else if (v == "0" || v == "false" || v == "False" || v == "FALSE" || v == "no") {
             target = false;
           } else {
             throw CLI::ValidationError(name, "takes 1/0 or true/false, not '" + v + "'");
           }
         },
         help + " (bare, or 1/0, true/false)")
      ->expected(0, 1);
}

// ais_bench options for shapes svp-acl models do not have: refused with the way out rather
// than CLI11's bare "not expected" (scripts written for ais_bench pass them).
void add_unsupported(CLI::App& app, const std::string& name, const std::string& instead) {
  app.add_option_function<std::string>(
         name,
         [name, instead](const std::string&) {
           throw CLI::ValidationError(name, "is not supported by svp_run (svp-acl models have no dynamic " + instead);
         },
         "not supported (ais_bench)")
      ->expected(0, 1)
      ->group("");  // hidden from --help
}

}  // namespace

int main(int argc, char** argv) {
  svp::run::RunOptions o;
  CLI::App app{"svp_run: run an svp-acl offline model (msame / ais_bench compatible flags)"};
  std::string input, dym_hw;
  app.add_option("--model", o.model, "offline model (.om)")->required();
  app.add_option("--input", input, "comma-separated files or directories (.bin/.npy), one per data input");
  app.add_option("--pure_data_type", o.pure_data_type, "zero|random data when --input is omitted");
  app.add_option("--aipp_config", o.aipp_config,
                 "dynamic AIPP parameters: an [aipp_op] file of 'key : value' lines (ais_bench's)");
  app.add_option("--output", o.output, "directory for outputs and summary.json");
  app.add_option("--output_dirname", o.output_dirname, "subdirectory of --output (default: date-time)");
  app.add_option("--outfmt", o.outfmt, "BIN|TXT|NPY");
  app.add_option("--loop", o.loop, "executions per input");
  app.add_option("--warmup_count", o.warmup_count, "untimed executions before the run");
  app.add_option("--batchsize", o.batchsize, "single-item files per execution");
  app.add_option("--dymBatch", o.dym_batch, "dynamic batch size");
  app.add_option("--dymHW", dym_hw, "dynamic resolution gear H,W");
  app.add_option("--device", o.device, "device id");
  app.add_option("--acl_json_path", o.acl_json_path, "acl.json passed to svp_acl_init");
  add_switch(app, "--profiler", o.profiler, "profile the run and write svp_prof's report beside the outputs");
  add_switch(app, "--dump", o.dump, "dump every layer's outputs (the runtime's model dump) under <output>/dump");
  app.add_option("--dump_step", o.dump_step,
                 "with --dump: the executions to dump, counted from 0 with the warm-ups, e.g. \"0\" or \"0|5|10-20\"");
  app.add_option("--dump_layer", o.dump_layer,
                 "with --dump: the layers to dump, by name, separated by ';', e.g. \"conv1;fc3\" (an svp_run "
                 "extension)");
  add_unsupported(app, "--dymDims", "dims: use --dymBatch N for batch gears or --dymHW H,W for resolution gears)");
  add_unsupported(app, "--dymShape", "shapes: use --dymBatch N or --dymHW H,W for the model's compiled gears)");
  add_unsupported(app, "--dymShape_range", "shapes: use --dymBatch N or --dymHW H,W for the model's compiled gears)");
  add_unsupported(app, "--auto_set_dymdims_mode", "dims: use --dymBatch N or --dymHW H,W)");
  add_unsupported(app, "--auto_set_dymshape_mode", "shapes: use --dymBatch N or --dymHW H,W)");
  add_unsupported(app, "--outputSize",
                  "output sizes: output buffers are sized from the model, nothing to give)");
  add_switch(app, "--debug", o.debug, "describe the model's inputs and outputs");
  app.add_option("--streams", o.streams, "streams, each with its own datasets");
  app.add_option("--threads", o.threads, "submitting threads");
  app.add_option("--priority", o.priority, "model priority 0..7 (0 most urgent)");
  app.add_option("--expected", o.expected, "directory of expected outputs of the same names");
  app.add_option("--atol", o.atol, "absolute tolerance");
  app.add_option("--rtol", o.rtol, "relative tolerance");
  app.add_option("--cosine", o.cosine, "minimum cosine similarity");
  add_switch(app, "--display_all_summary", o.display_all_summary, "print every latency");
  app.add_option("--clock", o.clock,
                 "host (default) or board: run the device on the predicted board time of --soc_version and report "
                 "predicted latency, P50/P99 per stream and fps (an svp_run extension)");
  app.add_option("--soc_version", o.soc_version, "with --clock=board: the target SoC (default: acl.json's, else SS928V100)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : svp::run::kExitUsage;
  }
  // ais_bench accepts "--outfmt npy"; msame's documentation writes it upper case.
  for (char& ch : o.outfmt) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (!o.dump_step.empty() && !o.dump) {
    std::cerr << "svp_run: error: --dump_step selects executions of --dump; add --dump\n";
    return svp::run::kExitUsage;
  }
  if (!o.dump_layer.empty() && !o.dump) {
    std::cerr << "svp_run: error: --dump_layer selects layers of --dump; add --dump\n";
    return svp::run::kExitUsage;
  }
  for (std::size_t p = 0; !input.empty();) {
    const std::size_t c = input.find(',', p);
    o.inputs.push_back(input.substr(p, c == std::string::npos ? std::string::npos : c - p));
    if (c == std::string::npos) break;
    p = c + 1;
  }
  if (!dym_hw.empty()) {
    const std::size_t c = dym_hw.find(',');
    try {
      if (c == std::string::npos) throw std::invalid_argument("no comma");
      o.dym_h = std::stoull(dym_hw.substr(0, c));
      o.dym_w = std::stoull(dym_hw.substr(c + 1));
    } catch (const std::exception&) {
      std::cerr << "svp_run: error: --dymHW takes H,W (e.g. 224,224), not '" << dym_hw << "'\n";
      return svp::run::kExitUsage;
    }
  }
  return svp::run::run(o, std::cout, std::cerr);
}
