// Tensor member functions and operators: thin forwards to the free functions in adept/ops.h.
#include "ops/helpers.h"

namespace adept {

Tensor Tensor::view(const Shape& s) const { return adept::view(*this, s); }
Tensor Tensor::reshape(const Shape& s) const { return adept::reshape(*this, s); }
Tensor Tensor::permute(const Shape& d) const { return adept::permute(*this, d); }
Tensor Tensor::transpose(int64_t a, int64_t b) const { return adept::transpose(*this, a, b); }
Tensor Tensor::t() const {
  ADEPT_CHECK(dim() <= 2, ShapeError, "t() expects a tensor with <= 2 dimensions, but self is {}D", dim());
  return dim() < 2 ? adept::view(*this, sizes()) : adept::transpose(*this, 0, 1);
}
Tensor Tensor::narrow(int64_t d, int64_t s, int64_t l) const { return adept::narrow(*this, d, s, l); }
Tensor Tensor::select(int64_t d, int64_t i) const { return adept::select(*this, d, i); }
Tensor Tensor::slice(int64_t d, std::optional<int64_t> a, std::optional<int64_t> b, int64_t st) const {
  return adept::slice(*this, d, a, b, st);
}
Tensor Tensor::expand(const Shape& s) const { return adept::expand(*this, s); }
Tensor Tensor::squeeze() const { return adept::squeeze(*this); }
Tensor Tensor::squeeze(int64_t d) const { return adept::squeeze(*this, d); }
Tensor Tensor::unsqueeze(int64_t d) const { return adept::unsqueeze(*this, d); }
Tensor Tensor::flatten(int64_t s, int64_t e) const { return adept::flatten(*this, s, e); }
Tensor Tensor::unflatten(int64_t d, const Shape& s) const { return adept::unflatten(*this, d, s); }
std::vector<Tensor> Tensor::unbind(int64_t d) const { return adept::unbind(*this, d); }
std::vector<Tensor> Tensor::chunk(int64_t c, int64_t d) const { return adept::chunk(*this, c, d); }
std::vector<Tensor> Tensor::split(int64_t s, int64_t d) const { return adept::split(*this, s, d); }
std::vector<Tensor> Tensor::split(const Shape& s, int64_t d) const { return adept::split(*this, s, d); }
Tensor Tensor::as_strided(const Shape& s, const Shape& st, std::optional<int64_t> o) const {
  return adept::as_strided(*this, s, st, o);
}

Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const { return adept::add(*this, o, alpha); }
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const { return adept::sub(*this, o, alpha); }
Tensor Tensor::mul(const Tensor& o) const { return adept::mul(*this, o); }
Tensor Tensor::div(const Tensor& o) const { return adept::div(*this, o); }
Tensor Tensor::pow(const Tensor& o) const { return adept::pow(*this, o); }
Tensor Tensor::pow(const Scalar& e) const { return adept::pow(*this, e); }
Tensor& Tensor::add_(const Tensor& o, const Scalar& alpha) { return adept::add_(*this, o, alpha); }
Tensor& Tensor::add_(const Scalar& o) { return adept::add_(*this, o); }
Tensor& Tensor::sub_(const Tensor& o, const Scalar& alpha) { return adept::sub_(*this, o, alpha); }
Tensor& Tensor::mul_(const Tensor& o) { return adept::mul_(*this, o); }
Tensor& Tensor::mul_(const Scalar& o) { return adept::mul_(*this, o); }
Tensor& Tensor::div_(const Tensor& o) { return adept::div_(*this, o); }
Tensor& Tensor::div_(const Scalar& o) { return adept::div_(*this, o); }
Tensor& Tensor::clamp_(std::optional<Scalar> mn, std::optional<Scalar> mx) { return adept::clamp_(*this, mn, mx); }
Tensor Tensor::neg() const { return adept::neg(*this); }
Tensor Tensor::abs() const { return adept::abs(*this); }
Tensor Tensor::exp() const { return adept::exp(*this); }
Tensor Tensor::log() const { return adept::log(*this); }
Tensor Tensor::sqrt() const { return adept::sqrt(*this); }
Tensor Tensor::sigmoid() const { return adept::sigmoid(*this); }
Tensor Tensor::relu() const { return adept::relu(*this); }
Tensor Tensor::tanh() const { return adept::tanh(*this); }
Tensor Tensor::sum() const { return adept::sum(*this); }
Tensor Tensor::sum(const Shape& d, bool k) const { return adept::sum(*this, d, k); }
Tensor Tensor::mean() const { return adept::mean(*this); }
Tensor Tensor::mean(const Shape& d, bool k) const { return adept::mean(*this, d, k); }
Tensor Tensor::max() const { return adept::max(*this); }
Tensor Tensor::min() const { return adept::min(*this); }
Tensor Tensor::argmax(std::optional<int64_t> d, bool k) const { return adept::argmax(*this, d, k); }
Tensor Tensor::matmul(const Tensor& o) const { return adept::matmul(*this, o); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Scalar& a, const Tensor& b) { return rsub(b, a); }
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Scalar& a, const Tensor& b) { return div(a, b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator==(const Tensor& a, const Scalar& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Scalar& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Scalar& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return ge(a, b); }
Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }
Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }
Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }
Tensor operator~(const Tensor& a) { return bitwise_not(a); }

}  // namespace adept
