// Shared declarations of the two passes of an indexed write (index_links.comp, index_put.comp).
//
// The write: self[self(p) + offset[p] * mul] (=, +=) values[p] for every position p of one shape P.
// The dims of P where self's stride is 0 are the index dims ("I"): only positions that differ in them
// alone can hit the same element. The others are the rest dims ("R"). Index positions b (row-major over
// the I dims) are processed in segments [s0, s0 + seg) so that no invocation loops more than the
// driver allows; segments run in order, which keeps the results of the whole in order.
//
// Pass 1 (index_links) finds, for each b of the segment and each coordinate of the R dims the offset
// varies along ("keyed" dims), the next b' > b of the segment with the same offset (relative to s0, -1
// if none); accumulating, a b that has an earlier equal b' stores its next as -3 - next (see
// link_next). Pass 2 (index_put) writes, per (R
// coordinate, b): for "=", only the b without a next one (the last write wins); for "+=", the first b
// of each chain sums self and the values of the chain in increasing order.
layout(local_size_x = 256) in;
layout(constant_id = 0) const bool ACCUMULATE = false;
layout(push_constant) uniform Push {
  uint s0;        // first index position of the segment
  uint seg;       // positions in the segment
  uint n;         // invocations: (keyed R coordinates, or all R coordinates) x seg
  uint groups_x;  // workgroups along x of the 2-d grid
  int mul;        // scale of the offsets (a dim's stride for scatter, 1 for advanced indexing)
} pc;

// The next position of a stored link, and whether the link's position is the first of its offset.
int link_next(int link) { return link >= -1 ? link : -3 - link; }
bool link_first(int link) { return link >= -1; }

// The invocation's item on the 2-d grid, or n when it has none.
uint item() {
  uint g = (gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
  return min(g, pc.n);
}

// base plus the element offset of index position b (row-major over the ni I dims) for an operand
// whose I-strides start at meta[strides]; the I sizes start at meta[sizes].
int index_offset(uint b, int ni, int sizes, int strides, int base) {
  for (int d = ni - 1; d >= 0; --d) {
    uint s = uint(meta[sizes + d]);
    base += int(b % s) * meta[strides + d];
    b /= s;
  }
  return base;
}
