// Shape ops. View ops (view, permute, transpose, narrow, select, slice, expand, squeeze,
// unsqueeze, flatten, unflatten, unbind, chunk, split, as_strided) never copy: results share
// storage with the input. reshape copies only when a view is impossible. Copying ops: cat,
// stack, flip, roll, repeat, tile, pad, tril/triu (meshgrid returns expanded views).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "adept/tensor.h"

namespace adept {

/// Resolves one -1 in `shape` for `numel` elements; ShapeError if impossible.
Shape infer_size(const Shape& shape, int64_t numel, const char* op = "view");

Tensor view(const Tensor& x, const Shape& shape);
Tensor reshape(const Tensor& x, const Shape& shape);
Tensor permute(const Tensor& x, const Shape& dims);
Tensor transpose(const Tensor& x, int64_t d0, int64_t d1);
Tensor movedim(const Tensor& x, int64_t source, int64_t destination);
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& x, int64_t dim, int64_t index);
/// Python slicing x[start:stop:step] along dim (step > 0; start/stop clamped like Python).
Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step = 1);
/// Broadcast view; -1 keeps a size. Writing into the result through in-place ops raises.
Tensor expand(const Tensor& x, const Shape& shape);
Tensor squeeze(const Tensor& x, std::optional<int64_t> dim = std::nullopt);
Tensor unsqueeze(const Tensor& x, int64_t dim);
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor unflatten(const Tensor& x, int64_t dim, const Shape& sizes);
std::vector<Tensor> unbind(const Tensor& x, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& x, const Shape& split_sizes, int64_t dim = 0);
Tensor as_strided(const Tensor& x, const Shape& size, const Shape& stride, std::optional<int64_t> storage_offset = std::nullopt);

/// Concatenates along dim; 1-d empty tensors (shape (0,)) are skipped as in PyTorch.
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor flip(const Tensor& x, const Shape& dims);
/// Rolls along dims (flattened when dims is empty).
Tensor roll(const Tensor& x, const Shape& shifts, const Shape& dims = {});
/// Repeats the whole tensor `repeats[i]` times along each dim (len(repeats) >= x.dim()).
Tensor repeat(const Tensor& x, const Shape& repeats);
Tensor tile(const Tensor& x, const Shape& reps);
/// Pads the last dims: pad = (left_last, right_last, left_prev, right_prev, ...);
/// mode "constant" (negative pads crop), "reflect", "replicate", "circular".
Tensor pad(const Tensor& x, const Shape& pad, const std::string& mode = "constant", double value = 0);
/// indexing "ij" (default) or "xy". Like PyTorch, the grids are expanded views of the inputs.
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, const std::string& indexing = "ij");
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor triu(const Tensor& x, int64_t diagonal = 0);

}  // namespace adept
