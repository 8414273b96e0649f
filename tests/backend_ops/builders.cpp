// Builders of the case table: make_case, shape-set families, the elementwise prototypes and the
// assembled table.
#include <cstdio>
#include <cstdlib>
#include <set>

#include "harness.h"

namespace adept::backend_ops {

Case make_case(std::string op, std::string variant, std::vector<Input> inputs, CaseFn fn, Dtypes dtypes) {
  Case c;
  c.label = variant.empty() ? op : op + "/" + variant;
  c.op = std::move(op);
  c.inputs = std::move(inputs);
  c.fn = std::move(fn);
  c.dtypes = std::move(dtypes);
  c.layouts = kViewLayouts;
  return c;
}

void add_family(std::vector<Case>& out, const Case& proto, const std::vector<ShapeSet>& sets) {
  for (size_t k = 0; k < sets.size(); ++k) {
    Case c = proto;
    if (sets[k].shapes.size() != c.inputs.size()) {
      std::fprintf(stderr, "case %s: shape set %s has %zu shapes for %zu inputs\n", c.label.c_str(), sets[k].name.c_str(),
                   sets[k].shapes.size(), c.inputs.size());
      std::abort();
    }
    for (size_t i = 0; i < c.inputs.size(); ++i) c.inputs[i].shape = sets[k].shapes[i];
    if (k > 0) {
      c.label += "/" + sets[k].name;
      c.dtypes = {proto.dtypes[0]};
      c.layouts.clear();
      c.perf_shapes.clear();
    }
    out.push_back(std::move(c));
  }
}

const std::vector<ShapeSet>& unary_shapes() {
  static const std::vector<ShapeSet> s = {
      {"main", {{2, 3, 4}}}, {"2d", {{3, 5}}}, {"empty", {{0, 3}}}, {"0d", {{}}}};
  return s;
}

const std::vector<ShapeSet>& binary_shapes() {
  static const std::vector<ShapeSet> s = {
      {"main", {{2, 3, 4}, {2, 3, 4}}}, {"broadcast", {{2, 3, 4}, {3, 1}}}, {"empty", {{0, 4}, {1, 4}}},
      {"0d", {{}, {2, 3}}},             {"scalar_rhs", {{5}, {}}}};
  return s;
}

Case unary_proto(std::string op, std::string variant, UnaryFn f, Dtypes d, Gen g) {
  return make_case(std::move(op), std::move(variant), {in({}, g)},
                   [f](const Tensors& x) -> Tensors { return {f(x[0])}; }, std::move(d))
      .perf({{1 << 20}});
}

Case binary_proto(std::string op, std::string variant, BinaryFn f, Dtypes d, Gen a, Gen b) {
  return make_case(std::move(op), std::move(variant), {in({}, a), in({}, b)},
                   [f](const Tensors& x) -> Tensors { return {f(x[0], x[1])}; }, std::move(d))
      .perf({{1 << 20}, {1 << 20}});
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  add_pointwise_cases(cases);
  add_reduce_cases(cases);
  add_linalg_cases(cases);
  add_shape_cases(cases);
  add_index_cases(cases);
  add_creation_cases(cases);
  add_nn_cases(cases);
  add_optim_cases(cases);
  std::set<std::string> labels;
  for (const Case& c : cases) {
    if (!labels.insert(c.label).second) {
      std::fprintf(stderr, "duplicate case label %s\n", c.label.c_str());
      std::abort();
    }
  }
  return cases;
}

}  // namespace adept::backend_ops
