// The vendor ATC's command line, parsed into CompileOptions (docs/compiler.md "Flags").
//
// Three forms, as the SVP ATC accepts them: `--key=value`, `--key value`, and a config file
// given as the only argument (`svp_atc my.cfg`) whose lines are `[key] value` (blank lines
// and lines starting with '#' are skipped). A table of every flag drives the parser: the
// vendor's config-file form and "did you mean" suggestions need the flag list anyway, so a
// general command-line library would add nothing.
//
// Errors (err::kInvalidParam) name the flag, the value and the accepted form; an unknown
// flag gets the nearest known one. Vendor flags this build cannot honour yet (the int8
// quantization family) are recognised, so scripts do not fail on "unknown flag", and
// compile() rejects them with a clear "not implemented yet" when they would change the
// result.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/options.h"

namespace svp::compiler {

struct ParsedCommandLine {
  CompileOptions options;
  bool help = false;
  bool version = false;
  // Vendor flags accepted but not acted on (name=value), for the log.
  std::vector<std::string> ignored;
  // Flags given whose feature is not built (name=value); compile() refuses them.
  std::vector<std::string> unsupported;
};

// `args` excludes the program name.
Result<ParsedCommandLine> parse_atc_command_line(const std::vector<std::string>& args);
// The config-file form: the file's `[key] value` lines as `--key=value` arguments.
Result<std::vector<std::string>> read_atc_config_file(const std::string& path);

// The usage text listing every flag.
std::string atc_usage();

}  // namespace svp::compiler
