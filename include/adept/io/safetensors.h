// Checkpoints as safetensors files (https://huggingface.co/docs/safetensors): named tensors plus
// string metadata, readable by the `safetensors` package and PyTorch (safetensors.torch).
//
// Layout: an 8-byte little-endian u64 N, N bytes of UTF-8 JSON header (padded with spaces), then
// the data buffer. The header maps each tensor name to {"dtype", "shape", "data_offsets":
// [begin, end]} (offsets relative to the buffer, contiguous row-major little-endian data, no holes
// or overlaps) and may hold "__metadata__": {str: str}.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "adept/device.h"
#include "adept/tensor.h"

namespace adept::io {

/// Writes `tensors` (any device, dtype and layout: each is copied to contiguous CPU memory, one at a
/// time) and `metadata` to `path`, atomically: a temporary file in the same directory is written,
/// fsynced and renamed over `path`, then the directory is fsynced. On any error an existing file
/// at `path` is left untouched and no temporary file remains. Tensors are stored in the given
/// order, and load_file returns them in that order. Dtypes map to F64 F32 F16 BF16 I64 I32 U8 BOOL.
/// Errors: ValueError for an empty, duplicate or reserved ("__metadata__") name or a name/metadata
/// string that is not valid UTF-8; IOError (naming `path`) when the file cannot be written.
/// Follows safetensors.torch.save_file(tensors, filename, metadata).
void save_file(const std::vector<std::pair<std::string, Tensor>>& tensors, const std::string& path,
               const std::map<std::string, std::string>& metadata = {});

/// Contents of a safetensors file: tensors in the order of their data in the file, and metadata.
struct SafetensorsFile {
  std::vector<std::pair<std::string, Tensor>> tensors;
  std::map<std::string, std::string> metadata;
};

/// Reads a file written by save_file, by the `safetensors` package or by any conforming writer,
/// and puts its tensors (freshly allocated, contiguous) on `device`.
/// Errors, each naming the file and what is wrong: IOError for a missing or unreadable file, a
/// truncated header or data buffer, a header length beyond the file, invalid JSON or a header of
/// the wrong structure, a shape that does not match its byte range, overlapping, out-of-range or
/// non-contiguous data offsets; DtypeError for a dtype Adept does not support (I8, U16, F8_E4M3 ...)
/// or an unknown dtype string, naming the tensor.
/// Follows safetensors.torch.load_file(filename, device).
SafetensorsFile load_file(const std::string& path, const Device& device = Device("cpu"));

/// Reads and validates only the header of `path` and returns its "__metadata__" (empty when the
/// file has none). Errors: as load_file.
std::map<std::string, std::string> load_metadata(const std::string& path);

}  // namespace adept::io
