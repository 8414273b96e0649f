// Matrix products: matmul (with batch broadcasting), mm, bmm, addmm, dot.
#include "ops/autocast_scope.h"
#include "ops/helpers.h"

namespace adept {

using autograd::record;
using autograd::SavedTensor;
using Grads = std::vector<Tensor>;

namespace {

void check_matmul_dtypes(const char* op, const Tensor& a, const Tensor& b) {
  ADEPT_CHECK(a.dtype() == b.dtype(), DtypeError, "{}: expected both operands to have the same dtype, but got {} and {}",
              op, dtype_name(a.dtype()), dtype_name(b.dtype()));
  ADEPT_CHECK(a.dtype() != kBool, DtypeError, "{}: not implemented for 'bool'", op);
  check_same_device(op, {&a, &b});
}

// (B, M, K) @ (B, K, N) with autograd.
Tensor bmm_impl(const Tensor& a, const Tensor& b, const char* op) {
  Tensor out = empty({a.size(0), a.size(1), b.size(2)}, TensorOptions(a.dtype()).set_device(a.device()));
  bmm_kernel().get(a.device(), op)(out, a, b);
  if (autograd::needs_grad({&a, &b})) {
    SavedTensor A = a, B = b;
    bool ga = a.requires_grad(), gb = b.requires_grad();
    record("BmmBackward0", {a, b}, {out}, [=](const Grads& g) {
      return Grads{ga ? bmm_impl(g[0], B.get().transpose(1, 2), "bmm") : Tensor(),
                   gb ? bmm_impl(A.get().transpose(1, 2), g[0], "bmm") : Tensor()};
    });
  }
  return out;
}

}  // namespace

Tensor bmm(const Tensor& a, const Tensor& b) {
  if (autocast::Scope s(autocast::Policy::Lower, {&a, &b}); s) return bmm(s[0], s[1]);
  check_matmul_dtypes("bmm", a, b);
  ADEPT_CHECK(a.dim() == 3 && b.dim() == 3, ShapeError, "bmm: expected 3-D tensors, got {} and {}", shape_str(a.sizes()),
              shape_str(b.sizes()));
  ADEPT_CHECK(a.size(0) == b.size(0) && a.size(2) == b.size(1), ShapeError,
              "bmm: expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].", a.size(0),
              a.size(2), b.size(0), b.size(1));
  return bmm_impl(a, b, "bmm");
}

Tensor mm(const Tensor& a, const Tensor& b) {
  if (autocast::Scope s(autocast::Policy::Lower, {&a, &b}); s) return mm(s[0], s[1]);
  check_matmul_dtypes("mm", a, b);
  ADEPT_CHECK(a.dim() == 2 && b.dim() == 2, ShapeError, "mm: expected 2-D tensors, got {} and {}", shape_str(a.sizes()),
              shape_str(b.sizes()));
  ADEPT_CHECK(a.size(1) == b.size(0), ShapeError,
              "mm: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", a.size(0), a.size(1), b.size(0), b.size(1));
  return fresh_result(bmm_impl(a.unsqueeze(0), b.unsqueeze(0), "mm").squeeze(0));
}

Tensor dot(const Tensor& a, const Tensor& b) {
  check_matmul_dtypes("dot", a, b);
  ADEPT_CHECK(a.dim() == 1 && b.dim() == 1 && a.size(0) == b.size(0), ShapeError,
              "dot: expected 1-D tensors of the same size, got {} and {}", shape_str(a.sizes()), shape_str(b.sizes()));
  return fresh_result(mm(a.unsqueeze(0), b.unsqueeze(1)).view({}));
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (autocast::Scope s(autocast::Policy::Lower, {&a, &b}); s) return matmul(s[0], s[1]);
  check_matmul_dtypes("matmul", a, b);
  ADEPT_CHECK(a.dim() > 0 && b.dim() > 0, ShapeError,
              "matmul: both arguments to matmul need to be at least 1D, but they are {}D and {}D", a.dim(), b.dim());
  if (a.dim() == 1 && b.dim() == 1) return dot(a, b);
  Tensor A = a.dim() == 1 ? a.unsqueeze(0) : a;
  Tensor B = b.dim() == 1 ? b.unsqueeze(1) : b;
  ADEPT_CHECK(A.size(-1) == B.size(-2), ShapeError,
              "matmul: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{}) for inputs {} and {}", A.size(-2),
              A.size(-1), B.size(-2), B.size(-1), shape_str(a.sizes()), shape_str(b.sizes()));
  Shape ba(A.sizes().begin(), A.sizes().end() - 2), bb(B.sizes().begin(), B.sizes().end() - 2);
  Shape batch = broadcast_shapes(ba, bb);
  int64_t M = A.size(-2), K = A.size(-1), N = B.size(-1);
  int64_t nb = 1;
  for (int64_t s : batch) nb *= s;
  Shape ea = batch, eb = batch;
  ea.insert(ea.end(), {M, K});
  eb.insert(eb.end(), {K, N});
  Tensor a3, b3;
  if (bb.empty() && !ba.empty() && B.dim() == 2) {
    // Fold the batch into M: (..., M, K) @ (K, N) is one GEMM.
    Tensor out2 = mm(A.reshape({-1, K}), B);
    Shape os = batch;
    os.insert(os.end(), {M, N});
    Tensor out = out2.view(os);
    if (b.dim() == 1) out = out.squeeze(-1);
    return fresh_result(out);
  }
  a3 = A.expand(ea).reshape({nb, M, K});
  b3 = B.expand(eb).reshape({nb, K, N});
  Tensor out = bmm_impl(a3, b3, "matmul");
  Shape os = batch;
  os.insert(os.end(), {M, N});
  out = out.view(os);
  if (a.dim() == 1) out = out.squeeze(-2);
  if (b.dim() == 1) out = out.squeeze(-1);
  return fresh_result(out);
}

Tensor addmm(const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha) {
  if (autocast::Scope s(autocast::Policy::Lower, {&input, &m1, &m2}); s) return addmm(s[0], s[1], s[2], beta, alpha);
  Tensor prod = mm(m1, m2);
  ADEPT_CHECK(broadcast_shapes(input.sizes(), prod.sizes()) == prod.sizes(), ShapeError,
              "addmm: input of shape {} cannot be broadcast to the product's shape {}", shape_str(input.sizes()),
              shape_str(prod.sizes()));
  Tensor p = alpha.to_double() == 1.0 ? prod : prod * alpha;
  if (beta.to_double() == 0.0) return p + zeros_like(input).expand(prod.sizes());  // beta=0 ignores NaN in input
  return (beta.to_double() == 1.0 ? input : input * beta) + p;
}

}  // namespace adept
