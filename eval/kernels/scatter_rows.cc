// scatter with a known combiner: a typed loop over each window's rows.
//
// The combiners are the update computations that are one binary op of
// their two parameters (SimpleBinaryReducer: add, multiply, maximum,
// minimum, and, or, xor) and `ROOT p1` (replace, XLA's `.at[].set`).
// Integers wrap; floats follow the elementwise kernels (NaN-propagating
// maximum/minimum, -0 < +0); narrow floats (f16, bf16, f8, f4) are computed
// in float and rounded once per update, as the elementwise kernels do.
//
// Large scatters run on both cores without changing the order in which any
// one element sees its updates: the input is cut into tiles of whole slabs
// (ScatterPlan::slab: no window crosses one), the windows are bucketed by
// tile keeping their order, and each core takes a range of tiles. When the
// result is a fresh buffer the tile's copy of the input is made just before
// its windows, so they combine into lines still in cache.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "eval/interp/elementwise_ops.h"
#include "eval/kernels/reduce_internal.h"
#include "eval/kernels/scalar_apply.h"
#include "eval/kernels/scatter_internal.h"
#include "eval/runtime/parallel.h"
#include "eval/runtime/stream_store.h"
#include "eval/type_dispatch.h"

namespace hlo {
namespace gather_internal {
namespace {

struct Word128 {
  uint64_t lo, hi;
};

// Tiles of about this many bytes: several fit in a core's L2.
constexpr int64_t kTileBytes = 256 << 10;
// Work (bytes copied and updated) below which one core does it all.
constexpr int64_t kParallelBytes = 4 << 20;

// `ROOT p1` of two parameters: the update replaces the element.
bool IsReplace(const Computation& c) {
  const Instruction* root = c.root();
  return c.parameter_count() == 2 && root && root->opcode() == Opcode::kParameter &&
         root->parameter_number() == 1;
}

// One update with a known op on native T.
template <Opcode op, typename T>
inline T Combine(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    if constexpr (op == Opcode::kXor) return a != b;
    if constexpr (op == Opcode::kAnd) return a && b;
    return a || b;  // or
  } else if constexpr (std::is_integral_v<T>) {
    // u16 * u16 promotes to int and can overflow it: wrap in at least 32 bits.
    using U = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
    if constexpr (op == Opcode::kAdd) return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    if constexpr (op == Opcode::kMultiply) {
      return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    }
    if constexpr (op == Opcode::kMaximum) return a > b ? a : b;
    if constexpr (op == Opcode::kMinimum) return a < b ? a : b;
    if constexpr (op == Opcode::kAnd) return a & b;
    if constexpr (op == Opcode::kOr) return a | b;
    return a ^ b;
  } else {
    if constexpr (op == Opcode::kAdd) return a + b;
    if constexpr (op == Opcode::kMultiply) return a * b;
    if constexpr (op == Opcode::kMaximum) return elementwise::MaxOf(a, b);
    return elementwise::MinOf(a, b);
  }
}

// Whether Combine<op, T> is the computation's meaning for element type t.
template <typename T>
bool FastOp(PrimitiveType t, Opcode op) {
  const bool logic = op == Opcode::kAnd || op == Opcode::kOr || op == Opcode::kXor;
  if constexpr (std::is_same_v<T, bool>) return logic;
  if constexpr (std::is_integral_v<T>) return BitWidth(t) == 8 * static_cast<int>(sizeof(T));
  if constexpr (std::is_floating_point_v<T>) return !logic;
  return false;
}

// ---- one window ------------------------------------------------------------

template <Opcode op, typename T>
void CombineWindow(const ScatterPlan& p, uint8_t* dst_bytes, const uint8_t* src_bytes,
                   int64_t obase, int64_t ubase) {
  T* __restrict dst = reinterpret_cast<T*>(dst_bytes);
  const T* __restrict src = reinterpret_cast<const T*>(src_bytes);
  ForEachRow(p.window_axes, obase, ubase,
             [&](int64_t o, int64_t u, int64_t n, int64_t os, int64_t us) {
               if (os == 1 && us == 1) {  // a contiguous row: vectorises
                 T* __restrict d = dst + o;
                 const T* __restrict s = src + u;
                 for (int64_t i = 0; i < n; ++i) d[i] = Combine<op>(d[i], s[i]);
               } else {
                 for (int64_t i = 0; i < n; ++i) {
                   dst[o + i * os] = Combine<op>(dst[o + i * os], src[u + i * us]);
                 }
               }
             });
}

template <Opcode op, typename T>
void CombinePoints(uint8_t* dst_bytes, const uint8_t* src_bytes, const WindowList& windows,
                   const uint32_t* order, int64_t begin, int64_t end) {
  T* dst = reinterpret_cast<T*>(dst_bytes);
  const T* src = reinterpret_cast<const T*>(src_bytes);
  const int64_t* in = windows.input_base.data();
  const int64_t* up = windows.update_base.data();
  for (int64_t i = begin; i < end; ++i) {
    const int64_t w = order ? order[i] : i;
    dst[in[w]] = Combine<op>(dst[in[w]], src[up[w]]);
  }
}

// Replace: the update's bytes overwrite the element's.
template <typename E>
void ReplaceWindow(const ScatterPlan& p, uint8_t* dst_bytes, const uint8_t* src_bytes,
                   int64_t obase, int64_t ubase) {
  E* __restrict dst = reinterpret_cast<E*>(dst_bytes);
  const E* __restrict src = reinterpret_cast<const E*>(src_bytes);
  ForEachRow(p.window_axes, obase, ubase,
             [&](int64_t o, int64_t u, int64_t n, int64_t os, int64_t us) {
               if (os == 1 && us == 1) {
                 std::memcpy(dst + o, src + u, n * sizeof(E));
               } else {
                 for (int64_t i = 0; i < n; ++i) dst[o + i * os] = src[u + i * us];
               }
             });
}

// Narrow floats: a row decoded to float, combined, rounded back once.
template <Opcode op>
void SmallFloatWindow(const ScatterPlan& p, uint8_t* dst, const uint8_t* src, int64_t obase,
                      int64_t ubase) {
  const PrimitiveType t = p.type;
  const int w = ByteWidth(t);
  float a[elementwise::kChunk], b[elementwise::kChunk];
  ForEachRow(p.window_axes, obase, ubase,
             [&](int64_t o, int64_t u, int64_t n, int64_t os, int64_t us) {
               if (os == 1 && us == 1) {
                 for (int64_t i0 = 0; i0 < n; i0 += elementwise::kChunk) {
                   const int64_t m = std::min<int64_t>(elementwise::kChunk, n - i0);
                   uint8_t* d = dst + (o + i0) * w;
                   elementwise::DecodeSmallFloats(t, d, a, m);
                   elementwise::DecodeSmallFloats(t, src + (u + i0) * w, b, m);
                   for (int64_t i = 0; i < m; ++i) a[i] = Combine<op>(a[i], b[i]);
                   elementwise::EncodeSmallFloats(t, a, d, m);
                 }
                 return;
               }
               for (int64_t i = 0; i < n; ++i) {
                 uint8_t* d = dst + (o + i * os) * w;
                 elementwise::DecodeSmallFloats(t, d, a, 1);
                 elementwise::DecodeSmallFloats(t, src + (u + i * us) * w, b, 1);
                 a[0] = Combine<op>(a[0], b[0]);
                 elementwise::EncodeSmallFloats(t, a, d, 1);
               }
             });
}

// ---- tiles -----------------------------------------------------------------

// The windows bucketed by the tile their first element is in, each bucket
// in list order.
struct TileBuckets {
  int64_t tile_elements = 0;
  int64_t count = 0;
  std::vector<int64_t> begin;   // count + 1 offsets into order
  std::vector<uint32_t> order;  // window numbers
};

TileBuckets BucketWindows(const WindowList& windows, int64_t tile_elements, int64_t total) {
  TileBuckets t;
  t.tile_elements = tile_elements;
  t.count = (total + tile_elements - 1) / tile_elements;
  t.begin.assign(t.count + 1, 0);
  for (int64_t o : windows.input_base) ++t.begin[o / tile_elements + 1];
  for (int64_t i = 0; i < t.count; ++i) t.begin[i + 1] += t.begin[i];
  std::vector<int64_t> next(t.begin.begin(), t.begin.end() - 1);
  t.order.resize(windows.size());
  for (size_t w = 0; w < windows.size(); ++w) {
    t.order[next[windows.input_base[w] / tile_elements]++] = static_cast<uint32_t>(w);
  }
  return t;
}

}  // namespace

TypedWindows TypedCombiner(const ScatterPlan& p, const Computation& update) {
  TypedWindows fn;
  if (p.n != 1) return fn;
  const PrimitiveType t = p.type;
  if (IsReplace(update)) {
    switch (ByteWidth(t)) {
      case 1:
        fn.window = &ReplaceWindow<uint8_t>;
        break;
      case 2:
        fn.window = &ReplaceWindow<uint16_t>;
        break;
      case 4:
        fn.window = &ReplaceWindow<uint32_t>;
        break;
      case 8:
        fn.window = &ReplaceWindow<uint64_t>;
        break;
      case 16:
        fn.window = &ReplaceWindow<Word128>;
        break;
      default:
        break;
    }
    return fn;
  }
  std::optional<Opcode> op = SimpleBinaryReducer(update);
  if (!op || update.root()->shape().element_type() != t) return fn;
  if (IsSmallFloat(t)) {
    reduction::DispatchReducer(*op, [&](auto o) {
      if constexpr (o.value == Opcode::kAdd || o.value == Opcode::kMultiply ||
                    o.value == Opcode::kMaximum || o.value == Opcode::kMinimum) {
        fn.window = &SmallFloatWindow<o.value>;
      }
    });
    return fn;
  }
  DispatchType(t, [&](auto tag) {
    using T = typename decltype(tag)::T;
    if constexpr (std::is_arithmetic_v<T>) {
      if (!FastOp<T>(t, *op)) return;
      reduction::DispatchReducer(*op, [&](auto o) {
        if constexpr (!std::is_floating_point_v<T> ||
                      (o.value != Opcode::kAnd && o.value != Opcode::kOr &&
                       o.value != Opcode::kXor)) {
          fn.window = &CombineWindow<o.value, T>;
          fn.points = &CombinePoints<o.value, T>;
        }
      });
    }
  });
  return fn;
}

void ApplyTypedWindows(const ScatterPlan& p, const WindowList& windows, const TypedWindows& fn,
                       const Literal* copy_from, const Literal& updates, Literal& out) {
  uint8_t* dst = out.data();
  const uint8_t* src = updates.data();
  const int64_t width = ByteWidth(p.type);
  const int64_t total = p.input_elements;
  int64_t window_elements = 1;
  for (const Axis& a : p.window_axes) window_elements *= a.size;
  const bool points = fn.points != nullptr && window_elements == 1;
  const int64_t work =
      ((copy_from ? total : 0) + static_cast<int64_t>(windows.size()) * window_elements) * width;
  const uint8_t* from = copy_from ? copy_from->data() : nullptr;
  if (p.slab <= 0 || (work < kParallelBytes && !copy_from) || windows.size() > UINT32_MAX) {
    // One pass in list order (the copy first, split over the cores).
    if (from) {
      const int64_t chunk = std::max<int64_t>(1, kTileBytes / width);
      ParallelRows((total + chunk - 1) / chunk, kParallelBytes / kTileBytes,
                   [&](int64_t b, int64_t e) {
                     const int64_t lo = b * chunk, hi = std::min(total, e * chunk);
                     std::memcpy(dst + lo * width, from + lo * width, (hi - lo) * width);
                   });
    }
    if (points) {
      fn.points(dst, src, windows, nullptr, 0, static_cast<int64_t>(windows.size()));
      return;
    }
    for (size_t w = 0; w < windows.size(); ++w) {
      fn.window(p, dst, src, windows.input_base[w], windows.update_base[w]);
    }
    return;
  }
  const int64_t slabs_per_tile = std::max<int64_t>(1, kTileBytes / (p.slab * width));
  const TileBuckets tiles = BucketWindows(windows, slabs_per_tile * p.slab, total);
  // A copy much larger than the caches is streamed (no read for ownership
  // of every line; the few lines the windows then change are read back).
  const bool stream = from != nullptr && total * width >= kStreamStoreBytes;
  ParallelRows(tiles.count, work < kParallelBytes ? tiles.count : 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      if (from) {
        const int64_t lo = t * tiles.tile_elements;
        const int64_t hi = std::min(total, lo + tiles.tile_elements);
        if (stream) {
          StreamCopy(dst + lo * width, from + lo * width, (hi - lo) * width);
        } else {
          std::memcpy(dst + lo * width, from + lo * width, (hi - lo) * width);
        }
      }
      if (points) {
        fn.points(dst, src, windows, tiles.order.data(), tiles.begin[t], tiles.begin[t + 1]);
        continue;
      }
      for (int64_t i = tiles.begin[t]; i < tiles.begin[t + 1]; ++i) {
        const uint32_t w = tiles.order[i];
        fn.window(p, dst, src, windows.input_base[w], windows.update_base[w]);
      }
    }
    if (stream) StreamStoreFence();
  });
}

}  // namespace gather_internal
}  // namespace hlo
