// RUN: not hlo-run %s --input "f32[0,4] {}" 2>&1 | hlo-check %s --check-prefix=ASSERT
// RUN: not hlo-run %s --input "f32[2,5] {{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}}" 2>&1 | hlo-check %s --check-prefix=DIMS
// RUN: not hlo-run %s --input "{{0, 1, 2, 3}}" 2>&1 | hlo-check %s --check-prefix=NOSHAPE
// RUN: not hlo-run %s --random-inputs 2>&1 | hlo-check %s --check-prefix=RANDOM
// RUN: not hlo-opt %s --refine-shapes="(f32[2,4], f32[1])" 2>&1 | hlo-check %s --check-prefix=COUNT
// Refinement errors name the place: a failed shape assertion gives JAX's
// message with the values in it; an input whose static dimension differs
// from the module's; an input with no shape to refine for; random inputs,
// which have no shape to give; a refinement with the wrong parameter count.
module @jit_f attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %c = stablehlo.constant dense<1> : tensor<i64>
    %2 = stablehlo.compare  GE, %1, %c,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%2, %1) {api_version = 2 : i32, error_message = "Expected value >= 1 for dimension variable 'b'. Obtained dimension variables: 'b' = {0}.", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
    %3 = stablehlo.sine %arg0 : tensor<?x4xf32>
    return %3 : tensor<?x4xf32>
  }
}

// ASSERT: unbounded_errors.mlir:16:5: error: %custom-call.{{[0-9]+}}: shape assertion failed: Expected value >= 1 for dimension variable 'b'. Obtained dimension variables: 'b' = 0.
// DIMS: unbounded_errors.mlir:11:26: error: %Arg_0.1: takes f32[?,4], given f32[2,5]
// NOSHAPE: error: parameter 0 'Arg_0.1' (f32[?,4]): shape f32[?,4] has no static size
// RANDOM: hlo-run: error: parameter 0 'Arg_0.1' (f32[?,4]) has unbounded dimensions: give its values with --input
// COUNT: hlo-opt: error: the entry computation takes 1 parameter, 2 shapes given
