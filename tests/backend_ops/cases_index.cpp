// Cases of include/adept/ops/index.h and Tensor::index / index_put_: gather/scatter, index_select,
// index_add, advanced indexing, masks, nonzero, unique, sort/argsort/topk, one_hot. Index tensors
// come from generators valid for the op (idx: in range; uidx: distinct where duplicates would make
// the result order-dependent).
#include "harness.h"

namespace adept::backend_ops {
namespace {

using Fn = std::function<Tensors(const Tensors&)>;

Case& add(std::vector<Case>& out, const std::string& op, const std::string& variant, std::vector<Input> inputs, Fn f,
          Dtypes d = kAll) {
  out.push_back(make_case(op, variant, std::move(inputs), std::move(f), std::move(d)));
  return out.back();
}

Tensors one(Tensor t) { return {std::move(t)}; }
Tensors pair(std::tuple<Tensor, Tensor> t) { return {std::get<0>(t), std::get<1>(t)}; }

void gather_scatter(std::vector<Case>& out) {
  add(out, "gather", "", {in({3, 5}), idx({3, 4}, 0, 1)}, [](const Tensors& x) { return one(gather(x[0], 1, x[1])); });
  add(out, "gather", "dim0", {in({4, 3}), idx({2, 3}, 0, 0)}, [](const Tensors& x) { return one(gather(x[0], 0, x[1])); });
  add(out, "gather", "empty", {in({3, 5}), idx({3, 0}, 0, 1)}, [](const Tensors& x) { return one(gather(x[0], 1, x[1])); });
  add(out, "scatter", "", {in({5, 3}), uidx({2, 3}, 0, 0), in({2, 3})},
      [](const Tensors& x) { return one(scatter(x[0], 0, x[1], x[2])); });
  add(out, "scatter", "value", {in({5, 3}), uidx({2, 3}, 0, 0)},
      [](const Tensors& x) { return one(scatter(x[0], 0, x[1], 1.5)); });
  add(out, "scatter_add", "", {in({5, 3}), idx({4, 3}, 0, 0), in({4, 3})},
      [](const Tensors& x) { return one(scatter_add(x[0], 0, x[1], x[2])); }, kNum);
  add(out, "scatter_", "", {in({3, 5}), uidx({3, 2}, 0, 1), in({3, 2})}, [](const Tensors& x) {
    Tensor y = x[0].clone();
    scatter_(y, 1, x[1], x[2]);
    return one(y);
  });
  add(out, "scatter_add_", "", {in({3, 5}), idx({3, 6}, 0, 1), in({3, 6})}, [](const Tensors& x) {
    Tensor y = x[0].clone();
    scatter_add_(y, 1, x[1], x[2]);
    return one(y);
  }, kNum);
  // Duplicate targets: the last write wins (as on the CPU); long index dims run in several segments
  // on drivers with a loop limit, and the index varies along dim 0 too.
  add(out, "scatter", "dup", {in({3, 4}), idx({6, 4}, 0, 0), in({6, 4})},
      [](const Tensors& x) { return one(scatter(x[0], 0, x[1], x[2])); })
      .no_gradcheck();  // overwritten values get a gradient too (as in PyTorch)
  add(out, "scatter_add", "long", {in({2, 4}), idx({2, 20000}, 0, 1), in({2, 20000})},
      [](const Tensors& x) { return one(scatter_add(x[0], 1, x[1], x[2])); }, {kFloat32, kInt64})
      .no_gradcheck();
}

void index_ops(std::vector<Case>& out) {
  add(out, "index_select", "", {in({4, 3}), idx({5}, 0, 0)}, [](const Tensors& x) { return one(index_select(x[0], 0, x[1])); });
  add(out, "index_select", "dim1", {in({2, 6}), idx({3}, 0, 1)},
      [](const Tensors& x) { return one(index_select(x[0], 1, x[1])); });
  add(out, "index_select", "empty", {in({4, 3}), idx({0}, 0, 0)},
      [](const Tensors& x) { return one(index_select(x[0], 0, x[1])); });
  add(out, "index_add", "", {in({5, 3}), idx({4}, 0, 0), in({4, 3})},
      [](const Tensors& x) { return one(index_add(x[0], 0, x[1], x[2], 2)); }, kNum);
  add(out, "index_add_", "", {in({3, 5}), idx({2}, 0, 1), in({3, 2})}, [](const Tensors& x) {
    Tensor y = x[0].clone();
    index_add_(y, 1, x[1], x[2]);
    return one(y);
  }, kNum);
  add(out, "index", "", {in({5, 3}), idx({2, 4}, 0, 0, -5)}, [](const Tensors& x) { return one(index(x[0], {x[1]})); });
  add(out, "index", "two", {in({4, 5}), idx({3}, 0, 0), idx({3}, 0, 1)},
      [](const Tensors& x) { return one(index(x[0], {x[1], x[2]})); });
  add(out, "index", "colon", {in({3, 5}), idx({4}, 0, 1)}, [](const Tensors& x) { return one(index(x[0], {Tensor(), x[1]})); });
  add(out, "index_put", "", {in({5, 3}), uidx({2}, 0, 0), in({2, 3})},
      [](const Tensors& x) { return one(index_put(x[0], {x[1]}, x[2])); });
  add(out, "index_put", "accumulate", {in({5, 3}), idx({4}, 0, 0), in({4, 3})},
      [](const Tensors& x) { return one(index_put(x[0], {x[1]}, x[2], true)); }, kNum);
  add(out, "index_put", "dup", {in({4, 3}), idx({7}, 0, 0), in({7, 3})},
      [](const Tensors& x) { return one(index_put(x[0], {x[1]}, x[2])); })
      .no_gradcheck();  // overwritten values get a gradient too (as in PyTorch)
  add(out, "index_put", "accumulate_apart", {in({4, 5, 3}), idx({3, 1}, 0, 0), idx({1, 4}, 0, 2), in({3, 4, 5})},
      [](const Tensors& x) { return one(index_put(x[0], {x[1], Tensor(), x[2]}, x[3], true)); }, kNum);
  add(out, "index_put", "accumulate_long", {in({8, 2}), idx({20000}, 0, 0), in({20000, 2})},
      [](const Tensors& x) { return one(index_put(x[0], {x[1]}, x[2], true)); }, {kFloat32, kInt32})
      .no_gradcheck()
      .with_tol(50);  // float32 sums of ~2500 terms against the CPU's float64 reference
  add(out, "index_put", "long", {in({8, 2}), idx({20000}, 0, 0), in({20000, 2})},
      [](const Tensors& x) { return one(index_put(x[0], {x[1]}, x[2])); }, {kFloat32})
      .no_gradcheck();
  add(out, "index_put_", "", {in({4, 5}), uidx({3}, 0, 0), idx({3}, 0, 1), in({3})}, [](const Tensors& x) {
    Tensor y = x[0].clone();
    index_put_(y, {x[1], x[2]}, x[3]);
    return one(y);
  });
  // Tensor::index / index_put_ with slices, None, Ellipsis, ints and masks
  add(out, "__getitem__", "slices", {in({3, 7})},
      [](const Tensors& x) { return one(x[0].index({None, 1, Slice(None, None, 3)})); });
  add(out, "__getitem__", "ellipsis", {in({2, 3, 4})}, [](const Tensors& x) { return one(x[0].index({Ellipsis, 0})); });
  add(out, "__getitem__", "mask", {in({3, 4}), mask({3, 4})}, [](const Tensors& x) { return one(x[0].index({x[1]})); });
  add(out, "__getitem__", "tensor", {in({5, 3}), idx({2, 4}, 0, 0)}, [](const Tensors& x) { return one(x[0].index({x[1]})); });
  add(out, "__setitem__", "slice", {in({3, 5}), in({3, 1})}, [](const Tensors& x) {
    Tensor y = x[0].clone();
    y.index_put_({Slice(), Slice(None, None, 2)}, x[1]);
    return one(y);
  });
  add(out, "__setitem__", "mask_scalar", {in({3, 4}), mask({3, 4})}, [](const Tensors& x) {
    Tensor y = x[0].clone();
    y.index_put_({x[1]}, 0.0);
    return one(y);
  });
}

void masks_and_sorting(std::vector<Case>& out) {
  add(out, "masked_select", "", {in({3, 4}), mask({3, 4})}, [](const Tensors& x) { return one(masked_select(x[0], x[1])); });
  add(out, "masked_select", "broadcast", {in({3, 4}), mask({4})},
      [](const Tensors& x) { return one(masked_select(x[0], x[1])); });
  add(out, "nonzero", "", {in({3, 4}, Gen::Small)}, [](const Tensors& x) { return one(nonzero(x[0])); });
  add(out, "nonzero", "large", {in({30, 70, 100}, Gen::Small)}, [](const Tensors& x) { return one(nonzero(x[0])); },
      {kInt32, kFloat32});
  add(out, "nonzero", "empty", {in({0, 3}, Gen::Small)}, [](const Tensors& x) { return one(nonzero(x[0])); });
  add(out, "nonzero", "0d", {in({}, Gen::Small)}, [](const Tensors& x) { return one(nonzero(x[0])); });
  const auto unique_all = [](const Tensors& x) {
    auto [v, inv, cnt] = unique(x[0], true, true, true);
    return Tensors{v, inv, cnt};
  };
  add(out, "unique", "", {in({3, 4}, Gen::Small)}, unique_all);
  add(out, "unique", "dim0", {in({5, 2}, Gen::Unit)}, [](const Tensors& x) {
    auto [v, inv, cnt] = unique(x[0], true, true, true, 0);
    return Tensors{v, inv, cnt};
  });
  for (Case& c : out)
    if (c.op == "unique") c.no_grad();
  add(out, "sort", "", {in({3, 5}, Gen::Distinct)}, [](const Tensors& x) { return pair(sort(x[0])); }, kNum);
  add(out, "sort", "dim0_desc", {in({4, 3}, Gen::Distinct)}, [](const Tensors& x) { return pair(sort(x[0], 0, true)); }, kNum);
  add(out, "sort", "stable", {in({3, 8}, Gen::Small)}, [](const Tensors& x) { return pair(sort(x[0], 1, false, true)); });
  add(out, "sort", "large", {in({2, 4096}, Gen::Distinct)}, [](const Tensors& x) { return pair(sort(x[0])); }, {kFloat32});
  // NaN (the largest), +-inf and +-0 (equal: stable) with many ties
  add(out, "sort", "special", {in({3, 9}, Gen::Special)}, [](const Tensors& x) { return pair(sort(x[0])); }, kFloat);
  add(out, "sort", "special_desc", {in({3, 9}, Gen::Special)}, [](const Tensors& x) { return pair(sort(x[0], 1, true)); },
      kFloat);
  // rows longer than one shared-memory block (2048 on Vulkan), with ties
  // (gradcheck needs values further apart than finite differences move them)
  add(out, "sort", "long_ties", {in({1, 3000}, Gen::Small)}, [](const Tensors& x) { return pair(sort(x[0])); });
  out.back().no_gradcheck();
  add(out, "sort", "long_special_desc", {in({1, 5000}, Gen::Special)},
      [](const Tensors& x) { return pair(sort(x[0], -1, true)); }, kFloat);
  add(out, "topk", "long_ties", {in({2, 3000}, Gen::Small)}, [](const Tensors& x) { return pair(topk(x[0], 7)); }, kNum);
  add(out, "sort", "empty", {in({0, 3}, Gen::Distinct)}, [](const Tensors& x) { return pair(sort(x[0])); }, {kFloat32});
  add(out, "argsort", "", {in({3, 5}, Gen::Distinct)}, [](const Tensors& x) { return one(argsort(x[0])); }, kNum);
  add(out, "argsort", "stable_desc", {in({3, 8}, Gen::Small)},
      [](const Tensors& x) { return one(argsort(x[0], -1, true, true)); });
  add(out, "topk", "", {in({3, 5}, Gen::Distinct)}, [](const Tensors& x) { return pair(topk(x[0], 2)); }, kNum);
  add(out, "topk", "smallest_dim0", {in({4, 3}, Gen::Distinct)},
      [](const Tensors& x) { return pair(topk(x[0], 3, 0, false)); }, kNum);
  add(out, "topk", "zero", {in({2, 5}, Gen::Distinct)}, [](const Tensors& x) { return pair(topk(x[0], 0)); }, kFloat);
  add(out, "one_hot", "", {range({3, 4}, 0, 4)}, [](const Tensors& x) { return one(one_hot(x[0])); }, {kInt64});
  add(out, "one_hot", "classes", {range({5}, 0, 3)}, [](const Tensors& x) { return one(one_hot(x[0], 7)); }, {kInt64});
}

}  // namespace

void add_index_cases(std::vector<Case>& out) {
  gather_scatter(out);
  index_ops(out);
  masks_and_sorting(out);
}

}  // namespace adept::backend_ops
