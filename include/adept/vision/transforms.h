// Detection augmentations (OpenCV): each takes an image with its boxes and returns them
// transformed together; boxes are clipped to the image and degenerate ones dropped. Values and
// defaults follow Ultralytics' YOLO11 training pipeline (../shared/docs/yolo11.md section 5.5).
//
// Common to every function below:
//  * Images are (H, W, 3) uint8 BGR (OpenCV's order), contiguous, on the CPU, H, W > 0; boxes
//    (n, 4) float32 x1, y1, x2, y2 in pixels; cls (n,) float32; n may be 0. Otherwise: ShapeError
//    (shapes, n mismatch), DtypeError (dtypes), DeviceError (not CPU), ValueError (non-contiguous
//    image, undefined tensor, bad option value), each naming the function and what it got.
//  * Results are new tensors (never views of the input), except hsv_jitter / hsv_gains, which
//    write into the given image.
//  * Output boxes lie inside the output image (clipped); boxes left with zero width or height
//    are dropped together with their cls.
//  * Randomness comes only from the `Rng` passed in: the same seed gives the same result.
#pragma once
#include <array>
#include <cstdint>
#include <random>
#include <string>

#include "adept/tensor.h"

namespace adept::vision {

/// An image and its labelled boxes: what every augmentation takes and returns.
struct LabeledImage {
  Tensor image;  ///< (H, W, 3) uint8, BGR channel order (OpenCV's), contiguous, CPU
  Tensor boxes;  ///< (n, 4) float32: x1, y1, x2, y2 in pixels of `image`
  Tensor cls;    ///< (n,) float32 class ids
};

/// The random source of augmentations; seed it with data::sample_seed() for results that do not
/// depend on the number of DataLoader workers.
using Rng = std::mt19937_64;

/// Augmentation hyper-parameters, with Ultralytics' names and defaults (default.yaml). Ranges
/// must be finite and >= 0 (scale < 1), probabilities in [0, 1]; ValueError otherwise.
struct AugmentOptions {
  double hsv_h = 0.015, hsv_s = 0.7, hsv_v = 0.4;  ///< HSV gains (fractions)
  double degrees = 0.0;     ///< rotation range, +/- degrees
  double translate = 0.1;   ///< translation range, fraction of the output size
  double scale = 0.5;       ///< scale gain range: s ~ U(1 - scale, 1 + scale)
  double shear = 0.0;       ///< shear range, +/- degrees
  double perspective = 0.0; ///< perspective range, 0 .. 0.001
  double flipud = 0.0;      ///< probability of an up-down flip
  double fliplr = 0.5;      ///< probability of a left-right flip
  double mosaic = 1.0;      ///< probability of a 4-image mosaic
};

/// Decodes a JPEG, PNG or BMP file (the format found from its first bytes) to (H, W, 3) uint8 BGR,
/// the pixels OpenCV's cv::imread(IMREAD_COLOR) gives: JPEG on libjpeg-turbo (grey replicated, CMYK
/// converted, EXIF orientation applied); PNG on libpng (grey replicated, alpha and transparency
/// dropped without blending, palette expanded, 16-bit cut to the high byte, eXIf orientation
/// applied); BMP uncompressed 1/4/8/24/32-bit. Other formats OpenCV read (TIFF, WebP, GIF, PNM,
/// JPEG 2000, HDR, EXR, RLE-compressed or 16-bit BMP) raise IOError naming the file and the
/// supported formats. IOError naming the file also when it is missing, not a regular file,
/// unreadable, empty, corrupt or truncated; a JPEG cut inside its scan decodes partially (libjpeg's
/// warning is logged, the rest grey), as cv::imread does.
Tensor imread(const std::string& path);

/// Encodes `image` ((H, W, 3) uint8 BGR) to `path`, the format chosen by the extension
/// (case-insensitive): .jpg/.jpeg/.jpe (quality 95), .png, .bmp/.dib, the bytes cv::imwrite writes
/// with its defaults. IOError naming the file for another extension or when it cannot be written.
void imwrite(const std::string& path, const Tensor& image);

/// Ultralytics' load_image: resizes (bilinear) (h0, w0) -> (min(ceil(h0 r), imgsz),
/// min(ceil(w0 r), imgsz)) with r = imgsz / max(h0, w0), so the long side becomes `imgsz`
/// (a copy when r == 1); boxes scaled by the per-axis size ratio. ValueError for imgsz <= 0.
LabeledImage resize_long_side(const LabeledImage& in, int imgsz);

/// Result of letterbox: the letterboxed image, with gain r and the left / top padding, so that
/// an output coordinate maps back to the input as x_in = (x - pad_x) / gain, y_in = (y - pad_y) / gain.
struct Letterboxed {
  LabeledImage out;
  double gain = 1;              ///< r
  double pad_x = 0, pad_y = 0;  ///< left and top padding, pixels
};

/// Letterbox (Ultralytics' LetterBox, center=True): (h, w, 3) -> (out_h, out_w, 3) (auto=False;
/// auto_stride, below, gives a smaller rectangle).
/// r = min(out_h / h, out_w / w), capped at 1 unless `scaleup`; resized (bilinear) to
/// (round(h r), round(w r)) (Python rounding, at least 1 px) and padded with `pad_value` on every
/// channel; of a total padding d = out - resized in a dimension, round(d/2 - 0.1) goes left / top
/// and round(d/2 + 0.1) right / bottom. Boxes become x r + pad_x, y r + pad_y. (Ultralytics adds
/// the unrounded d/2 to its boxes, which can differ from the applied padding by half a pixel.)
/// auto_stride > 0 is Ultralytics' auto=True with stride = auto_stride (what predict uses): the
/// total padding of each dimension becomes d mod auto_stride, so the output is the smallest
/// rectangle around the resized image whose sides differ from (out_h, out_w) by multiples of the
/// stride (both multiples of it when out_h and out_w are). ValueError for out_h, out_w <= 0 or
/// auto_stride < 0.
Letterboxed letterbox(const LabeledImage& in, int out_h, int out_w, bool scaleup = true,
                      uint8_t pad_value = 114, int auto_stride = 0);

/// Random affine (Ultralytics' RandomPerspective): (H, W, 3) -> (H + 2 border, W + 2 border, 3)
/// (border = -imgsz / 2 crops a 2 imgsz mosaic canvas back to imgsz). Draws, in this order,
/// perspective px, py ~ U(+-perspective), angle a ~ U(+-degrees), scale s ~ U(1 -+ scale), shear
/// shx, shy ~ U(+-shear) degrees and translation tx, ty ~ U(0.5 -+ translate) * output (W, H),
/// and warps with M = T S R P C: C moves the input centre to the origin, P is the perspective
/// (row 3 = px, py, 1), R = cv::getRotationMatrix2D((0, 0), a, s), S shears by tan(shx), tan(shy),
/// T translates by (tx, ty). warpAffine (warpPerspective when perspective != 0), bilinear, fill
/// 114; the image is copied unchanged when M = I and border = 0. Boxes are mapped through their 4
/// corners, re-boxed and clipped; a box is kept when its new w and h exceed 2 px,
/// new area / (old area * s^2) > 0.1 and aspect ratio < 100 (box_candidates).
/// ValueError when the output would be empty or `opt` is invalid.
LabeledImage random_affine(const LabeledImage& in, const AugmentOptions& opt, int border, Rng& rng);

/// HSV jitter in place (Ultralytics' RandomHSV): gains (gh, gs, gv) = 1 + U(-1, 1) * (hsv_h,
/// hsv_s, hsv_v), drawn in that order, then hsv_gains. With all three ranges 0 nothing is drawn
/// and the image is left untouched. Boxes unchanged.
void hsv_jitter(LabeledImage& io, const AugmentOptions& opt, Rng& rng);

/// Multiplies the channels of `image` in OpenCV's HSV (H in 0..179) through one lookup table
/// each: H -> floor((H gh) mod 180) (wraps), S -> floor(clip(S gs, 0, 255)), same for V with gv,
/// then back to BGR, written into `image`. ValueError for non-finite gains.
void hsv_gains(Tensor& image, double gain_h, double gain_s, double gain_v);

/// Mirror left-right (x -> W - x) / up-down (y -> H - y); boxes mirrored with the image.
LabeledImage flip_lr(const LabeledImage& in);
LabeledImage flip_ud(const LabeledImage& in);

/// Ultralytics' two RandomFlips: up-down with probability `opt.flipud`, then left-right with
/// probability `opt.fliplr` (one draw each, always both); a copy when neither fires.
LabeledImage random_flip(const LabeledImage& in, const AugmentOptions& opt, Rng& rng);

/// Ultralytics' Mosaic._mosaic4: four images -> (2 imgsz, 2 imgsz, 3) canvas filled with 114.
/// Draws the centre yc, then xc, each int(U(imgsz // 2, 2 imgsz - imgsz // 2)). Image i (h, w)
/// fills the canvas region next to the centre: i = 0 top-left [xc - w, xc) x [yc - h, yc),
/// 1 top-right, 2 bottom-left, 3 bottom-right, cropped at the canvas edges (the image's part
/// nearest the centre is kept). Boxes shifted with their image, clipped to the canvas, zero-area
/// ones dropped; order: image 0's boxes first. Inputs are expected with their long side = imgsz
/// (resize_long_side) but may have any size. ValueError for imgsz <= 0.
LabeledImage mosaic4(const std::array<LabeledImage, 4>& in, int imgsz, Rng& rng);

}  // namespace adept::vision
