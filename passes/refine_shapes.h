// refine-shapes: makes a module whose shapes have unbounded dimensions
// (`f32[?,4]`, what StableHLO's `tensor<?x4xf32>` becomes: a shape-
// polymorphic jax.export) static for the entry parameter shapes of one run,
// as StableHLO's refine-shapes does before XLA compiles such a module (JAX
// runs it when an export is called):
//  * each entry parameter takes its argument's shape (same element type and
//    rank; a static dimension must match, an unbounded one takes any size);
//  * shapes flow forward, into the computations of call, while and
//    conditional (refined as copies, one per distinct set of argument
//    shapes, so that a computation called with other shapes elsewhere keeps
//    its own); small integer arguments computed from shapes (JAX's
//    dimension variables, `jax.global_constant`) go into those copies as
//    constants;
//  * get-dimension-size of a dimension now known becomes a constant, and
//    integer arithmetic on such constants (the shape computations) is
//    folded;
//  * the custom calls XLA's translation writes for the dynamic ops
//    (mhlo.dynamic_broadcast_in_dim, mhlo.dynamic_reshape,
//    mhlo.real_dynamic_slice, and our mhlo.dynamic_iota) become broadcast,
//    reshape, slice and iota once their shape operands are constants;
//  * JAX's shape assertions (custom-call "shape_assertion", the message in
//    backend_config) are checked and removed; a failed one is an error with
//    its message, `{0}`, `{1}`, ... replaced by the values.
// A dimension that stays unknown, or a static shape the refined operands
// contradict, is an error naming the instruction.
#ifndef HLO_PASSES_REFINE_SHAPES_H_
#define HLO_PASSES_REFINE_SHAPES_H_

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/module.h"

namespace hlo {

// Whether `shape` (or an element of it) has an unbounded dimension.
bool HasUnboundedDims(const Shape& shape);

// Whether a shape of the entry computation or of a computation it calls has
// an unbounded dimension.
bool HasUnboundedShapes(const Module& module);

// The text of hlo-run's and hlo-opt's --refine-shapes: a tuple of the entry
// parameters' shapes (`(f32[3,4], s32[])`), or the one parameter's shape;
// an error says `--refine-shapes: ` and what is wrong with it.
absl::StatusOr<std::vector<Shape>> ParseParameterShapes(std::string_view text, ShapePool& pool);

// Refines `module` for entry parameters of the shapes `params` (one per
// parameter; layouts are taken from the module).
absl::Status RefineShapes(Module& module, absl::Span<const Shape> params);

}  // namespace hlo

#endif  // HLO_PASSES_REFINE_SHAPES_H_
