// TensorBoard event files: scalars and images that `tensorboard --logdir DIR` shows, and that the
// `tensorboard` package's readers (EventAccumulator, event_file_loader) load.
//
// Format followed (TensorFlow's event files, as TensorBoard reads them):
//   * The file is a sequence of TFRecord records, each framed as
//       uint64 length (little endian) | uint32 masked CRC-32C of those 8 bytes |
//       `length` bytes of data | uint32 masked CRC-32C of the data,
//     where masked(crc) = ((crc >> 15) | (crc << 17)) + 0xa282ead8 (mod 2^32) and CRC-32C is the
//     Castagnoli CRC (reflected polynomial 0x82F63B78, initial value and final xor 0xFFFFFFFF).
//   * Each record's data is a serialized tensorflow.Event protocol buffer: wall_time (double, field
//     1, seconds since the Unix epoch), step (int64, field 2), file_version (string, field 3: the
//     file's first event carries "brain.Event:2"), summary (tensorflow.Summary, field 5) with
//     repeated Value (field 1): tag (string, 1) and either simple_value (float, 2) or image
//     (Summary.Image, 4: height 1, width 2, colorspace 3 (channels), encoded_image_string 4).
//   * The file is named events.out.tfevents.<unix seconds>.<hostname>.<pid>.<n> (TensorBoard picks up
//     every file whose name contains "tfevents"; several files in one folder are read as one run,
//     in name order, which is how a resumed training adds to the curves of its first part).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace adept::io {

/// CRC-32C (Castagnoli) of `n` bytes, continuing from `crc` (0 to start): crc32c("123456789") ==
/// 0xE3069283.
uint32_t crc32c(const void* data, size_t n, uint32_t crc = 0);

/// The masked CRC TFRecord stores: ((crc >> 15) | (crc << 17)) + 0xa282ead8.
uint32_t masked_crc32c(const void* data, size_t n);

/// One TFRecord record (length, masked CRCs and data as above) around `data`.
std::vector<uint8_t> tfrecord_frame(const std::string& data);

/// Appends scalars and images to a new event file in `log_dir`, after PyTorch's
/// torch.utils.tensorboard.SummaryWriter. Events go through the C library's file buffer; flush()
/// hands them to the operating system (the trainer flushes once per epoch, so a running TensorBoard
/// follows the run). The file grows as
/// events come (as a log it is not written atomically); a run that is killed leaves at most a torn
/// last record, which TensorBoard's reader skips.
/// Errors: IOError naming the file when it cannot be created or written.
class SummaryWriter {
 public:
  /// Creates `log_dir` (and its parents) and a new event file in it (never an existing one), whose
  /// first event is the file_version event.
  explicit SummaryWriter(const std::string& log_dir);
  /// Flushes and closes the file (errors are not raised here: call flush() first to see them).
  ~SummaryWriter();
  SummaryWriter(const SummaryWriter&) = delete;
  SummaryWriter& operator=(const SummaryWriter&) = delete;

  /// A scalar (stored as float32, TensorBoard's simple_value; NaN and infinities as they are) at
  /// `step`. ValueError for an empty tag.
  void add_scalar(const std::string& tag, double value, int64_t step);
  /// An image given as encoded bytes (PNG or JPEG, as TensorBoard decodes them) of `height` x `width`
  /// pixels with `channels` channels (1 grey, 3 RGB, 4 RGBA) at `step`. ValueError for an empty tag,
  /// no bytes or non-positive sizes.
  void add_image_encoded(const std::string& tag, const std::vector<uint8_t>& encoded, int64_t height, int64_t width,
                         int channels, int64_t step);
  /// Writes the buffered events to the file and flushes it to the operating system.
  void flush();
  /// The event file's path.
  const std::string& path() const { return path_; }

 private:
  void write_event(int64_t step, const std::string& summary, const std::string& file_version = "");

  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace adept::io
