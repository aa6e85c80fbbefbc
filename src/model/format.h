// The offline model container ("svp-acl offline model"; files keep the .om extension so
// vendor-style scripts work, but vendor .om files are not readable). docs/model_format.md
// is the byte-level description; in short, little-endian throughout:
//
//   header   16 bytes   magic "SVPACLOM", u32 format version (1 or 2), u32 section count
//   table    32 bytes per section: u32 type, u32 flags, u64 offset, u64 size, u32 crc32,
//            u32 reserved (0)
//   sections METADATA (JSON of the Program), WEIGHTS (raw, 64-byte aligned in the file),
//            COMPILER (JSON of the CompilerInfo); each at a 64-byte aligned offset, zero
//            padding in between, nothing after the last one.
//
// read_model() accepts any byte string: it returns an error (never crashes, never reads
// outside [data, data+size)) unless the image is well-formed and its Program validates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "model/program.h"

namespace svp::model {

inline constexpr char kModelMagic[8] = {'S', 'V', 'P', 'A', 'C', 'L', 'O', 'M'};
// Version 2 adds the dtypes uint64, float64 and bool. A writer writes version 1 unless the
// model uses one of them, so models that older readers could read stay readable by them.
inline constexpr std::uint32_t kFormatVersion = 2;
inline constexpr std::uint32_t kMinFormatVersion = 1;
inline constexpr std::size_t kHeaderSize = 16;
inline constexpr std::size_t kSectionEntrySize = 32;
inline constexpr std::uint32_t kMaxSections = 64;
inline constexpr std::uint64_t kSectionAlign = 64;

enum SectionType : std::uint32_t {
  kSectionMetadata = 1,  // required, UTF-8 JSON of the Program (without compiler info)
  kSectionWeights = 2,   // optional (absent = no weights), raw bytes
  kSectionCompiler = 3,  // optional (absent = empty CompilerInfo), UTF-8 JSON
};
// A reader that does not know a section's type skips it if this flag is set, and rejects
// the model otherwise. The three version-1 sections are written with flags 0.
inline constexpr std::uint32_t kSectionFlagOptional = 0x1;

const char* section_name(std::uint32_t type);  // "METADATA", "WEIGHTS", "COMPILER", "type N"

struct LoadedModel {
  Program program;
  // The WEIGHTS section inside the caller's buffer (zero copy: the buffer must outlive the
  // model, as for svp_acl_mdl_load_from_mem). nullptr when the model has no weights. Its
  // offset in the image is a multiple of 64, so it is 64-byte aligned when the image is.
  const std::uint8_t* weights = nullptr;
  std::size_t weights_size = 0;
};

// Serialises `program` and its weights. The program should have passed
// program.validate(weights_size); write_model itself does not check it (tests use that to
// produce images the reader must reject).
std::vector<std::uint8_t> write_model(const Program& program, const std::uint8_t* weights, std::size_t weights_size);

// Parses and validates an image. Errors:
//   err::kInvalidParam       data is null
//   err::kModelSizeInvalid   size < 16 (no header)
//   err::kDeserializeModel   bad magic (not an svp-acl model; vendor .om files are not
//                            supported), unknown version, bad section table (outside the
//                            image, overlapping, unknown required type, non-zero padding or
//                            reserved fields, trailing bytes), CRC mismatch (names the section)
//   err::kParseModel         malformed JSON, wrong JSON types, invalid program
//   err::kModelMissingAttr   a required JSON key or program element is missing
Result<LoadedModel> read_model(const void* data, std::size_t size);

// ---------------------------------------------------------------------------------------
// Lower layers, for tools and tests.
struct RawSection {
  std::uint32_t type = 0;
  std::uint32_t flags = 0;
  std::vector<std::uint8_t> bytes;
};
// Lays out header, table and sections in the given order, each section at the next 64-byte
// aligned offset, CRCs computed.
std::vector<std::uint8_t> write_container(const std::vector<RawSection>& sections,
                                          std::uint32_t version = kMinFormatVersion);

// The METADATA / COMPILER JSON texts and their decoders. decode_metadata returns the
// program without compiler info and without validating it.
std::string encode_metadata(const Program& program);
std::string encode_compiler(const CompilerInfo& info);
Result<Program> decode_metadata(std::string_view json);
Result<CompilerInfo> decode_compiler(std::string_view json);

// File helpers: save_model_file → err::kWriteFile on failure; load_model_file →
// err::kReadModelFailure if the file cannot be read, err::kModelSizeInvalid if empty.
Status save_model_file(const std::string& path, const std::vector<std::uint8_t>& image);
Result<std::vector<std::uint8_t>> load_model_file(const std::string& path);

}  // namespace svp::model
