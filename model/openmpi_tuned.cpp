#include "model/openmpi_tuned.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "model/token_buckets.h"

namespace dtbench::model {
namespace {

// One row of a rule: for communicators of fewer than `ranks_below` ranks, the algorithm of the
// first step whose `bytes_below` the message is under, else `otherwise`.
struct Step {
  double bytes_below;
  int algorithm;
};
struct Rule {
  int ranks_below;  // 0: every larger communicator
  std::vector<Step> steps;
  int otherwise;
};

int choose(const std::vector<Rule>& rules, int n, double bytes) {
  for (const Rule& r : rules) {
    if (r.ranks_below != 0 && n >= r.ranks_below) continue;
    for (const Step& s : r.steps) {
      if (bytes < s.bytes_below) return s.algorithm;
    }
    return r.otherwise;
  }
  return rules.back().otherwise;
}

// coll/tuned 4.1's broadcast rules (ompi_coll_tuned_bcast_intra_dec_fixed).
const std::vector<Rule>& bcast_rules() {
  static const std::vector<Rule> rules = {
      {4,
       {{32, 3},
        {256, 5},
        {512, 3},
        {1024, 7},
        {32768, 1},
        {131072, 5},
        {262144, 2},
        {524288, 1},
        {1048576, 6}},
       5},
      {8, {{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}}, 2},
      {16, {{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}}, 1},
      {32, {{4096, 7}, {1048576, 6}}, 8},
      {64, {{2048, 6}}, 7},
      {128, {}, 7},
      {256, {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}}, 7},
      {1024, {{16384, 7}, {32768, 4}}, 7},
      {2048, {{524288, 7}}, 8},
      {4096, {{262144, 7}}, 8},
      {0, {{8192, 7}, {16384, 5}, {262144, 7}}, 8},
  };
  return rules;
}

// coll/tuned 4.1's reduce rules for a commutative operation
// (ompi_coll_tuned_reduce_intra_dec_fixed).
const std::vector<Rule>& reduce_rules() {
  static const std::vector<Rule> rules = {
      {4, {{8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}}, 3},
      {8, {{4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}}, 1},
      {16, {{8192, 4}}, 5},
      {32, {{4096, 4}}, 5},
      {256, {}, 5},
      {512, {{8192, 5}, {16384, 6}}, 5},
      {2048, {}, 5},
      {4096, {{512, 5}, {1024, 6}, {8192, 5}, {16384, 6}}, 5},
      {0, {{16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}}, 5},
  };
  return rules;
}

// coll/tuned 4.1's allgather rules (ompi_coll_tuned_allgather_intra_dec_fixed), on each rank's
// part: one exchange on 2 ranks, recursive doubling on 3 to 31 at every size.
const std::vector<Rule>& allgather_rules() {
  static const std::vector<Rule> rules = {
      {3, {}, 6},
      {32, {}, 3},
      {64, {{1024, 3}, {65536, 5}}, 4},
      {128, {{512, 3}, {65536, 5}}, 4},
      {256, {{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}}, 4},
      {512, {{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}}, 4},
      {1024, {{64, 3}, {256, 2}, {2048, 3}}, 5},
      {2048, {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}}, 5},
      {4096, {{32, 2}, {128, 3}, {512, 2}, {4096, 3}}, 5},
      {0, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}}, 5},
  };
  return rules;
}

// A tree over ranks 0..n-1 rooted at 0 (the ranks shifted so the root is 0), every child
// numbered above its parent: the children of v, in the order v serves them.
using Children = std::function<std::vector<int>(int v, int n)>;

std::vector<int> linear_children(int v, int n) {
  std::vector<int> c;
  if (v == 0) {
    for (int i = 1; i < n; ++i) c.push_back(i);
  }
  return c;
}

std::vector<int> chain_children(int v, int n) {
  return v + 1 < n ? std::vector<int>{v + 1} : std::vector<int>{};
}

// build_tree with fanout 2: a rank on level L (levels filled in order) has the children
// v + 2^L and v + 2^(L+1).
std::vector<int> binary_children(int v, int n) {
  int level = 0;
  for (int first_of_next = 1; v >= first_of_next; first_of_next = 2 * first_of_next + 1) ++level;
  const int delta = 1 << level;
  std::vector<int> c;
  for (int i = 1; i <= 2 && v + delta * i < n; ++i) c.push_back(v + delta * i);
  return c;
}

// build_bmtree: v's children are v xor 2^k for each k below v's lowest set bit, smallest first.
std::vector<int> binomial_children(int v, int n) {
  std::vector<int> c;
  for (int mask = 1; mask < n; mask <<= 1) {
    const int remote = v ^ mask;
    if (remote < v) break;
    if (remote < n) c.push_back(remote);
  }
  return c;
}

// build_kmtree with radix 4 (coll_tuned_bcast_algorithm_knomial_radix's default): the largest
// subtrees first.
std::vector<int> knomial_children(int v, int n) {
  constexpr int kRadix = 4;
  int mask = 1;
  while (mask < n && v % (kRadix * mask) == 0) mask *= kRadix;
  std::vector<int> c;
  for (mask /= kRadix; mask > 0; mask /= kRadix) {
    for (int r = 1; r < kRadix; ++r) {
      if (v + mask * r < n) c.push_back(v + mask * r);
    }
  }
  return c;
}

// A broadcast down the tree from `start`: each rank sends the whole message to its children one
// after the other; the last rank to receive ends it. Through token buckets
// (model/token_buckets.h) a sender's way out rests while its parent sends.
double down(const Children& children, int n, double bytes, Buckets& b, double start) {
  std::vector<double> at(static_cast<size_t>(n), start);
  double last = start;
  for (int v = 0; v < n; ++v) {
    double free = at[static_cast<size_t>(v)];
    for (int child : children(v, n)) {
      free = at[static_cast<size_t>(child)] = b.send(v, child, bytes, free);
      last = std::max(last, free);
    }
  }
  return last;
}

// A reduce up the tree from `start`: each rank takes its children's partial sums one after the
// other, each when the child has its own and the rank's way in is free.
double up(const Children& children, int n, double bytes, Buckets& b, double start) {
  std::vector<double> done(static_cast<size_t>(n), start);
  for (int v = n - 1; v >= 0; --v) {
    double end = start;
    for (int child : children(v, n)) {
      end = b.send(child, v, bytes, std::max(end, done[static_cast<size_t>(child)]));
    }
    done[static_cast<size_t>(v)] = end;
  }
  return done[0];
}

int log2_ceil(int n) {
  int steps = 0;
  for (int reach = 1; reach < n; reach *= 2) ++steps;
  return steps;
}

// Halving from the whole message: a binomial scatter's steps (S/2, S/4, ...), the same sizes a
// recursive halving's reduce-scatter moves.
double halving_s(int n, double bytes, const Link& link) {
  double t = 0;
  for (int k = 1; k <= log2_ceil(n); ++k) t += link.time(bytes / std::pow(2.0, k));
  return t;
}

}  // namespace

TunedBcast tuned_bcast(int n, double bytes) {
  return static_cast<TunedBcast>(choose(bcast_rules(), n, bytes));
}

TunedReduce tuned_reduce(int n, double bytes) {
  return static_cast<TunedReduce>(choose(reduce_rules(), n, bytes));
}

TunedAllgather tuned_allgather(int n, double bytes) {
  return static_cast<TunedAllgather>(choose(allgather_rules(), n, bytes));
}

namespace {

// One broadcast of the rules' choice on the buckets from `start`: when it ends. The scatter and
// allgather algorithms' steps are each on every link at once, priced as Link::time.
double broadcast_on(int n, double bytes, const Link& link, Buckets& b, double start) {
  switch (tuned_bcast(n, bytes)) {
    case TunedBcast::linear:
      return down(linear_children, n, bytes, b, start);
    case TunedBcast::chain:
    case TunedBcast::pipeline:
      return down(chain_children, n, bytes, b, start);
    case TunedBcast::split_binary:
    case TunedBcast::binary:
      return down(binary_children, n, bytes, b, start);
    case TunedBcast::binomial:
      return down(binomial_children, n, bytes, b, start);
    case TunedBcast::knomial:
      return down(knomial_children, n, bytes, b, start);
    case TunedBcast::scatter_allgather: {
      // Recursive doubling gathers back what the scatter halved.
      double t = halving_s(n, bytes, link);
      for (int k = 0; k < log2_ceil(n); ++k) t += link.time(bytes * std::pow(2.0, k) / n);
      return start + t;
    }
    case TunedBcast::scatter_allgather_ring:
      return start + halving_s(n, bytes, link) + (n - 1) * link.time(bytes / n);
  }
  return start;
}

// One reduce of the rules' choice on the buckets from `start`: when it ends.
double reduce_on(int n, double bytes, const Link& link, Buckets& b, double start) {
  switch (tuned_reduce(n, bytes)) {
    case TunedReduce::linear:
      return up(linear_children, n, bytes, b, start);
    case TunedReduce::chain:
    case TunedReduce::pipeline:
      return up(chain_children, n, bytes, b, start);
    case TunedReduce::binary:
    case TunedReduce::in_order_binary:
      return up(binary_children, n, bytes, b, start);
    case TunedReduce::binomial:
      return up(binomial_children, n, bytes, b, start);
    // A reduce-scatter by recursive halving, then a binomial gather of the pieces to the root.
    case TunedReduce::rabenseifner:
      return start + 2 * halving_s(n, bytes, link);
  }
  return start;
}

}  // namespace

double openmpi_bcast_call(int n, double bytes, const Link& link, Buckets& b, double start) {
  return n <= 1 ? start : broadcast_on(n, bytes, link, b, start);
}

double openmpi_reduce_call(int n, double bytes, const Link& link, Buckets& b, double start) {
  return n <= 1 ? start : reduce_on(n, bytes, link, b, start);
}

double openmpi_bcast_s(int n, double bytes, const Link& link) {
  if (n <= 1) return 0;
  return settled_call_s(
      n, link, [&](Buckets& b, double start) { return broadcast_on(n, bytes, link, b, start); });
}

double openmpi_reduce_s(int n, double bytes, const Link& link) {
  if (n <= 1) return 0;
  return settled_call_s(
      n, link, [&](Buckets& b, double start) { return reduce_on(n, bytes, link, b, start); });
}

double openmpi_reduce_bcast_s(int n, double bytes, const Link& link) {
  if (n <= 1) return 0;
  return settled_call_s(n, link, [&](Buckets& b, double start) {
    return broadcast_on(n, bytes, link, b, reduce_on(n, bytes, link, b, start));
  });
}

}  // namespace dtbench::model
