// Adept's exception hierarchy. Every user error is one of these, with a message naming the op,
// the shapes/dtypes/devices given and what was expected. Python maps them to the builtin types
// noted on each class.
#pragma once
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "adept/dtype.h"

namespace adept {

/// Base of all Adept errors (Python: RuntimeError).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
/// Incompatible or invalid shapes (Python: RuntimeError, as PyTorch raises for shape mismatches).
class ShapeError : public Error { public: using Error::Error; };
/// Unsupported or mismatched dtype (Python: TypeError).
class DtypeError : public Error { public: using Error::Error; };
/// Tensors on different devices or an unknown device (Python: RuntimeError).
class DeviceError : public Error { public: using Error::Error; };
/// Index or dimension out of range (Python: IndexError).
class IndexError : public Error { public: using Error::Error; };
/// Invalid argument value (Python: ValueError).
class ValueError : public Error { public: using Error::Error; };
/// Allocation failure (Python: MemoryError).
class OutOfMemoryError : public Error { public: using Error::Error; };
/// The op has no kernel for the tensor's device (Python: NotImplementedError).
class NotImplementedForDevice : public Error { public: using Error::Error; };
/// Autograd misuse: backward through a freed graph, in-place change of a saved tensor ... (Python: RuntimeError).
class AutogradError : public Error { public: using Error::Error; };
/// A file cannot be read or written, or its contents are malformed (truncated, corrupt header ...);
/// the message names the file (Python: OSError).
class IOError : public Error { public: using Error::Error; };

namespace detail {
[[noreturn]] void throw_dtype_unsupported(const char* op, Dtype dtype);
}

}  // namespace adept

/// Throws ERROR_TYPE with an fmt-formatted message when COND is false.
#define ADEPT_CHECK(COND, ERROR_TYPE, ...)                         \
  do {                                                             \
    if (!(COND)) throw ::adept::ERROR_TYPE(fmt::format(__VA_ARGS__)); \
  } while (0)
